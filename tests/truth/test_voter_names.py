"""Votes answer the voter's current name (issue 29: 49 votes kept under the voter's old name although the
platform answers the new one). A sandbox with the comparisons resource: a snapshot, then the bot that cast
the most votes renamed itself (as the platform's settings route leaves it), then a second snapshot. The
truth is SQL on the sandbox's SQLite frozen right after that snapshot: each vote's voter and that bot's
name now."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

import duckdb
import pytest

from tests.truth.scenario import Scenario

NEW_NAME = "VoterRenamed"


@pytest.fixture(scope="module")
def renamed_voter(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Scenario]:
    """Seed 6, comparisons stored; snapshots ``fresh`` and ``renamed`` (the busiest voter renamed in
    between, nothing else changed); ``marks['voter']``: that bot's public id."""
    scenario = Scenario.start(tmp_path_factory.mktemp("truth-voters"), seed=6, resources="comparisons")
    try:
        fresh = scenario.snapshot("fresh")
        assert fresh.exit_code == 0, fresh.output
        with sqlite3.connect(f"file:{fresh.truth}?mode=ro", uri=True) as con:
            (voter,) = con.execute(
                "SELECT voter_bot_id FROM comparisons WHERE voter_bot_id IS NOT NULL "
                "GROUP BY voter_bot_id ORDER BY count(*) DESC, voter_bot_id LIMIT 1"
            ).fetchone()
        scenario.marks["voter"], _ = scenario.rename_bot(NEW_NAME, int(voter))
        renamed = scenario.snapshot("renamed")
        assert renamed.exit_code == 0, renamed.output
        yield scenario
    finally:
        scenario.stop()


def test_stored_votes_show_the_voters_current_name(renamed_voter: Scenario) -> None:
    codec = renamed_voter.codec()
    with sqlite3.connect(f"file:{renamed_voter.snaps[-1].truth}?mode=ro", uri=True) as con:
        truth = {
            codec.encode("comparison", cid): (codec.encode("bot", bot), name)
            for cid, bot, name in con.execute(
                "SELECT c.id, c.voter_bot_id, b.name FROM comparisons c JOIN bots b ON b.id = c.voter_bot_id"
            )
        }
    with duckdb.connect(str(renamed_voter.store), read_only=True) as con:
        shown = {
            cid: (bot, name)
            for cid, bot, name in con.execute(
                "SELECT comparison_id, voter_bot_id, voter_bot_name FROM comparisons"
            ).fetchall()
        }
    renamed = renamed_voter.marks["voter"]
    by_renamed = [cid for cid, (bot, _) in shown.items() if bot == renamed]
    assert by_renamed, "the renamed bot cast stored votes"
    wrong = {cid: (shown[cid], truth[cid]) for cid in shown if cid in truth and shown[cid] != truth[cid]}
    assert not wrong, (
        f"{len(wrong)} of {len(shown)} stored votes show another name: {list(wrong.items())[:3]}"
    )
    assert all(shown[cid][1] == NEW_NAME for cid in by_renamed)
