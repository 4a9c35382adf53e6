"""The vote coverage sentence (``store.quality.coverage_line``) never says more than was verified: the
votes stored against those the platform's counts announce, with more stored than counted said as such (a
vote recorded without its counts), never "100 % (1,297 of 1,247)"; the lists trusted by their counts apart
from those read."""

from __future__ import annotations

from typing import Any

from solvelens.store.quality import coverage_line


def _row(**kw: Any) -> dict[str, Any]:
    base = {
        "announced": 1_247,
        "stored": 1_297,
        "requests": 12,
        "budget": 300,
        "lists_pending": 0,
        "snapshots_to_go": 0,
        "audited": 40,
        "audit_cycle": 5,
    }
    return base | kw


def test_more_votes_stored_than_counted_is_said_never_a_capped_share():
    line = coverage_line(_row())
    assert "100%" not in line and "1,297 of 1,247" not in line
    assert "votes: 1,297 stored, 50 more than the 1,247 the platform's counts announce" in line
    assert "40 lists trusted by their counts re-read (each within 5 snapshots)" in line


def test_fewer_votes_stored_than_counted_gives_the_share_and_what_is_pending():
    line = coverage_line(_row(stored=623, lists_pending=120, snapshots_to_go=4))
    assert line.startswith("votes: 623 stored of the 1,247 the platform's counts announce (50%)")
    assert "; 120 lists pending, ~4 more snapshots at this budget" in line
    assert coverage_line(None) == ""
