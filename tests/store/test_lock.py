"""One writer at a time: a second writer waits a bounded time, then fails naming the lock; readers share."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

from solvelens.store import (
    StoreLockTimeout,
    lock_path_for,
    open_readonly,
    read_frame,
    store_lock,
    write_snapshot,
)
from tests.store.fakes import FakePlatform, stage_run

_HOLDER = r"""
import sys, time
from solvelens.store import open_writer
with open_writer(sys.argv[1]):
    print("HOLDING", flush=True)
    time.sleep(float(sys.argv[2]))
"""


def _hold_in_child(db: Path, seconds: float) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(db), str(seconds)], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "HOLDING"
    return proc


def test_second_writer_waits_then_fails_naming_the_lock(db: Path, platform: FakePlatform, tmp_path: Path):
    write_snapshot(db, stage_run(tmp_path, platform))
    area = stage_run(tmp_path, platform, taken_at="2026-02-02T00:00:00Z")
    proc = _hold_in_child(db, 30)
    try:
        start = time.monotonic()
        with pytest.raises(StoreLockTimeout) as info:
            write_snapshot(db, area, lock_timeout_s=0.6)
        waited = time.monotonic() - start
        assert 0.6 <= waited < 5
        message = str(info.value)
        assert str(lock_path_for(db)) in message
        assert f"pid {proc.pid}" in message
        # Readers wait too (DuckDB would refuse them while the writer has the file open).
        with pytest.raises(StoreLockTimeout, match="could not read"):
            read_frame(db, "SELECT 1", lock_timeout_s=0.2)
    finally:
        proc.kill()
        proc.wait()
    assert read_frame(db, "SELECT count(*) AS n FROM snapshots")["n"][0] == 1


def test_second_writer_proceeds_when_the_first_finishes_in_time(
    db: Path, platform: FakePlatform, tmp_path: Path
):
    write_snapshot(db, stage_run(tmp_path, platform))
    area = stage_run(tmp_path, platform, taken_at="2026-02-02T00:00:00Z")
    proc = _hold_in_child(db, 1.0)
    start = time.monotonic()
    result = write_snapshot(db, area, lock_timeout_s=30)
    assert time.monotonic() - start >= 0.5
    assert result.snapshot_id == 2
    proc.wait(timeout=10)


def test_writer_lock_serialises_threads_of_one_process(db: Path):
    with (
        store_lock(db, exclusive=True, timeout_s=1),
        pytest.raises(StoreLockTimeout),
        store_lock(db, exclusive=True, timeout_s=0.2),
    ):
        pass


def test_readers_share_and_close_at_once(db: Path, platform: FakePlatform, tmp_path: Path):
    write_snapshot(db, stage_run(tmp_path, platform))
    with open_readonly(db) as a, open_readonly(db) as b:
        assert (
            a.execute("SELECT count(*) FROM problems").fetchall()
            == b.execute("SELECT count(*) FROM problems").fetchall()
        )
        # Another process can read at the same time.
        out = subprocess.run(
            [
                sys.executable,
                "-c",
                "import sys; from solvelens.store import read_frame; "
                "print(read_frame(sys.argv[1], 'SELECT count(*) AS n FROM solutions')['n'][0])",
                str(db),
            ],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        assert out.stdout.strip() == "100"
    frame = read_frame(db, "SELECT taken_at FROM snapshots")
    assert str(frame.schema["taken_at"]) == "Datetime(time_unit='us', time_zone='UTC')"
    # read_frame closed the file: a read-write open succeeds right away (DuckDB would refuse otherwise).
    duckdb.connect(str(db)).close()
    with pytest.raises(duckdb.Error), open_readonly(db) as con:
        con.execute("CREATE TABLE t (x INTEGER)")  # read-only connection


def test_lock_files_live_in_one_folder_and_go_when_released(
    db: Path, platform: FakePlatform, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    locks = tmp_path / "locks"
    monkeypatch.setenv("SOLVELENS_LOCK_DIR", str(locks))
    write_snapshot(db, stage_run(tmp_path, platform))
    read_frame(db, "SELECT count(*) AS n FROM snapshots")
    assert not list(tmp_path.glob("*.lock")), "no lock file beside the store"
    assert list(locks.iterdir()) == [], "released locks are removed"
    # One store named two ways (relative via a symlink) takes one lock.
    link = tmp_path / "link.duckdb"
    link.symlink_to(db)
    assert lock_path_for(link) == lock_path_for(db)
    assert lock_path_for(db).parent == locks
    with store_lock(db, exclusive=True, timeout_s=1) as held:
        assert held == lock_path_for(db) and held.exists()
        assert f"pid {os.getpid()}" in held.read_text()
        with pytest.raises(StoreLockTimeout), store_lock(link, exclusive=True, timeout_s=0.2):
            pass
        assert held.exists(), "a waiter that gave up leaves the holder's lock in place"
    assert not lock_path_for(db).exists()


def test_a_reader_keeps_the_file_while_another_reader_holds_it(
    db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("SOLVELENS_LOCK_DIR", str(tmp_path / "locks"))
    with store_lock(db, exclusive=False, timeout_s=1) as first:
        with store_lock(db, exclusive=False, timeout_s=1) as second:
            assert first == second
        assert first is not None and first.exists(), "the first reader still holds it"
        with pytest.raises(StoreLockTimeout), store_lock(db, exclusive=True, timeout_s=0.2):
            pass
    assert not lock_path_for(db).exists()


def test_a_waiter_locks_the_new_file_after_the_holder_removed_the_old_one(
    db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("SOLVELENS_LOCK_DIR", str(tmp_path / "locks"))
    proc = subprocess.Popen(
        [sys.executable, "-c", _LOCK_HOLDER, str(db), "1.0"],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "SOLVELENS_LOCK_DIR": str(tmp_path / "locks")},
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "HOLDING"
    with store_lock(db, exclusive=True, timeout_s=30) as held:  # waits for the child, which removes its file
        assert held is not None
        current = os.stat(held)
        # Either the child's file was removed and a new one made, or (same inode reused) it is the file now
        # at the path: in both cases the file we hold is the one another process would open.
        fd = os.open(held, os.O_RDONLY)
        try:
            assert current.st_ino == os.fstat(fd).st_ino
        finally:
            os.close(fd)
        with pytest.raises(StoreLockTimeout), store_lock(db, exclusive=False, timeout_s=0.2):
            pass
    proc.wait(timeout=10)
    assert not lock_path_for(db).exists()


_LOCK_HOLDER = r"""
import sys, time
from solvelens.store import store_lock
with store_lock(sys.argv[1], exclusive=True, timeout_s=5):
    print("HOLDING", flush=True)
    time.sleep(float(sys.argv[2]))
"""
