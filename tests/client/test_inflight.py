"""Tests of ``solvelens.client.inflight``: the adaptive in-flight limit on a fake clock (no sleeps: the
round-trip times are given), its slots under asyncio, and the limit in a real client over real HTTP: it
grows to its maximum when the sandbox adds 50 ms to every answer, and stays well below it on loopback,
where the server shares this process (and its GIL) with the client, so extra requests only queue."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from solvelens.client import AsyncPlatformClient
from solvelens.client.inflight import InflightLimit, shared_inflight
from tests.fixtures.sandbox import SandboxServer


class FakeClock:
    """A clock the test moves by hand (seconds)."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def feed(limit: InflightLimit, rtt: Callable[[int], float], samples: int) -> list[int]:
    """Give ``limit`` ``samples`` round-trip times, each ``rtt(limit.limit)``; the limits seen after each."""
    seen = []
    for _ in range(samples):
        limit.sample(rtt(limit.limit))
        seen.append(limit.limit)
    return seen


# -- the limit's rule, on given round-trip times -------------------------------------------------------------


def test_flat_rtt_grows_to_the_maximum_by_slow_start() -> None:
    # a network in between: 50 ms whatever is in flight -> no queue -> the limit doubles each window
    limit = InflightLimit(16, initial=2)
    seen = feed(limit, lambda _: 0.050, 40)
    assert limit.limit == 16
    # slow start: 2 samples at 2, 4 at 4, 8 at 8: the maximum is reached after 14 answers
    assert seen[:14] == [2, 4, 4, 4, 4, 8, 8, 8, 8, 8, 8, 8, 8, 16]


def test_rtt_growing_with_in_flight_shrinks_the_limit_between_alpha_and_beta() -> None:
    # first a flat 1 ms: the limit grows to its maximum; then the server gets busy: each request in flight
    # adds its 1 ms of service to everyone's RTT (RTT = limit x 1 ms), so the queue estimate is limit - 1,
    # within [alpha, beta] = [2, 4] only for limits 3..5
    limit = InflightLimit(32)
    feed(limit, lambda _: 0.001, 100)
    assert limit.limit == 32
    seen = feed(limit, lambda n: n * 0.001, 800)  # one step down per window: ~510 answers from 32 to 5
    assert 3 <= limit.limit <= 5
    assert all(3 <= n <= 5 for n in seen[-200:])
    assert limit.noload_s == pytest.approx(0.001)


def test_a_queue_ends_slow_start_and_backs_off_one_by_one() -> None:
    limit = InflightLimit(64, initial=16)
    feed(limit, lambda _: 0.001, 16)  # a window at the no-load RTT: slow start doubles
    assert limit.limit == 32
    feed(limit, lambda _: 0.010, 32)  # a window at 10x: queue 28.8 > beta
    assert limit.limit == 31  # one less, not halved
    feed(limit, lambda _: 0.001, 31)  # flat again: additive increase now, no more doubling
    assert limit.limit == 32


def test_a_delay_spike_of_a_few_requests_does_not_shrink_the_limit() -> None:
    # a busy machine delays some answers of a window (3 of 8): its median RTT still says nothing queues
    limit = InflightLimit(8, initial=8)
    feed(limit, lambda _: 0.005, 8)
    feed(limit, lambda _: 0.030, 3)
    feed(limit, lambda _: 0.005, 5)
    assert limit.limit == 8
    # ... while a queue most of them wait in does
    feed(limit, lambda _: 0.030, 5)
    feed(limit, lambda _: 0.005, 3)
    assert limit.limit == 7


def test_a_platform_across_a_network_keeps_its_limit_whatever_its_delays() -> None:
    # 50 ms unloaded, then most answers of each window delayed to 300 ms (a starved machine): no shrinking
    far = InflightLimit(16, initial=16)
    feed(far, lambda _: 0.050, 16)
    feed(far, lambda _: 0.300, 160)
    assert far.limit == 16
    # the same delays on loopback (1 ms unloaded) are a queue: the limit shrinks
    near = InflightLimit(16, initial=16)
    feed(near, lambda _: 0.001, 16)
    feed(near, lambda _: 0.300, 160)
    assert near.limit < 16


@given(st.lists(st.floats(min_value=0.0, max_value=5.0, allow_nan=False), max_size=300), st.integers(1, 40))
def test_the_limit_stays_within_minimum_and_maximum(rtts: list[float], maximum: int) -> None:
    limit = InflightLimit(maximum)
    for rtt in rtts:
        limit.sample(rtt)
        assert min(2, maximum) <= limit.limit <= maximum
    assert limit.peak <= maximum


def test_bad_arguments_say_which() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        InflightLimit(0)
    with pytest.raises(ValueError, match="beta"):
        InflightLimit(8, alpha=4, beta=2)
    one = InflightLimit(1)
    assert (one.minimum, one.limit) == (1, 1)


def test_nonsense_samples_are_ignored() -> None:
    limit = InflightLimit(8)
    limit.sample(-1.0)
    limit.sample(float("nan"))
    assert limit.samples == 0
    assert limit.noload_s is None


# -- slots under asyncio (a fake clock: the RTT is what the test moved it by) --------------------------------


def test_slots_bound_the_requests_in_flight_and_sample_only_answered_ones() -> None:
    clock = FakeClock()
    limit = InflightLimit(8, initial=2, clock=clock)
    order: list[str] = []

    async def request(name: str, release: asyncio.Event, answer: bool) -> None:
        async with limit.slot() as answered:
            order.append(name)
            await release.wait()
            clock.now += 0.010
            if answer:
                answered()

    async def main() -> None:
        gates = {n: asyncio.Event() for n in "abcd"}
        tasks = [asyncio.create_task(request(n, gates[n], n != "a")) for n in "abcd"]
        await asyncio.sleep(0)
        assert order == ["a", "b"] and limit.in_flight == 2  # c and d wait: the limit is 2
        gates["a"].set()  # a fails (no answer): its slot goes to c, first come, first served
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        assert order == ["a", "b", "c"] and limit.samples == 0
        for gate in gates.values():
            gate.set()
        await asyncio.gather(*tasks)

    asyncio.run(main())
    assert order == ["a", "b", "c", "d"]
    assert limit.in_flight == 0
    assert limit.samples == 3
    assert limit.noload_s == pytest.approx(0.010)


def test_a_cancelled_waiter_leaks_no_slot() -> None:
    limit = InflightLimit(1)

    async def hold(release: asyncio.Event) -> None:
        async with limit.slot():
            await release.wait()

    async def main() -> None:
        release = asyncio.Event()
        holder = asyncio.create_task(hold(release))
        await asyncio.sleep(0)
        waiter = asyncio.create_task(hold(asyncio.Event()))
        await asyncio.sleep(0)
        waiter.cancel()  # cancelled while waiting
        release.set()
        await holder
        with pytest.raises(asyncio.CancelledError):
            await waiter
        assert limit.in_flight == 0
        async with limit.slot():  # the slot is free again
            assert limit.in_flight == 1

    asyncio.run(main())


def test_one_limit_per_event_loop_and_platform() -> None:
    async def two() -> tuple[InflightLimit, InflightLimit, InflightLimit]:
        a = shared_inflight("http://x/api/v1", 8)
        return a, shared_inflight("http://x/api/v1", 8), shared_inflight("http://y/api/v1", 8)

    first, same, other = asyncio.run(two())
    assert first is same and first is not other
    again, _, _ = asyncio.run(two())
    assert again is not first  # the next run (a new event loop) starts afresh
    with pytest.raises(RuntimeError):
        shared_inflight("http://x/api/v1", 8)  # outside a running event loop


# -- over real HTTP ------------------------------------------------------------------------------------------


async def _fan_out(server: SandboxServer, limit: InflightLimit, requests: int) -> None:
    """``requests`` solution-list pages of the sandbox's problems, fetched by as many tasks as the
    limit's maximum, through one client holding ``limit``."""
    async with AsyncPlatformClient(server.base_url, read_env=False, inflight=limit) as client:
        ids: list[str] = []
        async for page in client.problem_pages(page_size=50):  # the first page's problems
            ids = [str(p["id"]) for p in page.items]
            break
        queue = [ids[i % len(ids)] for i in range(requests)]

        async def worker() -> None:
            while queue:
                pid = queue.pop()
                async for _ in client.solution_pages(pid, page_size=5):
                    break  # one page each: one request

        await asyncio.gather(*(worker() for _ in range(limit.maximum)))


def test_the_limit_grows_to_the_maximum_behind_a_50ms_network(
    module_sandbox: Callable[..., SandboxServer],
) -> None:
    server = module_sandbox(latency_ms=50)
    limit = InflightLimit(8)
    asyncio.run(_fan_out(server, limit, 80))
    assert limit.peak == 8
    assert limit.noload_s is not None and limit.noload_s >= 0.050


def test_the_limit_stays_low_when_the_server_is_the_bottleneck(
    module_sandbox: Callable[..., SandboxServer],
) -> None:
    # the sandbox runs in this process: every request in flight waits for the same interpreter
    server = module_sandbox()
    limit = InflightLimit(32, far_s=0.050)  # a busy test machine has seen in-thread no-load RTTs of 5 ms
    asyncio.run(_fan_out(server, limit, 150))
    assert limit.peak < 32 and limit.limit <= 12, limit
