"""``analysis.diff`` on real snapshots of a sandbox driven through transitions: the simulator advances
simulated days (problems arrive, get moderated, solved, voted on and mature; bots join and climb), and real
bots red-flag a pending problem until the platform rejects it. Each kind of change must show; a second
sandbox (another platform) snapshotted into the same store must stay out of the first one's diff and report.
"""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import polars as pl
import pytest

from solvelens import analysis as an
from solvelens.client import PlatformClient
from solvelens.flows.steps import SnapshotPlan, run_snapshot
from solvelens.report import report_content
from solvelens.sandbox.simulate import advance
from tests.fixtures.sandbox import SandboxServer, start_sandbox


def _snapshot(server: SandboxServer, store: Path) -> int:
    """One complete snapshot at the sandbox's simulated clock; its id."""
    clock = httpx.get(f"{server.root_url}/health", timeout=10).json()["clock"]
    plan = SnapshotPlan(base_url=server.base_url, db_path=str(store), taken_at=clock, use_api_key=False)
    run_snapshot(plan)
    return int(an.read_snapshots(store)["snapshot_id"][-1])


def _status(server: SandboxServer, problem_id: str) -> str:
    return str(httpx.get(f"{server.base_url}/problems/{problem_id}", timeout=10).json()["status"])


def _pending_problem(server: SandboxServer) -> str:
    """A fresh pending problem, no flag on it yet; its public id. Real bots take tasks until the platform
    hands one a ``create`` task: flag tasks come first while the simulator left a problem pending (often
    with two green flags, so that a red third flag would activate it, not reject it), so each is answered
    green, as a moderator would, and submitted (a task left unsubmitted stays assigned for the task TTL and
    keeps its problem from other bots)."""
    for i in range(30):
        with PlatformClient(server.base_url, api_key=server.create_bot(f"author-{i}")) as client:
            task = client.next_task()
            assert task is not None, "no task for a new bot"
            if task["taskType"] == "flag":
                client.submit(task, {"verdict": "green", "category": "none", "suggested_category": None})
                continue
            assert task["taskType"] == "create", task
            body = {
                "problem_title": "Keeping a sourdough starter alive while travelling",
                "problem_description": "How do I keep it fed for two weeks away from home?",
                "category": "lifestyle",
            }
            created = client.submit(task, body)
            problem_id = str(created["result"]["problem_id"])
            assert _status(server, problem_id) == "pending"
            return problem_id
    raise AssertionError("no create task after 30 bots answered flag tasks")


def _reject_a_pending_problem(server: SandboxServer, pending: str) -> str:
    """Real bots flag the pending problem ``pending`` red (the platform's moderation: two red flags reject
    one; it is the only problem left to flag) until it is rejected; its public id."""
    flagged: list[str] = []
    for i in range(8):
        with PlatformClient(server.base_url, api_key=server.create_bot(f"moderator-{i}")) as client:
            task = client.next_task()
            if task is None or task["taskType"] != "flag":
                continue
            problem_id = str(task["payload"]["problem_id"])
            assert problem_id == pending, (problem_id, pending)
            client.submit(task, {"verdict": "red", "category": "spam", "suggested_category": None})
        flagged.append(problem_id)
        if _status(server, problem_id) == "rejected":
            return problem_id
    raise AssertionError(f"no problem rejected after red flags on {flagged}")


@pytest.fixture(scope="module")
def driven_once(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, object]]:
    """Snapshots s1 (fresh platform), s2 (6 simulated days later, a problem pending), s3 (a pending problem
    rejected by two red flags); built once for the module (the tests get copies: :func:`driven`)."""
    folder = tmp_path_factory.mktemp("driven")
    server = start_sandbox(folder / "sandbox.sqlite", seed=0, scale="small", task_types="flag,create")
    try:
        store = folder / "store.duckdb"
        s1 = _snapshot(server, store)
        # without simulated vote deadlocks: seed 0's six days then bring a new bot into the top 3 (with the
        # default 4 % they change the history so that the top 3 stays as it was, and "top_entered" is empty);
        # deadlocks themselves are tested in tests/sandbox/test_real_behaviours.py
        advance(server.db_path, days=6, vote_deadlocks=0.0)
        pending = _pending_problem(server)
        s2 = _snapshot(server, store)
        rejected = _reject_a_pending_problem(server, pending)
        s3 = _snapshot(server, store)
        yield {"server": server, "store": store, "ids": (s1, s2, s3), "rejected": rejected}
    finally:
        server.stop()


@pytest.fixture
def driven(driven_once: dict[str, object], tmp_path: Path) -> dict[str, object]:
    """:func:`driven_once` with this test's own copies of the store (``store``: tests add snapshots to it)
    and of the sandbox's SQLite file (``platform_db``: the same platform, its ``platform_id`` included, to
    serve again), so no test sees another's changes."""
    store = tmp_path / "store.duckdb"
    shutil.copy(driven_once["store"], store)  # type: ignore[arg-type]
    platform_db = tmp_path / "sandbox.sqlite"
    source = sqlite3.connect(driven_once["server"].db_path)  # type: ignore[attr-defined]
    target = sqlite3.connect(platform_db)
    try:
        source.backup(target)  # consistent while the module's server has the file open (WAL)
    finally:
        target.close()
        source.close()
    return {**driven_once, "store": store, "platform_db": platform_db}


def test_a_sandbox_driven_through_transitions_shows_each_kind_of_change(driven: dict[str, object]):
    store, (s1, s2, s3) = driven["store"], driven["ids"]
    days = an.diff(store, s1, s2, top_n=3, min_move=1)  # type: ignore[arg-type]
    for kind in (
        "problems_added",
        "status_changes",
        "solutions_added",
        "top_solution_changes",
        "top_entered",
        "top_left",
        "rank_moves",
        "points",
        "new_bots",
        "stats_deltas",
    ):
        assert getattr(days, kind).height > 0, (kind, days.counts())
    transitions = set(days.status_changes.select("before", "after").rows())
    assert transitions <= {("pending", "active"), ("active", "mature"), ("pending", "mature")}, transitions
    assert days.stats_deltas.filter(pl.col("metric") == "totalProblems")["delta"][0] > 0
    # entering and leaving the top 3 always balance when the top 3 has no ties
    assert days.top_entered["rank_after"].max() <= 3  # type: ignore[operator]
    # the rejection: the problem leaves the listing with its last listed status, nothing else is guessed
    moderated = an.diff(store, s2, s3)  # type: ignore[arg-type]
    removed = moderated.problems_removed
    assert driven["rejected"] in removed["problem_id"].to_list()
    assert removed.filter(pl.col("problem_id") == driven["rejected"])["status"][0] == "pending"
    assert "rejected" not in moderated.status_changes["after"].to_list()
    assert an.diff(store, s3, s3).is_empty()  # type: ignore[arg-type]


def test_diff_agrees_with_the_report_movers_on_the_same_pair(driven: dict[str, object]):
    store = an.load(driven["store"])  # type: ignore[arg-type]
    content = report_content(store)
    history = an.rank_history(store.leaderboard, store.snapshots)
    movers = an.top_movers(history, n=1000)  # baseline "first": the history spans under 7 days
    s1, _, s3 = driven["ids"]  # type: ignore[misc]
    result = an.diff(store, s1, s3, min_move=1)
    assert movers["baseline"][0] == "first" and movers.height > 0
    assert (
        result.rank_moves.select("bot_id", "rank_before", "rank_after", "move")
        .sort("bot_id")
        .equals(
            movers.select("bot_id", rank_before="rank_start", rank_after="rank_end", move="rank_change").sort(
                "bot_id"
            )
        )
    )
    # the report's "What changed" block compares the same pair as its movers chart
    block = next(b for b in content.changes if b.key == "first")
    assert f"#{s1} " in block.heading and f"#{s3} " in block.heading


def test_two_platforms_in_one_store_are_kept_apart(
    driven: dict[str, object], make_sandbox: Callable[..., SandboxServer]
):
    """The issue's scenario: a sandbox served by hand (another platform) snapshotted into the demo's store."""
    store, (s1, s2, s3) = driven["store"], driven["ids"]
    other = make_sandbox(seed=5, scale="small")
    advance(other.db_path, days=10)  # its clock now runs ahead of the first sandbox's
    extra = _snapshot(other, store)  # type: ignore[arg-type]
    table = an.platforms(an.read_snapshots(store))  # type: ignore[arg-type]
    assert table.height == 2 and table["snapshots"].to_list() == [1, 3]
    newest, first = table["platform"].to_list()
    # default: the newest snapshot's platform, here the hand-served one with a single snapshot
    with pytest.raises(an.SnapshotSelectionError, match="only this one snapshot"):
        an.diff(store)  # type: ignore[arg-type]
    with pytest.raises(an.SnapshotSelectionError, match="different platforms"):
        an.diff(store, s3, extra)  # type: ignore[arg-type]
    result = an.diff(store, platform=first)  # type: ignore[arg-type]
    assert (result.a.snapshot_id, result.b.snapshot_id) == (s2, s3)
    by_url = an.diff(store, platform=str(driven["server"].base_url))  # type: ignore[attr-defined]
    assert by_url.b.snapshot_id == s3
    # the report: one platform, named, the other listed
    loaded = an.load(store, platform=first[:8])  # type: ignore[arg-type]
    assert loaded.snapshots.collect()["snapshot_id"].to_list() == [s1, s2, s3]
    assert loaded.other_platforms["platform"].to_list() == [newest]  # type: ignore[index]
    content = report_content(loaded)
    assert content.snapshot_count == 3 and content.platform == first
    assert any("also holds 1 other platform" in n and newest in n for n in content.notices)
    alone = report_content(an.load(store))  # type: ignore[arg-type]
    assert alone.snapshot_count == 1 and alone.platform == newest
    with pytest.raises(an.PlatformNotFoundError, match="--platform"):
        an.load(store, platform="http://127.0.0.1:1/api/v1")  # type: ignore[arg-type]


def test_a_wall_clock_snapshot_of_the_same_sandbox_is_left_out(
    driven: dict[str, object], make_sandbox: Callable[..., SandboxServer]
):
    """The same sandbox served again on another port (same platform id) and snapshotted at the machine's
    time (--taken-at now; before the platform's clock gave snapshots their time, every snapshot without
    --taken-at had it): it never joins the simulated history."""
    import datetime as dt

    store, (s1, s2, s3) = driven["store"], driven["ids"]
    again = make_sandbox(db_path=driven["platform_db"])
    now = dt.datetime.now(dt.UTC).isoformat()
    run_snapshot(SnapshotPlan(base_url=again.base_url, db_path=str(store), use_api_key=False, taken_at=now))
    table = an.platforms(an.read_snapshots(store))  # type: ignore[arg-type]
    assert table.height == 1 and table["snapshots"][0] == 4
    loaded = an.load(store)  # type: ignore[arg-type]
    assert loaded.snapshots.collect()["snapshot_id"].to_list() == [s1, s2, s3]
    assert "wall-clock" in loaded.clock_note
    assert (an.diff(store).a.snapshot_id, an.diff(store).b.snapshot_id) == (s2, s3)  # type: ignore[arg-type]
    assert any("wall-clock" in n for n in report_content(loaded).notices)
    wall = int(an.read_snapshots(store)["snapshot_id"].max())  # type: ignore[arg-type]
    with pytest.raises(an.SnapshotSelectionError, match=f"#{wall} is not compared"):
        an.diff(store, s3, wall)  # type: ignore[arg-type]
