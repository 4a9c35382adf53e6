"""CLI conventions a typer/Click user expects (issue 33): ``--version``, a missing store said before the
report's libraries load, ``snapshot --quiet/--json`` and a summary of a few lines. (An unknown root option
and a --solver that cannot be loaded are cases of tests/cli/test_bad_input.py.)"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

from tests.fixtures.sandbox import SandboxServer


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "solvelens", *args], capture_output=True, text=True, timeout=120, cwd=cwd
    )


def test_version_prints_one_line_and_exits_0(tmp_path: Path) -> None:
    proc = _run("--version", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == f"solvelens {version('solvelens')}\n" and not proc.stderr


def test_report_on_a_missing_store_says_so_before_loading_the_report(tmp_path: Path) -> None:
    """The line comes before polars, Altair or the report package are imported (they took ~5 s)."""
    code = (
        "import sys\n"
        "from solvelens.cli import app\n"
        "try:\n"
        "    app(['report', '--db', 'missing.duckdb'])\n"
        "except SystemExit as exc:\n"
        "    print('exit', exc.code)\n"
        "print(sorted(m for m in ('polars', 'altair', 'solvelens.report') if m in sys.modules))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=tmp_path
    )
    assert proc.stdout.splitlines() == ["exit 1", "[]"], proc.stdout + proc.stderr
    assert proc.stderr.strip() == (
        "error: no snapshot store at missing.duckdb: run `solvelens snapshot --db missing.duckdb` first"
    )
    assert not (tmp_path / "missing.duckdb").exists()


UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
#: The vote coverage sentence (store.quality.coverage_line; since issue 29 it says no more than verified).
COVERAGE = re.compile(r"votes: [\d,]+ stored(,| of) .*the [\d,]+ the platform's counts announce")


def _snapshot(sandbox: SandboxServer, db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SOLVELENS_", "PREFECT_API"))}
    argv = ["snapshot", "--base-url", sandbox.base_url, "--db", str(db), "--no-bot-me", *args]
    return subprocess.run(
        [sys.executable, "-m", "solvelens", *argv],
        capture_output=True,
        text=True,
        timeout=300,
        env={**env, "COLUMNS": "200"},
        cwd=db.parent,
    )


def test_snapshot_summary_quiet_json_and_text(sandbox: SandboxServer, tmp_path: Path) -> None:
    """For cron logs: --quiet is one line, --json one JSON object; the full summary says the vote coverage
    once and prints no solution ids (the capped vote lists are counted, `db check` lists them)."""
    db = tmp_path / "store.duckdb"
    quiet = _snapshot(sandbox, db, "--quiet", "--budget", "20")
    assert quiet.returncode == 0, quiet.stderr
    # stderr holds nothing but, on a loaded machine, the preflight's "answers slowly" line (a first answer
    # over 1 s: the warning a slow platform deserves, seen once at load 11)
    noise = [line for line in quiet.stderr.splitlines() if "answers slowly" not in line]
    assert len(quiet.stdout.splitlines()) == 1 and not noise, quiet.stdout + quiet.stderr
    assert quiet.stdout.startswith("snapshot 1 complete, taken at ") and COVERAGE.search(quiet.stdout)

    as_json = _snapshot(sandbox, db, "--json", "--budget", "20")
    assert as_json.returncode == 0, as_json.stderr
    data = json.loads(as_json.stdout)  # one object, nothing else on stdout
    assert data["snapshot_id"] == 2 and data["status"] == "complete" and data["counts"]["problems"] > 0
    assert data["vote_coverage"]["announced"] >= data["vote_coverage"]["stored"]

    text = _snapshot(sandbox, db, "--budget", "20")
    assert text.returncode == 0, text.stderr
    lines = text.stdout.splitlines()
    assert sum(bool(COVERAGE.search(line)) for line in lines) == 1, text.stdout
    assert not [line for line in lines if UUID.search(line)], text.stdout
    assert len(lines) < 30, text.stdout

    # One unit for file sizes everywhere (MiB, as db compact and DuckDB count), never MB beside it.
    info = subprocess.run(
        [sys.executable, "-m", "solvelens", "db", "info", "--db", str(db)], capture_output=True, text=True
    )
    size = db.stat().st_size / 2**20
    assert f"{size:.2f} MiB" in info.stdout, info.stdout
    for output in (quiet.stdout, text.stdout, info.stdout):
        assert " MiB" in output and not re.search(r"\d MB\b", output), output

    both = _snapshot(sandbox, db, "--quiet", "--json")
    assert both.returncode == 2 and both.stderr.strip() == (
        "error: --quiet and --json: choose one (one line, or one JSON object)"
    )


def test_the_summary_counts_many_capped_vote_lists_in_one_line() -> None:
    from solvelens.flows.completeness import CAPPED
    from solvelens.flows.summary import SnapshotSummary

    capped = [
        {
            "resource": "comparisons",
            "scope": f"{i:08d}-0000-4000-8000-000000000000",
            "announced": 60 + i,
            "stored": 50,
            "reason": CAPPED,
        }
        for i in range(25)
    ]
    whole = {
        "resource": "comparisons",
        "scope": "",
        "announced": 4000,
        "stored": 2500,
        "reason": "120 vote lists left for the next snapshots",
    }
    coverage = {"announced": 4000, "stored": 2500, "lists_pending": 120, "snapshots_to_go": 4}
    summary = SnapshotSummary(
        snapshot_id=3,
        taken_at="2026-03-01T00:00:00Z",
        base_url="http://x/api/v1",
        counts={},
        duration_s=1.0,
        warnings=[],
        drift=[],
        data_quality=[*capped, whole],
        vote_coverage=coverage,
    )
    assert summary.quality_lines() == [
        "votes: 2,500 stored of the 4,000 the platform's counts announce (62%); 120 lists pending, ~4 more "
        "snapshots at this budget; "
        "25 solutions have more votes than the platform serves (`solvelens db check` lists them)"
    ]
    # Without the coverage sentence (a summary of an older snapshot) the capped lists are one line.
    older = SnapshotSummary(**{**summary.as_dict(), "vote_coverage": None})
    assert older.quality_lines()[0] == (
        "data quality: comparisons: 25 lists hold fewer than announced (1,800 announced, 1,250 stored): "
        f"{CAPPED} (`solvelens db check` lists them)"
    )
