"""A snapshot is never complete with records it cannot identify (issue 15): the fetch steps against
answers a sandbox cannot be made to give on demand (httpx.MockTransport behind the steps' client)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
import pytest

from solvelens.client import AsyncPlatformClient, RetryPolicy, UnrecognizedResponseError
from solvelens.flows import fetch
from solvelens.flows.completeness import COUNT_DISAGREES, IncompleteListError
from solvelens.flows.plan import SnapshotPlan
from solvelens.store.reports import QualityRow
from solvelens.store.staging import StagingArea

BASE = "http://identity.test/api/v1"


def _plan(tmp_path: Path, concurrency: int = 8) -> SnapshotPlan:
    return SnapshotPlan(base_url=BASE, db_path=str(tmp_path / "store.duckdb"), concurrency=concurrency)


def _serve(monkeypatch: pytest.MonkeyPatch, answer: Any) -> list[httpx.Request]:
    requests: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        requests.append(request)
        return answer(request)

    def client(plan: SnapshotPlan, api_key: Any = None) -> Any:
        return AsyncPlatformClient(
            plan.base_url,
            read_env=False,
            transport=httpx.MockTransport(handler),
            retry=RetryPolicy(attempts=1),
            profile=plan.profile,
        )

    monkeypatch.setattr(fetch, "step_client", client)
    return requests


def test_listed_records_without_id_fail_the_step_naming_the_fix(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    rows = [{"Ref": f"p{i}", "Title": f"T{i}"} for i in range(3)]
    requests = _serve(monkeypatch, lambda r: httpx.Response(200, json={"problems": rows, "total": 3}))
    with pytest.raises(UnrecognizedResponseError) as info:
        asyncio.run(fetch.fetch_problems_step(_plan(tmp_path), str(tmp_path)))
    message = str(info.value)
    assert "GET /problems: record 1 has no id" in message and "ref, title" in message
    assert '[endpoints.problems] id_field = "<the field that holds the id>"' in message
    assert all("/solutions" not in str(r.url) for r in requests)  # never /problems/None/solutions
    assert StagingArea(tmp_path).read_table("problems") is None  # nothing staged


def test_a_404_for_a_listed_id_fails_the_step(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/problems"):
            return httpx.Response(200, json={"problems": [{"id": "p1", "solutionCount": 1}], "total": 1})
        return httpx.Response(404, json={"error": "Problem not found"})

    _serve(monkeypatch, answer)
    with pytest.raises(UnrecognizedResponseError, match=r"404 for the id 'p1' that /problems just listed"):
        asyncio.run(fetch.fetch_problems_step(_plan(tmp_path), str(tmp_path)))


def test_leaderboard_is_not_stopped_by_a_capped_page_while_the_header_total_says_more(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    bots = [{"Id": f"b{i}", "Name": f"bot{i}"} for i in range(30)]

    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/leaderboard"):
            skip = (int(request.url.params.get("page", 1)) - 1) * 13
            page = {"value": bots[skip : skip + 13]}  # the server's own page size, whatever limit asks
            return httpx.Response(200, json=page, headers={"X-Total-Count": "30"})
        bot_id = request.url.path.rsplit("/", 1)[-1]
        return httpx.Response(200, json={"Id": bot_id, "Name": "x"})

    requests = _serve(monkeypatch, answer)
    report = asyncio.run(fetch.fetch_leaderboard_step(_plan(tmp_path, concurrency=2), str(tmp_path)))
    assert report.counts["leaderboard"] == 30
    assert report.warnings == ()
    listing = [r for r in requests if r.url.path.endswith("/leaderboard")]
    assert len(listing) <= 3 + 1 + 3  # three pages (+ what detection may spend)


def test_a_list_shorter_than_its_announced_total_fails_after_one_rewalk(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Exact or loud (issue 23): a leaderboard whose ``X-Total-Count`` says 42 while the walk ends with 15
    is walked once more, then fails the step in one line naming the endpoint, both counts and the fix;
    nothing of the leaderboard is staged (the snapshot writes nothing)."""
    bots = [{"id": f"b{i}", "name": f"bot{i}"} for i in range(15)]

    def answer(request: httpx.Request) -> httpx.Response:
        first = int(request.url.params.get("page", 1)) == 1
        return httpx.Response(200, json={"value": bots if first else []}, headers={"X-Total-Count": "42"})

    requests = _serve(monkeypatch, answer)
    with pytest.raises(IncompleteListError) as failed:
        asyncio.run(fetch.fetch_leaderboard_step(_plan(tmp_path, concurrency=2), str(tmp_path)))
    assert (failed.value.endpoint, failed.value.announced, failed.value.read) == ("/leaderboard", 42, 15)
    message = str(failed.value)
    assert "\n" not in message and "announced 42 records but 15 could be read, after one re-walk" in message
    first_pages = [r for r in requests if int(r.url.params.get("page", 1)) == 1]
    assert len(first_pages) >= 2  # walked again before failing
    assert StagingArea(tmp_path).read_table("leaderboard") is None
    assert all("/bots/" not in str(r.url) for r in requests)


def test_a_solution_count_its_list_disagrees_with_is_a_data_quality_row(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A problem announcing 3 solutions whose whole list (its own total: 2) holds 2: the platform's count
    disagrees with its rows; the client cannot read more, so the step succeeds and reports the gap."""

    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/problems"):
            listed = [{"id": "p1", "solutionCount": 3, "comparisonCount": 0}]
            return httpx.Response(200, json={"problems": listed, "total": 1})
        solutions = [{"id": "s1", "btScore": 1500.0}, {"id": "s2", "btScore": 1400.0}]
        return httpx.Response(200, json={"solutions": solutions, "total": 2})

    _serve(monkeypatch, answer)
    report = asyncio.run(fetch.fetch_problems_step(_plan(tmp_path), str(tmp_path)))
    assert report.counts["solutions_fetched"] == 2
    assert report.data_quality == (QualityRow("solutions", "p1", 3, 2, COUNT_DISAGREES),)
    assert report.requests == 2 and report.announced == 1


def test_a_list_whose_total_is_its_problems_count_and_disagrees_with_its_rows_is_a_data_quality_row(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A solution list announcing the problem's own (inflated) solutionCount as its total, and serving fewer
    rows on both walks: the platform's count disagrees with its rows (no client could read more), so the
    step succeeds with one data-quality row for the problem; a list with no such count still fails."""

    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/problems"):
            listed = [{"id": "p1", "solutionCount": 3, "comparisonCount": 0}]
            return httpx.Response(200, json={"problems": listed, "total": 1})
        first = int(request.url.params.get("page", 1)) == 1
        solutions = [{"id": "s1", "btScore": 1500.0}, {"id": "s2", "btScore": 1400.0}] if first else []
        return httpx.Response(200, json={"solutions": solutions}, headers={"X-Total-Count": "3"})

    _serve(monkeypatch, answer)
    report = asyncio.run(fetch.fetch_problems_step(_plan(tmp_path), str(tmp_path)))
    assert report.data_quality == (QualityRow("solutions", "p1", 3, 2, COUNT_DISAGREES),)
    assert StagingArea(tmp_path).read_table("solutions").num_rows == 2  # type: ignore[union-attr]
