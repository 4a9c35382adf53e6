"""``solvelens diff A B`` (terminal, ``--json``, ``--csv``) for pairs of snapshots an hour apart, across a
gap of days, across a rename and in every convention mode, against the same changes computed by SQL over
the two frozen copies of the sandbox's database (:mod:`tests.truth.sandbox_truth`)."""

from __future__ import annotations

import pytest

from tests.truth.checks import DIFF_KINDS, Checks, diff_checks, diff_truth
from tests.truth.compare import report
from tests.truth.conftest import OTHER_MODES, snap_of
from tests.truth.scenario import Scenario

FIGURES = (
    *(f"diff json {k}" for k in DIFF_KINDS),
    "diff json counts",
    "diff times",
    "diff terminal",
    "diff csv",
    "diff renamed",
)
HISTORY_PAIRS = (("fresh", "hour"), ("hour", "gap"), ("gap", "renamed"), ("fresh", "gap"))
_CACHE: dict[tuple[int, str, str], Checks] = {}


def checks_of(scenario: Scenario, a: str, b: str) -> Checks:
    """:func:`diff_checks` of the pair, computed once per session."""
    key = (id(scenario), a, b)
    if key not in _CACHE:
        _CACHE[key] = diff_checks(scenario, snap_of(scenario, a), snap_of(scenario, b))
    return _CACHE[key]


@pytest.mark.parametrize(
    ("a", "b", "figure"),
    [pytest.param(a, b, f, id=f"{a}-{b}-{f}") for a, b in HISTORY_PAIRS for f in FIGURES],
)
def test_platform_history_diff_matches_the_sandbox(history: Scenario, a: str, b: str, figure: str):
    lines = checks_of(history, a, b)[figure]
    assert not lines, report(lines)


@pytest.mark.parametrize("figure", FIGURES)
@pytest.mark.parametrize("mode", OTHER_MODES)
def test_each_convention_mode_diff_matches_the_sandbox(modes: dict[str, Scenario], mode: str, figure: str):
    lines = checks_of(modes[mode], "fresh", "day")[figure]
    assert not lines, report(lines)


def test_the_gap_pair_changed_in_every_kind_the_truth_knows(history: Scenario):
    """The scenario is not vacuous: across the gap the platform changed in most kinds (so the diff tests
    above compared non-empty lists), a problem left the listing; at the rename only a name changed."""

    gap = diff_truth(snap_of(history, "hour"), snap_of(history, "gap"))
    changed = {k for k, rows in gap.items() if rows}
    assert {"problems_added", "problems_removed", "status_changes", "solutions_added", "points"} <= changed
    rename = diff_truth(snap_of(history, "gap"), snap_of(history, "renamed"))
    assert {k for k, rows in rename.items() if rows} == {"renamed_bots"}, rename
