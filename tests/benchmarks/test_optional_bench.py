"""``benchmarks/optional.py`` still runs: it prints the requests per endpoint of three snapshots and the
target (an unchanged re-snapshot sends no comparisons request) with its figure (no timings asserted)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_small_run_prints_requests_per_endpoint_and_no_comparisons_when_unchanged(tmp_path: Path):
    cmd = [sys.executable, str(ROOT / "benchmarks" / "optional.py"), "--cache-dir", str(tmp_path)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    out = done.stdout
    row = re.search(r"^GET /solutions/\{id\}/comparisons\s+([0-9,]+)\s+([0-9,]+)\s+([0-9,]+)$", out, re.M)
    assert row, out
    first, unchanged, next_day = (int(g.replace(",", "")) for g in row.groups())
    assert first > 100 and unchanged == 0 and 0 < next_day < first
    assert "sends no comparisons request: 0 sent -> met" in out
    assert "events missed between event" in out  # a simulated day turns the 50-event feed over
