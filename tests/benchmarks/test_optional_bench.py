"""``benchmarks/optional.py`` still runs: it prints the requests per endpoint of three snapshots and the
target (an unchanged re-snapshot sends only the audit share of vote lists trusted by their counts and the
budget's backlog: issue 23's re-read of trusted lists; issue 31's default budget reads the backlog in the
snapshots after the first) with its figure (no timings asserted)."""

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
    # the default budget: the first snapshot reads a quarter of a full read of vote lists, the next ones the
    # backlog it left (about a full read each) and their audit share (docs/evidence-budget.md)
    assert 0 < first < unchanged and next_day > 0
    target = re.search(
        r"^target: an unchanged re-snapshot sends only .*: ([0-9,]+) sent .* -> (met|NOT met)$", out, re.M
    )
    assert target, out
    assert int(target.group(1).replace(",", "")) == unchanged and target.group(2) == "met", target.group(0)
    assert "events missed between event" in out  # a simulated day turns the 50-event feed over
