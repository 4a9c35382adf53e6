"""Totals and "new in this snapshot" apart in the snapshot summary (issue 29: "Records in the last snapshot:
... comparisons 249" mixed the votes new in the snapshot with totals). The truth is SQL on the ``votes``
scenario's store: the votes its newest snapshot stored first."""

from __future__ import annotations

import re

import duckdb

from tests.truth.checks import _SUMMARY_ROW
from tests.truth.scenario import Scenario


def test_the_summary_keeps_totals_and_new_records_apart(votes: Scenario) -> None:
    snap = votes.snaps[-1]
    with duckdb.connect(str(votes.store), read_only=True) as con:
        new = con.execute(
            "SELECT count(*) FROM comparisons WHERE first_snapshot_id = ?", [snap.snapshot_id]
        ).fetchone()[0]
    assert new > 0
    totals = {m.group(1) for m in _SUMMARY_ROW.finditer(snap.output)}
    assert "problems" in totals and "comparisons" not in totals and "activity" not in totals
    line = re.search(r"New in this snapshot \(not totals\): (.*)", snap.output)
    assert line is not None, snap.output
    assert f"comparisons {new:,}" in line.group(1)
