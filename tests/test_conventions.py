"""End to end in every sandbox convention mode, over real HTTP with the real command line (run in this
process): a full ``solvelens snapshot`` into a real DuckDB file equals the sandbox's SQLite database (ids,
key fields, ranks, counts, figures) while the sandbox orders tied scores at random on every call, as the
real platform does (solution ranks over the score and leaderboard ranks over the points are competition
ranks: the same whatever the tie order); ``solvelens bot run`` with the example solver has every task type
accepted; and ``solvelens probe`` -> profile -> ``snapshot --profile`` gives the same snapshot as detection.

The client reads the non-default modes only by detection (issue 15): these tests are the proof, and fail
for a mode the client cannot read yet."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result
from typer.testing import CliRunner

from solvelens.cli import app
from solvelens.sandbox import queries
from solvelens.sandbox.db import get_meta
from solvelens.sandbox.ids import IdCodec
from solvelens.sandbox.process import SandboxServer
from solvelens.store import read_frame
from tests.fixtures.conventions import MODES

TASK_KINDS = ("flag", "solve", "vote", "create")
SOLVER = "solvelens.client.example_solver:solve"


def solvelens(*args: str) -> Result:
    """Run ``solvelens ARGS`` in this process (typer's runner; no ``SOLVELENS_*`` variable, no Prefect API:
    the in-process path). A process of its own is not what these tests check (``tests/cli`` does that), and
    each would cost ~1.5 s of CPU to import the command line's libraries."""
    unset: dict[str, str | None] = {
        k: None for k in os.environ if k.startswith("SOLVELENS_") or k == "PREFECT_API_URL"
    }
    return CliRunner().invoke(app, list(args), env=unset)


def failure(result: Result) -> str:
    """What a failed run said: the end of its output, and the traceback of an exception it raised."""
    import traceback

    said = result.output[-3000:]
    if result.exc_info is not None and not isinstance(result.exception, SystemExit):
        said += "".join(traceback.format_exception(*result.exc_info))[-3000:]
    return said


def sqlite_truth(db_path: Path) -> dict[str, Any]:
    """What the platform holds, read from its SQLite file, in public ids (the sandbox's own orders)."""
    conn = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    try:
        codec = IdCodec(int(get_meta(conn, "seed") or 0))
        problems = {
            codec.encode("problem", pid): (title, sc, cc)
            for pid, title, sc, cc in conn.execute(
                "SELECT id, title, solution_count, comparison_count FROM problems WHERE status != 'rejected'"
            )
        }
        solutions: dict[str, list[tuple[int, str, str | None]]] = {p: [] for p in problems}
        for pid, sid, bid, rank in conn.execute(
            "SELECT s.problem_id, s.id, s.bot_id, rank() OVER (PARTITION BY s.problem_id "
            "ORDER BY round(s.bt_score, 4) DESC) FROM solutions s JOIN problems p ON p.id = s.problem_id "
            "WHERE p.status != 'rejected'"
        ):
            solutions[codec.encode("problem", pid)].append(
                (rank, codec.encode("solution", sid), codec.encode_opt("bot", bid))
            )
        solutions = {p: sorted(s) for p, s in solutions.items()}  # by competition rank, then id
        leaderboard = sorted(
            (rank, codec.encode("bot", bid))
            for bid, rank in conn.execute(
                "SELECT id, rank() OVER (ORDER BY total_points DESC) FROM bots WHERE status = 'active'"
            )
        )  # by competition rank over points (bots tied on points share it), then id
        categories = {
            (slug, name, count)
            for slug, name, count in conn.execute(
                "SELECT c.slug, c.display_name, (SELECT count(*) FROM problems p WHERE p.category = c.slug) "
                "FROM categories c"
            )
        }
        stats = queries.stats(conn)
    finally:
        conn.close()
    return {
        "problems": problems,
        "solutions": solutions,
        "leaderboard": leaderboard,
        "categories": categories,
        "stats": stats,
    }


def store_contents(store: Path) -> dict[str, Any]:
    """The one snapshot of ``store`` in the same form as :func:`sqlite_truth`."""
    assert read_frame(store, "SELECT count(*) AS n FROM snapshots")["n"][0] == 1
    problems = {
        r["problem_id"]: (r["title"], r["solution_count"], r["comparison_count"])
        for r in read_frame(
            store, "SELECT problem_id, title, solution_count, comparison_count FROM problems"
        ).iter_rows(named=True)
    }
    solutions: dict[str, list[tuple[int, str, str | None]]] = {p: [] for p in problems}
    for r in read_frame(
        store,
        "SELECT problem_id, rank, solution_id, bot_id FROM solutions ORDER BY problem_id, rank, solution_id",
    ).iter_rows(named=True):
        solutions[r["problem_id"]].append((r["rank"], r["solution_id"], r["bot_id"]))
    leaderboard = list(
        read_frame(store, "SELECT rank, bot_id FROM leaderboard ORDER BY rank, bot_id").iter_rows()
    )
    categories = set(read_frame(store, "SELECT slug, name, problem_count FROM categories").iter_rows())
    stats = dict(read_frame(store, "SELECT metric, value FROM platform_stats").iter_rows())
    bots = set(read_frame(store, "SELECT bot_id FROM bots")["bot_id"].to_list())
    return {
        "problems": problems,
        "solutions": solutions,
        "leaderboard": leaderboard,
        "categories": categories,
        "stats": stats,
        "bots": bots,
    }


def assert_snapshot_equals_platform(store: Path, server: SandboxServer, bot_name: str | None) -> None:
    """Every resource of the store's snapshot equals the sandbox's database, one resource at a time."""
    truth, got = sqlite_truth(server.db_path), store_contents(store)
    assert None not in got["problems"], "a problem was stored without an id"
    assert set(got["problems"]) == set(truth["problems"])
    assert got["problems"] == truth["problems"]  # title, solutionCount, comparisonCount per id
    assert got["solutions"] == truth["solutions"]  # competition ranks and authors of every list
    assert got["leaderboard"] == truth["leaderboard"]  # competition ranks: the same whatever the tie order
    assert got["bots"] == {bot for _, bot in truth["leaderboard"]}  # one profile per leaderboard bot
    assert got["categories"] == truth["categories"]
    assert {k: float(v) for k, v in got["stats"].items()} == {k: float(v) for k, v in truth["stats"].items()}
    if bot_name is not None:
        me = read_frame(store, "SELECT bot_id, name FROM bot_me").rows()
        assert len(me) == 1 and me[0][1] == bot_name and me[0][0]


@pytest.mark.parametrize("mode", MODES)
def test_snapshot_equals_the_sandbox_database(
    mode: str, convention_sandbox: Callable[..., SandboxServer], tmp_path: Path
) -> None:
    server = convention_sandbox(mode, task_types=("solve",), tie_order="shuffle")
    key = server.create_bot(f"Snap{mode.title()}")
    store = tmp_path / "store.duckdb"
    result = solvelens(
        "snapshot", "--base-url", server.base_url, "--db", str(store), "--api-key", key, "--no-prefect"
    )
    assert result.exit_code == 0, f"{mode}: {failure(result)}"
    assert_snapshot_equals_platform(store, server, f"Snap{mode.title()}")


@pytest.mark.parametrize("mode", MODES)
def test_bot_with_the_example_solver_has_every_task_type_accepted(
    mode: str, convention_sandbox: Callable[..., SandboxServer]
) -> None:
    """One server per task kind over the same SQLite file (the dispatcher hands out flag before solve before
    vote before create, so a single queue would rarely reach create); the bot runs until idle."""
    # Every answer must be accepted: the realistic 4 % of vote submits lost to a deadlock is off here (its own
    # tests are in tests/sandbox/test_real_behaviours.py).
    first = convention_sandbox(mode, task_types=("flag",), vote_deadlocks=0.0)
    key = first.create_bot(f"Every{mode.title()}")
    for kind in TASK_KINDS:
        server = (
            first
            if kind == "flag"
            else convention_sandbox(mode, db_path=first.db_path, task_types=(kind,), vote_deadlocks=0.0)
        )
        result = solvelens(
            "bot", "run", "--base-url", server.base_url, "--api-key", key, "--solver", SOLVER,
            "--max-tasks", "2", "--stop-when-idle", "--idle-wait", "0",
        )  # fmt: skip
        assert result.exit_code == 0, f"{mode}/{kind}: {failure(result)}"
    conn = sqlite3.connect(f"file:{first.db_path}?mode=ro", uri=True)
    rows = conn.execute(
        "SELECT t.task_type, t.status, count(*) FROM tasks t JOIN bots b ON b.id = t.bot_id "
        "WHERE b.name = ? GROUP BY 1, 2",
        (f"Every{mode.title()}",),
    ).fetchall()
    conn.close()
    completed = {kind for kind, status, _ in rows if status == "completed"}
    assert completed == set(TASK_KINDS), rows
    assert {status for _, status, _ in rows} == {"completed"}, rows  # nothing failed, nothing left held


@pytest.mark.parametrize("mode", MODES)
def test_probe_profile_snapshot_equals_detection(
    mode: str, convention_sandbox: Callable[..., SandboxServer], tmp_path: Path
) -> None:
    server = convention_sandbox(mode, task_types=("solve",), tie_order="shuffle")
    profile = tmp_path / "profile.toml"
    probed = solvelens("probe", "--base-url", server.base_url, "--out", str(profile))
    assert probed.exit_code == 0, failure(probed)
    assert "[endpoints." in profile.read_text(), profile.read_text()
    stores = {}
    for name, extra in (("detected", []), ("profiled", ["--profile", str(profile)])):
        stores[name] = tmp_path / f"{name}.duckdb"
        result = solvelens(
            "snapshot", "--base-url", server.base_url, "--db", str(stores[name]), "--no-prefect", *extra
        )
        assert result.exit_code == 0, f"{mode}/{name}: {failure(result)}"
    assert store_contents(stores["profiled"]) == store_contents(stores["detected"])
    assert_snapshot_equals_platform(stores["profiled"], server, None)
