"""The platform mode's list shapes of issue 21 over real HTTP: ``--paging zero`` (pages numbered from 0,
at most 15 a page whatever ``limit`` asks, the total only in ``X-Total-Count``) and ``--refs nested``
(leaderboard ``{"position", "botRef": {"id", "displayName"}, ...}``, solutions ``bot: {id, name}``, problems
``author``).
Every list is walked to its end and compared with SQL on the served SQLite file, and with the default mode
serving the same file (the same data, only moved)."""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import jsonschema
import pytest

from solvelens.sandbox.ids import IdCodec
from tests.fixtures.conventions import LIST_SHAPES
from tests.fixtures.sandbox import SandboxServer, start_sandbox

Record = dict[str, Any]


@pytest.fixture(scope="module")
def servers(pristine_platform: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """One copy of the pristine platform served three ways at once: default, nested refs, zero + nested; ties
    in a stable order (the tests compare listing order between walks and with SQL)."""
    path = tmp_path_factory.mktemp("shapes") / "shapes.sqlite"
    shutil.copyfile(pristine_platform, path)
    started: dict[str, SandboxServer] = {}
    try:
        for name in ("default", "nested", "zero+nested"):
            started[name] = start_sandbox(path, seed=0, tie_order="stable", **LIST_SHAPES[name])
        yield {"path": path, **started}
    finally:
        for server in started.values():
            server.stop()


@pytest.fixture(scope="module")
def truth(servers: dict[str, Any]) -> Iterator[sqlite3.Connection]:
    conn = sqlite3.connect(f"file:{servers['path']}?mode=ro", uri=True)
    yield conn
    conn.close()


@pytest.fixture(scope="module")
def codec(truth: sqlite3.Connection) -> IdCodec:
    return IdCodec(int(truth.execute("SELECT value FROM meta WHERE key = 'seed'").fetchone()[0]))


def busiest_problem(truth: sqlite3.Connection) -> int:
    """The problem with the most solutions (a small platform has at most 13: several pages of 4)."""
    row = truth.execute("SELECT id, solution_count FROM problems ORDER BY solution_count DESC, id LIMIT 1")
    pid, count = row.fetchone()
    assert count > 8, "the platform needs a problem with several pages of solutions"
    return int(pid)


def walk_zero(server: SandboxServer, path: str, key: str, ask: int) -> tuple[list[Record], int]:
    """Every record of a ``--paging zero`` list (pages 0, 1, ... until an empty page), checking each page's
    envelope; ``ask``: the ``limit`` sent. Returns the records and the ``X-Total-Count`` announced."""
    records: list[Record] = []
    page, totals = 0, set()
    with httpx.Client(base_url=server.base_url, timeout=30) as client:
        while True:
            answer = client.get(path, params={"page": page, "limit": ask})
            assert answer.status_code == 200, answer.text
            body = answer.json()
            assert set(body) == {key, "pagination"} and body["pagination"] == {"page": page}
            totals.add(int(answer.headers["x-total-count"]))
            items = body[key]
            if not items:
                break
            assert len(items) == min(15, ask, next(iter(totals)) - len(records))
            records += items
            page += 1
    assert len(totals) == 1
    return records, totals.pop()


def walk_default(server: SandboxServer, path: str, key: str, limit: int) -> list[Record]:
    """Every record of a default-paged list (1-based pages of ``limit``)."""
    records: list[Record] = []
    with httpx.Client(base_url=server.base_url, timeout=30) as client:
        for page in range(1, 1000):
            items = client.get(path, params={"page": page, "limit": limit}).json()[key]
            records += items
            if len(items) < limit:
                return records
    raise AssertionError("list never ended")


def flat_leaderboard_entry(entry: Record) -> Record:
    """A nested leaderboard entry in the default mode's flat form (written here, not the server's code)."""
    rest = {k: v for k, v in entry.items() if k not in ("position", "botRef")}
    name = entry["botRef"]["displayName"]
    return {"id": entry["botRef"]["id"], "name": name, **rest, "ownerBotName": name}


def flat_solution(entry: Record) -> Record:
    rest = {k: v for k, v in entry.items() if k != "bot"}
    bot = entry["bot"] or {"id": None, "name": None}
    return {**rest, "botId": bot["id"], "botName": bot["name"], "ownerBotName": bot["name"]}


def test_zero_paging_numbers_pages_from_0_caps_them_at_15_and_sends_the_total_only_in_a_header(
    servers, truth, codec
) -> None:
    server = servers["zero+nested"]
    problems, total = walk_zero(server, "/problems", "problems", ask=50)
    expected = [
        codec.encode("problem", pid)
        for (pid,) in truth.execute(
            "SELECT id FROM problems WHERE status != 'rejected' ORDER BY created_at DESC, id DESC"
        )
    ]
    assert total == len(expected) > 30 and [p["id"] for p in problems] == expected

    board, board_total = walk_zero(server, "/leaderboard", "bots", ask=100)
    active = truth.execute("SELECT count(*) FROM bots WHERE status = 'active'").fetchone()[0]
    assert board_total == active == len(board) > 15

    pid = busiest_problem(truth)
    path = f"/problems/{codec.encode('problem', pid)}/solutions"
    ranked = [
        codec.encode("solution", sid)
        for (sid,) in truth.execute(
            "SELECT id FROM solutions WHERE problem_id = ? ORDER BY bt_score DESC, created_at, id", (pid,)
        )
    ]
    for ask in (1000, 4):  # one page (fewer than 15 solutions), then pages of 4
        solutions, sol_total = walk_zero(server, path, "solutions", ask)
        assert sol_total == len(ranked) and [s["id"] for s in solutions] == ranked

    # a limit under the cap is honoured; the first page is page 0 by default; page 1 repeats nothing of page 0
    few, _ = walk_zero(server, "/leaderboard", "bots", ask=4)
    assert [e["botRef"]["id"] for e in few] == [e["botRef"]["id"] for e in board]
    with httpx.Client(base_url=server.base_url, timeout=30) as client:
        first = client.get("/problems").json()
        assert first["pagination"] == {"page": 0} and [p["id"] for p in first["problems"]] == expected[:15]
        second = client.get("/problems", params={"page": 1}).json()["problems"]
        assert not {p["id"] for p in second} & {p["id"] for p in first["problems"]}
        assert client.get("/problems", params={"page": -1}).status_code == 422


def test_nested_refs_serve_the_default_modes_data_moved_into_reference_objects(servers, truth, codec) -> None:
    nested, default = servers["nested"], servers["default"]
    board = walk_default(nested, "/leaderboard", "bots", 100)
    assert all(
        set(e) >= {"position", "botRef"} and not {"id", "name", "ownerBotName"} & set(e) for e in board
    )
    assert [e["position"] for e in board] == list(range(1, len(board) + 1))
    rows = truth.execute(
        "SELECT id, name, total_points, total_solutions, total_votes, global_elo FROM bots "
        "WHERE status = 'active' ORDER BY total_points DESC, id ASC"
    ).fetchall()
    assert [
        (e["botRef"], e["totalPoints"], e["totalSolutions"], e["totalVotes"], e["globalElo"]) for e in board
    ] == [({"id": codec.encode("bot", r[0]), "displayName": r[1]}, *r[2:]) for r in rows]
    assert [flat_leaderboard_entry(e) for e in board] == walk_default(default, "/leaderboard", "bots", 100)

    pid = busiest_problem(truth)
    path = f"/problems/{codec.encode('problem', pid)}/solutions"
    solutions = walk_default(nested, path, "solutions", 100)
    sql = truth.execute(
        "SELECT s.id, s.bot_id, b.name FROM solutions s LEFT JOIN bots b ON b.id = s.bot_id "
        "WHERE s.problem_id = ? ORDER BY s.bt_score DESC, s.created_at, s.id",
        (pid,),
    ).fetchall()
    assert [(s["id"], s["bot"]) for s in solutions] == [
        (codec.encode("solution", sid), {"id": codec.encode("bot", bid), "name": name})
        for sid, bid, name in sql
    ]
    assert not any({"botId", "botName", "ownerBotName"} & set(s) for s in solutions)
    assert [flat_solution(s) for s in solutions] == walk_default(default, path, "solutions", 100)

    problems = walk_default(nested, "/problems", "problems", 50)
    authors = {
        codec.encode("problem", pid): (
            {"id": codec.encode("human", hid), "username": username}
            if hid is not None
            else {"id": codec.encode("bot", bid), "name": name}
        )
        for pid, hid, username, bid, name in truth.execute(
            "SELECT p.id, p.human_author_id, h.username, p.bot_author_id, b.name FROM problems p "
            "LEFT JOIN humans h ON h.id = p.human_author_id LEFT JOIN bots b ON b.id = p.bot_author_id "
            "WHERE p.status != 'rejected'"
        )
    }
    assert {p["id"]: p["author"] for p in problems} == authors
    assert {p["authorType"] for p in problems} == {"human", "bot"}  # both kinds of author are covered
    assert [{k: v for k, v in p.items() if k != "author"} for p in problems] == walk_default(
        default, "/problems", "problems", 50
    )


def test_the_zero_nested_server_documents_the_shapes_it_serves(servers) -> None:
    server = servers["zero+nested"]
    spec = httpx.get(f"{server.root_url}/openapi.json", timeout=30).json()
    for path in ("/api/v1/leaderboard", "/api/v1/problems"):
        operation = spec["paths"][path]["get"]
        page = next(p for p in operation["parameters"] if p["name"] == "page")
        assert page["schema"]["minimum"] == 0 and page["schema"]["default"] == 0
        documented = operation["responses"]["200"]["content"]["application/json"]["schema"]
        schema = {**documented, "components": spec["components"]}
        answer = httpx.get(f"{server.root_url}{path}", params={"page": 1}, timeout=30)
        jsonschema.validate(answer.json(), schema)  # the body is what the document says
        with pytest.raises(jsonschema.ValidationError):  # and the document is not the default shape's
            jsonschema.validate(httpx.get(f"{servers['default'].root_url}{path}", timeout=30).json(), schema)
