"""``benchmarks/spawned_flow_run.py`` still runs: one round prints both parents' rows (no timings are
asserted; what the spawned process imports is checked in ``tests/flows/test_prefect_import.py``)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_one_round_prints_both_parents() -> None:
    cmd = [sys.executable, str(ROOT / "benchmarks" / "spawned_flow_run.py"), "--repeats", "1"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    figure = r"[0-9]+\.[0-9]{2} / [0-9]+\.[0-9]{2}"
    for parent in ("solvelens command", "control"):
        assert re.search(rf"^{parent}\s+{figure}\s+{figure}\s+{figure}$", done.stdout, re.M), done.stdout
