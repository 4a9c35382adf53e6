"""The plain fetch steps (no Prefect) against the real sandbox server, and paging de-duplication."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from datetime import datetime
from pathlib import Path
from typing import Any

import duckdb
import polars as pl
import pytest

from solvelens.client import Page, PageRequest
from solvelens.flows.completeness import TOTAL_BELOW_ROWS, IncompleteListError
from solvelens.flows.declaration import refuse_older_platform_time
from solvelens.flows.fetch import (
    FAN_OUTS_AT_ONCE,
    KEEPALIVE_EXPIRY_S,
    Tally,
    collect_pages,
    progress_callback,
    step_client,
)
from solvelens.flows.figures import LeaderboardFigures, ProblemsFigures, kind_of
from solvelens.flows.preflight import PreflightError
from solvelens.flows.steps import SnapshotPlan, discard, fetch, prepare, run_snapshot, run_step_inline
from solvelens.flows.summary import SnapshotSummary
from solvelens.store import StagingArea, latest_solution_state
from solvelens.store.readers import prior_state
from solvelens.store.reports import QualityRow
from tests.fixtures.sandbox import SandboxServer
from tests.flows.conftest import sqlite_truth


async def _pages(*pages: tuple[list[dict[str, Any]], int | None]) -> AsyncIterator[Page]:
    offset = 0
    for number, (items, total) in enumerate(pages, start=1):
        yield Page(items=items, total=total, number=number, offset=offset, request=PageRequest())
        offset += len(items)


def test_collect_pages_fails_on_a_list_shorter_than_its_total():
    """A walk that ends with fewer unique records than its announced total: the client could read more, so
    the snapshot fails (one line naming the endpoint, both counts and the fix)."""
    warnings: list[str] = []
    with pytest.raises(IncompleteListError) as failed:
        asyncio.run(
            collect_pages(
                _pages(([{"id": 1}, {"id": 2}], 4), ([{"id": 2}, {"id": 3}], 4)),
                "problems",
                warnings,
                path="/problems",
            )
        )
    assert (failed.value.endpoint, failed.value.announced, failed.value.read) == ("/problems", 4, 3)
    message = str(failed.value)
    assert "\n" not in message and "announced 4 records but 3 could be read" in message
    assert "probe" in message  # the fix
    clean: list[str] = []
    assert len(asyncio.run(collect_pages(_pages(([{"id": 1}], 1)), "x", clean))) == 1
    assert clean == []


def test_collect_pages_walks_nothing_again_the_client_decides_exactness():
    """One walk, however it ends (the client re-walks a short list itself: tests/client): a walk that repeated
    an id is a warning and, short of its total, fails at once; a short walk the client gave up on fails as
    itself; a total below the rows served is a data-quality row."""
    moved = [([{"id": 1}, {"id": 2}], 3), ([{"id": 2}], 3)]  # a repeat: 2 unique of 3
    warnings: list[str] = []
    tally = Tally()
    with pytest.raises(IncompleteListError, match="announced 3 records but 2 could be read"):
        asyncio.run(collect_pages(_pages(*moved), "leaderboard", warnings, tally=tally, path="/leaderboard"))
    assert tally.requests == 2  # the one walk's two pages, no second walk

    whole = [([{"id": 1}, {"id": 2}], 3), ([{"id": 3}], 3)]
    assert [i["id"] for i in asyncio.run(collect_pages(_pages(*whole), "leaderboard", []))] == [1, 2, 3]

    quality: list[QualityRow] = []
    over = [([{"id": 1}, {"id": 2}], 1)]
    assert len(asyncio.run(collect_pages(_pages(*over), "leaderboard", [], quality=quality))) == 2
    assert quality == [QualityRow("leaderboard", "", 1, 2, TOTAL_BELOW_ROWS)]


def _staged(area: StagingArea, table: str) -> pl.DataFrame:
    return pl.read_parquet(area.table_path(table))


def test_fetch_steps_stage_what_the_platform_holds(quiet_sandbox: SandboxServer, tmp_path: Path):
    truth = sqlite_truth(quiet_sandbox)
    plan = SnapshotPlan(
        base_url=quiet_sandbox.base_url,
        db_path=str(tmp_path / "store.duckdb"),
        use_api_key=False,
        concurrency=4,
    )
    run = prepare(plan)
    area = run.area
    seen: dict[str, tuple[int, int | None]] = {}
    token = progress_callback.set(lambda step, done, total: seen.__setitem__(step, (done, total)))
    try:
        reports = asyncio.run(fetch(plan, run, run_step_inline))
    finally:
        progress_callback.reset(token)
    assert {r.step for r in reports} == {
        "problems",
        "leaderboard",
        "reference",
        "platform",
        "activity",
        "llm_leaderboard",
        "llm_families",
        "comparisons",
        "carryover",
        "pacing",  # the shared pacer's figures (steps.pacing_report), beside the steps' own
    }
    assert all(type(r.figures) is kind_of(r.step) for r in reports)  # so a summary read back types them
    assert all(r.warnings == () for r in reports)
    assert not area.has_table("previous_problems")  # no store yet: nothing to carry over
    problems = _staged(area, "problems")
    ids = [pl.Series([r]).str.json_path_match("$.id")[0] for r in problems["raw"]]
    assert set(ids) == set(truth["problems"])
    assert len(ids) == len(truth["problems"])  # no duplicates
    sols = _staged(area, "solutions")
    by_problem = sols.with_columns(sid=pl.col("raw").str.json_path_match("$.id")).sort(
        "problem_id", "rank", "sid"
    )
    ranked = by_problem.group_by("problem_id", maintain_order=True).agg("sid", "rank")
    assert {
        r["problem_id"]: list(zip(r["sid"], r["rank"], strict=True)) for r in ranked.iter_rows(named=True)
    } == {p: s for p, s in truth["solutions"].items() if s}
    assert set(_staged(area, "solution_problems")["problem_id"]) == set(truth["problems"])
    board = _staged(area, "leaderboard")
    assert board["rank"].to_list() == list(range(1, len(truth["bots"]) + 1))
    bots = {pl.Series([r]).str.json_path_match("$.id")[0] for r in _staged(area, "bots")["raw"]}
    assert bots == truth["bots"]
    assert _staged(area, "bot_carryover").height == 0
    assert _staged(area, "categories").height == truth["categories"] == 8
    assert _staged(area, "platform_stats").height == 1
    assert not area.has_table("bot_me")
    assert seen["solutions"] == (len(truth["problems"]), len(truth["problems"]))
    assert seen["bots"][0] == len(truth["bots"])
    discard(run)
    assert not area.path.exists()


@pytest.mark.parametrize("full", [False, True])
def test_unchanged_lists_and_profiles_are_not_refetched_unless_full(
    quiet_sandbox: SandboxServer, tmp_path: Path, full: bool
):
    db = tmp_path / "store.duckdb"
    # --budget all: the first snapshot reads every vote list (a bounded budget leaves some for the next).
    plan = SnapshotPlan(
        base_url=quiet_sandbox.base_url, db_path=str(db), full=full, use_api_key=False, budget="all"
    )
    first = run_snapshot(plan)
    opened: list[bool] = []
    connect = duckdb.connect

    def counting(*args: Any, **kwargs: Any) -> duckdb.DuckDBPyConnection:
        opened.append(bool(kwargs.get("read_only")))
        return connect(*args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(duckdb, "connect", counting)
        discard(prepare(plan))
    assert opened == [True]  # one read-only open: the snapshot-time order and what the last snapshot held
    newest = datetime.fromisoformat(first.taken_at.replace("Z", "+00:00"))  # the platform's clock
    assert prior_state(db, plan.base_url, platform_time=True).newest_taken_at == newest
    with pytest.raises(PreflightError, match="is older than the newest snapshot of"):
        prepare(plan.model_copy(update={"taken_at": "2000-01-01T00:00:00Z"}))
    with pytest.raises(PreflightError, match="was the platform built again"):
        refuse_older_platform_time(plan.base_url, "2000-01-01T00:00:00Z", newest)
    second = run_snapshot(plan)
    assert first.mode == second.mode == "plain"
    n = len(latest_solution_state(db, quiet_sandbox.base_url))
    bots = first.counts["bots"]
    info, board = second.fetch["problems"], second.fetch["leaderboard"]
    assert info == ProblemsFigures(*((n, 0) if full else (0, n)))
    assert SnapshotSummary.from_dict(json.loads(json.dumps(second.as_dict()))) == second  # read back whole
    assert board == LeaderboardFigures(*((bots, 0) if full else (0, bots)))
    assert set(second.new_versions.values()) == {0}
    history = ("activity", "comparisons")  # each item once: their counts are what a snapshot saw first
    assert {k: v for k, v in second.counts.items() if k not in history} == {
        k: v for k, v in first.counts.items() if k not in history
    }
    assert second.counts.get("activity", 0) == second.counts.get("comparisons", 0) == 0
    assert not any(tmp_path.glob(".*.staging/*"))


def test_the_steps_of_a_run_share_one_in_flight_limit(tmp_path: Path):
    """Every step client of one run (one event loop) holds the same adaptive in-flight limit, at most
    FAN_OUTS_AT_ONCE x --concurrency; its pool holds --concurrency connections; the next run starts afresh."""
    plan = SnapshotPlan(
        base_url="http://127.0.0.1:1/api/v1", db_path=str(tmp_path / "s.duckdb"), concurrency=3
    )

    async def clients() -> list[Any]:
        made = [step_client(plan), step_client(plan, kind="optional")]
        for client in made:
            await client.aclose()
        return made

    one, two = asyncio.run(clients())
    assert one.inflight is two.inflight
    assert one.inflight.maximum == 3 * FAN_OUTS_AT_ONCE == 6
    pool = one._http._transport._pool
    assert (pool._max_connections, pool._keepalive_expiry) == (3, KEEPALIVE_EXPIRY_S)
    assert asyncio.run(clients())[0].inflight is not one.inflight
