"""Rules x what changed x the stored alert state -> the alerts that fire now (a pure function).

Each alert fires once per transition, never again while its condition merely holds:

- Event rules (``new-leader``, ``top N entered|left``, ``rank-drop``, ``problem matured``) look at the change
  between the previous complete snapshot and the new one (:class:`Facts`, built from
  :func:`solvelens.analysis.diff`): a change is seen in exactly one pair of snapshots. The state keeps, per
  rule, the last snapshot evaluated (``subject`` ``""``), so evaluating the same snapshot again (a retried
  flow run, a second process) fires nothing.
- Level rules (``my-bot rank > N``, ``stale > H hours``) hold or not at a moment; the state keeps, per rule
  and subject, whether the condition held at the last evaluation. They fire when it starts to hold
  (including at the first evaluation) and re-arm when it stops holding.

:func:`evaluate` reads nothing and writes nothing: the caller stores :attr:`Evaluation.state` (see
:mod:`solvelens.store.alerts`) and delivers :attr:`Evaluation.alerts` (:mod:`solvelens.alerts.deliver`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from solvelens.alerts.rules import Rule

__all__ = ["Alert", "BotRank", "Evaluation", "Facts", "Move", "ProblemChange", "StateRow", "evaluate"]


@dataclass(frozen=True)
class Move:
    """A bot's leaderboard rank in the previous (``rank_before``) and the new snapshot (``rank_after``);
    ``None``: not on that snapshot's leaderboard."""

    bot_id: str
    name: str | None
    rank_before: int | None
    rank_after: int | None


@dataclass(frozen=True)
class ProblemChange:
    """A problem's status in the previous (``before``; ``None``: new problem) and the new snapshot."""

    problem_id: str
    title: str | None
    before: str | None
    after: str | None


@dataclass(frozen=True)
class BotRank:
    """The API key's bot (``/bot/me``) and its leaderboard rank in the new snapshot (``None``: not ranked)."""

    bot_id: str
    name: str | None
    rank: int | None


@dataclass(frozen=True)
class Facts:
    """What the rules look at, for one evaluation.

    ``snapshot_id``/``previous_id``: the new snapshot and the previous complete snapshot of the same platform
    (``None``: no snapshot was taken, e.g. the staleness check of ``schedule``, or the first snapshot).
    ``entered``/``left``: per top N, the bots that entered / left it between the two; ``leaders``: the bots
    that became #1 (``entered[1]``); ``moves``: bots ranked in both snapshots that moved at least as many
    places as the smallest ``rank-drop`` K (either way); ``dropped_off``: bots on the previous snapshot's
    leaderboard that are on none of the new one's (``rank_after`` ``None``); ``status_changes``: problems
    whose status changed;
    ``my_bot``: ``None`` when the snapshot has no ``/bot/me``; ``last_complete_at``: the newest complete
    snapshot's finish time (UTC; ``None``: none yet) and ``now`` (UTC) for staleness; ``watching_since``:
    when the staleness clock started (it runs from there while the store has no snapshot).
    """

    platform: str
    now: datetime
    snapshot_id: int | None = None
    previous_id: int | None = None
    entered: dict[int, list[Move]] = field(default_factory=dict)
    left: dict[int, list[Move]] = field(default_factory=dict)
    moves: list[Move] = field(default_factory=list)
    dropped_off: list[Move] = field(default_factory=list)
    status_changes: list[ProblemChange] = field(default_factory=list)
    my_bot: BotRank | None = None
    last_complete_at: datetime | None = None
    watching_since: datetime | None = None


@dataclass(frozen=True)
class StateRow:
    """One row of the stored alert state: ``rule`` (canonical text), ``subject`` (bot/problem id, ``""`` for
    the rule itself), ``active`` (the level condition held), ``snapshot_id`` (the snapshot evaluated)."""

    rule: str
    subject: str
    active: bool
    snapshot_id: int | None


@dataclass(frozen=True)
class Alert:
    """One fired alert.

    ``rule`` (canonical text) and ``kind`` (event ``solvelens.alert.<kind>``); ``subject_type`` ``bot``,
    ``problem`` or ``platform`` with ``subject_id``/``subject_name``; ``message``: one line for a person;
    ``snapshot_id`` (``None`` for staleness); ``detail``: JSON-able figures (ranks, statuses, hours).
    """

    rule: str
    kind: str
    subject_type: str
    subject_id: str
    subject_name: str | None
    message: str
    platform: str
    snapshot_id: int | None
    detail: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """The alert as plain JSON values (what the run summary and the artifact carry)."""
        return {
            "rule": self.rule,
            "kind": self.kind,
            "subject_type": self.subject_type,
            "subject_id": self.subject_id,
            "subject_name": self.subject_name,
            "message": self.message,
            "platform": self.platform,
            "snapshot_id": self.snapshot_id,
            "detail": self.detail,
        }


@dataclass(frozen=True)
class Evaluation:
    """The outcome: ``alerts`` to deliver and the ``state`` rows to store (upserts)."""

    alerts: list[Alert]
    state: list[StateRow]


def _rank(rank: int | None) -> str:
    return f"#{rank}" if rank is not None else "unranked"


def _bot_alert(rule: Rule, facts: Facts, move: Move, message: str) -> Alert:
    detail = {"rank_before": move.rank_before, "rank_after": move.rank_after}
    return Alert(
        rule.text,
        rule.kind,
        "bot",
        move.bot_id,
        move.name,
        message,
        facts.platform,
        facts.snapshot_id,
        detail,
    )


def _name(move: Move) -> str:
    return move.name or move.bot_id


def _new_leader(rule: Rule, facts: Facts) -> list[Alert]:
    before = {m.bot_id: m for m in facts.left.get(1, [])}
    old = ", ".join(_name(m) for m in before.values()) or "nobody"
    return [
        _bot_alert(
            rule, facts, m, f"new leader: {_name(m)} took #1 (was {_rank(m.rank_before)}; #1 before: {old})"
        )
        for m in facts.entered.get(1, [])
    ]


def _top(rule: Rule, facts: Facts) -> list[Alert]:
    n = rule.n or 0
    entered = rule.kind == "top-entered"
    moves = (facts.entered if entered else facts.left).get(n, [])
    verb = "entered" if entered else "left"
    return [
        _bot_alert(
            rule, facts, m, f"{_name(m)} {verb} the top {n}: {_rank(m.rank_before)} -> {_rank(m.rank_after)}"
        )
        for m in moves
        if rule.matches_bot(m.bot_id, m.name)
    ]


def _rank_drop(rule: Rule, facts: Facts) -> list[Alert]:
    """Bots that fell at least K places, and bots that fell off the leaderboard (whatever K: from #1 off
    the board is the largest drop there is)."""
    k = rule.k or 0
    dropped = [
        _bot_alert(
            rule,
            facts,
            m,
            f"{_name(m)} dropped {m.rank_after - m.rank_before} places: #{m.rank_before} -> #{m.rank_after}",
        )
        for m in facts.moves
        if m.rank_before is not None
        and m.rank_after is not None
        and m.rank_after - m.rank_before >= k
        and rule.matches_bot(m.bot_id, m.name)
    ]
    return dropped + [
        _bot_alert(rule, facts, m, f"{_name(m)} fell off the leaderboard: #{m.rank_before} -> unranked")
        for m in facts.dropped_off
        if rule.matches_bot(m.bot_id, m.name)
    ]


def _matured(rule: Rule, facts: Facts) -> list[Alert]:
    return [
        Alert(
            rule.text,
            rule.kind,
            "problem",
            c.problem_id,
            c.title,
            f"problem matured: {c.title or c.problem_id} ({c.before or 'new'} -> mature)",
            facts.platform,
            facts.snapshot_id,
            {"before": c.before, "after": c.after},
        )
        for c in facts.status_changes
        if c.after == "mature" and c.before != "mature"
    ]


_EVENT_RULES: dict[str, Callable[[Rule, Facts], list[Alert]]] = {
    "new-leader": _new_leader,
    "top-entered": _top,
    "top-left": _top,
    "rank-drop": _rank_drop,
    "problem-matured": _matured,
}


def _evaluate_event(rule: Rule, facts: Facts, state: dict[tuple[str, str], StateRow]) -> Evaluation:
    """Event rules: only for a new snapshot with a previous one, once per snapshot (the watermark)."""
    if facts.snapshot_id is None:
        return Evaluation([], [])
    mark = state.get((rule.text, ""))
    if mark is not None and mark.snapshot_id is not None and mark.snapshot_id >= facts.snapshot_id:
        return Evaluation([], [])
    alerts = _EVENT_RULES[rule.kind](rule, facts) if facts.previous_id is not None else []
    return Evaluation(alerts, [StateRow(rule.text, "", False, facts.snapshot_id)])


def _level(
    rule: Rule, facts: Facts, state: dict[tuple[str, str], StateRow], subject: str, holds: bool, alert: Alert
) -> Evaluation:
    was = state.get((rule.text, subject))
    row = StateRow(rule.text, subject, holds, facts.snapshot_id)
    if was is not None and was.active == holds:
        return Evaluation([], [])
    return Evaluation([alert] if holds else [], [row])


def _my_bot(rule: Rule, facts: Facts, state: dict[tuple[str, str], StateRow]) -> Evaluation:
    me = facts.my_bot
    if me is None:  # no /bot/me in this snapshot: nothing known, nothing changes
        return Evaluation([], [])
    n = rule.n or 0
    holds = me.rank is None or me.rank > n
    where = f"ranked #{me.rank}" if me.rank is not None else "not on the leaderboard"
    message = f"your bot {me.name or me.bot_id} is {where} (rule: rank > {n})"
    alert = Alert(
        rule.text,
        rule.kind,
        "bot",
        me.bot_id,
        me.name,
        message,
        facts.platform,
        facts.snapshot_id,
        {"rank": me.rank, "limit": n},
    )
    return _level(rule, facts, state, me.bot_id, holds, alert)


def _stale(rule: Rule, facts: Facts, state: dict[tuple[str, str], StateRow]) -> Evaluation:
    since = facts.last_complete_at or facts.watching_since
    if since is None:
        return Evaluation([], [])
    hours = (facts.now - since).total_seconds() / 3600.0
    limit = rule.hours or 0.0
    last = facts.last_complete_at.isoformat() if facts.last_complete_at else "never"
    message = f"no complete snapshot for {hours:.1f} hours (rule: > {limit:g} hours; last: {last})"
    alert = Alert(
        rule.text,
        rule.kind,
        "platform",
        facts.platform,
        None,
        message,
        facts.platform,
        facts.snapshot_id,
        {"hours": round(hours, 3), "limit_hours": limit, "last_complete_at": last},
    )
    return _level(rule, facts, state, "", hours > limit, alert)


def evaluate(rules: tuple[Rule, ...] | list[Rule], facts: Facts, state: list[StateRow]) -> Evaluation:
    """The alerts ``rules`` fire for ``facts`` given the stored ``state`` (rows of ``facts.platform``), and
    the state rows to store. Pure: reads and writes nothing."""
    known = {(row.rule, row.subject): row for row in state}
    alerts: list[Alert] = []
    rows: list[StateRow] = []
    for rule in rules:
        if rule.is_event:
            outcome = _evaluate_event(rule, facts, known)
        elif rule.kind == "my-bot-rank":
            outcome = _my_bot(rule, facts, known)
        else:
            outcome = _stale(rule, facts, known)
        alerts += outcome.alerts
        rows += outcome.state
    return Evaluation(alerts, rows)
