"""The report's model rankings against the platform's truth: the arena (Bradley–Terry fitted here with choix
to the votes the sandbox's SQLite holds, :mod:`tests.truth.model_truth`), its charts, caption, the
three-rankings table and its sentence, on the ``votes`` report (snapshots a day apart, every vote list read,
a vote no count announces, a pair of solutions with more votes than a list serves, a voted problem rejected
between them, then votes cast and a snapshot at the same platform time); and the percentile
leaderboard's chart and table on every report (their intervals resampled over problems, recomputed here)."""

from __future__ import annotations

import pytest

from tests.truth import model_truth as mt
from tests.truth import sandbox_truth as truth
from tests.truth.chart_checks import chart_rows
from tests.truth.compare import mismatches, report
from tests.truth.model_checks import ARENA_CHECKS, MODEL_CHECKS, arena_windows, settle, table_rows
from tests.truth.scenario import Scenario


@pytest.mark.parametrize("check", list(ARENA_CHECKS))
def test_the_arena_is_the_platforms_votes_fitted(votes: Scenario, votes_report: str, check: str) -> None:
    lines = ARENA_CHECKS[check](votes, votes_report)
    assert not lines, report(lines)


def test_the_arena_checks_read_what_the_page_draws(votes: Scenario, votes_report: str) -> None:
    """The arena's charts and table are on the page (a missing one would pass its check vacuously), and the
    planted cases reach the fit: the rejected problem's votes are unmatched, the capped pair's and the
    hidden vote are between solutions of one model (neither reports one: ``unknown``), two windows."""
    windows = arena_windows(votes)
    assert len(windows) == 3, [w[0].label for w in windows]
    fit, last = windows[-1][2], windows[-1][1]
    assert last.unmatched > 0 and last.skips > 0 and last.same_entry >= 50 + 3
    ranked = [m for m, r in fit.items() if r["ranked"]]
    assert len(ranked) >= 5
    assert len(chart_rows(votes_report, "arena_scores", "label", "score")) == len(ranked)
    assert chart_rows(votes_report, "arena_win_rate", "p_a_wins")
    assert {r["snapshot_id"] for r in chart_rows(votes_report, "arena_rank", "snapshot_id", "rank")} == {
        w[0].snapshot_id for w in windows
    }
    assert len(table_rows(votes_report)) >= len(ranked)
    assert len({r["rank"] for r in fit.values() if r["ranked"]}) > 1, "the ranks tell models apart"
    assert mt.N_BOOT == 1000


@pytest.mark.parametrize("which", ["votes", "tied", "history"])
def test_the_percentile_leaderboard_chart_and_table_are_the_platforms(
    request: pytest.FixtureRequest, which: str
) -> None:
    scenario, page = {
        "votes": lambda: (request.getfixturevalue("votes"), request.getfixturevalue("votes_report")),
        "tied": lambda: (
            request.getfixturevalue("tied_history"),
            request.getfixturevalue("tied_pages")["report"],
        ),
        "history": lambda: (request.getfixturevalue("history"), request.getfixturevalue("history_report")),
    }[which]()
    assert chart_rows(page, "model_leaderboard", "llm_model", "lo"), "the chart is drawn"
    assert "Mean percentile [95% interval]" in page, "the table is drawn"
    lines = [line for check in MODEL_CHECKS.values() for line in check(scenario, page)]
    assert not lines, report(lines)


def test_the_bot_arena_the_notebook_draws_is_the_platforms_votes_fitted(votes: Scenario) -> None:
    """The arena of bots (``analysis.arena(store, by="bot")``: the frame the arena notebook's bot charts
    draw) on the ``votes`` store, against Bradley–Terry fitted here to the votes the sandbox's SQLite holds,
    each side named by its bot's public id and labelled with the bot's name at the newest snapshot.

    Scores and bounds to 1e-4 relative (0.2 Elo points at 2000; the notebook shows whole points): with ~30
    entries the analysis stops choix's iteration at its stated ``tol=1e-6·n``, and a bot that (nearly) never
    loses converges slowest (seen: 0.03 points off the fit to 1e-10 here)."""
    from solvelens import analysis as an

    truths = [s.truth for s in votes.snaps if s.snapshot_id is not None]
    fit = mt.arena_fit(mt.arena_votes(truths, truths[-1], by="bot"))
    names = {s["bot_id"]: s["bot_name"] for s in truth.solutions(truths[-1])}
    shown = {r["entry"]: r for r in an.arena(an.load(votes.store), by="bot").ranking.to_dicts()}
    want = [settle({"entry": bot, "label": names[bot], **row}, shown.get(bot)) for bot, row in fit.items()]
    assert sum(row["ranked"] for row in fit.values()) >= 3, "enough votes to rank bots apart"
    lines = mismatches("arena by bot", list(shown.values()), want, ("entry",), rel=1e-4)
    assert not lines, report(lines)
