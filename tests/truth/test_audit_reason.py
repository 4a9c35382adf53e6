"""At the default budget the lists trusted by their counts are re-read in turn (the audit), so a vote
counted on neither side (a deadlocked submit: the vote row written, no count moved) may not be stored yet.
The store's ``data_quality`` row of the votes must say so: a row saying only that "the platform's count
disagrees with the rows it lists" explains no vote missing from the store (the sweep of
``benchmarks/truth.py`` found 13 and 6 votes reachable but not stored at the ``guidance`` and ``lazy``
snapshots, no list pending, with only that reason). Truth: the votes each solution's list serves, by SQL
on the frozen sandbox database."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.truth import sandbox_truth as truth
from tests.truth.scenario import Scenario, Snap
from tests.truth.store_views import view_rows


@pytest.fixture(scope="module")
def audited(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Scenario, Snap]]:
    """Seed 6: a vote counted on neither side, every list read (``--budget all``: the vote is found, so more
    votes are stored than the counts announce), then a vote counted on neither side between two solutions
    whose lists are trusted by their counts, and a snapshot at the default budget."""
    scenario = Scenario.start(tmp_path_factory.mktemp("truth-audit"), seed=6, resources="comparisons")
    try:
        scenario.marks["hidden"] = scenario.hidden_vote()
        scenario.snapshot("complete", "--budget", "all")
        scenario.marks["uncounted"] = scenario.uncounted_vote()
        snap = scenario.snapshot("audit")
        assert [s.exit_code for s in scenario.snaps] == [0, 0], [s.output for s in scenario.snaps]
        yield scenario, snap
    finally:
        scenario.stop()


def test_a_partial_audit_is_named_by_the_votes_data_quality_row(audited: tuple[Scenario, Snap]):
    scenario, snap = audited
    (coverage,) = view_rows(scenario.store, "vote_coverage", snap.snapshot_id)
    assert coverage["lists_pending"] == 0, coverage  # every list read once: only the audit is left
    assert coverage["audit_cycle"] is not None and coverage["audit_cycle"] > 1, coverage
    (row,) = [
        r
        for r in view_rows(scenario.store, "data_quality", snap.snapshot_id)
        if r["resource"] == "comparisons" and r["scope"] == ""
    ]
    assert row["stored"] > row["announced"]  # the hidden vote of the first snapshot, found
    assert row["reason"] is not None and "trusted by their counts" in row["reason"], row
    assert f"each within {coverage['audit_cycle']} snapshots" in row["reason"], row


def test_a_vote_missing_from_the_store_is_one_a_partial_audit_may_not_have_reached(
    audited: tuple[Scenario, Snap],
):
    scenario, snap = audited
    stored = {
        v["comparison_id"]
        for v in view_rows(scenario.store, "comparisons", where=f"first_snapshot_id <= {snap.snapshot_id}")
    }
    missing = {v["comparison_id"] for v in truth.reachable_votes(snap.truth)} - stored
    assert missing <= {scenario.marks["uncounted"]}, missing  # nothing else is left unread
    (row,) = [
        r
        for r in view_rows(scenario.store, "data_quality", snap.snapshot_id)
        if r["resource"] == "comparisons" and r["scope"] == ""
    ]
    if missing:
        assert "trusted by their counts" in (row["reason"] or ""), row
