"""Evaluation: each rule fires once per transition, never while its condition merely holds, never twice for
one snapshot."""

from __future__ import annotations

import datetime as dt

from solvelens.alerts.evaluate import BotRank, Facts, Move, ProblemChange, StateRow, evaluate
from solvelens.alerts.rules import parse_rules

NOW = dt.datetime(2026, 1, 5, 12, tzinfo=dt.UTC)
A = Move("b-a", "Alpha", 2, 1)
B = Move("b-b", "Beta", 1, 2)


def _facts(snapshot_id: int = 2, previous_id: int | None = 1, **kwargs: object) -> Facts:
    return Facts("plat", NOW, snapshot_id, previous_id, **kwargs)  # type: ignore[arg-type]


def _run(rules: list[str], facts: Facts, state: list[StateRow]) -> tuple[list[str], list[StateRow]]:
    """Evaluate and apply the state rows like the store does (upsert by rule, subject)."""
    outcome = evaluate(parse_rules(rules), facts, state)
    merged = {(s.rule, s.subject): s for s in state}
    merged.update({(s.rule, s.subject): s for s in outcome.state})
    return [a.message for a in outcome.alerts], list(merged.values())


def test_event_rules_fire_for_the_change_and_never_again_for_the_same_snapshot() -> None:
    facts = _facts(
        entered={1: [A], 10: [Move("b-c", "Gamma", 11, 9)]},
        left={1: [B], 10: [Move("b-d", "Delta", 10, 12)]},
        moves=[Move("b-e", "Eps", 3, 12), Move("b-f", "Phi", 12, 3)],
        status_changes=[
            ProblemChange("p-1", "Sort a list", "active", "mature"),
            ProblemChange("p-2", "Parse", "pending", "active"),
        ],
    )
    rules = ["new-leader", "top 10 entered", "top 10 left", "rank-drop >= 5", "problem matured"]
    fired, state = _run(rules, facts, [])
    assert fired == [
        "new leader: Alpha took #1 (was #2; #1 before: Beta)",
        "Gamma entered the top 10: #11 -> #9",
        "Delta left the top 10: #10 -> #12",
        "Eps dropped 9 places: #3 -> #12",
        "problem matured: Sort a list (active -> mature)",
    ]
    assert _run(rules, facts, state)[0] == []  # the same snapshot evaluated again: nothing


def test_a_snapshot_where_nothing_changed_fires_nothing() -> None:
    rules = ["new-leader", "top 10 entered", "top 10 left", "rank-drop >= 1", "problem matured"]
    fired, state = _run(rules, _facts(), [])
    assert fired == []
    assert {s.snapshot_id for s in state} == {2}


def test_the_first_snapshot_of_a_platform_fires_no_event_rule() -> None:
    assert _run(["new-leader", "top 3 entered"], _facts(1, None, entered={1: [A], 3: [A]}), [])[0] == []


def test_a_rule_limited_to_a_bot_ignores_the_others() -> None:
    facts = _facts(left={3: [Move("b-x", "X", 2, 4), Move("b-y", "Y", 3, 5)]}, moves=[Move("b-x", "X", 2, 9)])
    assert _run(["top 3 left y", "rank-drop >= 2 b-y"], facts, [])[0] == ["Y left the top 3: #3 -> #5"]


def test_a_rank_drop_below_k_and_a_rise_do_not_fire() -> None:
    facts = _facts(moves=[Move("b-x", "X", 2, 5), Move("b-y", "Y", 9, 1)])
    assert _run(["rank-drop >= 4"], facts, [])[0] == []
    assert _run(["rank-drop >= 3"], facts, [])[0] == ["X dropped 3 places: #2 -> #5"]


def test_my_bot_fires_when_it_falls_below_n_and_again_only_after_recovering() -> None:
    rules = ["my-bot rank > 10"]
    fired, state = _run(rules, _facts(2, my_bot=BotRank("me", "Mine", 12)), [])
    assert fired == ["your bot Mine is ranked #12 (rule: rank > 10)"]
    fired, state = _run(rules, _facts(3, my_bot=BotRank("me", "Mine", 14)), state)
    assert fired == []  # still below: no repeat
    fired, state = _run(rules, _facts(4, my_bot=None), state)
    assert fired == []  # a snapshot without /bot/me changes nothing
    fired, state = _run(rules, _facts(5, my_bot=BotRank("me", "Mine", 9)), state)
    assert fired == []  # recovered: re-armed
    fired, state = _run(rules, _facts(6, my_bot=BotRank("me", "Mine", None)), state)
    assert fired == ["your bot Mine is not on the leaderboard (rule: rank > 10)"]


def test_stale_fires_once_and_rearms_after_a_fresh_snapshot() -> None:
    rules = ["stale > 2 hours"]
    old = NOW - dt.timedelta(hours=3)
    facts = Facts("plat", NOW, last_complete_at=old)
    fired, state = _run(rules, facts, [])
    assert fired == [f"no complete snapshot for 3.0 hours (rule: > 2 hours; last: {old.isoformat()})"]
    assert _run(rules, Facts("plat", NOW + dt.timedelta(hours=1), last_complete_at=old), state)[0] == []
    fired, state = _run(rules, Facts("plat", NOW, 9, 8, last_complete_at=NOW), state)  # a fresh snapshot
    assert fired == []
    later = NOW + dt.timedelta(hours=2, minutes=30)
    assert len(_run(rules, Facts("plat", later, last_complete_at=NOW), state)[0]) == 1


def test_a_store_without_snapshots_is_stale_from_when_watching_started() -> None:
    facts = Facts("plat", NOW, watching_since=NOW - dt.timedelta(hours=5))
    assert _run(["stale > 4 hours"], facts, [])[0] == [
        "no complete snapshot for 5.0 hours (rule: > 4 hours; last: never)"
    ]


def test_a_staleness_check_leaves_event_rules_alone() -> None:
    facts = Facts("plat", NOW, last_complete_at=NOW)
    outcome = evaluate(parse_rules(["new-leader", "my-bot rank > 3"]), facts, [])
    assert outcome.alerts == [] and outcome.state == []


def test_a_bot_that_falls_off_the_leaderboard_fires_rank_drop_whatever_k() -> None:
    facts = _facts(dropped_off=[Move("b-a", "Alpha", 1, None), Move("b-z", "Zed", 40, None)])
    fell = "Alpha fell off the leaderboard: #1 -> unranked"
    assert _run(["rank-drop >= 100 alpha"], facts, [])[0] == [fell]
    assert _run(["rank-drop >= 1"], facts, [])[0] == [
        "Alpha fell off the leaderboard: #1 -> unranked",
        "Zed fell off the leaderboard: #40 -> unranked",
    ]
