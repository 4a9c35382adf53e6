"""Tests of ``solvelens.client.ratelimit``: the quota headers in every form, the pacer's slots (a fake clock),
and both clients against the sandbox's enforced quota over real HTTP, counted server-side
(``/_sandbox/rate-limit``). Mock transports only for header forms the sandbox does not send."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import solvelens.client.ratelimit as ratelimit
from solvelens.client import (
    AsyncPlatformClient,
    ConfigurationError,
    PlatformClient,
    RateLimitError,
    RetryPolicy,
)
from solvelens.client.ratelimit import KindStats, Pacer, QuotaWindow, read_quota, shared_pacer
from tests.fixtures.sandbox import SandboxServer

NOW = 1_800_000_000.0  # a Unix time for resets given as a time


def counts(server: SandboxServer) -> dict[str, int]:
    """What the sandbox's quota counted: requests, limited (429 answers), ..."""
    return httpx.get(f"{server.root_url}/_sandbox/rate-limit").json()


# -- the headers, in every form ------------------------------------------------------------------------------


def test_the_sandboxs_headers_are_read(make_sandbox) -> None:
    server = make_sandbox(rate_limit="30/minute")
    answer = httpx.get(f"{server.base_url}/stats")
    info = read_quota(answer.headers)
    assert info is not None and info.form == "ratelimit-draft-07"
    assert info.windows == (QuotaWindow(29, 60.0, 30, 60.0),)
    without_ietf = httpx.Headers({k: v for k, v in answer.headers.items() if k.startswith("x-ratelimit")})
    legacy = read_quota(without_ietf)
    assert legacy is not None and legacy.form == "x-ratelimit"
    assert legacy.windows == (QuotaWindow(29, 60.0, 30, None),)  # X-RateLimit-* names no window length


@pytest.mark.parametrize(
    ("headers", "form", "windows"),
    [
        (  # the real platform (fastify): reset in seconds
            {"X-RateLimit-Limit": "5000", "X-RateLimit-Remaining": "4999", "X-RateLimit-Reset": "3600"},
            "x-ratelimit",
            [QuotaWindow(4999, 3600.0, 5000)],
        ),
        (  # GitHub: reset as a Unix time
            {
                "x-ratelimit-limit": "60",
                "x-ratelimit-remaining": "0",
                "x-ratelimit-reset": str(int(NOW) + 90),
            },
            "x-ratelimit",
            [QuotaWindow(0, 90.0, 60)],
        ),
        (  # a Unix time in milliseconds
            {"x-ratelimit-remaining": "7", "x-ratelimit-reset": str(int(NOW * 1000) + 2500)},
            "x-ratelimit",
            [QuotaWindow(7, 2.5)],
        ),
        (  # an HTTP date (seconds from now: compared with the real clock, so only its sign is fixed here)
            {"x-ratelimit-remaining": "3", "x-ratelimit-reset": "Thu, 01 Jan 1970 00:00:00 GMT"},
            "x-ratelimit",
            [QuotaWindow(3, 0.0)],
        ),
        (  # IETF draft -06: separate fields, the limit carrying the policy
            {"RateLimit-Limit": "100, 100;w=60", "RateLimit-Remaining": "42", "RateLimit-Reset": "17"},
            "ratelimit-draft-06",
            [QuotaWindow(42, 17.0, 100, 60.0)],
        ),
        (  # IETF draft -07: one dictionary + policies (matched by quota)
            {"RateLimit": "limit=1000, remaining=900, reset=1200", "RateLimit-Policy": "10;w=1, 1000;w=3600"},
            "ratelimit-draft-07",
            [QuotaWindow(900, 1200.0, 1000, 3600.0)],
        ),
        (  # IETF draft -08+: named policies as structured-field strings, several at once
            {
                "RateLimit": '"burst";r=5;t=2, "daily";r=9000;t=40000',
                "RateLimit-Policy": '"burst";q=10;w=5, "daily";q=10000;w=86400',
            },
            "ratelimit-structured",
            [QuotaWindow(5, 2.0, 10, 5.0, "burst"), QuotaWindow(9000, 40000.0, 10000, 86400.0, "daily")],
        ),
        (  # an intermediate revision: token names, l= for the quota
            {"RateLimit": "default;r=50;t=30", "RateLimit-Policy": "default;l=100;w=60"},
            "ratelimit-structured",
            [QuotaWindow(50, 30.0, 100, 60.0, "default")],
        ),
        ({"Retry-After": "12"}, "retry-after", []),
    ],
    ids=[
        "fastify",
        "github-epoch",
        "epoch-ms",
        "http-date",
        "draft-06",
        "draft-07",
        "draft-08-multi",
        "draft-l-param",
        "retry-after-only",
    ],
)
def test_every_header_form(headers: dict[str, str], form: str, windows: list[QuotaWindow]) -> None:
    info = read_quota(headers, now_epoch=NOW)
    assert info is not None and info.form == form
    assert list(info.windows) == windows
    if form == "retry-after":
        assert info.retry_after_s == 12.0


def test_no_quota_headers_is_none_and_retry_after_dates_are_read() -> None:
    assert read_quota({"content-type": "application/json"}) is None
    soon = format_datetime(datetime.now(UTC) + timedelta(seconds=30), usegmt=True)
    info = read_quota({"retry-after": soon, "x-ratelimit-remaining": "0", "x-ratelimit-reset": "30"})
    assert info is not None and 28 <= (info.retry_after_s or 0) <= 30


@pytest.mark.parametrize(
    ("headers", "header"),
    [
        ({"x-ratelimit-remaining": "lots", "x-ratelimit-reset": "5"}, "X-RateLimit-Remaining"),
        ({"x-ratelimit-remaining": "5", "x-ratelimit-reset": "soon"}, "X-RateLimit-Reset"),
        ({"ratelimit": "limit=10, remaining=-1, reset=5"}, "RateLimit"),
        ({"ratelimit": '"default";t=5'}, "RateLimit"),
    ],
)
def test_unreadable_quota_headers_raise_naming_the_header(headers: dict[str, str], header: str) -> None:
    with pytest.raises(ValueError) as caught:
        read_quota(headers, now_epoch=NOW)
    assert caught.value.header == header  # type: ignore[attr-defined]


# -- the pacer's slots (a fake clock) ------------------------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def answer(status: int = 200, **headers: str) -> httpx.Response:
    return httpx.Response(status, headers={k.replace("_", "-"): v for k, v in headers.items()})


def quota(remaining: int, reset: float, limit: int, window: int) -> httpx.Response:
    return answer(
        ratelimit=f"limit={limit}, remaining={remaining}, reset={reset:g}",
        ratelimit_policy=f"{limit};w={window}",
    )


def test_half_the_limit_goes_at_once_the_rest_is_spread_to_the_reset() -> None:
    clock = Clock()
    pacer = Pacer(clock=clock)
    first, wait = pacer._reserve()
    assert wait == 0  # nothing known yet: nothing held
    pacer.observe(first, quota(remaining=9, reset=10, limit=10, window=10))  # a window that just started
    waits = [pacer._reserve()[1] for _ in range(10)]
    assert waits[:4] == [0, 0, 0, 0]  # 5 of 10 (the first included) at once
    assert all(0 < w <= 10 for w in waits[4:9]) and waits[4:9] == sorted(waits[4:9])  # then spread
    assert waits[8] == pytest.approx(10)  # the last of the window at its end
    assert waits[9] > 10  # the 10th after the reset: never beyond the remaining count before it


@settings(max_examples=200, deadline=None)
@given(
    limit=st.integers(1, 500),
    used=st.integers(0, 500),
    reset=st.integers(1, 3600),
    burst=st.floats(0, 0.9),
    under_way=st.integers(0, 20),
    asked=st.integers(1, 600),
)
def test_no_slot_before_the_reset_beyond_what_remains(
    limit: int, used: int, reset: int, burst: float, under_way: int, asked: int
) -> None:
    clock = Clock()
    pacer = Pacer(clock=clock, burst=burst)
    tickets = [pacer._reserve()[0] for _ in range(under_way + 1)]
    remaining = max(0, limit - min(used, limit))
    pacer.observe(tickets[-1], quota(remaining, reset, limit, window=reset))
    slots = [clock.now + pacer._reserve()[1] for _ in range(asked)]
    before_reset = sum(1 for s in slots if s < clock.now + reset)
    assert before_reset <= max(0, remaining - under_way)
    assert slots == sorted(slots)


def test_the_pacer_records_per_kind_how_many_requests_it_held_and_for_how_long() -> None:
    """A run tells "paced by its own interface reads" from "its optional requests waited": each kind's
    requests, those held (a wait above 0) and the seconds held, as copies compared with ``since``."""
    clock = Clock()
    pacer = Pacer(clock=clock)
    first, _ = pacer._reserve()  # the default kind: interface
    pacer.observe(first, quota(remaining=9, reset=10, limit=10, window=10))
    before = pacer.kinds()
    at_once = [pacer._reserve("optional")[1] for _ in range(4)]  # 5 of 10 at once, the first included
    spread = [pacer._reserve()[1] for _ in range(2)]  # beyond half the window: held, spread to its end
    after = pacer.kinds()
    assert at_once == [0, 0, 0, 0] and all(w > 0 for w in spread)
    assert after["optional"].since(before.get("optional")) == KindStats(4, 0, 0.0)
    interface = after["interface"].since(before["interface"])
    assert (interface.requests, interface.held) == (2, 2)
    assert interface.waited_s == pytest.approx(sum(spread))
    assert after["interface"].requests == 3 and before == {"interface": KindStats(1, 0, 0.0)}
    assert pacer.stats.requests == 7 and pacer.stats.waited_s == pytest.approx(sum(spread))


def test_an_answer_older_than_the_anchor_is_ignored_and_requests_under_way_count() -> None:
    clock = Clock()
    pacer = Pacer(clock=clock, burst=0)
    a, _ = pacer._reserve()
    b, _ = pacer._reserve()
    pacer.observe(b, quota(remaining=2, reset=10, limit=10, window=10))  # a is still under way
    pacer.observe(a, quota(remaining=3, reset=10, limit=10, window=10))  # older: ignored
    waits = [pacer._reserve()[1] for _ in range(2)]
    assert waits[0] == pytest.approx(10)  # 2 left, 1 of them taken by a: one slot, at the end (no burst)
    assert waits[1] > 10


def test_a_429_holds_every_request_for_its_retry_after_capped() -> None:
    clock = Clock()
    pacer = Pacer(clock=clock)
    ticket, _ = pacer._reserve()
    pacer.observe(ticket, answer(429, retry_after="30"), retry_after_cap=5)
    assert pacer._reserve()[1] == pytest.approx(5)
    assert pacer.stats.rate_limited == 1


def test_an_unreadable_header_is_one_warning_and_pacing_goes_on(caplog) -> None:
    pacer = Pacer()
    bad = answer(x_ratelimit_remaining="plenty", x_ratelimit_reset="10")
    with caplog.at_level(logging.WARNING, logger="solvelens.client"):
        for _ in range(3):
            pacer.observe(pacer.acquire(), bad)
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 1 and "X-RateLimit-Remaining: 'plenty'" in lines[0]


@pytest.mark.parametrize("max_rps", [0, -1, 1001])
def test_max_rps_outside_its_range_is_a_configuration_error(max_rps: float) -> None:
    with pytest.raises(ConfigurationError, match="max_rps must be above 0"):
        PlatformClient("http://x.test/api/v1", read_env=False, max_rps=max_rps)


def test_a_shared_pacer_is_one_per_platform_and_cap() -> None:
    one = shared_pacer("http://x.test/api/v1", 5)
    assert shared_pacer("http://x.test/api/v1", 5) is one
    assert shared_pacer("http://y.test/api/v1", 5) is not one
    with PlatformClient("http://x.test/api/v1", read_env=False, pacer=one) as client:
        assert client.pacer is one
    with pytest.raises(ConfigurationError, match="differs from the shared pacer"):
        PlatformClient("http://x.test/api/v1", read_env=False, pacer=one, max_rps=7)


# -- both clients against the sandbox's enforced quota (real HTTP) ----------------------------------------


def run_async(
    client_factory: Callable[[], AsyncPlatformClient], n: int, in_flight: int
) -> AsyncPlatformClient:
    async def main() -> AsyncPlatformClient:
        async with client_factory() as client:
            gate = asyncio.Semaphore(in_flight)

            async def one() -> None:
                async with gate:
                    await client.get_stats()

            await asyncio.gather(*(one() for _ in range(n)))
            return client

    return asyncio.run(main())


def test_both_clients_stay_within_the_quota(make_sandbox) -> None:
    server = make_sandbox(rate_limit="20/2 seconds")
    with PlatformClient(server.base_url, read_env=False) as client:
        for _ in range(45):  # over two windows' worth
            client.get_stats()
    assert client.pacer.stats.rate_limited == 0 and client.pacer.stats.waited_s > 0
    server.advance_clock(2.0)  # a fresh window for the async client, on the server's clock
    async_client = run_async(lambda: AsyncPlatformClient(server.base_url, read_env=False), 50, in_flight=8)
    assert async_client.pacer.stats.rate_limited == 0
    seen = counts(server)
    assert (seen["requests"], seen["limited"]) == (95, 0)


def test_without_the_pacer_the_same_run_meets_429s(make_sandbox, monkeypatch) -> None:
    server = make_sandbox(rate_limit="20/2 seconds")
    monkeypatch.setattr(ratelimit, "read_quota", lambda *args, **kwargs: None)  # the headers unread
    fast = RetryPolicy(attempts=10, wait_initial=0.1, wait_max=2.5, wait_jitter=0.1)
    with contextlib.suppress(RateLimitError):  # retried until the windows let them through, or not
        run_async(lambda: AsyncPlatformClient(server.base_url, read_env=False, retry=fast), 50, in_flight=8)
    assert counts(server)["limited"] > 0


def test_a_429_retry_after_is_honoured_over_real_http(make_sandbox) -> None:
    server = make_sandbox(rate_limit="3/2 seconds")
    for _ in range(3):  # someone else (the same address) used the window up
        assert httpx.get(f"{server.base_url}/stats").status_code == 200
    with PlatformClient(server.base_url, read_env=False) as client:
        started = time.perf_counter()
        client.get_stats()  # 429 + Retry-After, waited, retried by stamina
        client.get_stats()
        elapsed = time.perf_counter() - started
    assert client.pacer.stats.rate_limited == 1
    assert 0.5 < elapsed < 10
    assert counts(server)["limited"] == 1  # the retry waited for the reset: one 429 only


def test_max_rps_caps_the_measured_rate(make_sandbox) -> None:
    server = make_sandbox()
    with PlatformClient(server.base_url, read_env=False, max_rps=20) as client:
        started = time.perf_counter()
        for _ in range(21):
            client.get_stats()
        sync_elapsed = time.perf_counter() - started
    assert 20 / sync_elapsed <= 20.5  # 21 requests: 20 intervals of at least 1/20 s (uncapped: ~200/s)
    started = time.perf_counter()
    run_async(lambda: AsyncPlatformClient(server.base_url, read_env=False, max_rps=20), 21, in_flight=8)
    assert 20 / (time.perf_counter() - started) <= 20.5


# -- header forms the sandbox does not send (mock transport) ----------------------------------------------


def test_a_structured_quota_with_nothing_left_holds_the_next_request_until_its_reset() -> None:
    sent: list[float] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(time.monotonic())
        headers = {"RateLimit": '"default";r=0;t=1', "RateLimit-Policy": '"default";q=2;w=1'}
        return httpx.Response(200, json={"totalProblems": 1}, headers=headers)

    with PlatformClient(
        "http://platform.test/api/v1", read_env=False, transport=httpx.MockTransport(handler)
    ) as client:
        client.get_stats()
        client.get_stats()
    assert sent[1] - sent[0] >= 1.0
