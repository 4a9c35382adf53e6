"""Ties that span page boundaries, served in another order on every call (``--tie-order shuffle``, as the
real platform: real-platform-notes §13, §15): the client's read of a list returns every row exactly once.

A small platform whose 300 active bots sit in tie groups of 15 on points, read over HTTP with a page size
of 10: each page is its own query, so a tie group that spans a boundary is reshuffled between its pages and
one walk reads some of its bots twice and misses others. The truth is the sandbox's SQLite, read with SQL
written here.
"""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from solvelens.client import AsyncPlatformClient, PlatformClient
from solvelens.client.walk import MAX_TIE_ROUNDS
from solvelens.flows.steps import SnapshotPlan, run_snapshot
from solvelens.sandbox.generate import build_platform
from solvelens.sandbox.ids import IdCodec
from solvelens.store import read_frame
from tests.fixtures.sandbox import SandboxServer, start_sandbox

SEED = 5
#: Bots added beside the generated ones, and the size of each tie group on points.
EXTRA_BOTS, TIE = 270, 15
PAGE = 10
#: Solutions added to one problem, the size of each tie group on score, and the page size they are read at.
EXTRA_SOLUTIONS, SOLUTION_TIE, SOLUTION_PAGE = 45, 7, 5
#: The sandbox's list styles: page numbers and offsets with a total, a cursor without one (as the real
#: platform's solutions, whose pages announce no total: the client counts what the pages served).
STYLES = ("page", "offset", "cursor")


def _tied_platform(path: Path) -> None:
    """A small platform (seed :data:`SEED`) plus :data:`EXTRA_BOTS` bots; every active bot's points set so
    that bots fall into groups of :data:`TIE` equal points (ordered by id, the groups' points descend)."""
    build_platform(path, seed=SEED, scale="small")
    con = sqlite3.connect(path)
    try:
        con.executemany(
            "INSERT INTO bots (name, status, created_at) VALUES (?, 'active', 0)",
            [(f"tie-bot-{i}",) for i in range(EXTRA_BOTS)],
        )
        ids = [r[0] for r in con.execute("SELECT id FROM bots WHERE status = 'active' ORDER BY id")]
        con.executemany(
            "UPDATE bots SET total_points = ? WHERE id = ?",
            [(10_000 - 100 * (i // TIE), bot) for i, bot in enumerate(ids)],
        )
        _tie_solutions(con)
        con.commit()
    finally:
        con.close()


def _tie_solutions(con: sqlite3.Connection) -> None:
    """The first problem gets :data:`EXTRA_SOLUTIONS` more solutions, and all its solutions scores in groups
    of :data:`SOLUTION_TIE` equal scores (its ``solutionCount`` follows)."""
    problem = con.execute("SELECT min(id) FROM problems").fetchone()[0]
    con.executemany(
        "INSERT INTO solutions (problem_id, text, created_at) VALUES (?, ?, 0)",
        [(problem, f"tied solution {i}") for i in range(EXTRA_SOLUTIONS)],
    )
    ids = [r[0] for r in con.execute("SELECT id FROM solutions WHERE problem_id = ? ORDER BY id", (problem,))]
    con.executemany(
        "UPDATE solutions SET bt_score = ? WHERE id = ?",
        [(1600.0 - 10 * (i // SOLUTION_TIE), sid) for i, sid in enumerate(ids)],
    )
    con.execute("UPDATE problems SET solution_count = ? WHERE id = ?", (len(ids), problem))


@pytest.fixture(scope="module")
def tied(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, SandboxServer]]:
    """The tied platform served with shuffled ties, once per style of :data:`STYLES`."""
    folder = tmp_path_factory.mktemp("tie-pages")
    built = folder / "tied.sqlite"
    _tied_platform(built)
    servers: dict[str, SandboxServer] = {}
    try:
        for style in STYLES:
            path = folder / f"{style}.sqlite"
            shutil.copy(built, path)  # one platform, one file per server
            servers[style] = start_sandbox(path, seed=SEED, tie_order="shuffle", pagination=style)
        yield servers
    finally:
        for server in servers.values():
            server.stop()


def _truth(server: SandboxServer) -> Counter[str]:
    """Every active bot's public id once, from the sandbox's SQLite."""
    codec = IdCodec(SEED)
    con = sqlite3.connect(server.db_path)
    try:
        rows = con.execute("SELECT id FROM bots WHERE status = 'active'").fetchall()
    finally:
        con.close()
    return Counter(codec.encode("bot", r[0]) for r in rows)


def _groups_spanning_pages(server: SandboxServer) -> int:
    con = sqlite3.connect(server.db_path)
    try:
        sql = "SELECT count(*) FROM bots WHERE status = 'active' GROUP BY total_points"
        sizes = [n for (n,) in con.execute(sql)]
    finally:
        con.close()
    return sum(1 for n in sizes if n > PAGE)


@pytest.mark.parametrize("style", STYLES)
def test_a_leaderboard_read_returns_every_bot_once_although_ties_move_between_pages(
    tied: dict[str, SandboxServer], style: str
) -> None:
    server = tied[style]
    truth = _truth(server)
    assert len(truth) >= 290 and _groups_spanning_pages(server) >= 19, "ties span many page boundaries"
    with PlatformClient(server.base_url) as client:
        read = Counter(bot["id"] for bot in client.list_leaderboard(page_size=PAGE))
        state = client.endpoints["leaderboard"]
    assert read == truth, (
        f"{sum(n > 1 for n in read.values())} bots read twice, {len(truth.keys() - read.keys())} missed"
    )
    pages = -(-len(truth) // PAGE)
    assert 0 < state.tie_rounds <= MAX_TIE_ROUNDS and 0 < state.rereads <= state.tie_rounds * pages


def test_the_async_client_reads_the_same_tied_leaderboard_whole(tied: dict[str, SandboxServer]) -> None:
    server = tied["page"]

    async def read() -> Counter[str]:
        async with AsyncPlatformClient(server.base_url) as client:
            return Counter([bot["id"] async for bot in client.list_leaderboard(page_size=PAGE)])

    assert asyncio.run(read()) == _truth(server)


def test_a_snapshot_of_the_tied_leaderboard_stores_every_bot_once(
    tied: dict[str, SandboxServer], tmp_path: Path
) -> None:
    """The snapshot pages the leaderboard at the largest size the platform allows (100): the tie groups at
    positions 90-104 and 195-209 span its boundaries. Every active bot is stored once, with its points."""
    server = tied["page"]
    db = tmp_path / "store.duckdb"
    plan = SnapshotPlan(base_url=server.base_url, db_path=str(db), use_api_key=False, resources=[])
    sid = run_snapshot(plan).snapshot_id
    stored = read_frame(db, "SELECT bot_id, points FROM leaderboard WHERE snapshot_id = ?", [sid])
    codec = IdCodec(SEED)
    con = sqlite3.connect(server.db_path)
    try:
        rows = con.execute("SELECT id, total_points FROM bots WHERE status = 'active'").fetchall()
    finally:
        con.close()
    truth = sorted((codec.encode("bot", bot), points) for bot, points in rows)
    assert stored.height == len(truth)
    assert sorted(stored.iter_rows()) == truth


def test_a_problems_solutions_without_a_total_are_read_once_although_ties_move_between_pages(
    tied: dict[str, SandboxServer],
) -> None:
    """The real platform's shape: a problem's solutions paged by ``page``/``limit`` with no total at all.
    Solutions tied on score in groups of 7, read 5 a page: the client counts what the pages served."""
    server = tied["page"]
    codec = IdCodec(SEED)
    con = sqlite3.connect(server.db_path)
    try:
        problem = con.execute("SELECT min(id) FROM problems").fetchone()[0]
        rows = con.execute("SELECT id FROM solutions WHERE problem_id = ?", (problem,)).fetchall()
    finally:
        con.close()
    truth = Counter(codec.encode("solution", r[0]) for r in rows)
    assert len(truth) >= EXTRA_SOLUTIONS
    with PlatformClient(server.base_url) as client:
        pid = codec.encode("problem", problem)
        read = Counter(s["id"] for s in client.list_solutions(pid, page_size=SOLUTION_PAGE))
        assert client.endpoints["solutions"].tie_rounds > 0, "ties moved between pages"
    assert read == truth, f"{sum(n > 1 for n in read.values())} read twice, {len(truth - read)} missed"
