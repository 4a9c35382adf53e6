"""``benchmarks/ratelimit.py`` still runs: one quota, its paced and unpaced rows, the generous-quota and
``--max-rps`` rows (no timings are asserted; the paced row's 429 count is, as everywhere)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_quick_run_prints_every_row() -> None:
    cmd = [sys.executable, str(ROOT / "benchmarks" / "ratelimit.py"), "--quotas", "60/2 seconds"]
    cmd += ["--max-rps", "50", "--resources", "none"]  # ~140 requests a snapshot
    done = subprocess.run(
        cmd, capture_output=True, text=True, timeout=300, cwd=ROOT, env={**os.environ, "COLUMNS": "200"}
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = done.stdout
    paced = re.search(r"│ paced\s*│ 60/2 seconds\s*│\s*([0-9,]+) │\s*([0-9,]+) │", out)
    assert paced is not None, out
    assert int(paced.group(1).replace(",", "")) > 100 and paced.group(2) == "0"
    for row in ("headers unread (429 + Retry-After)", "paced, quota never reached", "--max-rps 50"):
        assert f"│ {row}" in out, out
