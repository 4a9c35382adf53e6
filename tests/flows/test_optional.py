"""The optional resources in snapshots, against the real sandbox server over HTTP: discovery ("not offered"
never fails a snapshot), the activity history and its gaps, comparisons fetched only where votes moved,
the platform's model leaderboard."""

from __future__ import annotations

import json
import logging
import math
import sqlite3
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from solvelens.cli import app
from solvelens.client import PlatformClient
from solvelens.client.example_solver import solve
from solvelens.client.walk import endpoint_key
from solvelens.flows.budget import AUDIT_CYCLE
from solvelens.flows.steps import SnapshotPlan, run_snapshot
from solvelens.flows.summary import SnapshotSummary
from solvelens.sandbox.ids import IdCodec
from solvelens.sandbox.simulate import advance
from solvelens.store import read_frame
from tests.fixtures.sandbox import SandboxServer

runner = CliRunner()


class Requests:
    """Requests the snapshot's clients sent, per endpoint template (from the client's DEBUG log lines)."""

    def __init__(self, caplog: pytest.LogCaptureFixture) -> None:
        self.caplog = caplog
        caplog.set_level(logging.DEBUG, logger="solvelens.client")

    def take(self) -> Counter[str]:
        counts: Counter[str] = Counter()
        for record in self.caplog.records:
            if record.name == "solvelens.client" and "->" in record.msg and len(record.args or ()) == 4:
                method, path, _status, _elapsed = record.args  # type: ignore[misc]
                counts[f"{method} {endpoint_key(str(path))}"] += 1
        self.caplog.clear()
        return counts


COMPARISONS = "GET /solutions/{id}/comparisons"


def _snap(server: SandboxServer, db: Path, **plan: Any) -> SnapshotSummary:
    return run_snapshot(SnapshotPlan(base_url=server.base_url, db_path=str(db), use_api_key=False, **plan))


def _sandbox_events(server: SandboxServer) -> list[int]:
    con = sqlite3.connect(f"file:{server.db_path}?mode=ro", uri=True)
    try:
        return [r[0] for r in con.execute("SELECT id FROM activity ORDER BY id")]
    finally:
        con.close()


def _sandbox_comparisons(server: SandboxServer, seed: int) -> tuple[set[str], set[str]]:
    """The sandbox's comparison ids (public form): all, and those on a solution with at most 50 votes (whose
    whole list the endpoint returns)."""
    codec = IdCodec(seed)
    con = sqlite3.connect(f"file:{server.db_path}?mode=ro", uri=True)
    try:
        rows = con.execute(
            "SELECT c.id, min(a.comparison_count, b.comparison_count) FROM comparisons c "
            "JOIN solutions a ON a.id = c.solution_a JOIN solutions b ON b.id = c.solution_b"
        ).fetchall()
    finally:
        con.close()
    everything = {codec.encode("comparison", r[0]) for r in rows}
    return everything, {codec.encode("comparison", r[0]) for r in rows if r[1] <= 50}


def _stored_events(db: Path) -> list[int]:
    return sorted(int(e) for e in read_frame(db, "SELECT event_id FROM activity")["event_id"])


def test_a_platform_without_the_optional_endpoints_still_gets_complete_snapshots(
    make_sandbox: Any, tmp_path: Path, caplog: pytest.LogCaptureFixture
):
    server = make_sandbox(without=("activity", "llm-leaderboard", "comparisons"))
    requests = Requests(caplog)
    db = tmp_path / "store.duckdb"
    summary = _snap(server, db)
    assert summary.resources == dict.fromkeys(
        ("activity", "comparisons", "llm_families", "llm_leaderboard"), "not offered"
    )
    sent = requests.take()
    # Discovery costs one request each: the first ask is the probe.
    assert sent["GET /activity"] == 1 and sent["GET /llm-leaderboard"] == 1 and sent[COMPARISONS] == 1
    snaps = read_frame(db, "SELECT status, resources FROM snapshots")
    assert snaps["status"].to_list() == ["complete"]
    assert json.loads(snaps["resources"][0])["activity"] == "not offered"
    assert read_frame(db, "SELECT count(*) AS n FROM solutions")["n"][0] == summary.counts["solutions"] > 0
    for view in ("activity", "comparisons", "llm_leaderboard", "llm_families", "activity_gaps"):
        assert read_frame(db, f"SELECT count(*) AS n FROM {view}")["n"][0] == 0, view

    # The CLI says so in its summary, and exits 0.
    again = runner.invoke(
        app, ["snapshot", "--base-url", server.base_url, "--db", str(db), "--no-bot-me", "--no-prefect"]
    )
    assert again.exit_code == 0, again.output
    said = " ".join(again.output.split())
    assert "activity not offered (HTTP 404 on GET /activity)" in said
    assert "comparisons not offered (HTTP 404 on GET /solutions/{id}/comparisons)" in said
    assert "llm_leaderboard not offered" in said


def test_a_subset_missing_and_resources_left_out(
    make_sandbox: Any, tmp_path: Path, caplog: pytest.LogCaptureFixture
):
    server = make_sandbox(without=("llm-leaderboard",))
    requests = Requests(caplog)
    db = tmp_path / "store.duckdb"
    summary = _snap(server, db, resources=["activity", "llm_leaderboard"])
    assert summary.resources == {
        "activity": "stored",
        "comparisons": "not requested",
        "llm_families": "not requested",
        "llm_leaderboard": "not offered",
    }
    assert requests.take()[COMPARISONS] == 0
    none = _snap(server, db, resources=[])
    assert set(none.resources.values()) == {"not requested"}
    sent = requests.take()
    assert not any(k in sent for k in ("GET /activity", "GET /llm-leaderboard", COMPARISONS)), sent
    stored = read_frame(db, "SELECT resources FROM snapshots ORDER BY snapshot_id")["resources"]
    assert [json.loads(r)["activity"] for r in stored] == ["stored", "not requested"]

    bad = runner.invoke(
        app, ["snapshot", "--base-url", server.base_url, "--db", str(db), "--resources", "activity,votes"]
    )
    assert bad.exit_code == 2
    assert "unknown resource 'votes'" in bad.output and "llm_leaderboard" in bad.output


def test_activity_history_is_complete_across_snapshots_taken_often_enough(make_sandbox: Any, tmp_path: Path):
    server = make_sandbox(seed=3, task_types="solve,vote", vote_deadlocks=0.0)  # every submit below succeeds
    db = tmp_path / "store.duckdb"
    first = _snap(server, db, resources=["activity"])
    start = min(_stored_events(db))  # the history starts with the feed's window at the first snapshot
    assert first.counts["activity"] == first.fetch["activity"].fetched == 50
    key = server.create_bot("history-keeper")
    with PlatformClient(server.base_url, api_key=key, read_env=False) as bot:
        for _ in range(4):
            for _ in range(3):  # a few events between snapshots: far fewer than the feed's 50
                task = bot.next_task()
                if task is not None:
                    bot.submit(task, solve(task))
            summary = _snap(server, db, resources=["activity"])
            assert not any("missed" in w for w in summary.warnings), summary.warnings
            assert 0 < summary.counts["activity"] < 50
    assert _stored_events(db) == [e for e in _sandbox_events(server) if e >= start]
    assert read_frame(db, "SELECT count(*) AS n FROM activity_gaps")["n"][0] == 0
    row = read_frame(db, "SELECT * FROM activity ORDER BY event_id::BIGINT DESC LIMIT 1").row(0, named=True)
    assert row["action"] in ("solution_submitted", "vote_cast", "badge_earned", "problem_status_changed")
    assert row["bot_name"] and row["created_at"] is not None and row["first_snapshot_id"] == 5
    assert isinstance(json.loads(row["metadata"]), dict)  # sent as a JSON string, stored parsed


def test_a_fast_moving_platform_shows_a_recorded_gap_and_the_cadence_that_would_have_caught_it(
    make_sandbox: Any, tmp_path: Path
):
    server = make_sandbox(seed=4)
    db = tmp_path / "store.duckdb"
    _snap(server, db, resources=["activity"])
    newest_before = max(_stored_events(db))
    moved = advance(server.db_path, days=1)  # a simulated day: hundreds of events
    assert moved["solutions"] + moved["votes"] > 50
    summary = _snap(server, db, resources=["activity"])
    gap_lines = [w for w in summary.warnings if "events missed" in w]
    assert len(gap_lines) == 1 and "would have caught them" in gap_lines[0]
    gaps = read_frame(db, "SELECT * FROM activity_gaps")
    assert gaps.height == 1
    gap = gaps.row(0, named=True)
    assert gap["snapshot_id"] == summary.snapshot_id
    assert int(gap["newest_stored_event_id"]) == newest_before
    assert int(gap["oldest_fetched_event_id"]) > newest_before + 1
    assert gap["gap_from"] < gap["gap_to"]
    assert gap["events_per_hour"] > 0 and 0 < gap["suggested_interval_s"] < 86400
    # Both pages are kept; what fell between them is the gap.
    assert len(_stored_events(db)) == 100
    # A full run (--full) refetches everything but still tells the gap.
    advance(server.db_path, days=1)
    full = _snap(server, db, resources=["activity"], full=True)
    assert any("events missed" in w for w in full.warnings)
    assert read_frame(db, "SELECT count(*) AS n FROM activity_gaps")["n"][0] == 2

    from solvelens.analysis.load import load

    loaded = load(db)
    assert loaded.activity_gaps.collect()["snapshot_id"].to_list() == [
        summary.snapshot_id,
        full.snapshot_id,
    ]
    assert loaded.activity.collect().height == 150


def test_comparisons_are_fetched_only_where_votes_moved_and_stored_once(
    make_sandbox: Any, tmp_path: Path, caplog: pytest.LogCaptureFixture
):
    # seed 0: some solutions have more than 50 votes; no deadlocked submit: the vote below must move counts
    # (a deadlocked vote, counted on neither side, is the audit's case: tests/flows/test_fetch_budget.py)
    server = make_sandbox(seed=0, task_types="vote", vote_deadlocks=0.0)
    requests = Requests(caplog)
    db = tmp_path / "store.duckdb"
    first = _snap(server, db, resources=["comparisons"], budget="100000")  # bounded: lists can be skipped
    sent = requests.take()
    info = first.fetch["comparisons"]
    voted = read_frame(db, "SELECT count(*) AS n FROM solutions WHERE comparison_count > 0")["n"][0]
    assert sent[COMPARISONS] == info.requested and info.requested + info.skipped == voted
    assert info.skipped > voted / 4  # a vote names two solutions: many lists need no request
    stored = read_frame(db, "SELECT count(*) AS n, count(DISTINCT comparison_id) AS d FROM comparisons")
    assert stored["n"][0] == stored["d"][0] == first.counts["comparisons"] > 0
    # Every vote on a solution with at most 50 votes (its whole list) is stored, asked for or not.
    ids = set(read_frame(db, "SELECT comparison_id FROM comparisons")["comparison_id"])
    everything, complete = _sandbox_comparisons(server, seed=0)
    assert complete <= ids <= everything and len(complete) > len(everything) / 2
    # Where a solution has more votes than the endpoint returns (50), the coverage is recorded.
    coverage = read_frame(db, "SELECT * FROM comparison_coverage")
    assert coverage.height > 0
    assert (coverage["stored"] < coverage["comparison_count"]).all()
    assert (coverage["comparison_count"] > 50).all()  # every vote of a solution with at most 50 is stored
    votes = read_frame(db, "SELECT winner, solution_a_id, solution_b_id, voter_bot_id FROM comparisons")
    assert set(votes["winner"]) <= {"a", "b", "skip"} and votes["solution_a_id"].null_count() == 0

    # Nothing moved: only the audit share of lists trusted by their counts is re-read (every one within
    # AUDIT_CYCLE snapshots); it finds nothing new.
    unchanged = _snap(server, db, resources=["comparisons"], budget="100000")
    audit = unchanged.fetch["comparisons"]
    # every vote list was read (or covered) by the first snapshot: each is trusted by its count now, and so
    # is every list whose count is 0 (a vote written without its counts can sit there)
    trusted = read_frame(
        db,
        "SELECT count(*) AS n FROM solutions WHERE comparison_count >= 0 "
        "AND snapshot_id = (SELECT max(snapshot_id) FROM snapshots)",
    )["n"][0]
    assert audit.audited == audit.requested == math.ceil(trusted / AUDIT_CYCLE) > 0
    assert audit.audit_cycle == AUDIT_CYCLE and audit.pending == 0
    assert requests.take()[COMPARISONS] == audit.requested and unchanged.counts["comparisons"] == 0

    key = server.create_bot("one-vote")
    with PlatformClient(server.base_url, api_key=key, read_env=False) as bot:
        task = bot.next_task()
        assert task is not None and task.type == "vote"
        bot.submit(task, solve(task))
    after = _snap(server, db, resources=["comparisons"], budget="100000")
    moved = after.fetch["comparisons"]
    # The two compared solutions moved: one is asked, its list shows the vote, the other needs no request.
    assert requests.take()[COMPARISONS] == moved.requested
    assert moved.requested - moved.audited + moved.skipped == 2
    assert moved.requested - moved.audited >= 1
    assert after.counts["comparisons"] == 1  # the new vote, stored once though both lists name it
    mine = read_frame(
        db, "SELECT first_snapshot_id, voter_bot_name FROM comparisons WHERE voter_bot_name = ?", ["one-vote"]
    )
    assert mine["first_snapshot_id"].to_list() == [after.snapshot_id]


def test_the_platforms_model_leaderboard_is_stored_per_snapshot(make_sandbox: Any, tmp_path: Path):
    server = make_sandbox(seed=2)
    db = tmp_path / "store.duckdb"
    for _ in range(2):
        _snap(server, db, resources=["llm_leaderboard"])
    with PlatformClient(server.base_url, read_env=False) as client:
        models = client.llm_leaderboard()
    board = read_frame(db, "SELECT * FROM llm_leaderboard ORDER BY snapshot_id, rank")
    assert board.height == 2 * len(models) > 0
    first = board.filter(board["snapshot_id"] == 1)
    assert first["model_name"].to_list() == [m["modelName"] for m in models]
    assert first["rank"].to_list() == list(range(1, len(models) + 1))
    assert first["avg_bt_score"].to_list() == [m["avgBtScore"] for m in models]
    versions = read_frame(db, "SELECT count(*) AS n FROM solvelens_store.llm_leaderboard_versions")["n"][0]
    assert versions == len(models)  # unchanged: the second snapshot stored no new version


@pytest.mark.parametrize("conventions", ["jsonapi", "relay"])
def test_the_optional_resources_in_another_wire_convention_are_stored_canonical(
    make_sandbox: Any, tmp_path: Path, conventions: str
):
    server = make_sandbox(seed=1, conventions=conventions)
    db = tmp_path / "store.duckdb"
    summary = _snap(server, db, resources=["activity", "llm_leaderboard"])
    assert summary.resources == {
        "activity": "stored",
        "comparisons": "not requested",
        "llm_families": "not requested",
        "llm_leaderboard": "stored",
    }
    events = read_frame(db, "SELECT event_id, action, created_at FROM activity")
    assert events.height == summary.counts["activity"] > 0
    assert events["action"].null_count() == 0 and events["created_at"].null_count() == 0
    models = read_frame(db, "SELECT model_name, avg_bt_score FROM llm_leaderboard")
    assert models.height > 0 and models["model_name"].null_count() == 0
    # Each optional list's request is recorded as sent: the model board's sort is read from here, never
    # from the client's code.
    sent = json.loads(read_frame(db, "SELECT requests FROM snapshots")["requests"][0])
    assert sent == {"llm_leaderboard": {"path": "/llm-leaderboard", "params": {"sort": "avg_score"}}}
