"""Tests of ``solvelens.client.client`` with recorded answers (httpx.MockTransport).

The first part uses recorded answers (httpx.MockTransport) for what a server cannot be made to do on demand:
a response lost after the server processed a submit, HTTP-date Retry-After, the real platform's 500 validation
bodies, next links. The second part runs the same client against the sandbox server over real HTTP on
127.0.0.1: every endpoint, full pagings compared with the sandbox's SQLite records, each pagination style,
and a fault-injected full paging.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
import os
import sqlite3
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from contextlib import closing
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from typing import Any

import httpx
import pytest
from pydantic import SecretStr

from solvelens.client import (
    AsyncPlatformClient,
    AuthenticationError,
    BadRequestError,
    ConfigurationError,
    ConflictError,
    IncompleteListError,
    InvalidSubmissionError,
    NotFoundError,
    NotJSONError,
    PaginationError,
    PermissionDeniedError,
    PlatformClient,
    PlatformConnectionError,
    QueryValidationError,
    RateLimitError,
    ResponseDecodeError,
    RetryPolicy,
    ServerError,
    UnrecognizedResponseError,
)
from solvelens.client.example_solver import solve as example_solve
from solvelens.client.retry import retry_limit
from solvelens.client.walk import MAX_TIE_ROUNDS
from solvelens.config import InvalidApiKeyError
from solvelens.sandbox.ids import IdCodec
from tests.fixtures.sandbox import SandboxServer, start_sandbox

BASE = "http://platform.test/api/v1"
KEY = "os_key_" + "k" * 48
FAST = RetryPolicy(attempts=3, wait_initial=0.0, wait_max=0.0, wait_jitter=0.0, retry_after_cap=0.05)

Handler = Callable[[httpx.Request], httpx.Response]


class AsyncBridge:
    """Drives an :class:`AsyncPlatformClient` through the sync client's interface, so every test runs over
    both clients: coroutines run to completion on the bridge's own event loop, async iterators are collected
    (their errors surface at the call), attributes pass through."""

    def __init__(self, client: AsyncPlatformClient) -> None:
        self._client = client
        self._loop = asyncio.new_event_loop()

    def __repr__(self) -> str:
        return repr(self._client)

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._client, name)
        if not callable(attr):
            return attr

        def call(*args: Any, **kwargs: Any) -> Any:
            result = attr(*args, **kwargs)
            if inspect.iscoroutine(result):
                return self._loop.run_until_complete(result)
            if hasattr(result, "__aiter__"):

                async def collect() -> list[Any]:
                    return [item async for item in result]

                return iter(self._loop.run_until_complete(collect()))
            return result

        return call

    def __enter__(self) -> AsyncBridge:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if not self._loop.is_closed():
            self._loop.run_until_complete(self._client.aclose())
            self._loop.close()


ClientFactory = Callable[..., Any]


def open_client(kind: str, base_url: str, **kwargs: Any) -> Any:
    """A sync client, or an async one behind an :class:`AsyncBridge` (``kind``: ``sync`` | ``async``)."""
    if kind == "sync":
        return PlatformClient(base_url, **kwargs)
    return AsyncBridge(AsyncPlatformClient(base_url, **kwargs))


@pytest.fixture(params=["sync", "async"])
def kind(request: pytest.FixtureRequest) -> str:
    """Which client a test runs over: the same test body checks both."""
    return str(request.param)


@pytest.fixture
def client(kind: str) -> Iterator[ClientFactory]:
    """``client(handler, **options)``: a client of ``kind`` answering from ``handler`` (MockTransport)."""
    made: list[Any] = []

    def make(handler: Handler, **kwargs: Any) -> Any:
        kwargs.setdefault("retry", FAST)
        kwargs.setdefault("read_env", False)
        transport: Any = httpx.MockTransport(handler)
        made.append(open_client(kind, BASE, transport=transport, **kwargs))
        return made[-1]

    yield make
    for c in made:
        c.close()


def aclient(handler: Handler, **kwargs: Any) -> AsyncPlatformClient:
    kwargs.setdefault("retry", FAST)
    kwargs.setdefault("read_env", False)
    return AsyncPlatformClient(BASE, transport=httpx.MockTransport(handler), **kwargs)


class Recorder:
    """A handler that answers from a function and records every request."""

    def __init__(self, answer: Callable[[httpx.Request, int], httpx.Response]) -> None:
        self.answer = answer
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return self.answer(request, len(self.requests))

    @property
    def params(self) -> list[dict[str, str]]:
        return [dict(r.url.params) for r in self.requests]


def _problems(total: int) -> Callable[[httpx.Request, int], httpx.Response]:
    """The real platform's /problems: page/limit, limit <= 50, totalPages, 500 on a too-big limit."""

    def answer(request: httpx.Request, _: int) -> httpx.Response:
        page = int(request.url.params.get("page", 1))
        limit = int(request.url.params.get("limit", 20))
        if limit > 50:
            issues = json.dumps([{"code": "too_big", "maximum": 50, "message": "too big", "path": ["limit"]}])
            return httpx.Response(
                500, json={"statusCode": 500, "error": "Internal Server Error", "message": issues}
            )
        start = (page - 1) * limit
        rows = [
            {"id": f"p{i}", "title": f"t{i}", "extra": {"x": i}}
            for i in range(start, min(total, start + limit))
        ]
        pagination = {"page": page, "limit": limit, "total": total, "totalPages": -(-total // limit)}
        return httpx.Response(200, json={"problems": rows, "pagination": pagination})

    return answer


# -- construction, auth and secrecy -------------------------------------------------------------------------


def test_base_url_must_end_in_api_v1() -> None:
    with pytest.raises(
        ConfigurationError, match=r"http://h:8000 does not end in /api/v1.*http://h:8000/api/v1"
    ):
        PlatformClient("http://h:8000", read_env=False)
    with pytest.raises(ConfigurationError, match="http"):
        PlatformClient("ftp://h/api/v1", read_env=False)
    assert PlatformClient("http://h/api/v1/", read_env=False).base_url == "http://h/api/v1"


def test_api_key_form_is_checked_before_any_request(client: ClientFactory) -> None:
    rec = Recorder(lambda r, n: httpx.Response(200, json={}))
    with pytest.raises(InvalidApiKeyError) as info:
        client(rec, api_key="not a key")
    assert "not a key" not in str(info.value)
    assert rec.requests == []


def test_api_key_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOLVELENS_API_KEY", KEY)
    rec = Recorder(lambda r, n: httpx.Response(200, json={"id": "b1", "name": "me"}))
    with PlatformClient(BASE, transport=httpx.MockTransport(rec), retry=FAST) as c:
        assert c.get_me().name == "me"
    assert rec.requests[0].headers["authorization"] == f"Bearer {KEY}"


def test_api_key_from_file(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    key_file = tmp_path / "key"
    key_file.write_text(KEY + "\n")
    monkeypatch.delenv("SOLVELENS_API_KEY", raising=False)
    monkeypatch.setenv("SOLVELENS_API_KEY_FILE", str(key_file))
    c = PlatformClient(BASE, transport=httpx.MockTransport(lambda r: httpx.Response(204)), retry=FAST)
    assert c.has_api_key
    assert c.next_task() is None


def test_key_is_sent_only_to_bot_endpoints_and_never_shown(
    client: ClientFactory, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)

    def answer(request: httpx.Request, n: int) -> httpx.Response:
        if request.url.path.endswith("/bot/me"):
            return httpx.Response(401, json={"error": "Invalid API key"})
        return httpx.Response(200, json={"totalProblems": 1})

    rec = Recorder(answer)
    c = client(rec, api_key=SecretStr(KEY))
    assert KEY not in repr(c)
    c.get_stats()
    assert "authorization" not in rec.requests[0].headers
    with pytest.raises(AuthenticationError) as info:
        c.get_me()
    assert rec.requests[1].headers["authorization"] == f"Bearer {KEY}"
    text = str(info.value) + repr(info.value) + "".join(traceback.format_exception(info.value))
    assert KEY not in text
    assert KEY not in caplog.text
    assert len(rec.requests) == 2  # a 401 is never retried


def test_bot_endpoint_without_key_is_a_clear_error(client: ClientFactory) -> None:
    c = client(Recorder(lambda r, n: httpx.Response(204)))
    with pytest.raises(ConfigurationError, match="needs an API key"):
        c.next_task()


# -- paging through the client -------------------------------------------------------------------------------


def test_list_problems_pages_to_the_end_with_the_largest_page_size(client: ClientFactory) -> None:
    rec = Recorder(_problems(123))
    items = list(client(rec).list_problems(category="technology", sort="new"))
    assert [p["id"] for p in items] == [f"p{i}" for i in range(123)]
    assert items[0]["extra"] == {"x": 0}  # unknown fields kept
    assert rec.params == [
        {"category": "technology", "sort": "new", "limit": "50"},
        {"category": "technology", "sort": "new", "limit": "50", "page": "2"},
        {"category": "technology", "sort": "new", "limit": "50", "page": "3"},
    ]


def test_rejected_page_size_falls_back_to_the_server_default_once(client: ClientFactory) -> None:
    rec = Recorder(_problems(45))
    c = client(rec)
    pages = list(c.problem_pages(page_size=500))
    assert sum(len(p.items) for p in pages) == 45
    assert [p.total for p in pages] == [45, 45, 45]
    # one rejected request (no retry of the same request), then the server's default of 20 per page
    assert rec.params[0] == {"limit": "500"}
    assert rec.params[1:] == [{}, {"page": "2"}, {"page": "3"}]
    # the endpoint remembers: the next walk does not send the rejected size again
    list(c.problem_pages(page_size=500))
    assert rec.params[4] == {}


def test_400_naming_limit_falls_back_but_other_400_raises(client: ClientFactory) -> None:
    def answer(request: httpx.Request, n: int) -> httpx.Response:
        if "limit" in request.url.params:
            return httpx.Response(422, json={"error": "Validation error", "details": [{"field": "limit"}]})
        if request.url.params.get("category") == "bogus":
            return httpx.Response(400, json={"error": "unknown category"})
        rows = [{"id": "s1"}] if request.url.params.get("page", "1") == "1" else []
        return httpx.Response(200, json={"solutions": rows})

    rec = Recorder(answer)
    c = client(rec)
    assert [s["id"] for s in c.list_solutions("p1")] == ["s1"]
    # no metadata: page 1 is asked to learn the first page's number (it repeats: numbered from 1)
    assert rec.params == [{"limit": "100"}, {}, {"page": "1"}, {"page": "2"}]
    with pytest.raises(BadRequestError, match="unknown category"):
        list(c.list_problems(category="bogus", page_size=None))


def test_leaderboard_in_rank_order_with_offsets(client: ClientFactory) -> None:
    def answer(request: httpx.Request, n: int) -> httpx.Response:
        page = int(request.url.params.get("page", 1))
        limit = int(request.url.params["limit"])
        bots = [{"id": f"b{i}"} for i in range((page - 1) * limit, min(250, page * limit))]
        return httpx.Response(
            200,
            json={"bots": bots, "pagination": {"page": page, "limit": limit, "total": 250, "totalPages": 3}},
        )

    pages = list(client(Recorder(answer)).leaderboard_pages(sort="elo"))
    assert [p.offset for p in pages] == [0, 100, 200]
    assert [len(p) for p in pages] == [100, 100, 50]
    ranks = [p.offset + i + 1 for p in pages for i, _ in enumerate(p.items)]
    assert ranks == list(range(1, 251))


def test_configured_offset_style(client: ClientFactory) -> None:
    def answer(request: httpx.Request, n: int) -> httpx.Response:
        offset = int(request.url.params["offset"])
        return httpx.Response(200, json={"items": [{"id": i} for i in range(offset, min(7, offset + 3))]})

    rec = Recorder(answer)
    c = client(rec, pagination={"problems": "offset"}, page_sizes={"problems": 3})
    assert [p["id"] for p in c.list_problems()] == list(range(7))
    assert [p["offset"] for p in rec.params] == ["0", "3", "6"]


def _shifting_board(first_walk_skips: int | None) -> Recorder:
    """A leaderboard of 10 (``X-Total-Count: 10``), offset-paged by 5. During the first walk the entry at
    ``first_walk_skips`` moved up a page, so the first walk never sees it (``None``: the list really holds
    only 9, whatever it announces)."""

    def answer(request: httpx.Request, n: int) -> httpx.Response:
        offset = int(request.url.params.get("offset", 0))
        rows = [{"id": f"b{i}", "points": 100 - i} for i in range(10)]
        if first_walk_skips is None:
            rows = rows[:9]
        elif n <= 3 and offset > 0:  # the first walk's later pages: the row moved above the boundary
            rows.pop(first_walk_skips)
        page = rows[offset : offset + 5]
        return httpx.Response(200, json={"bots": page}, headers={"X-Total-Count": "10"})

    return Recorder(answer)


def test_a_short_list_is_walked_again_and_the_missed_records_added(client: ClientFactory) -> None:
    rec = _shifting_board(first_walk_skips=5)
    c = client(rec, pagination={"leaderboard": "offset"}, page_sizes={"leaderboard": 5})
    ids = [b["id"] for b in c.list_leaderboard()]
    assert sorted(ids) == [f"b{i}" for i in range(10)] and len(ids) == 10  # b5, missed, comes last
    assert ids[-1] == "b5"
    assert [r.url.params.get("offset") for r in rec.requests] == ["0", "5", "9", "0", "5"]


def test_a_list_still_short_after_one_rewalk_raises_incomplete(client: ClientFactory) -> None:
    rec = _shifting_board(first_walk_skips=None)
    c = client(rec, pagination={"leaderboard": "offset"}, page_sizes={"leaderboard": 5})
    with pytest.raises(IncompleteListError) as caught:
        list(c.list_leaderboard())
    err = caught.value
    assert (err.endpoint, err.announced, err.read) == ("/leaderboard", 10, 9)
    assert "announced 10" in str(err) and "9 could be read" in str(err) and "\n" not in str(err)
    assert [r.url.params.get("offset") for r in rec.requests] == ["0", "5", "9"] * 2  # a walk, one re-walk


def _tied_board(heals_after: int | None, announced: bool = True) -> Recorder:
    """A leaderboard of 10 (``X-Total-Count: 10``; ``announced=False``: no total), offset-paged by 5, whose
    b4 and b5 tie across the page boundary: page 2 starts with b4 again instead of b5 (a tie reshuffled
    between two calls) on its first ``heals_after`` calls (``None``: on every call, a tie order that never
    lets b5 through)."""
    served = {"page2": 0}

    def answer(request: httpx.Request, _: int) -> httpx.Response:
        offset = int(request.url.params.get("offset", 0))
        rows = [{"id": f"b{i}", "points": 100 - i} for i in range(10)]
        page = rows[offset : offset + 5]
        if offset == 5:
            served["page2"] += 1
            if heals_after is None or served["page2"] <= heals_after:
                page[0] = rows[4]
        headers = {"X-Total-Count": "10"} if announced else {}
        return httpx.Response(200, json={"bots": page}, headers=headers)

    return Recorder(answer)


#: The first walk's offsets: with a total it stops there; without one, on the empty page after it.
_WALK = {True: ["0", "5"], False: ["0", "5", "10"]}


@pytest.mark.parametrize("announced", [True, False], ids=["total", "no-total"])
def test_a_tie_read_twice_is_handed_out_once_and_its_pages_read_again(
    client: ClientFactory, announced: bool
) -> None:
    rec = _tied_board(heals_after=1, announced=announced)
    c = client(rec, pagination={"leaderboard": "offset"}, page_sizes={"leaderboard": 5})
    ids = [b["id"] for b in c.list_leaderboard()]
    assert sorted(ids) == [f"b{i}" for i in range(10)] and len(ids) == 10
    # the walk, then one round over the two pages the tie spans, stopping once the list is whole
    assert [r.url.params.get("offset") for r in rec.requests] == _WALK[announced] + ["0", "5"]
    assert c.endpoints["leaderboard"].rereads == 2


@pytest.mark.parametrize("announced", [True, False], ids=["total", "no-total"])
def test_a_tie_that_never_lets_a_record_through_raises_after_bounded_rereads(
    client: ClientFactory, kind: str, announced: bool
) -> None:
    rec = _tied_board(heals_after=None, announced=announced)
    c = client(rec, pagination={"leaderboard": "offset"}, page_sizes={"leaderboard": 5})
    read: list[str] = []
    with pytest.raises(IncompleteListError) as caught:
        read.extend(b["id"] for b in c.list_leaderboard())
    err = caught.value
    if kind == "sync":  # the bridge collects an async iterator whole, so the error comes before any record
        assert sorted(read) == [f"b{i}" for i in range(10) if i != 5], "nothing repeated, nothing padded"
    assert (err.announced, err.read, err.rereads, err.served) == (10, 9, 2 * MAX_TIE_ROUNDS, not announced)
    assert f"after {2 * MAX_TIE_ROUNDS} re-reads of the pages its ties span and one re-walk" in str(err)
    said = (
        "its pages served 10 records (no total announced) but 9 distinct" if not announced else "announced 10"
    )
    assert said in str(err) and "\n" not in str(err)
    offsets = [r.url.params.get("offset") for r in rec.requests]
    rounds = ["0", "5"] * MAX_TIE_ROUNDS
    assert offsets == _WALK[announced] + rounds + _WALK[announced], "walk, rounds, one re-walk"


def test_relative_next_links_are_resolved(client: ClientFactory) -> None:
    def answer(request: httpx.Request, n: int) -> httpx.Response:
        after = int(request.url.params.get("after", 0))
        nxt = f"/api/v1/problems?after={after + 2}" if after < 4 else None
        return httpx.Response(200, json={"data": [{"id": after}, {"id": after + 1}], "next": nxt})

    rec = Recorder(answer)
    assert [p["id"] for p in client(rec).list_problems()] == list(range(6))
    assert str(rec.requests[1].url) == "http://platform.test/api/v1/problems?after=2"


def test_server_ignoring_every_paging_parameter_raises_instead_of_looping(client: ClientFactory) -> None:
    rows = [{"id": f"s{i}"} for i in range(100)]
    rec = Recorder(lambda r, n: httpx.Response(200, json={"solutions": rows}))
    with pytest.raises(PaginationError) as info:
        list(client(rec).list_solutions("p1"))
    # page 1 (a repeat: numbered from 1?) and 2 by number, then by offset under each common vocabulary (the
    # detected style was not declared), then a clear error
    assert rec.params == [
        {"limit": "100"},
        {"limit": "100", "page": "1"},
        {"limit": "100", "page": "2"},
        {"limit": "100", "offset": "100"},
        {"take": "100", "skip": "100"},
        {"$top": "100", "$skip": "100"},
        {"rows": "100", "start": "100"},
        {"size": "100", "from": "100"},
    ]
    message = str(info.value)
    assert "GET /problems/{id}/solutions" in message
    assert "page_number, offset" in message and "pagination={'solutions'" in message


def test_detected_style_falls_back_to_offset_and_is_remembered(
    client: ClientFactory, caplog: pytest.LogCaptureFixture
) -> None:
    """Another implementation: solutions by offset/limit, ``{"items", "has_more", "total"}``, page ignored."""
    caplog.set_level(logging.INFO, logger="solvelens.client")
    rows = {pid: [{"id": f"{pid}-s{i}"} for i in range(n)] for pid, n in (("p1", 230), ("p2", 120))}

    def answer(request: httpx.Request, n: int) -> httpx.Response:
        pid = request.url.path.split("/")[-2]
        offset = int(request.url.params.get("offset", 0))
        limit = int(request.url.params.get("limit", 50))
        items = rows[pid][offset : offset + limit]
        more = offset + len(items) < len(rows[pid])
        return httpx.Response(200, json={"items": items, "has_more": more, "total": len(rows[pid])})

    rec = Recorder(answer)
    c = client(rec)
    assert [s["id"] for s in c.list_solutions("p1")] == [s["id"] for s in rows["p1"]]
    assert rec.params == [
        {"limit": "100"},
        {"limit": "100", "page": "1"},  # repeats the first page: numbered from 1, or page is ignored
        {"limit": "100", "page": "2"},  # repeats page 1: the server ignores page
        {"limit": "100", "offset": "100"},
        {"limit": "100", "offset": "200"},
    ]
    assert [s["id"] for s in c.list_solutions("p2")] == [s["id"] for s in rows["p2"]]
    assert rec.params[5:] == [{"limit": "100", "offset": "0"}, {"limit": "100", "offset": "100"}]
    lines = [r.getMessage() for r in caplog.records if "/problems/{id}/solutions" in r.getMessage()]
    assert lines == [
        "GET /problems/{id}/solutions: page_number pagination (detected from the first answer)",
        "GET /problems/{id}/solutions: page 2 repeated page 1 with page_number pagination (the server "
        "ignores page); switching to offset pagination",
    ]


def test_categories_bare_list_and_envelope(client: ClientFactory) -> None:
    cats = [{"slug": "technology", "displayName": "Technology", "activeProblems": 3}]
    c = client(Recorder(lambda r, n: httpx.Response(200, json=cats)))
    result = c.list_categories()
    assert result == cats
    assert result[0].name == "Technology"
    assert result[0].problem_count == 3
    c2 = client(Recorder(lambda r, n: httpx.Response(200, json={"data": cats})))
    assert c2.list_categories() == cats


# -- retries -------------------------------------------------------------------------------------------------


def test_5xx_then_success_is_retried(client: ClientFactory) -> None:
    def answer(request: httpx.Request, n: int) -> httpx.Response:
        return (
            httpx.Response(502, text="bad gateway") if n < 3 else httpx.Response(200, json={"totalBots": 2})
        )

    rec = Recorder(answer)
    assert client(rec).get_stats().total_bots == 2
    assert len(rec.requests) == 3


def test_408_is_retried_other_4xx_are_not(client: ClientFactory) -> None:
    rec = Recorder(lambda r, n: httpx.Response(408 if n == 1 else 200, json={"n": n}))
    assert client(rec).get_stats() == {"n": 2}
    rec2 = Recorder(lambda r, n: httpx.Response(400, json={"error": "bad"}))
    with pytest.raises(BadRequestError):
        client(rec2).get_stats()
    assert len(rec2.requests) == 1


def test_retries_are_bounded(client: ClientFactory) -> None:
    rec = Recorder(lambda r, n: httpx.Response(500, json={"error": "boom"}))
    with pytest.raises(ServerError, match="boom"):
        client(rec).get_stats()
    assert len(rec.requests) == FAST.attempts


def test_validation_500_fails_at_once(client: ClientFactory) -> None:
    issues = json.dumps([{"code": "invalid_enum_value", "message": "Invalid enum value", "path": ["sort"]}])
    body = {"statusCode": 500, "error": "Internal Server Error", "message": issues}
    rec = Recorder(lambda r, n: httpx.Response(500, json=body))
    with pytest.raises(QueryValidationError, match="sort: Invalid enum value"):
        list(client(rec).list_leaderboard(sort="bogus"))
    assert len(rec.requests) == 1


def test_429_honours_retry_after_seconds(client: ClientFactory) -> None:
    def answer(request: httpx.Request, n: int) -> httpx.Response:
        if n == 1:
            return httpx.Response(429, json={"error": "slow"}, headers={"Retry-After": "0.3"})
        return httpx.Response(200, json={"ok": 1})

    c = client(Recorder(answer), retry=RetryPolicy(attempts=2, wait_initial=0, wait_max=0, wait_jitter=0))
    started = time.perf_counter()
    assert c.get_stats() == {"ok": 1}
    assert time.perf_counter() - started >= 0.29


def test_503_retry_after_http_date_is_capped(client: ClientFactory) -> None:
    future = format_datetime(datetime.now(UTC) + timedelta(hours=1), usegmt=True)

    def answer(request: httpx.Request, n: int) -> httpx.Response:
        if n == 1:
            return httpx.Response(503, text="down", headers={"Retry-After": future})
        return httpx.Response(200, json={"ok": 1})

    policy = RetryPolicy(attempts=2, wait_initial=0, wait_max=0, wait_jitter=0, retry_after_cap=0.2)
    started = time.perf_counter()
    assert client(Recorder(answer), retry=policy).get_stats() == {"ok": 1}
    assert 0.19 <= time.perf_counter() - started < 5


def test_429_exhausted_raises_rate_limit_error(client: ClientFactory) -> None:
    rec = Recorder(
        lambda r, n: httpx.Response(
            429, json={"statusCode": 429, "error": "Too Many Requests", "message": "Rate limit exceeded"}
        )
    )
    with pytest.raises(RateLimitError, match="Rate limit exceeded"):
        client(rec).get_stats()
    assert len(rec.requests) == 3


def test_truncated_2xx_body_is_retried(client: ClientFactory) -> None:
    def answer(request: httpx.Request, n: int) -> httpx.Response:
        if n == 1:
            return httpx.Response(
                200, content=b'{"problems": [{"id": "p', headers={"content-type": "application/json"}
            )
        return httpx.Response(200, json={"problems": [{"id": "p1"}]})

    rec = Recorder(answer)
    assert [p["id"] for p in client(rec).list_problems()] == ["p1"]
    assert len(rec.requests) == 2


def test_truncated_body_every_time_raises_decode_error(client: ClientFactory) -> None:
    rec = Recorder(
        lambda r, n: httpx.Response(200, content=b"{", headers={"content-type": "application/json"})
    )
    with pytest.raises(ResponseDecodeError, match="not valid JSON"):
        client(rec).get_stats()


def test_connection_errors_are_retried_then_raised(client: ClientFactory) -> None:
    calls = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(request)
        raise httpx.ConnectError("[Errno 111] Connection refused", request=request)

    with pytest.raises(PlatformConnectionError, match=r"cannot reach http://platform.test/api/v1.*running"):
        client(handler).get_stats()
    assert len(calls) == 3


def test_html_answer_names_the_url_and_the_fix(client: ClientFactory) -> None:
    html = "<!doctype html><html><body>Welcome</body></html>"
    rec = Recorder(lambda r, n: httpx.Response(200, text=html, headers={"content-type": "text/html"}))
    with pytest.raises(NotJSONError) as info:
        client(rec).get_stats()
    assert "http://platform.test/api/v1/stats answered HTML" in str(info.value)
    assert "/api/v1" in str(info.value)
    assert len(rec.requests) == 1  # not retried


# -- single objects and typed results ------------------------------------------------------------------------


def test_typed_results_keep_every_field(client: ClientFactory) -> None:
    problem = {"id": "p1", "title": "T", "authorType": "bot", "solutionCount": 4, "newField": [1, 2]}
    rec = Recorder(lambda r, n: httpx.Response(200, json=problem))
    result = client(rec).get_problem("p1")
    assert result == problem
    assert result.raw == problem
    assert json.loads(json.dumps(result)) == problem
    assert (result.id, result.author_type, result.solution_count) == ("p1", "bot", 4)
    assert result.status is None
    assert str(rec.requests[0].url) == f"{BASE}/problems/p1"


def test_not_found_is_typed(client: ClientFactory) -> None:
    rec = Recorder(lambda r, n: httpx.Response(404, json={"error": "Bot not found"}))
    with pytest.raises(NotFoundError, match="Bot not found") as info:
        client(rec).get_bot("nope")
    assert info.value.path == "/bots/nope"
    assert len(rec.requests) == 1


def test_search_and_health(client: ClientFactory) -> None:
    def answer(request: httpx.Request, n: int) -> httpx.Response:
        if request.url.path == "/health":
            return httpx.Response(200, json={"status": "healthy", "clock": "2026-01-01T00:00:00Z"})
        return httpx.Response(200, json={"problems": [{"id": "p1"}]})

    rec = Recorder(answer)
    c = client(rec)
    result = c.search("water", type="problems", limit=5)
    assert result.problems == [{"id": "p1"}]
    assert result.bots == []
    assert rec.params[0] == {"q": "water", "type": "problems", "limit": "5"}
    assert c.health().clock == "2026-01-01T00:00:00Z"
    assert str(rec.requests[1].url) == "http://platform.test/health"


# -- tasks ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "response",
    [
        httpx.Response(204),
        httpx.Response(200, content=b""),
        httpx.Response(200, json={}),
        httpx.Response(200, json=None),
        httpx.Response(200, json={"message": "No tasks available"}),
        httpx.Response(200, json={"prompt": "no id"}),
        httpx.Response(404, json={"error": "No task available"}),
    ],
)
def test_no_task_forms(client: ClientFactory, response: httpx.Response) -> None:
    # a fresh copy per request: a recorded Response object cannot be sent by both kinds of transport
    c = client(
        lambda r: httpx.Response(response.status_code, content=response.content, headers=response.headers),
        api_key=KEY,
    )
    assert c.next_task() is None


def test_unknown_route_404_is_not_no_task(client: ClientFactory) -> None:
    body = {"message": "Route GET:/api/v1/tasks/next not found", "error": "Not Found", "statusCode": 404}
    c = client(lambda r: httpx.Response(404, json=body), api_key=KEY)
    with pytest.raises(NotFoundError):
        c.next_task()


def test_both_task_shapes(client: ClientFactory) -> None:
    interface = {"id": "t1", "prompt": "Say hi", "extra": 1}
    real = {"taskType": "vote", "taskId": "t2", "payload": {"problem_title": "P", "instruction": "Pick"}}
    answers = iter([interface, real])
    rec = Recorder(lambda r, n: httpx.Response(200, json=next(answers)))
    c = client(rec, api_key=KEY)
    t1 = c.next_task(brief="true")
    assert (t1.id, t1.prompt, t1.type, t1.payload) == ("t1", "Say hi", None, {})
    assert t1 == interface
    t2 = c.next_task()
    assert (t2.id, t2.type, t2.prompt) == ("t2", "vote", "Pick")
    assert rec.params[0] == {"brief": "true"}


def test_submit_string_and_dict_bodies(client: ClientFactory) -> None:
    rec = Recorder(lambda r, n: httpx.Response(200, json={"success": True}))
    c = client(rec, api_key=KEY)
    assert c.submit("t1", "hello") == {"success": True}
    assert c.submit("t2", {"winner": "a"}).recovered is False
    assert json.loads(rec.requests[0].content) == {"content": "hello"}
    assert json.loads(rec.requests[1].content) == {"winner": "a"}
    assert rec.requests[0].headers["content-type"] == "application/json"
    assert rec.requests[0].url.path == "/api/v1/tasks/t1/submit"


def test_submit_sends_the_typed_body_of_a_handed_out_task(client: ClientFactory) -> None:
    tasks = iter(
        [
            {"taskType": "vote", "taskId": "v1", "payload": {"solution_a_id": "sa", "solution_b_id": "sb"}},
            {"taskType": "solve", "taskId": "s1", "payload": {"instruction": "Solve it. 50-5000 chars."}},
        ]
    )

    def answer(request: httpx.Request, n: int) -> httpx.Response:
        if request.method == "GET":
            return httpx.Response(200, json=next(tasks))
        return httpx.Response(200, json={"success": True, "result": {}})

    rec = Recorder(answer)
    c = client(rec, api_key=KEY)
    vote = c.next_task()
    c.submit(vote.id, "sb")  # the id of a task this client handed out: its type is known
    solve = c.next_task()
    c.submit(solve, "S" * 60, llm_model="gpt-4o")
    with pytest.raises(InvalidSubmissionError, match=r"solve task s1.*solution_text has 5 characters"):
        c.submit(solve, "short")
    posts = [json.loads(r.content) for r in rec.requests if r.method == "POST"]
    assert posts == [{"winner": "b"}, {"solution_text": "S" * 60, "llm_model": "gpt-4o"}]  # nothing else sent


def test_each_retry_is_one_readable_log_line(client: ClientFactory, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    rec = Recorder(lambda r, n: httpx.Response(500, json={"error": "Redis down"}))
    with pytest.raises(ServerError):
        client(rec, api_key=KEY).next_task()
    retries = [r.getMessage() for r in caplog.records if "attempt" in r.getMessage()]
    assert retries == [
        "GET /tasks/next -> 500 Redis down; attempt 1/3 failed, next in 0.0 s",
        "GET /tasks/next -> 500 Redis down; attempt 2/3 failed, next in 0.0 s",
    ]
    assert not [r for r in caplog.records if r.getMessage() == "stamina.retry_scheduled"]


def test_a_read_failing_every_retry_is_one_error_line_with_the_count(
    client: ClientFactory, caplog: pytest.LogCaptureFixture
) -> None:
    """A database outage behind the API: every /stats answers 500. No warning per retry; the error the caller
    prints says how many attempts were made."""
    caplog.set_level(logging.DEBUG, logger="solvelens.client")
    rec = Recorder(lambda r, n: httpx.Response(500, json={"error": "database unavailable"}))
    with pytest.raises(ServerError) as caught:
        client(rec).get_stats()
    assert len(rec.requests) == FAST.attempts
    line = str(caught.value)
    assert line.startswith("GET /stats -> 500: database unavailable") and "\n" not in line
    assert f"({FAST.attempts} attempts over " in line and caught.value.attempts == FAST.attempts
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING and r.name == "solvelens.client"]
    assert warnings == []
    assert len([r for r in caplog.records if "attempt" in r.getMessage()]) == FAST.attempts - 1  # DEBUG


def test_submit_is_not_retried_on_a_server_error(client: ClientFactory) -> None:
    rec = Recorder(lambda r, n: httpx.Response(500, json={"error": "boom"}))
    with pytest.raises(ServerError):
        client(rec, api_key=KEY).submit("t1", "x")
    assert len(rec.requests) == 1


def test_submit_lost_response_then_409_counts_as_done(client: ClientFactory) -> None:
    calls: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(request)
        if len(calls) == 1:
            raise httpx.ReadTimeout(
                "timed out", request=request
            )  # the server processed it; the answer was lost
        return httpx.Response(409, json={"error": "Task already completed"})

    result = client(handler, api_key=KEY).submit("t1", "x")
    assert result.recovered is True
    assert result == {"error": "Task already completed"}
    assert len(calls) == 2


def test_submit_409_without_a_lost_response_is_a_conflict(client: ClientFactory) -> None:
    rec = Recorder(lambda r, n: httpx.Response(409, json={"error": "Task already completed"}))
    with pytest.raises(ConflictError, match="already completed"):
        client(rec, api_key=KEY).submit("t1", "x")
    assert len(rec.requests) == 1


def test_submit_connect_error_is_retried_safely(client: ClientFactory) -> None:
    calls: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(request)
        if len(calls) == 1:
            raise httpx.ConnectError("refused", request=request)
        return httpx.Response(200, json={"success": True})

    result = client(handler, api_key=KEY).submit("t1", "x")
    assert result == {"success": True}
    assert result.recovered is False


# -- async mirror --------------------------------------------------------------------------------------------


def test_async_client_mirrors_the_sync_one() -> None:
    async def run() -> None:
        rec = Recorder(_problems(75))
        async with aclient(rec, api_key=KEY) as c:
            ids = [p["id"] async for p in c.list_problems()]
            assert ids == [f"p{i}" for i in range(75)]
            pages = [p async for p in c.problem_pages(page_size=500)]
            assert sum(len(p) for p in pages) == 75
            assert rec.params[2] == {"limit": "500"}
            assert rec.params[3] == {}

        answers = iter(
            [
                httpx.Response(503, text="x"),
                httpx.Response(200, json={"taskId": "t", "taskType": "solve", "payload": {}}),
            ]
        )
        async with aclient(lambda r: next(answers), api_key=KEY) as c2:
            task = await c2.next_task()
            assert task is not None and task.id == "t"

    asyncio.run(run())


# -- against the sandbox server over HTTP ----------------------------------------------------------------


def _db(server: SandboxServer) -> sqlite3.Connection:
    return sqlite3.connect(f"file:{server.db_path}?mode=ro", uri=True)


def _expected(server: SandboxServer) -> dict[str, Any]:
    """The records the sandbox must serve, read from its SQLite file (ids encoded as the server does)."""
    codec = IdCodec(0)
    with closing(_db(server)) as conn:
        problems = [
            codec.encode("problem", r[0])
            for r in conn.execute(
                "SELECT id FROM problems WHERE status != 'rejected' ORDER BY created_at DESC, id DESC"
            )
        ]
        solutions: dict[str, list[str]] = {}
        for pid, sid in conn.execute(
            "SELECT problem_id, id FROM solutions ORDER BY problem_id, bt_score DESC, created_at, id"
        ):
            solutions.setdefault(codec.encode("problem", pid), []).append(codec.encode("solution", sid))
        leaderboard = [
            codec.encode("bot", r[0])
            for r in conn.execute(
                "SELECT id FROM bots WHERE status = 'active' ORDER BY total_points DESC, id ASC"
            )
        ]
    return {"problems": problems, "solutions": solutions, "leaderboard": leaderboard}


def _full_paging(c: Any, **page_sizes: int) -> dict[str, Any]:
    problems = [p["id"] for p in c.list_problems(page_size=page_sizes.get("problems"))]
    solutions = {
        pid: [s["id"] for s in c.list_solutions(pid, page_size=page_sizes.get("solutions"))]
        for pid in problems
    }
    leaderboard = [b["id"] for b in c.list_leaderboard(page_size=page_sizes.get("leaderboard"))]
    return {
        "problems": problems,
        "solutions": {k: v for k, v in solutions.items() if v},
        "leaderboard": leaderboard,
    }


def _restrict(expected: dict[str, Any]) -> dict[str, Any]:
    listed = set(expected["problems"])
    return {**expected, "solutions": {k: v for k, v in expected["solutions"].items() if k in listed}}


@pytest.fixture(scope="module")
def quiet_sandbox(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SandboxServer]:
    """A platform no test writes to (bots of other tests change the shared ``sandbox``), its ties in a stable
    order: the tests compare listing order with the database's."""
    server = start_sandbox(tmp_path_factory.mktemp("quiet") / "sandbox.sqlite", tie_order="stable")
    yield server
    server.stop()


def test_sandbox_full_paging_returns_exactly_the_records(kind: str, quiet_sandbox: SandboxServer) -> None:
    expected = _restrict(_expected(quiet_sandbox))
    with open_client(kind, quiet_sandbox.base_url, read_env=False) as c:
        assert _full_paging(c) == expected
        # small pages: many requests, same records in the same order
        assert _full_paging(c, problems=7, solutions=3, leaderboard=5) == expected
    assert len(expected["problems"]) > 50 and len(expected["leaderboard"]) > 0


def test_sandbox_rejected_page_size_falls_back(kind: str, quiet_sandbox: SandboxServer) -> None:
    expected = _restrict(_expected(quiet_sandbox))
    with open_client(kind, quiet_sandbox.base_url, read_env=False) as c:
        assert _full_paging(c, problems=500, solutions=1000, leaderboard=101) == expected
        assert c._rejected_page_sizes == {"problems", "solutions", "leaderboard"}


def test_sandbox_every_public_endpoint(kind: str, quiet_sandbox: SandboxServer) -> None:
    with open_client(kind, quiet_sandbox.base_url, read_env=False) as c:
        health = c.health()
        assert health.status == "healthy" and health.clock
        stats = c.get_stats()
        assert stats.total_problems and stats.total_problems > 0
        categories = c.list_categories()
        assert [cat.slug for cat in categories][:2] == ["technology", "science_nature"]
        assert len(categories) == 8
        first = next(iter(c.list_problems(sort="most_solutions")))
        problem = c.get_problem(first["id"])
        assert problem.id == first["id"] and problem.title == first["title"]
        assert problem.top_solutions and len(problem.top_solutions) <= 3
        technology = list(c.list_problems(category="technology", page_size=5))
        assert technology and all(p["category"] == "technology" for p in technology)
        top = next(iter(c.list_leaderboard(sort="elo")))
        bot = c.get_bot(top["id"])
        assert bot.id == top["id"] and isinstance(bot["badges"], list)
        found = c.search(problem.title.split()[-1] if problem.title else "water", type="problems")
        assert "problems" in found and "bots" not in found
        with pytest.raises(NotFoundError, match="Problem not found"):
            c.get_problem("00000000-0000-4000-8000-000000000000")
        with pytest.raises(NotFoundError, match="Bot not found"):
            c.get_bot("nope")


def test_sandbox_bot_endpoints(kind: str, sandbox: SandboxServer) -> None:
    key = sandbox.create_bot(f"client-test-{kind}-{os.getpid()}")
    with open_client(kind, sandbox.base_url, api_key=key, retry=FAST, read_env=False) as c:
        me = c.get_me()
        assert me.status == "active" and me.total_solutions == 0
        task = c.next_task(brief="true", categories="slim")
        assert task is not None and task.type in ("flag", "solve", "vote", "create")
        assert c.next_task() == task  # the active task is served again until submitted
        result = c.submit(task.id, example_solve(task.raw))
        assert result["success"] is True
        with pytest.raises(ConflictError, match="already completed"):
            c.submit(task.id, example_solve(task.raw))
        assert c.get_me()["totalTasksCompleted"] == 1


def test_sandbox_401_and_403(kind: str, sandbox: SandboxServer) -> None:
    from solvelens.sandbox.accounts import suspend_bot

    with open_client(kind, sandbox.base_url, api_key="sl_key_" + "Q" * 43, retry=FAST, read_env=False) as c:
        with pytest.raises(AuthenticationError) as info:
            c.next_task()
        assert info.value.path == "/tasks/next"
    name = f"suspended-{kind}-{os.getpid()}"
    key = sandbox.create_bot(name)
    suspend_bot(sandbox.db_path, name)
    with (
        open_client(kind, sandbox.base_url, api_key=key, retry=FAST, read_env=False) as c,
        pytest.raises(PermissionDeniedError, match="suspended"),
    ):
        c.get_me()


@pytest.mark.parametrize("style", ["offset", "cursor"])
def test_sandbox_other_pagination_styles(
    kind: str, module_sandbox: Callable[..., SandboxServer], style: str
) -> None:
    server = module_sandbox(pagination=style, tie_order="stable")
    expected = _restrict(_expected(server))
    with open_client(kind, server.base_url, read_env=False) as c:
        assert _full_paging(c, problems=9, solutions=4, leaderboard=6) == expected
        pages = list(c.problem_pages(page_size=9))
        assert len(pages) == -(-len(expected["problems"]) // 9)
    # configured instead of detected
    with open_client(kind, server.base_url, read_env=False, pagination=style) as c:
        assert _full_paging(c) == expected


def test_sandbox_solutions_paged_by_offset_are_walked_completely(
    kind: str, module_sandbox: Callable[..., SandboxServer], caplog: pytest.LogCaptureFixture
) -> None:
    """Another implementation of the interface (``--solutions-paging offset``: offset/limit answered
    ``{"items", "has_more", "total"}``, page ignored): every problem's solutions come back complete, in rank
    order, with the style found once and reused."""
    caplog.set_level(logging.INFO, logger="solvelens.client")
    server = module_sandbox(solutions_paging="offset", tie_order="stable")
    expected = _restrict(_expected(server))
    with open_client(kind, server.base_url, read_env=False) as c:
        assert _full_paging(c) == expected  # asks for 100 a page, gets at most 10 with has_more: true
    switches = [r for r in caplog.records if "switching to offset" in r.getMessage()]
    assert len(switches) == 1  # learned once, then every problem's walk starts with offset
    assert max(len(v) for v in expected["solutions"].values()) > 10  # several pages for some problems


def test_sandbox_fault_injected_full_paging(kind: str, make_sandbox: Callable[..., SandboxServer]) -> None:
    server = make_sandbox(
        fault_rate=0.25,
        fault_kinds="429,500,502,503,truncate,html",
        fault_seed=7,
        retry_after=1,
        tie_order="stable",
    )
    expected = _restrict(_expected(server))
    policy = RetryPolicy(attempts=10, wait_initial=0.0, wait_max=0.01, wait_jitter=0.0, retry_after_cap=0.01)
    with open_client(kind, server.base_url, retry=policy, read_env=False) as c:
        assert _full_paging(c, problems=20, solutions=5, leaderboard=10) == expected
        assert c.get_stats().total_problems is not None


def test_sandbox_retry_after_is_honoured(kind: str, make_sandbox: Callable[..., SandboxServer]) -> None:
    server = make_sandbox(fault_schedule="429,503", retry_after=1)
    policy = RetryPolicy(attempts=3, wait_initial=0.0, wait_max=0.0, wait_jitter=0.0, retry_after_cap=5)
    with open_client(kind, server.base_url, retry=policy, read_env=False) as c:
        started = time.perf_counter()
        assert c.get_stats().total_problems
        assert time.perf_counter() - started >= 1.95  # 1 s after the 429, 1 s after the 503


def test_sandbox_slow_submit_is_not_submitted_twice(
    kind: str, make_sandbox: Callable[..., SandboxServer]
) -> None:
    # /api/ requests: 1 GET /bot/me, 2 GET /tasks/next, 3 POST submit (held 1.5 s: our 0.5 s timeout fires,
    # the submit is sent again), then the held one is processed too: the task must count once.
    server = make_sandbox(fault_schedule="ok,ok,slow", slow_ms=1500, task_types="solve")
    key = server.create_bot(f"slow-submitter-{kind}")
    with open_client(kind, server.base_url, api_key=key, retry=FAST, timeout=0.5, read_env=False) as c:
        before = c.get_me()["totalTasksCompleted"]
        task = c.next_task()
        assert task is not None
        c.submit(task.id, example_solve(task.raw))
        time.sleep(1.5)
        assert c.get_me()["totalTasksCompleted"] == before + 1


def test_sandbox_async_client_snapshot_flow(quiet_sandbox: SandboxServer) -> None:
    expected = _restrict(_expected(quiet_sandbox))

    async def run() -> dict[str, Any]:
        async with AsyncPlatformClient(quiet_sandbox.base_url, read_env=False) as c:
            await c.health()
            problems = [p["id"] async for page in c.problem_pages() for p in page.items]

            async def sols(pid: str) -> tuple[str, list[str]]:
                return pid, [s["id"] async for s in c.list_solutions(pid)]

            solutions = dict(await asyncio.gather(*(sols(pid) for pid in problems)))
            board = [b async for page in c.leaderboard_pages() for b in page.items]
            assert await c.get_stats()
            assert len(await c.list_categories()) == 8
            assert (await c.get_bot(board[0]["id"])).id == board[0]["id"]
            return {
                "problems": problems,
                "solutions": {k: v for k, v in solutions.items() if v},
                "leaderboard": [b["id"] for b in board],
            }

    assert asyncio.run(run()) == expected


def test_sandbox_async_concurrent_pages_equal_the_sequential_walk(quiet_sandbox: SandboxServer) -> None:
    """Once /problems announces its page count the remaining pages are fetched concurrently; the pages
    still arrive in order with the same records, and offsets stay consistent."""
    expected = _restrict(_expected(quiet_sandbox))

    async def run(concurrency: int) -> tuple[list[str], list[int], list[str]]:
        async with AsyncPlatformClient(
            quiet_sandbox.base_url, read_env=False, page_sizes={"problems": 7, "leaderboard": 5}
        ) as c:
            pages = [p async for p in c.problem_pages(concurrency=concurrency)]
            board = [b["id"] async for p in c.leaderboard_pages(concurrency=concurrency) for b in p.items]
        return [item["id"] for p in pages for item in p.items], [p.offset for p in pages], board

    sequential = asyncio.run(run(1))
    concurrent = asyncio.run(run(6))
    assert concurrent == sequential
    assert concurrent[0] == expected["problems"] and concurrent[2] == expected["leaderboard"]
    assert len(concurrent[1]) > 6  # many pages, so several were in flight at once
    assert concurrent[1] == [7 * i for i in range(len(concurrent[1]))]


def test_async_concurrent_pages_stop_when_an_answer_ends_the_walk_early() -> None:
    """The first answer announces 4 pages but the list shrank meanwhile: page 3 comes back short (not the end
    while the page count says more) and page 4 empty, which ends the walk."""

    def answer(request: httpx.Request, n: int) -> httpx.Response:
        page = int(request.url.params.get("page", "1"))
        size = {3: 2, 4: 0}.get(page, 5)
        items = [{"id": f"p{page}-{i}"} for i in range(size)]
        return httpx.Response(
            200, json={"problems": items, "pagination": {"page": page, "limit": 5, "totalPages": 4}}
        )

    async def run() -> list[str]:
        async with aclient(Recorder(answer), page_sizes={"problems": 5}) as c:
            return [item["id"] async for page in c.problem_pages(concurrency=3) for item in page.items]

    ids = asyncio.run(run())
    assert ids == [f"p{p}-{i}" for p in (1, 2) for i in range(5)] + ["p3-0", "p3-1"]


def test_snapshot_fetch_collects_offset_paged_solutions_completely(
    module_sandbox: Callable[..., SandboxServer],
) -> None:
    """The snapshot's own fetch step (``solvelens.flows.fetch.collect_pages``) over the async client's
    ``solution_pages`` against the other implementation (100 asked, 10 served a page with ``has_more``,
    ``page`` ignored): every solution, no warning."""
    from solvelens.flows.fetch import collect_pages

    server = module_sandbox(solutions_paging="offset", tie_order="stable")
    expected = _restrict(_expected(server))

    async def run() -> tuple[dict[str, list[str]], list[str]]:
        warnings: list[str] = []
        got: dict[str, list[str]] = {}
        async with AsyncPlatformClient(server.base_url, read_env=False) as c:
            for pid in expected["problems"]:
                items = await collect_pages(c.solution_pages(pid), f"solutions of {pid}", warnings)
                if items:
                    got[pid] = [s["id"] for s in items]
        return got, warnings

    got, warnings = asyncio.run(run())
    assert got == expected["solutions"]
    assert warnings == []


def test_both_clients_offer_the_same_methods_with_the_same_parameters() -> None:
    """The clients are not hand-mirrored (every request is built once in the base), but their public faces
    must stay twins: same methods, same parameters, same defaults; only the async one adds ``concurrency``
    to the page walks that can fetch ahead, and closes with ``aclose``."""

    def public(cls: type) -> dict[str, inspect.Signature]:
        return {
            name: inspect.signature(member)
            for name, member in vars(cls).items()
            if callable(member) and not name.startswith("_") and name not in ("close", "aclose")
        }

    sync, async_ = public(PlatformClient), public(AsyncPlatformClient)
    assert sorted(sync) == sorted(async_)
    # one per endpoint use: 8 page walks (llm_leaderboard_pages among them), 13 single requests (activity,
    # llm_leaderboard (every page at once), solution and comparisons among them)
    assert len(sync) == 21
    fetch_ahead = {"iter_pages", "problem_pages", "leaderboard_pages"}
    for name, signature in sync.items():
        extra = {"concurrency"} if name in fetch_ahead else set()
        params = [p for p in async_[name].parameters.values() if p.name not in extra]
        assert list(signature.parameters.values()) == params, name
        assert extra <= set(async_[name].parameters), name
        assert (inspect.getdoc(getattr(PlatformClient, name)) or "") != "", name
        assert (inspect.getdoc(getattr(AsyncPlatformClient, name)) or "") != "", name


@pytest.mark.parametrize(
    ("body", "keys"),
    [
        ({"job": {"ref": "j1", "kind": "solve"}, "ok": True}, ("job", "ok")),
        ({"message": "Service degraded"}, ("message",)),
    ],
)
def test_unknown_200_task_body_is_an_error_naming_keys_and_fix(
    client: ClientFactory, body: Any, keys: tuple[str, ...]
) -> None:
    """A body that is neither a task nor "no task" is never read as idle (the bot would hold the task)."""
    c = client(lambda r: httpx.Response(200, json=body), api_key=KEY)
    with pytest.raises(UnrecognizedResponseError) as info:
        c.next_task()
    assert info.value.keys == keys
    message = str(info.value)
    assert "[endpoints.tasks_next]" in message and all(key in message for key in keys)
    assert c.last_task is None


def test_retry_limit_stops_scheduling_retries(client: ClientFactory) -> None:
    """Inside retry_limit(), a set stop event or a passed deadline raises the failure at hand at once."""
    rec = Recorder(lambda r, n: httpx.Response(500, json={"error": "down"}))
    c = client(rec, api_key=KEY)
    stop = threading.Event()
    stop.set()
    with retry_limit(stop=stop), pytest.raises(ServerError):
        c.get_stats()
    with retry_limit(deadline=time.monotonic()), pytest.raises(ServerError):
        c.next_task()
    assert len(rec.requests) == 2
    with retry_limit(stop=threading.Event(), deadline=time.monotonic() + 60), pytest.raises(ServerError):
        c.get_stats()
    assert len(rec.requests) == 2 + FAST.attempts
