"""``solvelens diff A B`` (terminal, ``--json``, ``--csv``) for pairs of snapshots an hour apart, across a
gap of days, across a rename and in every convention mode, against the same changes computed by SQL over
the two frozen copies of the sandbox's database (:mod:`tests.truth.sandbox_truth`)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.truth.checks import DIFF_KINDS, Checks, diff_checks, diff_truth
from tests.truth.compare import report
from tests.truth.conftest import OTHER_MODES, snap_of
from tests.truth.scenario import Scenario

#: Mismatch lines of a known defect, asserted on their own in test_known_defects.py.
KNOWN = ("counts.solutions_added", "'Solutions added (N)'")
FIGURES = (
    *(f"diff json {k}" for k in DIFF_KINDS),
    "diff json counts",
    "diff times",
    "diff terminal",
    "diff csv",
    "diff renamed",
)
HISTORY_PAIRS = (("fresh", "hour"), ("hour", "gap"), ("gap", "renamed"), ("fresh", "gap"))
RENAME = pytest.mark.xfail(
    strict=True,
    reason="issue 23: diff says 'Nothing changed' after a bot renamed itself; fixed by helper fixes",
)
#: The figures a rename changes (the diff of a pair across a rename shows nothing today).
RENAME_FIGURES = ("diff json renamed_bots", "diff json counts", "diff terminal", "diff csv", "diff renamed")
_CACHE: dict[tuple[int, str, str], Checks] = {}


def checks_of(scenario: Scenario, a: str, b: str) -> Checks:
    """:func:`diff_checks` of the pair, computed once per session."""
    key = (id(scenario), a, b)
    if key not in _CACHE:
        _CACHE[key] = diff_checks(scenario, snap_of(scenario, a), snap_of(scenario, b))
    return _CACHE[key]


def _unknown(lines: list[str]) -> list[str]:
    return [line for line in lines if not any(k in line for k in KNOWN)]


def _history_params() -> list[Any]:
    params = []
    for a, b in HISTORY_PAIRS:
        for figure in FIGURES:
            marks = [RENAME] if figure in RENAME_FIGURES and b == "renamed" else []
            params.append(pytest.param(a, b, figure, marks=marks, id=f"{a}-{b}-{figure}"))
    return params


@pytest.mark.parametrize(("a", "b", "figure"), _history_params())
def test_platform_history_diff_matches_the_sandbox(history: Scenario, a: str, b: str, figure: str):
    lines = _unknown(checks_of(history, a, b)[figure])
    assert not lines, report(lines)


#: Found by this layer (not in issue 23's list): a problem announcing more solutions than it lists.
COUNT_NOT_ROWS = pytest.mark.xfail(
    strict=True,
    reason="truth layer: diff's solutions added follow a problem's announced solutionCount, not the "
    "solutions listed, so a count that disagrees with the rows shows a solution that does not exist; "
    "not yet assigned (helper fixes owns diff counts)",
)


def _mode_params() -> list[Any]:
    return [
        pytest.param(
            mode,
            figure,
            marks=[COUNT_NOT_ROWS] if figure in ("diff json solutions_added", "diff csv") else [],
            id=f"{mode}-{figure}",
        )
        for mode in OTHER_MODES
        for figure in FIGURES
    ]


@pytest.mark.parametrize(("mode", "figure"), _mode_params())
def test_each_convention_mode_diff_matches_the_sandbox(modes: dict[str, Scenario], mode: str, figure: str):
    lines = _unknown(checks_of(modes[mode], "fresh", "day")[figure])
    assert not lines, report(lines)


def test_the_gap_pair_changed_in_every_kind_the_truth_knows(history: Scenario):
    """The scenario is not vacuous: across the gap the platform changed in most kinds (so the diff tests
    above compared non-empty lists), a problem left the listing; at the rename only a name changed."""

    gap = diff_truth(snap_of(history, "hour"), snap_of(history, "gap"))
    changed = {k for k, rows in gap.items() if rows}
    assert {"problems_added", "problems_removed", "status_changes", "solutions_added", "points"} <= changed
    rename = diff_truth(snap_of(history, "gap"), snap_of(history, "renamed"))
    assert {k for k, rows in rename.items() if rows} == {"renamed_bots"}, rename
