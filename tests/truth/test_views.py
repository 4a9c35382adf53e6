"""Every row and field of every store view (problems, solutions with bot names and ranks, categories,
leaderboard, bots, platform_stats, the bot's own profile ``bot_me``, the model leaderboard) and the stored
activity feed, after each snapshot of each scenario, against plain SQL on the sandbox's database frozen right
after that snapshot (:mod:`tests.truth.sandbox_truth`)."""

from __future__ import annotations

import pytest

from tests.truth.checks import VIEWS, activity_checks, bot_me_checks, llm_leaderboard_checks
from tests.truth.compare import mismatches, report
from tests.truth.conftest import OTHER_MODES, snap_of
from tests.truth.scenario import Scenario
from tests.truth.store_views import view_rows

#: figure -> its checks, for the figures that are not a plain view of :data:`VIEWS`
OTHER_FIGURES = {
    "activity": activity_checks,
    "bot_me": bot_me_checks,
    "llm_leaderboard": llm_leaderboard_checks,
}
FIGURES = (*VIEWS, *OTHER_FIGURES)


def _figure_lines(scenario: Scenario, label: str, figure: str) -> list[str]:
    snap = snap_of(scenario, label)
    assert snap.exit_code == 0 and snap.snapshot_id is not None, snap.output
    if figure in OTHER_FIGURES:
        return OTHER_FIGURES[figure](scenario, snap)
    fn, key = VIEWS[figure]
    return mismatches(
        f"{figure} @ {label}", view_rows(scenario.store, figure, snap.snapshot_id), fn(snap.truth), key
    )


def _history_params() -> list[object]:
    params: list[object] = []
    for label in ("fresh", "hour", "gap", "renamed"):
        for figure in FIGURES:
            params.append(pytest.param(label, figure, id=f"{label}-{figure}"))
    return params


@pytest.mark.parametrize(("label", "figure"), _history_params())
def test_platform_history_views_match_the_sandbox(
    history: Scenario, label: str, figure: str, request: pytest.FixtureRequest
):
    lines = _figure_lines(history, label, figure)
    assert not lines, report(lines)


def _mode_params() -> list[object]:
    params: list[object] = []
    for mode in OTHER_MODES:
        for label in ("fresh", "day"):
            for figure in FIGURES:
                params.append(pytest.param(mode, label, figure, id=f"{mode}-{label}-{figure}"))
    return params


@pytest.mark.parametrize(("mode", "label", "figure"), _mode_params())
def test_each_convention_mode_views_match_the_sandbox(
    modes: dict[str, Scenario], mode: str, label: str, figure: str, request: pytest.FixtureRequest
):
    lines = _figure_lines(modes[mode], label, figure)
    assert not lines, report(lines)
