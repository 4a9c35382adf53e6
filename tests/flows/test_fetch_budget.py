"""The optional resources under a budget, against the real sandbox over HTTP: the vote backlog converges in
the number of snapshots the summary predicts and stays converged; every snapshot records its coverage and
data-quality rows; figures checked with SQL on the sandbox's SQLite database."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from solvelens.cli import app
from solvelens.flows.budget import AUDIT_ROUNDS, Budget, Spent, VoteShare, spent_by
from solvelens.flows.steps import SnapshotPlan, run_snapshot
from solvelens.flows.summary import SnapshotSummary
from solvelens.sandbox.ids import IdCodec
from solvelens.store import read_frame
from tests.fixtures.sandbox import SandboxServer

runner = CliRunner()


def _sqlite(server: SandboxServer, sql: str) -> list[tuple[Any, ...]]:
    con = sqlite3.connect(f"file:{server.db_path}?mode=ro", uri=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


#: Votes /comparisons can serve: among the newest 50 of at least one of their two solutions (the
#: platform's cap), on a problem the listing shows (not rejected).
REACHABLE = """
    WITH sides AS (
        SELECT id, created_at, solution_a AS s FROM comparisons UNION ALL
        SELECT id, created_at, solution_b FROM comparisons),
    ranked AS (
        SELECT id, row_number() OVER (PARTITION BY s ORDER BY created_at DESC, id DESC) AS r FROM sides)
    SELECT count(DISTINCT c.id) FROM comparisons c JOIN problems p ON p.id = c.problem_id
    WHERE p.status != 'rejected' AND c.id IN (SELECT id FROM ranked WHERE r <= 50)"""
ANNOUNCED = "SELECT sum(comparison_count) FROM problems WHERE status != 'rejected'"


def _snap(server: SandboxServer, db: Path, budget: str) -> SnapshotSummary:
    plan = SnapshotPlan(
        base_url=server.base_url, db_path=str(db), use_api_key=False, resources=["comparisons"], budget=budget
    )
    return run_snapshot(plan)


def test_the_vote_backlog_converges_in_the_predicted_snapshots_and_stays(make_sandbox: Any, tmp_path: Path):
    """A small sandbox (the medium one takes minutes per run on this machine) with no new votes, snapshots
    at --budget 100: the first summary predicts how many more snapshots read the backlog; within that many
    the store holds every vote the platform can serve (SQL on the sandbox), no list is pending, and the next
    snapshot keeps it so (it re-reads only its audit share)."""
    server = make_sandbox(seed=0)
    db = tmp_path / "store.duckdb"
    reachable = _sqlite(server, REACHABLE)[0][0]
    announced = _sqlite(server, ANNOUNCED)[0][0]
    first = _snap(server, db, "100")
    coverage = first.vote_coverage
    predicted = coverage["snapshots_to_go"]
    assert coverage["announced"] == announced and coverage["budget"] == 100
    assert coverage["requests"] <= 100 and coverage["lists_pending"] > 0 and predicted >= 1
    assert coverage["stored"] == read_frame(db, "SELECT count(*) AS n FROM comparisons")["n"][0] < reachable
    taken = 0
    while coverage["lists_pending"] and taken < predicted:
        coverage = _snap(server, db, "100").vote_coverage
        taken += 1
        assert coverage["requests"] <= 100
    assert coverage["lists_pending"] == 0 and taken <= predicted
    stored = read_frame(db, "SELECT count(*) AS n, count(DISTINCT comparison_id) AS d FROM comparisons")
    assert stored["n"][0] == stored["d"][0] == reachable == coverage["stored"]
    # What cannot be reached is the platform's cap: one data-quality row per solution it hides votes of.
    gaps = read_frame(
        db,
        "SELECT scope, announced, stored, reason FROM data_quality WHERE resource = 'comparisons' "
        "AND scope <> '' AND snapshot_id = (SELECT max(snapshot_id) FROM snapshots)",
    )
    over_cap = _sqlite(
        server,
        "SELECT count(*) FROM solutions s JOIN problems p ON p.id = s.problem_id "
        "WHERE p.status != 'rejected' AND s.comparison_count > 50",
    )[0][0]
    assert 0 < gaps.height <= over_cap and set(gaps["reason"]) == {
        "the platform serves at most the newest 50 votes of a solution"
    }
    assert (gaps["announced"] > 50).all() and (gaps["stored"] < gaps["announced"]).all()
    again = _snap(server, db, "100")
    assert again.vote_coverage["lists_pending"] == 0 and again.vote_coverage["stored"] == reachable
    assert again.counts["comparisons"] == 0 and again.vote_coverage["audited"] > 0
    assert (
        f"{100 * reachable / announced:.0f}% covered"
        in runner.invoke(app, ["db", "check", "--db", str(db)]).output
    )


def test_budget_forms_and_the_shares_they_give():
    """``--budget`` reads N, Nx and all; the vote share leaves the optional steps' requests out, audits at
    most a quarter of it and at most one twentieth of the trusted lists, and predicts the snapshots to go."""
    assert Budget.parse("2x").allowance(50) == 100 and Budget.parse("120").allowance(5) == 120
    assert Budget.parse(" ALL ").allowance(10**6) is None and Budget.parse("0.5x").allowance(9) == 4
    for bad in ("", "x", "-3", "2y", "1.5"):
        with pytest.raises(ValueError, match="--budget"):
            Budget.parse(bad)
    reports = [
        {"step": "problems", "info": {"requests": 110, "steady_requests": 2}},
        {"step": "leaderboard", "info": {"requests": 30, "steady_requests": 1}},
        {"step": "reference", "info": {"requests": 2}},
        {"step": "activity", "info": {"requests": 1}},
    ]
    spent = Spent.of(spent_by(reports, {"activity", "comparisons", "llm_leaderboard"}))
    assert spent == Spent(interface=142, steady=5, optional=1)
    share = VoteShare.of(Budget.parse("1x"), spent, trusted=400)
    assert (share.allowance, share.audit, share.backfill, share.audit_cycle) == (141, 20, 121, 20)
    later = VoteShare.of(Budget.parse("1x"), spent, trusted=400, steady=True)
    assert (later.allowance, later.audit, later.backfill) == (4, 1, 3)
    assert later.snapshots_to_go(10) == 4 and later.snapshots_to_go(0) == 0
    assert VoteShare.of(Budget.parse("1"), Spent(optional=2), 10).snapshots_to_go(5) is None  # never
    assert VoteShare.of(Budget.parse("all"), spent, 400).snapshots_to_go(999) == 1


def test_a_bad_budget_is_refused_before_anything_is_fetched(tmp_path: Path):
    db = tmp_path / "store.duckdb"
    result = runner.invoke(
        app, ["snapshot", "--base-url", "http://127.0.0.1:9/api/v1", "--db", str(db), "--budget", "lots"]
    )
    assert result.exit_code == 2
    assert "--budget 'lots' is not a budget" in result.output and not db.exists()


def test_a_vote_its_counts_missed_is_found_within_the_audit_cycle(make_sandbox: Any, tmp_path: Path):
    """The real server records a vote row before a submit can fail: the vote exists, no count moved, so no
    list is wanted for it. The audit share re-reads lists trusted by their counts: the vote is stored within
    the ``audit_cycle`` snapshots the summary names, and the data-quality table shows the count its rows
    exceed (SQL on the sandbox for the vote and the count)."""
    server = make_sandbox(seed=0)
    db = tmp_path / "store.duckdb"
    assert _snap(server, db, "all").vote_coverage["audit_cycle"] is None  # nothing trusted yet
    cycle = _snap(server, db, "all").vote_coverage["audit_cycle"]
    assert cycle == AUDIT_ROUNDS  # every list read: all are trusted, one in twenty re-read a snapshot
    con = sqlite3.connect(server.db_path, timeout=30)
    try:  # two solutions of one problem, both with few votes: their lists are served whole
        problem, a, b = con.execute(
            "SELECT a.problem_id, a.id, b.id FROM solutions a "
            "JOIN solutions b ON b.problem_id = a.problem_id AND b.id > a.id "
            "JOIN problems p ON p.id = a.problem_id WHERE p.status != 'rejected' "
            "AND a.comparison_count BETWEEN 1 AND 40 AND b.comparison_count BETWEEN 1 AND 40 "
            "ORDER BY a.id LIMIT 1"
        ).fetchone()
        newest = con.execute("SELECT max(created_at) FROM comparisons").fetchone()[0]
        ghost = con.execute(
            "INSERT INTO comparisons (problem_id, solution_a, solution_b, winner, voter_bot_id, created_at) "
            "VALUES (?, ?, ?, 'a', NULL, ?) RETURNING id",
            (problem, a, b, newest + 1),
        ).fetchone()[0]
        con.commit()
        count_a = con.execute("SELECT comparison_count FROM solutions WHERE id = ?", (a,)).fetchone()[0]
    finally:
        con.close()
    codec = IdCodec(0)
    ghost_id, a_id = codec.encode("comparison", ghost), codec.encode("solution", a)
    found_after = None
    for n in range(1, cycle + 1):
        summary = _snap(server, db, "all")
        if not read_frame(db, "SELECT 1 FROM comparisons WHERE comparison_id = ?", [ghost_id]).is_empty():
            found_after = n
            break
        assert summary.fetch["comparisons"]["pending"] == 0  # no count moved: nothing is wanted
    assert found_after is not None and found_after <= cycle
    row = read_frame(
        db,
        "SELECT announced, stored, reason FROM data_quality WHERE scope = ? "
        "AND snapshot_id = (SELECT max(snapshot_id) FROM snapshots)",
        [a_id],
    )
    assert row.rows() == [(count_a, count_a + 1, "the platform's count disagrees with the rows it lists")]
