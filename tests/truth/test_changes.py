"""The report's "What changed" section against the platform's truth (issue 29): a pair where a bot renamed
itself and no points moved shows the rename (``solvelens diff`` does), never "Only points or platform
figures changed". The truth is the sandbox's ``bots`` table at both snapshots (SQL in
:func:`tests.truth.sandbox_truth.renamed_bots`)."""

from __future__ import annotations

import html
import re

from tests.truth.conftest import snap_of
from tests.truth.sandbox_truth import renamed_bots
from tests.truth.scenario import Scenario


def _prev_block(report: str) -> str:
    """The HTML of the "Since the previous snapshot" block of the "What changed" section."""
    start = report.index("Since the previous snapshot: #")
    end = report.find("Since 7 days earlier", start)
    end = report.find("Since the first snapshot", start) if end < 0 else end
    return html.unescape(report[start : end if end > 0 else len(report)])


def test_a_rename_shows_in_what_changed(history: Scenario, history_report: str) -> None:
    truth = renamed_bots(snap_of(history, "gap").truth, snap_of(history, "renamed").truth)
    assert [r["bot_id"] for r in truth] == [history.marks["renamed"]]
    block = _prev_block(history_report)
    assert "Only points or platform figures changed" not in block
    assert re.search(r"1 bot\(s\) renamed", block), block[:400]
    for row in truth:
        assert row["name_before"] in block and row["name_after"] in block
