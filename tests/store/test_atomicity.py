"""A writer killed with SIGKILL mid-transaction leaves nothing visible; the next write succeeds."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb

from solvelens.store import (
    NotAStoreError,
    latest_solution_state,
    list_snapshots,
    open_readonly,
    write_snapshot,
)
from solvelens.store.schema import snapshot_column
from tests.store.fakes import BASE_URL, make_platform, stage_run

# The child writes one snapshot; with "hang" it stops inside the transaction (after the solutions and
# problems are inserted, before the status flip and COMMIT) and announces it.
_CHILD = r"""
import sys, time
from solvelens.store import writer

if sys.argv[3] == "hang":
    original = writer._Transaction.write_problems

    def write_problems_then_hang(self):
        original(self)
        print("IN-TRANSACTION", flush=True)
        time.sleep(120)

    writer._Transaction.write_problems = write_problems_then_hang
print("STARTED", flush=True)
writer.write_snapshot(sys.argv[1], sys.argv[2])
print("DONE", flush=True)
"""


def _child(db: Path, staging: Path, mode: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", _CHILD, str(db), str(staging), mode],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _wait_for(proc: subprocess.Popen[str], marker: str, timeout: float = 60.0) -> None:
    assert proc.stdout is not None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if line.strip() == marker:
            return
        if not line and proc.poll() is not None:
            raise AssertionError(f"child exited early: {proc.stderr.read() if proc.stderr else ''}")
    raise AssertionError(f"no {marker} from the child")


def _assert_consistent(db: Path) -> list[int]:
    """Every visible snapshot is complete and its views hold exactly its recorded counts."""
    frame = list_snapshots(db, include_incomplete=True)
    assert set(frame["status"]) <= {"complete"}
    with open_readonly(db) as con:
        for sid, counts in zip(frame["snapshot_id"], frame["counts"], strict=True):
            for view, n in json.loads(counts).items():
                column = snapshot_column(view)
                got = con.execute(f"SELECT count(*) FROM {view} WHERE {column} = ?", [sid]).fetchall()[0][0]
                assert got == n, (sid, view)
    return frame["snapshot_id"].to_list()


def test_kill_inside_the_transaction_leaves_nothing_visible(tmp_path: Path):
    db = tmp_path / "store.duckdb"
    plat = make_platform(problems=60, solutions_per_problem=50, bots=20)
    write_snapshot(db, stage_run(tmp_path, plat))
    before = db.stat().st_size
    for p in plat.problems[:30]:
        plat.add_solution(p)
    big = stage_run(tmp_path, plat, taken_at="2026-02-02T00:00:00Z")

    proc = _child(db, big.path, "hang")
    _wait_for(proc, "IN-TRANSACTION")
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL

    assert _assert_consistent(db) == [1]
    assert len(latest_solution_state(db, BASE_URL)) == 60
    # The lock died with the process and the file is clean: the next write needs no waiting and succeeds.
    start = time.monotonic()
    result = write_snapshot(db, big, lock_timeout_s=1.0)
    assert time.monotonic() - start < 30
    assert result.snapshot_id == 2
    assert result.counts["solutions"] == 60 * 50 + 30
    assert _assert_consistent(db) == [1, 2]
    assert db.stat().st_size >= before


def _visible(db: Path) -> list[int]:
    """The consistent snapshots of ``db``; none when the kill came before the first write created it, or
    before the schema's transaction committed (an empty DuckDB file: no table at all, never half a schema)."""
    if not db.exists():
        return []
    try:
        return _assert_consistent(db)
    except NotAStoreError:
        con = duckdb.connect(str(db), read_only=True)
        try:
            assert con.execute("SELECT count(*) FROM duckdb_tables() WHERE NOT internal").fetchall() == [(0,)]
        finally:
            con.close()
        return []


def test_kill_at_random_moments_never_shows_a_partial_snapshot(tmp_path: Path):
    db = tmp_path / "store.duckdb"
    plat = make_platform(seed=7, problems=80, solutions_per_problem=40, bots=20)
    rng = random.Random(3)
    expected = 0
    for round_ in range(3):
        plat.vote(plat.problems[round_])
        area = stage_run(tmp_path, plat, taken_at=f"2026-02-0{round_ + 1}T00:00:00Z")
        proc = _child(db, area.path, "run")
        _wait_for(proc, "STARTED")
        time.sleep(rng.uniform(0.0, 1.5))
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        visible = _visible(db)
        expected = len(visible)
        # Whatever happened, the next write completes and is the only new snapshot.
        result = write_snapshot(db, area)
        assert _assert_consistent(db) == [*visible, result.snapshot_id]
        expected += 1
    assert expected >= 3
