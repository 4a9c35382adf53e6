"""The scheduled compaction (``solvelens schedule``'s weekly deployment) as a real Prefect flow run: the store
is rewritten in place with every row kept, and the run's artifact gives the sizes (issue 30)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import duckdb
import pytest

from tests.fixtures.history import build_history


def _rows(db: Path) -> list[tuple[object, ...]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        sql = "SELECT snapshot_id, bot_id, rank, points FROM leaderboard ORDER BY ALL"
        return con.execute(sql).fetchall()
    finally:
        con.close()


def test_the_compaction_flow_rewrites_the_store_and_keeps_every_row(
    prefect_harness: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    from prefect.client.orchestration import get_client

    from solvelens.flows.compact import ARTIFACT_KEY, compact_flow

    db = build_history(tmp_path / "store.duckdb", days=1, per_day=6, bots=20, problems=10)
    before = _rows(db)
    monkeypatch.setattr(sys, "unraisablehook", sys.__unraisablehook__)
    result = asyncio.run(compact_flow(str(db)))
    # the run's body installed it (tests/flows/test_termination.py: a SIGTERM inside a callback)
    assert getattr(sys.unraisablehook, "redelivers_termination", False)
    assert result["path"] == str(db) and result["after_bytes"] == db.stat().st_size
    assert _rows(db) == before and len(before) == 6 * 20

    async def artifact() -> str:
        async with get_client() as client:
            found = await client.read_latest_artifacts()
            return next(a.data for a in found if a.key == ARTIFACT_KEY)

    assert f"{result['after_bytes']:,} bytes" in asyncio.run(artifact())
