"""The Prefect snapshot flow against the real sandbox over HTTP: DuckDB equals the sandbox's SQLite,
unchanged problems are not refetched, /bot/me is snapshotted with a key that never reaches Prefect."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from solvelens.analysis import diff
from solvelens.client import PlatformClient
from solvelens.flows.figures import LeaderboardFigures, ProblemsFigures
from solvelens.flows.snapshot import ARTIFACT_KEY, SnapshotPlan, snapshot_flow
from solvelens.flows.summary import SnapshotSummary
from solvelens.store import read_frame
from tests.fixtures.sandbox import SandboxServer
from tests.flows.conftest import sqlite_truth

pytestmark = pytest.mark.usefixtures("prefect_harness")


def _run(server: SandboxServer, db: Path, **kwargs: Any) -> SnapshotSummary:
    return asyncio.run(snapshot_flow(SnapshotPlan(base_url=server.base_url, db_path=str(db), **kwargs)))


def _assert_store_equals_platform(db: Path, sid: int, truth: dict[str, Any]) -> None:
    problems = read_frame(
        db, "SELECT problem_id, solution_count, comparison_count FROM problems WHERE snapshot_id = ?", [sid]
    )
    assert {r[0]: (r[1], r[2]) for r in problems.rows()} == truth["problems"]
    sols = read_frame(
        db,
        "SELECT problem_id, solution_id, rank FROM solutions WHERE snapshot_id = ? ORDER BY 1, 3, 2",
        [sid],
    )
    ranked: dict[str, list[tuple[str, int]]] = {p: [] for p in truth["problems"]}
    for pid, sol, rank in sols.rows():
        ranked[pid].append((sol, rank))
    assert ranked == truth["solutions"]
    bots = read_frame(db, "SELECT bot_id FROM bots WHERE snapshot_id = ?", [sid])
    assert set(bots["bot_id"]) == truth["bots"]
    board = read_frame(
        db, "SELECT rank, bot_id, points FROM leaderboard WHERE snapshot_id = ? ORDER BY 1", [sid]
    )
    assert set(board["bot_id"]) == truth["bots"]
    assert board["rank"].to_list() == list(range(1, board.height + 1))
    assert board["points"].to_list() == sorted(board["points"].to_list(), reverse=True)
    assert read_frame(db, "SELECT count(*) AS n FROM categories WHERE snapshot_id = ?", [sid])["n"][0] == 8
    stats = dict(
        read_frame(db, "SELECT metric, value FROM platform_stats WHERE snapshot_id = ?", [sid]).rows()
    )
    assert stats["totalSolutions"] == truth["total_solutions"]


def test_two_runs_match_the_platform_and_the_second_refetches_nothing(
    quiet_sandbox: SandboxServer, store_path: Path, monkeypatch: pytest.MonkeyPatch
):
    truth = sqlite_truth(quiet_sandbox)
    monkeypatch.setattr(sys, "unraisablehook", sys.__unraisablehook__)
    # --budget all: every vote list is read by the first snapshot (a bounded budget leaves some for later).
    first = _run(quiet_sandbox, store_path, taken_at="2026-03-01T00:00:00Z", use_api_key=False, budget="all")
    assert first.snapshot_id == 1
    assert first.taken_at == "2026-03-01T00:00:00Z"
    assert first.counts["problems"] == len(truth["problems"])
    assert first.counts["solutions"] == truth["total_solutions"]
    assert first.counts["bot_me"] == 0
    assert first.fetch["problems"] == ProblemsFigures(refetched=len(truth["problems"]), carried_over=0)
    assert first.warnings == [] and first.drift == []
    _assert_store_equals_platform(store_path, 1, truth)
    # the run's body installed it (tests/flows/test_termination.py: a SIGTERM inside a callback)
    assert getattr(sys.unraisablehook, "redelivers_termination", False)

    second = _run(quiet_sandbox, store_path, taken_at="2026-03-02T00:00:00Z", use_api_key=False, budget="all")
    assert second.snapshot_id == 2
    assert second.fetch["problems"] == ProblemsFigures(refetched=0, carried_over=len(truth["problems"]))
    assert second.fetch["leaderboard"] == LeaderboardFigures(0, profiles_carried_over=len(truth["bots"]))
    assert second.mode == "prefect" and second.flow_run["id"]
    assert set(second.new_versions.values()) == {0}
    history = ("activity", "comparisons")  # each item once: their counts are what a snapshot saw first
    assert {k: v for k, v in second.counts.items() if k not in history} == {
        k: v for k, v in first.counts.items() if k not in history
    }
    assert second.resources == {
        "activity": "stored",
        "comparisons": "stored",
        "llm_families": "stored",
        "llm_leaderboard": "stored",
    }
    audit = second.fetch["comparisons"]  # only the audit share of lists trusted by their counts
    assert audit.requested == audit.audited > 0 and audit.pending == 0
    _assert_store_equals_platform(store_path, 2, truth)
    snaps = read_frame(store_path, "SELECT snapshot_id, taken_at, status FROM snapshots ORDER BY 1")
    assert [str(t) for t in snaps["taken_at"]] == ["2026-03-01 00:00:00+00:00", "2026-03-02 00:00:00+00:00"]


def test_changed_problem_is_refetched_and_bot_me_uses_the_env_key(
    quiet_sandbox: SandboxServer, store_path: Path, monkeypatch: pytest.MonkeyPatch
):
    _run(quiet_sandbox, store_path, use_api_key=False)
    key = quiet_sandbox.create_bot("flow-test-bot")
    with PlatformClient(quiet_sandbox.base_url, api_key=key, read_env=False) as client:
        task = client.next_task()
        assert task is not None and task.type == "solve"
        problem_id = task.payload["problem_id"]
        client.submit(
            task.id, {"solution_text": "A solution long enough to be accepted. " * 3, "llm_model": "t-1"}
        )
        me = client.get_me()
    truth = sqlite_truth(quiet_sandbox)

    monkeypatch.setenv("SOLVELENS_API_KEY", key)
    result = _run(quiet_sandbox, store_path, full=False)
    # Only the solved problem changed its solution count; every other list carried over.
    assert result.fetch["problems"] == ProblemsFigures(refetched=1, carried_over=len(truth["problems"]) - 1)
    changes = diff(store_path)  # what changed: analysis.diff's, the one definition
    assert changes.counts()["solutions_added"] == 1 and changes.solutions_added["problem_id"].to_list() == [
        problem_id
    ]
    # The new bot's profile is fetched; profiles whose leaderboard entry did not change carry over.
    board = result.fetch["leaderboard"]
    assert isinstance(board, LeaderboardFigures) and 1 <= board.profiles_refetched <= 2
    assert board.profiles_refetched + board.profiles_carried_over == len(truth["bots"])
    assert changes.new_bots["name"].to_list() == ["flow-test-bot"]
    assert result.counts["bot_me"] == 1
    _assert_store_equals_platform(store_path, result.snapshot_id, truth)
    new = read_frame(
        store_path,
        "SELECT bot_id, llm_model FROM solutions WHERE snapshot_id = ? AND problem_id = ? AND bot_id = ?",
        [result.snapshot_id, problem_id, me["id"]],
    )
    assert new["llm_model"].to_list() == ["t-1"]
    bot_me = read_frame(store_path, "SELECT snapshot_id, bot_id, name FROM bot_me")
    assert bot_me.rows() == [(result.snapshot_id, me["id"], "flow-test-bot")]

    # The key is nowhere in Prefect: not in the flow/task run parameters, logs or the artifact.
    async def prefect_records() -> list[str]:
        from prefect.artifacts import Artifact
        from prefect.client.orchestration import get_client

        async with get_client() as client:
            runs = await client.read_flow_runs()
            tasks = await client.read_task_runs()
            logs = await client.read_logs()
        artifact = await Artifact.aget(ARTIFACT_KEY)
        assert artifact is not None
        return [
            *(json.dumps(r.parameters) for r in runs),
            *(json.dumps(t.task_inputs, default=str) for t in tasks),
            *(log.message for log in logs),
            str(artifact.data),
        ]

    records = asyncio.run(prefect_records())
    assert any("Snapshot" in r and "solutions" in r for r in records)  # the artifact is among them
    assert not [r for r in records if key in r]
    assert key not in json.dumps(result.as_dict())


def test_artifact_describes_the_run_and_progress_reaches_the_caller(
    quiet_sandbox: SandboxServer, store_path: Path
):
    from solvelens.flows.fetch import progress_callback

    seen: dict[str, tuple[int, int | None]] = {}
    token = progress_callback.set(lambda step, done, total: seen.__setitem__(step, (done, total)))
    try:
        result = _run(quiet_sandbox, store_path, use_api_key=False)
    finally:
        progress_callback.reset(token)
    # The CLI's progress display is fed from inside the Prefect tasks.
    n = result.counts["problems"]
    assert seen["problems"] == (n, n) and seen["solutions"] == (n, n)
    assert seen["bots"] == (result.counts["bots"], result.counts["leaderboard"])

    async def latest() -> str:
        from prefect.artifacts import Artifact

        artifact = await Artifact.aget(ARTIFACT_KEY)
        assert artifact is not None
        return str(artifact.data)

    markdown = asyncio.run(latest())
    assert f"# Snapshot {result.snapshot_id}" in markdown
    assert f"| solutions | {result.counts['solutions']} |" in markdown
    assert "## Changes since the last snapshot" not in markdown  # one "what changed": the diff's
    assert markdown.count("## What changed") == 1
    assert "First snapshot of this platform: nothing to compare with." in markdown
    assert "## Schema drift" in markdown and "## Warnings" in markdown


def test_a_client_error_fails_the_run_at_once_and_leaves_no_snapshot(
    quiet_sandbox: SandboxServer, store_path: Path
):
    from solvelens.client import NotFoundError

    with pytest.raises(ValueError, match="does not end in /api/v1"):  # the plan applies the base-URL rule
        SnapshotPlan(base_url=quiet_sandbox.root_url, db_path=str(store_path))
    with pytest.raises(ValueError, match="ISO-8601"):
        plan = SnapshotPlan(base_url=quiet_sandbox.base_url, db_path=str(store_path), taken_at="yesterday")
        asyncio.run(snapshot_flow(plan))
    wrong = quiet_sandbox.root_url + "/nothing-here/api/v1"
    with pytest.raises(NotFoundError):
        asyncio.run(snapshot_flow(SnapshotPlan(base_url=wrong, db_path=str(store_path), use_api_key=False)))

    async def problem_task_runs() -> list[int]:
        from prefect.client.orchestration import get_client
        from prefect.client.schemas.sorting import TaskRunSort

        async with get_client() as client:
            runs = await client.read_task_runs(sort=TaskRunSort.EXPECTED_START_TIME_DESC, limit=10)
        return [r.run_count for r in runs if r.name.startswith("fetch-problems-and-solutions")][:1]

    assert asyncio.run(problem_task_runs()) == [1]  # a 404 is not retried
    assert not store_path.exists()
    assert not any(store_path.parent.glob(".*.staging/*"))  # the staging directory was removed
