"""``benchmarks/fault_walk.py`` in a compact form: three store commands (``db check``, ``db compact``,
``db export``) against every fault of the machine (a store cut short, a damaged 16 KiB block, a read-only
file and folder, a full disk, a lock left by a killed process), each a real ``solvelens`` process. Every run:
no traceback; a failure is one line on stderr with the exit code below and leaves the store's bytes as they
were (issue 33)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
OK = (0, 3)  # db check: 3 = the snapshot records gaps (an answer, not a failure)

#: (fault, command) -> the exit codes it may end with.
EXPECTED: dict[tuple[str, str], tuple[int, ...]] = {
    ("cut-short", "db check"): (1,),
    ("cut-short", "db compact"): (1,),
    ("cut-short", "db export"): (1,),
    ("damaged-block", "db check"): (1,),
    ("damaged-block", "db compact"): (1,),
    ("damaged-block", "db export"): (1,),
    ("ro-file", "db check"): OK,
    ("ro-file", "db compact"): (2,),
    ("ro-file", "db export"): (0,),
    ("ro-folder", "db check"): OK,
    ("ro-folder", "db compact"): (2,),
    ("ro-folder", "db export"): (2,),
    ("disk-full", "db check"): OK,
    ("disk-full", "db compact"): (1,),
    ("disk-full", "db export"): (1,),
    ("dead-holder", "db check"): OK,
    ("dead-holder", "db compact"): (0,),
    ("dead-holder", "db export"): (0,),
}
#: Words the one line of each failing run holds.
WORDS = {"cut-short": "is damaged (cut short", "damaged-block": "is damaged (DuckDB: Corrupt database file",
         "ro-file": "not writable", "ro-folder": "not writable", "disk-full": "ran out of space"}  # fmt: skip


@pytest.mark.slow
def test_every_fault_is_one_line_the_documented_exit_code_and_an_unchanged_store():
    faults = sorted({fault for fault, _ in EXPECTED})
    commands = sorted({command for _, command in EXPECTED})
    cmd = [sys.executable, str(ROOT / "benchmarks" / "fault_walk.py"), "--json"]
    cmd += ["--commands", ",".join(commands), "--faults", ",".join(faults)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=1200, cwd=ROOT)
    assert done.stdout.strip(), done.stderr[-3000:]
    rows = json.loads(done.stdout)
    assert {(r["fault"], r["command"]) for r in rows} == set(EXPECTED), rows
    for r in rows:
        where = (r["fault"], r["command"], r["exit_code"], r["line"])
        assert not r["traceback"], where
        assert r["exit_code"] in EXPECTED[(r["fault"], r["command"])], where
        if r["exit_code"] not in OK:
            assert r["stderr_lines"] == 1 and r["line"].startswith("error: "), where
            assert r["bytes_unchanged"], where
            words = WORDS.get(r["fault"], "")
            assert words in r["line"] or (r["command"] == "db export" and "exporting into" in r["line"]), (
                where
            )
    assert done.returncode == 0, done.stderr[-3000:]
