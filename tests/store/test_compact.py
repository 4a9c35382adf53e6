"""``solvelens.store.compact``: a fresh file swapped in atomically, every snapshot intact, crash-safe."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

from solvelens.store import (
    PUBLIC_VIEWS,
    NotAStoreError,
    StoreNotFoundError,
    compact,
    latest_solution_state,
    prune,
    read_frame,
    store_info,
    write_snapshot,
)
from solvelens.store.compact import temp_path_for
from tests.store.fakes import BASE_URL, FakePlatform, make_platform, stage_run


def _snapshots(db: Path, plat: FakePlatform, tmp_path: Path, days: int, *, full: bool = False) -> None:
    for day in range(1, days + 1):
        plat.vote(plat.problems[day % len(plat.problems)])
        plat.add_problem(3)
        carry = None if full or not db.exists() else latest_solution_state(db, BASE_URL)
        taken = f"2026-02-{day:02d}T00:00:00Z"
        write_snapshot(db, stage_run(tmp_path, plat, taken_at=taken, carry=carry, me=plat.bots[0]))


def _views(db: Path) -> dict[str, object]:
    out = {}
    for view in PUBLIC_VIEWS:
        has_raw = "raw" in read_frame(db, f"SELECT * FROM {view} LIMIT 0").columns
        frame = read_frame(db, f"SELECT * EXCLUDE (raw) FROM {view}" if has_raw else f"SELECT * FROM {view}")
        out[view] = frame.sort(frame.columns)
    return out


def test_compact_gives_back_the_space_of_pruned_snapshots_and_keeps_every_row(db: Path, tmp_path: Path):
    plat = make_platform(problems=60, solutions_per_problem=20)
    _snapshots(db, plat, tmp_path, 12, full=True)
    prune(db, keep=3)
    before_views = _views(db)
    raws = read_frame(db, "SELECT snapshot_id, solution_id, raw FROM solutions ORDER BY ALL")
    free = store_info(db)["free_bytes"]
    size = db.stat().st_size
    assert free > 0

    result = compact(db)

    assert result["before_bytes"] == size
    assert result["after_bytes"] == db.stat().st_size < size
    assert result["reclaimed_bytes"] == size - db.stat().st_size
    after_views = _views(db)
    for view in PUBLIC_VIEWS:
        assert after_views[view].equals(before_views[view]), view
    assert read_frame(db, "SELECT snapshot_id, solution_id, raw FROM solutions ORDER BY ALL").equals(raws)
    assert not temp_path_for(db).exists()
    assert not Path(f"{db}.wal").exists()
    # The compacted store takes the next snapshot (ids keep counting, carry-over works).
    carry = latest_solution_state(db, BASE_URL)
    nxt = write_snapshot(db, stage_run(tmp_path, plat, taken_at="2026-03-01T00:00:00Z", carry=carry))
    assert nxt.snapshot_id == 13
    assert nxt.counts["solutions"] == before_views["solutions"].filter(snapshot_id=12).height


def test_compact_keeps_the_block_size_and_the_stores_meta(db: Path, tmp_path: Path):
    from solvelens.store import read_store_meta, write_store_meta

    _snapshots(db, make_platform(), tmp_path, 2)
    write_store_meta(db, "created_by", "test")
    block = duckdb.connect(str(db), read_only=True)
    size_before = block.execute("SELECT block_size FROM pragma_database_size()").fetchall()[0][0]
    block.close()
    compact(db)
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT block_size FROM pragma_database_size()").fetchall()[0][0] == size_before
    con.close()
    assert read_store_meta(db)["created_by"] == "test"


def test_compact_refuses_what_is_not_a_store_and_changes_nothing(tmp_path: Path):
    with pytest.raises(StoreNotFoundError):
        compact(tmp_path / "missing.duckdb")
    foreign = tmp_path / "other.duckdb"
    con = duckdb.connect(str(foreign))
    con.execute("CREATE TABLE orders AS SELECT 1 AS id")
    con.close()
    content = foreign.read_bytes()
    with pytest.raises(NotAStoreError):
        compact(foreign)
    assert foreign.read_bytes() == content
    assert not temp_path_for(foreign).exists()


_CHILD = r"""
import sys
from solvelens.store import compact
print("STARTED", flush=True)
compact(sys.argv[1])
print("DONE", flush=True)
"""


def test_kill_9_mid_compaction_leaves_the_old_store_whole(db: Path, tmp_path: Path):
    """SIGKILL a compacting process while it copies (the temp file exists, the swap has not happened):
    the store at the path opens and holds every snapshot; the next compaction cleans up and succeeds."""
    plat = make_platform(problems=150, solutions_per_problem=40)
    _snapshots(db, plat, tmp_path, 6, full=True)
    expected = read_frame(db, "SELECT snapshot_id, count(*) AS n FROM solutions GROUP BY 1 ORDER BY 1")
    original = db.read_bytes()
    tmp = temp_path_for(db)
    landed = 0
    for attempt in range(40):
        child = subprocess.Popen(
            [sys.executable, "-c", _CHILD, str(db)], stdout=subprocess.PIPE, text=True, env=os.environ.copy()
        )
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "STARTED"
        deadline = time.monotonic() + 30
        while not tmp.exists() and child.poll() is None and time.monotonic() < deadline:
            time.sleep(0.0005)
        time.sleep(0.002 * (attempt % 5))  # land at different points of the copy
        copying = tmp.exists() and child.poll() is None
        child.send_signal(signal.SIGKILL)
        child.wait()
        if copying and db.read_bytes() == original:
            landed += 1
            # The old file opens and holds every snapshot.
            got = read_frame(db, "SELECT snapshot_id, count(*) AS n FROM solutions GROUP BY 1 ORDER BY 1")
            assert got.equals(expected)
            if landed >= 3:
                break
        else:
            # The kill landed after the swap: the compacted store holds every snapshot too.
            got = read_frame(db, "SELECT snapshot_id, count(*) AS n FROM solutions GROUP BY 1 ORDER BY 1")
            assert got.equals(expected)
            original = db.read_bytes()
    assert landed >= 1, "no SIGKILL landed during the copy in 40 attempts"
    result = compact(db)
    assert not tmp.exists()
    got = read_frame(db, "SELECT snapshot_id, count(*) AS n FROM solutions GROUP BY 1 ORDER BY 1")
    assert got.equals(expected)
    assert result["after_bytes"] == db.stat().st_size


def _raw_compression(db: Path) -> set[str]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        rows = con.execute(
            "SELECT DISTINCT compression FROM pragma_storage_info('solvelens_store.solutions_versions') "
            "WHERE column_name = 'raw' AND segment_type = 'JSON'"
        ).fetchall()
    finally:
        con.close()
    return {r[0] for r in rows}


def test_compact_moves_a_store_to_zstd_raw_json(db: Path, tmp_path: Path):
    # A first snapshot staging under store.schema.ZSTD_STAGED_BYTES keeps DuckDB's own compression.
    _snapshots(db, make_platform(problems=40, solutions_per_problem=10), tmp_path, 3)
    assert _raw_compression(db) != {"ZSTD"}
    before = read_frame(db, "SELECT * FROM solutions ORDER BY ALL")
    compact(db)
    assert _raw_compression(db) == {"ZSTD"}
    assert read_frame(db, "SELECT * FROM solutions ORDER BY ALL").equals(before)


def test_a_failed_copy_is_one_store_error_and_leaves_the_store(
    db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    import importlib

    from solvelens.store import StoreError

    compact_module = importlib.import_module("solvelens.store.compact")  # the package exports the function

    _snapshots(db, make_platform(), tmp_path, 2)
    content = db.read_bytes()

    def disk_full(src: Path, tmp: Path) -> None:
        tmp.write_bytes(b"partial")
        raise duckdb.IOException("Could not write file: No space left on device")

    monkeypatch.setattr(compact_module, "_copy", disk_full)
    with pytest.raises(StoreError, match=r"No space left on device.*left unchanged"):
        compact(db)
    assert db.read_bytes() == content
    assert not temp_path_for(db).exists()


@pytest.mark.parametrize(
    ("zstd_from", "large_from", "compression", "block_size"),
    [(0, 1 << 40, {"ZSTD"}, 16384), (1 << 40, 1 << 40, None, 16384), (0, 0, {"ZSTD"}, 262144)],
)
def test_a_first_snapshot_picks_blocks_and_raw_compression_by_its_staged_bytes(
    db: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    zstd_from: int,
    large_from: int,
    compression: set[str] | None,
    block_size: int,
) -> None:
    """A new store's raw JSON is zstd from ``ZSTD_STAGED_BYTES`` staged (the medium sandbox's 7.1 MB), its
    blocks large only from ``LARGE_STORE_STAGED_BYTES`` (64 MiB); the thresholds are moved to this small
    store's size here."""
    from solvelens.store import writer

    monkeypatch.setattr(writer, "ZSTD_STAGED_BYTES", zstd_from)
    monkeypatch.setattr(writer, "LARGE_STORE_STAGED_BYTES", large_from)
    _snapshots(db, make_platform(problems=40, solutions_per_problem=10), tmp_path, 1)
    got = _raw_compression(db)
    assert got == compression if compression is not None else "ZSTD" not in got
    con = duckdb.connect(str(db), read_only=True)
    try:
        assert con.execute("SELECT block_size FROM pragma_database_size()").fetchall()[0][0] == block_size
    finally:
        con.close()
