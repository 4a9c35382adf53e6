"""``solvelens db check``: the data-quality table of a snapshot and the votes' coverage, with its exit codes,
against snapshots of the real sandbox (one per module, nothing writes to it); figures checked with SQL on the
sandbox's SQLite database."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest
from typer.testing import CliRunner

from solvelens.cli import app
from solvelens.store import ensure_schema, read_frame
from tests.fixtures.sandbox import SandboxServer, start_sandbox

runner = CliRunner()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SandboxServer]:
    """A small sandbox (seed 0: some solutions have more than 50 votes) for this module only."""
    served = start_sandbox(tmp_path_factory.mktemp("sandbox") / "sandbox.sqlite", seed=0, task_types="solve")
    try:
        yield served
    finally:
        served.stop()


def _truth(server: SandboxServer, sql: str) -> Any:
    con = sqlite3.connect(f"file:{server.db_path}?mode=ro", uri=True)
    try:
        return con.execute(sql).fetchall()[0][0]
    finally:
        con.close()


def _snapshot(server: SandboxServer, db: Path, *options: str) -> Any:
    args = ["snapshot", "--base-url", server.base_url, "--db", str(db), "--no-bot-me", *options]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    return result


def test_a_snapshot_holding_what_was_announced_checks_clean(server: SandboxServer, tmp_path: Path):
    """Exit 0: every list holds what the platform announced; the rows' figures are the platform's own
    (SQL on the sandbox: problems and solutions of problems not rejected, bots listed)."""
    db = tmp_path / "store.duckdb"
    summary = _snapshot(server, db, "--resources", "none")
    assert "data quality: every list holds what the platform announced" in summary.output
    result = runner.invoke(app, ["db", "check", "--db", str(db), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    rows = {(r["resource"], r["scope"]): r for r in report["data_quality"]}
    problems = _truth(server, "SELECT count(*) FROM problems WHERE status != 'rejected'")
    solutions = _truth(
        server,
        "SELECT count(*) FROM solutions s JOIN problems p ON p.id = s.problem_id "
        "WHERE p.status != 'rejected'",
    )
    bots = _truth(server, "SELECT count(*) FROM bots WHERE status = 'active'")
    assert rows["problems", ""]["announced"] == rows["problems", ""]["stored"] == problems
    assert rows["solutions", ""]["announced"] == rows["solutions", ""]["stored"] == solutions
    assert rows["platform_stats", "totalSolutions"]["announced"] == solutions
    assert rows["leaderboard", ""]["stored"] == rows["platform_stats", "totalBots"]["announced"] == bots
    assert report["gaps"] == 0 and report["vote_coverage"] is None
    assert all(r["reason"] is None for r in report["data_quality"])
    plain = runner.invoke(app, ["db", "check", "--db", str(db)])
    assert plain.exit_code == 0 and "every list holds what the platform announced" in plain.output


def test_gaps_and_pending_votes_exit_3_and_name_why(server: SandboxServer, tmp_path: Path):
    """Exit 3: the snapshot is complete but its votes are partly read (a budget of 20 requests) and some
    solutions have more votes than the platform serves (50); the table names both, the coverage line gives
    stored against announced (SQL on the sandbox) and the snapshots to go."""
    db = tmp_path / "store.duckdb"
    _snapshot(server, db, "--resources", "comparisons", "--budget", "20")
    result = runner.invoke(app, ["db", "check", "--db", str(db), "--json"])
    assert result.exit_code == 3, result.output
    report = json.loads(result.output)
    coverage = report["vote_coverage"]
    announced = _truth(server, "SELECT sum(comparison_count) FROM problems WHERE status != 'rejected'")
    stored = read_frame(db, "SELECT count(*) AS n FROM comparisons")["n"][0]
    assert (coverage["announced"], coverage["stored"]) == (announced, stored)
    assert coverage["budget"] == 20 and coverage["requests"] <= 20 and coverage["lists_pending"] > 0
    whole = next(r for r in report["data_quality"] if r["resource"] == "comparisons" and r["scope"] == "")
    assert f"{coverage['lists_pending']} vote lists left for the next snapshots" in whole["reason"]
    assert f"~{coverage['snapshots_to_go']} more snapshots at this budget" in whole["reason"]
    plain = runner.invoke(app, ["db", "check", "--db", str(db)])
    assert plain.exit_code == 3
    percent = f"{100 * stored / announced:.0f}%"
    share = f"{stored:,} stored of the {announced:,} the platform's counts announce ({percent})"
    assert f"votes: {share}; {coverage['lists_pending']:,} lists pending" in " ".join(plain.output.split())


def test_bad_input_and_an_empty_store(server: SandboxServer, tmp_path: Path):
    """Exit 2 for a snapshot id the store does not hold or a file that is not a store; exit 1 for a store
    without a complete snapshot."""
    db = tmp_path / "store.duckdb"
    _snapshot(server, db, "--resources", "none")
    missing = runner.invoke(app, ["db", "check", "--db", str(db), "--snapshot", "999"])
    assert missing.exit_code == 2 and "--snapshot 999: no complete snapshot" in missing.output
    other = tmp_path / "notes.duckdb"
    other.write_text("not a database")
    assert runner.invoke(app, ["db", "check", "--db", str(other)]).exit_code == 2
    empty = tmp_path / "empty.duckdb"
    con = duckdb.connect(str(empty))
    ensure_schema(con)
    con.close()
    nothing = runner.invoke(app, ["db", "check", "--db", str(empty)])
    assert nothing.exit_code == 1 and "holds no complete snapshot" in nothing.output
