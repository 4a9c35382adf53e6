"""The alert state table: upserts in one locked transaction, created in stores written before it existed,
rolled back when the decision fails, kept by compaction."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import pytest

from solvelens.store import StoreLockTimeout, compact, store_lock, write_snapshot
from solvelens.store.alerts import read_alert_state, update_alert_state
from tests.store.fakes import make_platform, stage_run


@pytest.fixture
def store(tmp_path: Path) -> Path:
    path = tmp_path / "store.duckdb"
    write_snapshot(path, stage_run(tmp_path / "staging", make_platform()))
    return path


def _row(rule: str, subject: str = "", active: bool = False, snapshot_id: int | None = 1) -> dict[str, Any]:
    return {"rule": rule, "subject": subject, "active": active, "snapshot_id": snapshot_id}


def test_rows_are_upserted_per_platform_rule_and_subject(store: Path) -> None:
    seen: list[list[dict[str, Any]]] = []

    def decide(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        seen.append(rows)
        return [_row("new-leader", snapshot_id=len(seen)), _row("my-bot rank > 3", "b-1", active=True)]

    update_alert_state(store, "plat-a", decide)
    update_alert_state(store, "plat-a", decide)
    assert seen[0] == []
    assert seen[1] == [_row("my-bot rank > 3", "b-1", True, 1), _row("new-leader", snapshot_id=1)]
    assert read_alert_state(store, "plat-a") == [
        _row("my-bot rank > 3", "b-1", True, 1),
        _row("new-leader", snapshot_id=2),
    ]
    assert read_alert_state(store, "plat-b") == []  # another platform has its own state


def test_a_store_written_before_the_table_gets_it_on_first_use(store: Path) -> None:
    con = duckdb.connect(str(store))
    con.execute("DROP TABLE solvelens_store.alert_state")
    con.close()
    assert read_alert_state(store, "plat") == []
    update_alert_state(store, "plat", lambda rows: [_row("problem matured")])
    assert read_alert_state(store, "plat") == [_row("problem matured")]


def test_a_failing_decision_writes_nothing(store: Path) -> None:
    update_alert_state(store, "plat", lambda rows: [_row("new-leader")])

    def fail(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        update_alert_state(store, "plat", fail)
    assert read_alert_state(store, "plat") == [_row("new-leader")]


def test_the_state_waits_for_the_writer_lock(store: Path) -> None:
    with store_lock(store, exclusive=True, timeout_s=1), pytest.raises(StoreLockTimeout):
        update_alert_state(store, "plat", lambda rows: [_row("new-leader")], lock_timeout_s=0.3)
    assert read_alert_state(store, "plat") == []


def test_compaction_keeps_the_state(store: Path) -> None:
    update_alert_state(store, "plat", lambda rows: [_row("stale > 2 hours", active=True, snapshot_id=None)])
    compact(store)
    assert read_alert_state(store, "plat") == [_row("stale > 2 hours", active=True, snapshot_id=None)]
