"""solvelens.analysis.load: read-only load of the public views into polars, connection closed at once."""

from __future__ import annotations

import datetime as dt
import subprocess
import sys
from pathlib import Path

import duckdb
import polars as pl
import pytest

from solvelens.analysis import NotAStoreError, StoreNotFoundError, load
from tests.fixtures.store import StoreSpec

UTC_TIME = pl.Datetime("us", "UTC")


def test_load_reads_every_frame_with_documented_types(store_db: Path, store_spec: StoreSpec) -> None:
    store = load(store_db)
    expected_snapshots = store_spec.days - len(store_spec.gap_days) + len(store_spec.extra_snapshot_days)
    assert store.snapshot_count == expected_snapshots
    snapshots = store.snapshots.collect()
    assert snapshots["taken_at"].dtype == UTC_TIME
    assert snapshots["taken_at"].is_sorted()
    assert store.latest_snapshot_id == snapshots["snapshot_id"][-1]
    leaderboard = store.leaderboard.collect()
    assert leaderboard.schema["rank"] == pl.Int32
    assert leaderboard.schema["points"] == pl.Int64
    assert leaderboard.schema["elo"] == pl.Float64
    assert leaderboard["snapshot_id"].n_unique() == expected_snapshots
    assert "raw" not in leaderboard.columns
    # Problems and solutions: the newest snapshot only; problem_counts: every snapshot, aggregated.
    assert store.problems.collect()["snapshot_id"].unique().to_list() == [store.latest_snapshot_id]
    assert store.solutions.collect()["snapshot_id"].unique().to_list() == [store.latest_snapshot_id]
    counts = store.problem_counts.collect()
    assert counts["snapshot_id"].n_unique() == expected_snapshots
    assert counts.schema["problems"] == pl.Int64
    with duckdb.connect(str(store_db), read_only=True) as con:
        per_snapshot = dict(con.sql("SELECT snapshot_id, count(*) FROM problems GROUP BY 1").fetchall())
    loaded = dict(counts.group_by("snapshot_id").agg(pl.col("problems").sum()).iter_rows())
    assert loaded == per_snapshot


def test_load_closes_the_file_so_another_process_can_write(store_db: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy.duckdb"
    copy.write_bytes(store_db.read_bytes())
    load(copy)
    # DuckDB refuses a read-write open from another process while any process holds the file.
    code = f"import duckdb; con = duckdb.connect({str(copy)!r}); con.execute('CREATE TABLE t (x INT)')"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr


def test_last_days_and_since_limit_the_snapshots(store_db: Path) -> None:
    everything = load(store_db).snapshots.collect()
    newest = everything["taken_at"][-1]
    week = load(store_db, last_days=7).snapshots.collect()
    assert week["taken_at"].min() >= newest - dt.timedelta(days=7)
    assert 6 <= week.height <= 8
    since = everything["taken_at"][10]
    later = load(store_db, since=since)
    assert later.snapshots.collect()["taken_at"].min() == since
    assert later.leaderboard.collect()["snapshot_id"].min() == everything["snapshot_id"][10]


def test_empty_store_is_not_an_error(empty_store_db: Path) -> None:
    store = load(empty_store_db)
    assert store.snapshot_count == 0
    assert store.latest_snapshot_id is None
    assert store.leaderboard.collect().is_empty()
    assert store.leaderboard.collect().schema["rank"] == pl.Int32


def test_missing_file_names_the_path_and_the_fix(tmp_path: Path) -> None:
    missing = tmp_path / "nope.duckdb"
    with pytest.raises(StoreNotFoundError) as info:
        load(missing)
    assert str(missing) in str(info.value)
    assert "solvelens snapshot" in str(info.value)
    assert not missing.exists()


def test_a_file_without_the_views_is_not_a_store(tmp_path: Path) -> None:
    other = tmp_path / "other.duckdb"
    with duckdb.connect(str(other)) as con:
        con.execute("CREATE TABLE snapshots (snapshot_id BIGINT)")
    with pytest.raises(NotAStoreError, match="missing views"):
        load(other)
    garbage = tmp_path / "garbage.duckdb"
    garbage.write_bytes(b"not a database at all" * 100)
    with pytest.raises(NotAStoreError, match=str(garbage)):
        load(garbage)
