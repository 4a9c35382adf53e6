"""The client methods of the optional endpoints (``activity``, ``llm_leaderboard``, ``solution``,
``comparisons``), sync and async, against the sandbox server over HTTP; a platform without them raises
:class:`NotFoundError`."""

from __future__ import annotations

import asyncio
import sqlite3
from contextlib import closing
from typing import Any

import pytest

from solvelens.client import APIStatusError, AsyncPlatformClient, NotFoundError, PlatformClient
from tests.fixtures.sandbox import SandboxServer


def _sync(server: SandboxServer) -> dict[str, Any]:
    with PlatformClient(server.base_url, read_env=False) as c:
        solution = next(
            s for p in c.list_problems() for s in c.list_solutions(p["id"]) if s["comparisonCount"]
        )
        return {
            "activity": c.activity(),
            "activity_5": c.activity(5),
            "models": c.llm_leaderboard(),
            "pages": [len(p.items) for p in c.llm_leaderboard_pages(page_size=3)],
            "listed": solution,
            "solution": c.solution(solution["id"]),
            "comparisons": c.comparisons(solution["id"]),
        }


async def _async(server: SandboxServer, solution_id: str) -> dict[str, Any]:
    async with AsyncPlatformClient(server.base_url, read_env=False) as c:
        return {
            "activity": await c.activity(),
            "models": await c.llm_leaderboard(),
            "pages": [len(p.items) async for p in c.llm_leaderboard_pages(page_size=3)],
            "solution": await c.solution(solution_id),
            "comparisons": await c.comparisons(solution_id),
        }


def test_both_clients_read_the_optional_endpoints_in_the_canonical_form(sandbox: SandboxServer):
    got = _sync(sandbox)
    events = got["activity"]
    assert 0 < len(events) <= 50 and len(got["activity_5"]) == 5
    assert [e["id"] for e in events] == sorted((e["id"] for e in events), reverse=True)  # newest first
    assert set(events[0]) >= {"id", "action", "botId", "problemId", "metadata", "createdAt"}
    models = got["models"]
    assert models and {"modelName", "avgBtScore", "winRate"} <= set(models[0])
    assert sum(got["pages"]) == len(models) and max(got["pages"]) == 3  # the offset walk with limit=3
    listed, solution = got["listed"], got["solution"]
    assert (
        solution["id"] == listed["id"] and solution["problemId"] and solution["btScore"] == listed["btScore"]
    )
    votes = got["comparisons"]
    assert 0 < len(votes) <= 50
    assert all(
        listed["id"] in (v["solutionAId"], v["solutionBId"]) and v["winner"] in ("a", "b", "skip")
        for v in votes
    )

    again = asyncio.run(_async(sandbox, listed["id"]))
    # the same models; tied ones (the lazy board's stale 1,500) come in another order on each call
    assert sorted(again["models"], key=lambda m: m["id"]) == sorted(models, key=lambda m: m["id"])
    assert again["pages"] == got["pages"]
    assert again["solution"] == solution and again["comparisons"] == votes
    assert [e["id"] for e in again["activity"]] == [e["id"] for e in events]


def test_an_unknown_solution_and_a_platform_without_the_endpoints_raise_not_found(make_sandbox: Any):
    server = make_sandbox(without=("activity", "llm-leaderboard", "comparisons", "solution"))
    with PlatformClient(server.base_url, read_env=False) as c:
        for call in (c.activity, c.llm_leaderboard, lambda: c.comparisons("abc"), lambda: c.solution("abc")):
            with pytest.raises(NotFoundError, match=r"404.*Route GET:/api/v1/.* not found"):
                call()

    async def run() -> None:
        async with AsyncPlatformClient(server.base_url, read_env=False) as c:
            with pytest.raises(NotFoundError):
                await c.activity()

    asyncio.run(run())


def test_limits_are_the_platforms(sandbox: SandboxServer):
    with PlatformClient(sandbox.base_url, read_env=False) as c:
        with pytest.raises(APIStatusError, match="limit"):
            c.activity(51)  # the real platform's maximum is 50: the error names the limit
        with pytest.raises(NotFoundError, match="Solution not found"):
            c.solution("00000000-0000-4000-8000-000000000000")


@pytest.mark.parametrize("mode", ["platform", "jsonapi", "odata", "relay"])
def test_the_activity_feed_is_read_whole_in_every_convention(convention_sandbox: Any, mode: str) -> None:
    """Issue 23: the jsonapi, odata and relay modes ignore ``limit`` (their feeds read ``page[size]``,
    ``$top``, ``first``), so 20 of 50 events were read. The client asks under the feed's own parameter: as
    many events as the sandbox's database holds, up to the 50 asked (counted in SQLite)."""
    server = convention_sandbox(mode)
    with closing(sqlite3.connect(server.db_path)) as con:
        (held,) = con.execute("SELECT COUNT(*) FROM activity").fetchone()
    assert held > 20  # else the test could not tell the default from the whole feed
    with PlatformClient(server.base_url, read_env=False) as c:
        events = c.activity(50)
        again = c.activity(50)  # the size parameter is remembered: asked right the first time
    assert len(events) == min(50, held) == len(again)
    assert len({e["id"] for e in events}) == len(events)
