"""Issue 21's list shapes, served by the sandbox over real HTTP (``paging="zero"``: pages numbered from 0, at
most 15 a page whatever ``limit`` asks, the total only in ``X-Total-Count``; ``refs="nested"``: leaderboard
entries ``{"position", "botRef": {"id", "displayName"}}``, solutions ``bot: {id, name}``): both clients read
every list whole and identify every entry, checked against the sandbox's SQLite with SQL written here."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from typing import Any

import pytest

from solvelens.client import AsyncPlatformClient, PlatformClient
from solvelens.client.probe import probe
from solvelens.client.profile import Profile
from solvelens.sandbox.ids import IdCodec
from tests.fixtures.sandbox import SandboxServer, start_sandbox


@pytest.fixture(scope="module")
def shaped(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SandboxServer]:
    """One sandbox in both list shapes (the tests only read)."""
    path = tmp_path_factory.mktemp("shapes") / "shapes.sqlite"
    server = start_sandbox(path, seed=0, scale="small", paging="zero", refs="nested")
    try:
        yield server
    finally:
        server.stop()


def _truth(server: SandboxServer) -> dict[str, Any]:
    """The lists as the sandbox's SQLite holds them, ids as the API shows them (the seed's codec)."""
    codec = IdCodec(0)
    with closing(sqlite3.connect(server.db_path)) as con:
        active = con.execute("SELECT id, name FROM bots WHERE status = 'active'").fetchall()
        listed = con.execute("SELECT id FROM problems WHERE status != 'rejected'").fetchall()
        (problem,) = con.execute(
            "SELECT problem_id FROM solutions GROUP BY problem_id ORDER BY COUNT(*) DESC, problem_id LIMIT 1"
        ).fetchone()
        rows = con.execute(
            "SELECT s.id, s.bot_id, b.name FROM solutions s LEFT JOIN bots b ON b.id = s.bot_id "
            "WHERE s.problem_id = ?",
            (problem,),
        ).fetchall()
    return {
        "bots": {codec.encode("bot", i): n for i, n in active},
        "problems": {codec.encode("problem", i) for (i,) in listed},
        "problem": codec.encode("problem", problem),
        "solutions": {codec.encode("solution", i): (codec.encode("bot", b), n) for i, b, n in rows},
    }


def _read_sync(server: SandboxServer, problem: str, **kwargs: Any) -> dict[str, Any]:
    with PlatformClient(server.base_url, read_env=False, **kwargs) as c:
        return {
            "board": list(c.list_leaderboard()),
            "problems": list(c.list_problems()),
            "solutions": list(c.list_solutions(problem)),
        }


async def _read_async(server: SandboxServer, problem: str) -> dict[str, Any]:
    async with AsyncPlatformClient(server.base_url, read_env=False) as c:
        return {
            "board": [b async for b in c.list_leaderboard()],
            "problems": [p async for p in c.list_problems()],
            "solutions": [s async for s in c.list_solutions(problem)],
        }


def _check(got: dict[str, Any], truth: dict[str, Any]) -> None:
    assert len(truth["bots"]) > 15 and len(truth["problems"]) > 15  # more than one capped page
    assert {b["id"]: b["name"] for b in got["board"]} == truth["bots"] and len(got["board"]) == len(
        truth["bots"]
    )
    assert [b["position"] for b in got["board"]] == list(range(1, len(truth["bots"]) + 1))
    assert {p["id"] for p in got["problems"]} == truth["problems"] and len(got["problems"]) == len(
        truth["problems"]
    )
    assert {s["id"]: (s["botId"], s["botName"]) for s in got["solutions"]} == truth["solutions"]


@pytest.mark.parametrize("read", ["sync", "async"])
def test_zero_based_capped_pages_and_nested_refs_are_read_whole(shaped: SandboxServer, read: str) -> None:
    truth = _truth(shaped)
    if read == "sync":
        got = _read_sync(shaped, truth["problem"])
    else:
        got = asyncio.run(_read_async(shaped, truth["problem"]))
    _check(got, truth)


def test_probe_finds_the_shapes_and_its_profile_reads_the_same(shaped: SandboxServer) -> None:
    with PlatformClient(shaped.base_url, read_env=False, profile=None) as client:
        findings, profile = probe(client)
    by_name = {f.name: f for f in findings}
    assert by_name["leaderboard"].id_field == "botRef.id"
    assert by_name["problems"].total == "header:X-Total-Count"
    assert profile.endpoints["leaderboard"].paginator is not None
    assert profile.endpoints["leaderboard"].paginator.options.get("base_page") == 0
    truth = _truth(shaped)
    _check(_read_sync(shaped, truth["problem"], profile=Profile.loads(profile.dumps())), truth)


def test_the_nested_shapes_are_not_the_default(sandbox: SandboxServer) -> None:
    """The same client on the default shapes: nothing lifted (records as the real platform sends them)."""
    with PlatformClient(sandbox.base_url, read_env=False) as c:
        board = list(c.list_leaderboard())
    assert board and "botRef" not in board[0] and "position" not in board[0]
    assert c.endpoints["leaderboard"].records is not None and c.endpoints["leaderboard"].records.identity


def test_a_snapshot_of_the_shapes_stores_every_entry_with_its_nested_id(
    shaped: SandboxServer, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Issue 21's "nested reference ids are stored": a snapshot of the 0-based, capped, header-total platform
    with nested references holds every active bot on the leaderboard and every listed problem, each solution
    with its bot's id and name, as the sandbox's SQLite holds them."""
    import duckdb

    from solvelens.flows.steps import SnapshotPlan, run_snapshot

    db = tmp_path_factory.mktemp("shapes-store") / "store.duckdb"
    run_snapshot(SnapshotPlan(base_url=shaped.base_url, db_path=str(db), use_api_key=False, resources=[]))
    truth = _truth(shaped)
    with closing(duckdb.connect(str(db), read_only=True)) as con:
        (status,) = con.sql("SELECT status FROM snapshots").fetchall()[0]
        board = dict(con.sql("SELECT bot_id, name FROM leaderboard").fetchall())
        ranks = [r for (r,) in con.sql("SELECT rank FROM leaderboard ORDER BY rank").fetchall()]
        problems = {p for (p,) in con.sql("SELECT problem_id FROM problems").fetchall()}
        solutions = con.execute(
            "SELECT solution_id, bot_id, bot_name FROM solutions WHERE problem_id = ?", [truth["problem"]]
        ).fetchall()
    assert status == "complete"
    assert board == truth["bots"] and len(ranks) == len(truth["bots"]) and ranks[0] == 1
    assert problems == truth["problems"]
    assert {s: (b, n) for s, b, n in solutions} == truth["solutions"]
