"""``benchmarks/snapshot.py`` still runs: a quick smoke run prints the table with our and the floor's rows."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_quick_run_prints_ours_and_the_floor(tmp_path: Path):
    env = dict(os.environ)
    # Reuse one Prefect home across runs: a fresh one adds ~20 s of database migrations to the CLI's start.
    env["PREFECT_HOME"] = str(Path(tempfile.gettempdir()) / "solvelens-bench" / "prefect-home")
    env["COLUMNS"] = "200"
    cmd = [
        sys.executable,
        str(ROOT / "benchmarks" / "snapshot.py"),
        "--quick",
        "--skip-dlt",
        "--skip-resnapshot",
    ]
    cmd += ["--cache-dir", str(tmp_path)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=170, cwd=ROOT, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    out = done.stdout
    assert "snapshot benchmark: scale small" in out
    rows = {
        name: re.search(rf"│ {re.escape(name)}\s*│\s*0 ms │\s*([0-9.]+) │\s*([0-9.]+) │\s*([0-9,]+) │", out)
        for name in ("ours (CLI+Prefect)", "ours plain (no Prefect)", "floor (httpx x8, discard)")
    }
    assert all(rows.values()), out
    records = {name: int(m.group(3).replace(",", "")) for name, m in rows.items() if m}
    # Every contender saw the same platform: the same number of records.
    assert len(set(records.values())) == 1 and records["floor (httpx x8, discard)"] > 100, records
    assert "x the floor (target <= 1.3" in out
    assert not re.search(r"^│ dlt", out, re.MULTILINE), "--skip-dlt ran dlt"
