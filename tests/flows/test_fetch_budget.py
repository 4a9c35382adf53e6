"""The optional resources under a budget, against the real sandbox over HTTP: the vote backlog converges in
the number of snapshots the summary predicts and stays converged; every snapshot records its coverage and
data-quality rows; figures checked with SQL on the sandbox's SQLite database."""

from __future__ import annotations

import math
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from solvelens.cli import app
from solvelens.client.ratelimit import KindStats
from solvelens.flows.budget import (
    AUDIT_CYCLE,
    AUDIT_MIN,
    DEFAULT_BUDGET,
    Budget,
    Quota,
    Spent,
    VoteShare,
    quota_room,
    snapshots_to_go,
    spent_by,
)
from solvelens.flows.figures import KindFigures, PacingFigures
from solvelens.flows.steps import SnapshotPlan, pacing_report, run_snapshot
from solvelens.flows.summary import SnapshotSummary
from solvelens.sandbox.ids import IdCodec
from solvelens.sandbox.simulate import advance
from solvelens.store import read_frame
from solvelens.store.reports import StepReport
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
REACHABLE_IDS = REACHABLE.replace("SELECT count(DISTINCT c.id)", "SELECT DISTINCT c.id")
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
        f"stored of the {announced:,} the platform's counts announce ({100 * reachable / announced:.0f}%)"
        in runner.invoke(app, ["db", "check", "--db", str(db)]).output
    )


def test_budget_forms_and_the_shares_they_give():
    """``--budget`` reads N, Nx and all; ``Nx`` is N full reads of the interface per snapshot, its own
    requests included (a full read: what the steps sent plus one request per list and profile carried over);
    the vote share leaves the optional steps' requests out, audits every trusted list within AUDIT_CYCLE
    snapshots up to its pace, and the prediction plays the snapshots to go."""
    assert Budget.parse("2x").times == 2.0 and Budget.parse("120").fixed == 120
    assert Budget.parse(" ALL ").allowance(Spent(full=10**6)) is None
    assert Budget.parse(DEFAULT_BUDGET).times == 1.4
    for bad in ("", "x", "-3", "2y", "1.5"):
        with pytest.raises(ValueError, match="--budget"):
            Budget.parse(bad)
    reports = [  # a re-snapshot: 30 lists and 10 profiles refetched, 70 lists and 90 profiles carried over
        StepReport.of("problems", {}, requests=32, steady_requests=2, carried_lists=70),
        StepReport.of("leaderboard", {}, requests=11, steady_requests=1, carried_profiles=90),
        StepReport.of("reference", {}, requests=2),
        StepReport.of("carryover", {}, requests=5),  # re-reads of carried lists: counted once
        StepReport.of("activity", {}, requests=1),
    ]
    spent = spent_by(reports, {"activity", "comparisons", "llm_leaderboard"})
    assert spent == Spent(interface=50, steady=10, optional=1, full=45 + 160)
    assert Budget.parse("1x").allowance(spent) == 205 - 50 and Budget.parse("0.5x").allowance(spent) == 52
    share = VoteShare.of(Budget.parse("1x"), spent, trusted=400)  # 154 for votes, at most half audits
    assert (share.allowance, share.audit, share.backfill, share.audit_cycle) == (154, 77, 77, 6)
    idle = VoteShare.of(Budget.parse("1x"), spent, trusted=400, pending=False)  # nothing else to read
    assert (idle.audit, idle.audit_cycle) == (80, AUDIT_CYCLE)
    later = VoteShare.of(Budget.parse("1x"), spent, trusted=400, steady=True)
    assert (later.allowance, later.audit, later.backfill) == (194, 80, 114)
    # the audit's pace: the larger of AUDIT_MIN and AUDIT_FULL_SHARE of a full read, at most half the votes'
    big = VoteShare.of(Budget.parse("100000"), Spent(full=1000), trusted=50_000)
    assert big.audit == max(AUDIT_MIN, 600) == 600 and big.audit_cycle == math.ceil(50_000 / 600)
    small = VoteShare.of(Budget.parse("100000"), Spent(full=100), trusted=50_000)
    assert small.audit == AUDIT_MIN and small.audit_cycle == math.ceil(50_000 / AUDIT_MIN)
    assert snapshots_to_go(Budget.parse("1x"), spent, 400, 300, 0) == 0
    assert snapshots_to_go(Budget.parse("1x"), spent, 400, 300, 114) == 1
    assert snapshots_to_go(Budget.parse("1x"), spent, 400, 300, 115) == 2
    assert snapshots_to_go(Budget.parse("1"), Spent(optional=2), 10, 5, 5) is None  # never
    assert snapshots_to_go(Budget.parse("all"), spent, 400, 999, 999) == 1
    # an announced quota: what the pacer sends without waiting (half the window), less the reserve
    quota = quota_room([(4000, 5000)], spent, burst=0.5)
    assert quota == Quota(room=1500 - 10 - 21, left=1500, reserve=10 + 21)
    assert VoteShare.of(Budget.parse("100000"), spent, 0, quota=quota).allowance == quota.room
    assert VoteShare.of(Budget.parse("all"), spent, 0, quota=quota).allowance is None
    assert quota_room([], spent, 0.5) is None and quota_room([(2400, 5000)], spent, 0.5).room == 0


def test_budget_all_reads_every_trusted_list_at_once():
    """Issue 29's sweep at ``--budget all`` (comparisons reachable but not stored @ gap, deadlocks): a vote
    whose counts never moved is found only by reading its list, and ``all`` (no bound) promises every vote
    list read at once, so its audit re-reads every list trusted by its count in each snapshot (cycle 1)."""
    spent = Spent(interface=50, steady=10, optional=1, full=205)
    share = VoteShare.of(Budget.parse("all"), spent, trusted=400)
    assert (share.allowance, share.audit, share.backfill, share.audit_cycle) == (None, 400, None, 1)
    assert VoteShare.of(Budget.parse("all"), spent, trusted=0).audit_cycle is None


def test_under_budget_all_a_deadlocked_vote_between_new_solutions_is_stored_by_that_snapshot(
    make_sandbox: Any, tmp_path: Path
):
    """Issue 29's sweep at ``--budget all`` (1 vote reachable but not stored @ gap and @ deadlocks): a day
    whose every vote deadlocks (the row written, no count moved) leaves votes between solutions written
    that day, whose counts are 0: no count asks for their lists and the audit knew only the previous
    snapshot's solutions. Under ``all`` the snapshot after that day stores every vote the platform serves
    (SQL on the sandbox: the newest 50 of each solution's votes, problems not rejected)."""
    server = make_sandbox(seed=0)
    db = tmp_path / "store.duckdb"
    _snap(server, db, "all")
    assert int(advance(Path(server.db_path), days=1, vote_deadlocks=1.0)["deadlocked"]) > 0
    _snap(server, db, "all")
    fresh = _sqlite(
        server,
        "SELECT count(*) FROM comparisons c JOIN solutions a ON a.id = c.solution_a "
        "JOIN solutions b ON b.id = c.solution_b WHERE a.comparison_count = 0 AND b.comparison_count = 0",
    )[0][0]
    assert fresh > 0, "no vote between two solutions no count announces: the case is not here"
    codec = IdCodec(0)
    reachable = {codec.encode("comparison", r[0]) for r in _sqlite(server, REACHABLE_IDS)}
    stored = set(read_frame(db, "SELECT DISTINCT comparison_id FROM comparisons")["comparison_id"])
    assert not reachable - stored, f"{len(reachable - stored)} of {len(reachable)} reachable votes not stored"


def test_a_bad_budget_is_refused_before_anything_is_fetched(tmp_path: Path):
    db = tmp_path / "store.duckdb"
    result = runner.invoke(
        app, ["snapshot", "--base-url", "http://127.0.0.1:9/api/v1", "--db", str(db), "--budget", "lots"]
    )
    assert result.exit_code == 2
    assert "--budget 'lots' is not a budget" in result.output and not db.exists()


@pytest.mark.parametrize("budget", ["100000", "all"])
def test_a_vote_its_counts_missed_is_found_within_the_audit_cycle(
    make_sandbox: Any, tmp_path: Path, budget: str
):
    """The real server records a vote row before a submit can fail: the vote exists, no count moved, so no
    list is wanted for it. The audit share re-reads lists trusted by their counts: the vote is stored within
    the ``audit_cycle`` snapshots the summary names (under ``all``: the next snapshot), and the data-quality
    table shows the count its rows exceed (SQL on the sandbox for the vote and the count)."""
    server = make_sandbox(seed=0)
    db = tmp_path / "store.duckdb"
    first = _snap(server, db, budget).vote_coverage["audit_cycle"]
    assert first == (1 if budget == "all" else None)  # nothing trusted yet; all reads the lists counting 0
    cycle = _snap(server, db, budget).vote_coverage["audit_cycle"]
    # every list read: all are trusted; one in AUDIT_CYCLE (at least) re-read a snapshot, every one under all
    assert cycle == 1 if budget == "all" else cycle >= AUDIT_CYCLE
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
        summary = _snap(server, db, budget)
        if not read_frame(db, "SELECT 1 FROM comparisons WHERE comparison_id = ?", [ghost_id]).is_empty():
            found_after = n
            break
        assert summary.fetch["comparisons"].pending == 0  # no count moved: nothing is wanted
    assert found_after is not None and found_after <= cycle
    row = read_frame(
        db,
        "SELECT announced, stored, reason FROM data_quality WHERE scope = ? "
        "AND snapshot_id = (SELECT max(snapshot_id) FROM snapshots)",
        [a_id],
    )
    assert row.rows() == [(count_a, count_a + 1, "the platform's count disagrees with the rows it lists")]


def _ghost_vote(server: SandboxServer) -> tuple[int, int]:
    """Write a vote row straight into the sandbox's SQLite without moving either solution's count (the real
    server's deadlock: the row written, the submit failed): two solutions of one problem, both with few
    votes (their lists are served whole). Returns the vote's and its first solution's SQLite ids."""
    con = sqlite3.connect(server.db_path, timeout=30)
    try:
        problem, a, b = con.execute(
            "SELECT a.problem_id, a.id, b.id FROM solutions a "
            "JOIN solutions b ON b.problem_id = a.problem_id AND b.id > a.id "
            "JOIN problems p ON p.id = a.problem_id WHERE p.status != 'rejected' "
            "AND a.comparison_count BETWEEN 1 AND 40 AND b.comparison_count BETWEEN 1 AND 40 "
            "ORDER BY a.id DESC LIMIT 1"
        ).fetchone()
        newest = con.execute("SELECT max(created_at) FROM comparisons").fetchone()[0]
        ghost = con.execute(
            "INSERT INTO comparisons (problem_id, solution_a, solution_b, winner, voter_bot_id, created_at) "
            "VALUES (?, ?, ?, 'b', NULL, ?) RETURNING id",
            (problem, a, b, newest + 1),
        ).fetchone()[0]
        con.commit()
    finally:
        con.close()
    return ghost, a


def test_the_default_budget_reads_every_vote_in_the_predicted_snapshots_and_audits_within_its_cycle(
    make_sandbox: Any, tmp_path: Path
):
    """Issue 31's targets at small scale, with the default budget: every vote the platform serves is stored
    within 5 snapshots (SQL on the sandbox), the first snapshot's prediction is within 30 % of what it took,
    no snapshot spends more than the default's 1.4 full reads of the interface in all; then a vote counted
    on neither side (both lists already stored: no count reveals it) is stored within the audit cycle the
    summary states, which is at most 5 snapshots."""
    server = make_sandbox(seed=0)
    db = tmp_path / "store.duckdb"
    reachable = _sqlite(server, REACHABLE)[0][0]
    first = _snap(server, db, DEFAULT_BUDGET)
    predicted = first.fetch["comparisons"].snapshots_to_go
    assert first.vote_coverage["lists_pending"] > 0 and predicted >= 1
    taken, summary = 1, first
    while summary.vote_coverage["lists_pending"] and taken < 5:
        summary = _snap(server, db, DEFAULT_BUDGET)
        taken += 1
    assert summary.vote_coverage["lists_pending"] == 0 and summary.vote_coverage["stored"] == reachable
    assert abs(predicted - (taken - 1)) <= 0.3 * (taken - 1), (predicted, taken - 1)
    for s in (first, summary):  # each snapshot within 1.4 full reads of the interface in all
        info = s.fetch["comparisons"]
        assert info.requested <= info.budget
    ghost, a = _ghost_vote(server)
    codec = IdCodec(0)
    ghost_id = codec.encode("comparison", ghost)
    cycle = _snap(server, db, DEFAULT_BUDGET).vote_coverage["audit_cycle"]
    assert cycle is not None and cycle <= 5
    found_after = (
        1
        if not read_frame(db, "SELECT 1 FROM comparisons WHERE comparison_id = ?", [ghost_id]).is_empty()
        else None
    )
    n = 1
    while found_after is None and n < cycle:
        n += 1
        _snap(server, db, DEFAULT_BUDGET)
        if not read_frame(db, "SELECT 1 FROM comparisons WHERE comparison_id = ?", [ghost_id]).is_empty():
            found_after = n
    assert found_after is not None and found_after <= cycle
    count_a = _sqlite(server, f"SELECT comparison_count FROM solutions WHERE id = {a}")[0][0]
    row = read_frame(
        db,
        "SELECT announced, stored FROM data_quality WHERE scope = ? "
        "AND snapshot_id = (SELECT max(snapshot_id) FROM snapshots)",
        [codec.encode("solution", a)],
    )
    assert row.rows() == [(count_a, count_a + 1)]


def test_under_an_announced_quota_the_votes_spend_what_it_leaves_without_waiting(
    make_sandbox: Any, tmp_path: Path
):
    """A platform announcing 600 requests an hour (the pacer sends half a window at once): with the default
    budget, the vote lists of three back-to-back snapshots spend only what the quota leaves without waiting
    after the reserve for the next snapshot's interface reads; no request waits for the quota, the server
    answers no 429 (its own count), the quota binds the third snapshot's votes to nothing, and the summary
    says how much the quota left and what the vote lists spent."""
    import httpx

    from solvelens.client.ratelimit import shared_pacer

    server = make_sandbox(seed=0, rate_limit="600/hour")
    db = tmp_path / "store.duckdb"
    rooms = []
    for _ in range(3):
        summary = _snap(server, db, DEFAULT_BUDGET)
        info = summary.fetch["comparisons"]
        quota = info.quota
        assert quota is not None and info.requested <= quota.room == max(0, quota.left - quota.reserve)
        rooms.append(quota.room)
        assert "the platform's quota left" in summary.optional_line()
        # the pacer's records, per kind: the vote lists are the optional requests, none of them held
        pacing = summary.fetch["pacing"]
        assert pacing.optional == KindFigures(requests=info.requests, held=0, waited_s=0.0)
        assert pacing.interface.requests > 0 and pacing.interface.held == 0
        assert pacing.rate_limited == 0 and summary.pacing_line() == ""
        used = httpx.get(f"{server.root_url}/_sandbox/rate-limit").json()["requests"]
        if info.requested:  # the vote lists never spend the reserve kept for the next interface reads
            assert 300 - used >= quota.reserve
    counts = httpx.get(f"{server.root_url}/_sandbox/rate-limit").json()
    assert counts["limited"] == 0 and counts["requests"] <= 300  # within the half sent without waiting
    stats = shared_pacer(server.base_url).stats
    assert stats.rate_limited == 0 and stats.longest_wait_s < 0.5
    assert rooms[0] > 0 and rooms[-1] == 0  # the quota, not the budget, ends the votes' spending


def test_the_pacing_line_tells_a_snapshot_paced_by_its_interface_from_optional_requests_that_waited():
    """The summary's pacing figures are per kind over the run (later copies less earlier ones), and its
    line names the interface's waits on their own, saying when no optional request waited."""
    before = {"interface": KindStats(10, 1, 0.5)}
    after = {"interface": KindStats(2310, 813, 34.71), "optional": KindStats(1108, 0, 0.0)}
    report = pacing_report(before, after, rate_limited=0)
    assert report.step == "pacing" and report.figures == PacingFigures(
        rate_limited=0, interface=KindFigures(2300, 812, 34.21), optional=KindFigures(1108, 0, 0.0)
    )
    summary = SnapshotSummary(1, "2026-01-01T00:00:00Z", "http://x/api/v1", {}, 1.0, [], [])
    assert summary.pacing_line() == ""  # nothing recorded: nothing said
    summary.fetch["pacing"] = report.figures
    assert summary.pacing_line() == (
        "Requests held for the platform's quota: 812 of the 2,300 interface requests (34.2 s in all); "
        "none of the 1,108 optional requests."
    )
    waited = pacing_report({}, {"optional": KindStats(5, 2, 3.0)}, rate_limited=1).figures
    summary.fetch["pacing"] = waited
    assert isinstance(waited, PacingFigures) and waited.interface == KindFigures(0, 0, 0.0)
    assert summary.pacing_line().endswith(
        "2 of the 5 optional requests (3.0 s in all); the platform answered 429 to 1 request."
    )
