"""The store views that say what a snapshot holds against what the platform announced or served, after each
snapshot of each scenario, against plain SQL on the sandbox's database frozen right after it: every
``data_quality`` row (and no other), the ``activity_gaps`` a turned-over feed leaves, the votes announced and
stored (``vote_coverage``) and the solutions announcing more votes than any list serves
(``comparison_coverage``)."""

from __future__ import annotations

import itertools

import pytest

from tests.truth import sandbox_truth as truth
from tests.truth.checks import activity_gap_checks, data_quality_checks, vote_checks
from tests.truth.compare import report
from tests.truth.conftest import OTHER_MODES, snap_of
from tests.truth.scenario import Scenario

HISTORY = ("fresh", "hour", "gap", "renamed")
MODES = ("fresh", "day", "counted")


def _written(scenario: Scenario, label: str):
    snap = snap_of(scenario, label)
    assert snap.exit_code == 0 and snap.snapshot_id is not None, snap.output
    return snap


@pytest.mark.parametrize("label", HISTORY)
def test_history_data_quality_rows_are_the_platforms_counts(history: Scenario, label: str):
    lines = data_quality_checks(history, _written(history, label))
    assert not lines, report(lines)


@pytest.mark.parametrize("mode", OTHER_MODES)
@pytest.mark.parametrize("label", MODES)
def test_each_convention_mode_data_quality_rows_are_the_platforms_counts(
    modes: dict[str, Scenario], mode: str, label: str
):
    lines = data_quality_checks(modes[mode], _written(modes[mode], label))
    assert not lines, report(lines)


def test_votes_data_quality_rows_are_the_platforms_counts(votes: Scenario):
    snap = _written(votes, "fresh")
    assert any(r["differs"] for r in truth.data_quality(snap.truth, votes=True)), "capped lists planted"
    lines = data_quality_checks(votes, snap)
    assert not lines, report(lines)


def _pairs(scenario: Scenario, labels: tuple[str, ...]) -> list[str]:
    snaps = [_written(scenario, label) for label in labels]
    lines = activity_gap_checks(scenario, None, snaps[0])
    for before, after in itertools.pairwise(snaps):
        lines += activity_gap_checks(scenario, before, after)
    return lines


def test_history_activity_gaps_are_where_the_feed_turned_over(history: Scenario):
    """The two simulated days by hand turn the feed over (a gap at ``gap``); an hour does not."""
    before, gap = snap_of(history, "hour"), snap_of(history, "gap")
    assert truth.activity_gap(before.truth, gap.truth), "the scenario turns the feed over"
    lines = _pairs(history, HISTORY)
    assert not lines, report(lines)


@pytest.mark.parametrize("mode", OTHER_MODES)
def test_each_convention_mode_activity_gaps_are_where_the_feed_turned_over(
    modes: dict[str, Scenario], mode: str
):
    lines = _pairs(modes[mode], MODES)
    assert not lines, report(lines)


@pytest.mark.parametrize("figure", ["vote_coverage", "comparison_coverage"])
def test_vote_coverage_is_the_platforms_votes_announced_and_reachable(votes: Scenario, figure: str):
    lines = vote_checks(votes, _written(votes, "fresh"))[figure]
    assert not lines, report(lines)
