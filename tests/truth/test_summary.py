"""The snapshot summary's figures (rows per resource, events in the activity feed, the snapshot's time)
against the sandbox's database frozen right after the snapshot."""

from __future__ import annotations

import pytest

from tests.truth.checks import clock_of, summary_checks
from tests.truth.compare import report
from tests.truth.conftest import OTHER_MODES
from tests.truth.scenario import Scenario
from tests.truth.store_views import view_rows
from tests.truth.test_views import FEED_20, SHORT_FEED_MODES


@pytest.mark.parametrize("label", ["fresh", "hour", "gap", "renamed"])
def test_platform_history_summary_matches_the_sandbox(history: Scenario, label: str):
    snap = next(s for s in history.snaps if s.label == label)
    lines = [line for figure in summary_checks(snap).values() for line in figure]
    assert not lines, report(lines)
    taken = view_rows(history.store, "snapshots", snap.snapshot_id)[0]
    assert taken["status"] == "complete" and taken["taken_at"] == clock_of(snap)
    assert f"snapshot {snap.snapshot_id} taken at {clock_of(snap):%Y-%m-%dT%H:%M:%SZ}" in snap.output


@pytest.mark.parametrize(
    "mode", [pytest.param(m, marks=[FEED_20] if m in SHORT_FEED_MODES else []) for m in OTHER_MODES]
)
def test_each_convention_mode_summary_matches_the_sandbox(modes: dict[str, Scenario], mode: str):
    lines = [
        line for snap in modes[mode].snaps for figure in summary_checks(snap).values() for line in figure
    ]
    assert not lines, report(lines)
