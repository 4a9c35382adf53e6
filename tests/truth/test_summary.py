"""The snapshot summary's figures (rows per resource, events in the activity feed, the snapshot's time)
against the sandbox's database frozen right after the snapshot."""

from __future__ import annotations

import pytest

from tests.truth.checks import clock_of, feed_gap_checks, summary_checks
from tests.truth.compare import report
from tests.truth.conftest import OTHER_MODES, snap_of
from tests.truth.scenario import Scenario
from tests.truth.store_views import view_rows


@pytest.mark.parametrize("label", ["fresh", "hour", "gap", "renamed"])
def test_platform_history_summary_matches_the_sandbox(history: Scenario, label: str):
    snap = next(s for s in history.snaps if s.label == label)
    lines = [line for figure in summary_checks(snap).values() for line in figure]
    assert not lines, report(lines)
    taken = view_rows(history.store, "snapshots", snap.snapshot_id)[0]
    assert taken["status"] == "complete" and taken["taken_at"] == clock_of(snap)
    assert f"snapshot {snap.snapshot_id} taken at {clock_of(snap):%Y-%m-%dT%H:%M:%SZ}" in snap.output


@pytest.mark.parametrize(("before", "after"), [("fresh", "hour"), ("hour", "gap"), ("gap", "renamed")])
def test_the_activity_gap_warning_names_the_events_the_feed_no_longer_reaches(
    history: Scenario, before: str, after: str
):
    lines = feed_gap_checks(snap_of(history, before), snap_of(history, after))
    assert not lines, report(lines)
    # across days of simulated time the 50-event feed turned over; an hour or a rename leaves no gap
    assert ("events missed between event" in snap_of(history, after).output) == (after == "gap")


@pytest.mark.parametrize("mode", OTHER_MODES)
def test_each_convention_mode_summary_matches_the_sandbox(modes: dict[str, Scenario], mode: str):
    snaps = [s for s in modes[mode].snaps if s.label != "counted"]  # see test_known_defects
    lines = [line for snap in snaps for figure in summary_checks(snap).values() for line in figure]
    assert not lines, report(lines)
