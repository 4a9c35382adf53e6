"""``benchmarks/snapshot.py`` still runs: a quick smoke run prints the table with our, the re-snapshot's and
the floor's rows, and the start-to-first-request figure (no timings are asserted)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_quick_run_prints_ours_and_the_floor(tmp_path: Path):
    env = dict(os.environ)
    env["COLUMNS"] = "200"
    cmd = [sys.executable, str(ROOT / "benchmarks" / "snapshot.py"), "--quick", "--skip-dlt"]
    cmd += ["--cache-dir", str(tmp_path)]  # platform, Prefect home and run files all in the test's own folder
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=ROOT, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    out = done.stdout
    assert "snapshot benchmark: scale small" in out
    rows = {
        name: re.search(rf"│ {re.escape(name)}\s*│\s*0 ms │\s*([0-9.]+) │\s*([0-9.]+) │\s*([0-9,]+) │", out)
        for name in ("ours (CLI)", "ours re-snapshot (unchanged)", "floor (httpx x8, discard)")
    }
    assert all(rows.values()), out
    records = {name: int(m.group(3).replace(",", "")) for name, m in rows.items() if m}
    # Every contender saw the same platform: the same number of records.
    assert len(set(records.values())) == 1 and records["floor (httpx x8, discard)"] > 100, records
    assert "x the floor (target <= 1.3" in out
    assert re.search(
        r"x the floor \(target <= 1\.3: (NOT )?met\); median of 2 alternated pairs \([0-9.]+, [0-9.]+\)", out
    )
    # the rows measured apart from the floor divide by the median of this run's floor runs (2 with --quick)
    which = r"\(the median of this run's 2 floor runs, [0-9.]+ s\)"
    assert re.search(rf"re-snapshot \(unchanged\): [0-9.]+ s = [0-9.]+x the full floor {which}", out), out
    assert re.search(rf"^ours defaults, first: [0-9.]+ s = [0-9.]+x the floor {which} \(target", out, re.M)
    assert re.search(r"^  pair 2 \(floor first\): ours \(CLI\) [0-9.]+ s, floor [0-9.]+ s$", out, re.M), out
    assert re.search(r"process start to first request: [0-9.]+ s", out), out
    assert not re.search(r"^│ dlt", out, re.MULTILINE), "--skip-dlt ran dlt"
    assert "Prefect server" not in out  # --quick starts no Prefect server
    _assert_convergence_rows(out)


def _assert_convergence_rows(out: str) -> None:
    """Issue 31's rows: the default snapshots converge (small: within 5), with their requests, the slowest
    against the floor, the first prediction against the outcome, the audit cycle after convergence (every
    list re-read, votes counted on neither side stored within the stated cycle), and the quota run (no
    optional request held, no 429; the interface's own waits on their own line)."""
    converged = (
        r"^convergence: every vote list read after (\d+) snapshots \(target <= 5\); ([0-9,]+) vote-list "
        r"requests in all; slowest snapshot [0-9.]+ s = [0-9.]+x the floor \(the median of this run's 2 "
        r"floor runs, [0-9.]+ s\) \(target <= 2\.5x\)"
    )
    done = re.search(converged, out, re.M)
    assert done and int(done.group(1)) <= 5 and int(done.group(2).replace(",", "")) > 0, out
    predicted = r"^prediction: the first snapshot said ~\d+ more snapshots, it took \d+ "
    assert re.search(predicted, out, re.M), out
    # the quota row measures the target: optional requests held (the pacer's records) and 429s (the server)
    quota_row = (
        r"^quota run \(5000/hour, \d default snapshots back to back\): (\d+) answers 429 \(server count, "
        r"\d+ requests\); optional requests held for the quota: (\d+) of (\d+) \([0-9.]+ s\) \(target 0: "
        r"met\); the vote lists spent (\d+) of (\d+)"
    )
    quota = re.search(quota_row, out, re.M)
    assert quota and quota.group(1) == quota.group(2) == "0" and int(quota.group(3)) > 0, out
    assert int(quota.group(4)) <= int(quota.group(5)), out
    interface = r"^quota run, the interface's own reads \(allowed.*\): (\d+) of (\d+) requests held"
    assert (own := re.search(interface, out, re.M)) and int(own.group(2)) > 0, out
    # the audit cycle on its own: every list re-read, and the votes no count reveals stored within it
    audit_row = (
        r"^audit \(after convergence, ([0-9,]+) lists\): every one re-read after (\d+) snapshots \(target "
        r"<= 5: met\); the summaries stated each within (\d+) snapshots; 3 votes counted on neither side "
        r"\(on the lists read last\) stored after \[(\d+), (\d+), (\d+)\] snapshots \(within the stated "
        r"cycle\)"
    )
    audit = re.search(audit_row, out, re.M)
    assert audit and int(audit.group(2)) <= 5, out
    assert all(int(audit.group(k)) <= int(audit.group(3)) for k in (4, 5, 6)), out
