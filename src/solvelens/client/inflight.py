"""An in-flight limit that adapts to where the bottleneck is: delay-based, as TCP Vegas and Netflix's
concurrency-limits (``VegasLimit``) do it.

A snapshot sends a few thousand requests from several fetch steps at once. How many of them should be in
flight depends on what limits the run:

- **a network in between** (tens of milliseconds a request): the round-trip time (RTT) stays flat while more
  requests are in flight, so more in flight means proportionally more throughput: the limit grows to its
  maximum (``--concurrency``);
- **a server or a client that is busy** (a platform on loopback sharing the machine's cores with the
  client): extra requests only wait in a queue (the server's, or the client's event loop), the RTT grows with
  them, and each one costs the client bookkeeping (httpcore scans every pooled connection on each request):
  the limit shrinks to the few requests that keep the busy side busy.

How (:meth:`InflightLimit.sample`): the lowest RTT seen is the no-load RTT; every window of ``limit`` answers
(one round trip's worth) the window's median RTT (a delay spike of a few requests, e.g. a busy machine, does
not move it; a queue most requests wait in does) gives the queue estimate ``limit * (1 - noload / rtt)``:
the requests waiting somewhere rather than travelling. Below ``alpha`` the limit grows (doubling in
the first windows, "slow start", then by one), above ``beta`` it shrinks by one, between them it stays; always
within ``[minimum, maximum]``. It shrinks only for a platform whose no-load RTT is below ``far_s`` (10 ms): on
a busy 2-core machine a platform 50 ms away showed round trips of 70-400 ms, delays of a starved machine
rather than a queue fewer requests would shorten, and shrinking for them slowed the run (measured: 6 of 8
alternated pairs slower). Only successful answers are samples (an error page or a 429 is answered
without the work, and says nothing about the queue); a request that failed in transport just frees its slot.

No well-kept Python library does this (the PyPI packages that do are young single-author projects;
Netflix's concurrency-limits is Java): hence this small module. One limit is shared by the clients of one
snapshot run on one event loop (:func:`shared_inflight`); it uses no asyncio primitive bound to a loop at
construction, and each waiter's future is created on the loop that awaits it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
import weakref
from collections import deque
from collections.abc import AsyncIterator, Callable
from typing import Final

__all__ = ["InflightLimit", "shared_inflight"]

log = logging.getLogger("solvelens.client")

#: Queue estimate (requests) below which the limit grows, and above which it shrinks (TCP Vegas' alpha and
#: beta, in requests; Vegas uses 2 and 4 packets). The estimate is always below the limit, so a limit grows
#: to at least alpha and never shrinks below beta on its own: 4 requests in flight is the least a run with
#: ``--concurrency`` 2 or more falls to.
DEFAULT_ALPHA: Final = 2.0
DEFAULT_BETA: Final = 4.0
#: The lowest limit: two requests keep both ends busy (one travels or is served while the other's answer is
#: read).
DEFAULT_MINIMUM: Final = 2
#: The limit a run starts at (slow start doubles it while the round-trip time stays flat).
DEFAULT_INITIAL: Final = 2
#: A platform whose no-load round trip is at least this (seconds) is across a network: its requests travel
#: rather than queue on a CPU, and a busy machine's delays (a co-located server starved of CPU, scheduling)
#: are not queues fewer requests would shorten, so its limit does not shrink. Loopback: 1-5 ms.
DEFAULT_FAR_S: Final = 0.010


class InflightLimit:
    """At most :attr:`limit` requests in flight; the limit adapts to the measured round-trip times.

    ``maximum`` (>= 1): the limit's ceiling (a snapshot's: twice ``--concurrency``); ``minimum``/``initial``
    are clamped into ``[1, maximum]``; ``alpha``/``beta``: the queue estimates (requests) below which the
    limit grows and above which it shrinks; ``far_s``: the no-load RTT (seconds) from which the limit no
    longer shrinks (:data:`DEFAULT_FAR_S`); ``clock``: seconds, monotonic (tests pass a fake one).
    Use :meth:`slot` around one request; raises ``ValueError`` for a maximum below 1 or ``beta < alpha``.
    """

    def __init__(
        self,
        maximum: int,
        *,
        minimum: int = DEFAULT_MINIMUM,
        initial: int = DEFAULT_INITIAL,
        alpha: float = DEFAULT_ALPHA,
        beta: float = DEFAULT_BETA,
        far_s: float = DEFAULT_FAR_S,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        if maximum < 1:
            raise ValueError(f"an in-flight maximum must be at least 1, got {maximum}")
        if beta < alpha:
            raise ValueError(f"beta ({beta}) must not be below alpha ({alpha})")
        self.maximum = maximum
        self.minimum = min(max(minimum, 1), maximum)
        self._limit = min(max(initial, self.minimum), maximum)
        self.alpha, self.beta = alpha, beta
        self.far_s = far_s
        self._clock = clock
        self._in_flight = 0
        self._waiters: deque[asyncio.Future[None]] = deque()
        self._noload = math.inf
        self._window: list[float] = []
        self._slow_start = True
        #: The highest limit reached and the number of RTT samples taken (read by tests and debugging).
        self.peak = self._limit
        self.samples = 0

    def __repr__(self) -> str:
        return (
            f"InflightLimit(limit={self._limit}, maximum={self.maximum}, in_flight={self._in_flight}, "
            f"noload_ms={self._noload * 1000:.2f})"
        )

    @property
    def limit(self) -> int:
        """Requests allowed in flight now."""
        return self._limit

    @property
    def in_flight(self) -> int:
        """Requests holding a slot now."""
        return self._in_flight

    @property
    def noload_s(self) -> float | None:
        """The lowest round-trip time sampled (seconds), ``None`` before the first sample."""
        return None if self._noload == math.inf else self._noload

    async def acquire(self) -> float:
        """Wait for a slot (first come, first served); returns the clock's time the slot was taken."""
        if self._in_flight < self._limit and not self._waiters:
            self._in_flight += 1
            return self._clock()
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():  # granted, then cancelled: hand the slot on
                self._in_flight -= 1
                self._wake()
            else:
                with contextlib.suppress(ValueError):
                    self._waiters.remove(waiter)
            raise
        return self._clock()

    @contextlib.asynccontextmanager
    async def slot(self) -> AsyncIterator[Callable[[], None]]:
        """``async with limit.slot() as answered: ...; answered()``: holds a slot for one request; calling
        ``answered()`` once the (successful) answer is read makes the request an RTT sample. A request left
        without ``answered()`` (failed, error status) only frees its slot."""
        started = await self.acquire()
        done: list[float] = []

        def answered() -> None:
            done.append(self._clock())

        try:
            yield answered
        finally:
            self._in_flight -= 1
            if done:
                self.sample(done[0] - started)
            self._wake()

    def sample(self, rtt_s: float) -> None:
        """Take one round-trip time (seconds); every window of ``limit`` samples the limit is adjusted."""
        if rtt_s < 0 or math.isnan(rtt_s):
            return
        self.samples += 1
        self._noload = min(self._noload, rtt_s)
        self._window.append(rtt_s)
        if len(self._window) < self._limit:
            return
        recent = sorted(self._window)[len(self._window) // 2]  # the median (the upper one of an even window)
        self._window.clear()
        before = self._limit
        queue = before * (1.0 - self._noload / recent) if recent > 0 else 0.0
        if queue < self.alpha:
            self._limit = min(before * 2 if self._slow_start else before + 1, self.maximum)
        else:
            self._slow_start = False
            if queue > self.beta and self._noload < self.far_s:
                self._limit = max(before - 1, self.minimum)
        if self._limit != before:
            self.peak = max(self.peak, self._limit)
            log.debug(
                "in-flight limit %d -> %d (RTT %.1f ms, no-load %.1f ms, queue %.1f)",
                before,
                self._limit,
                recent * 1000,
                self._noload * 1000,
                queue,
            )
            self._wake()

    def _wake(self) -> None:
        while self._waiters and self._in_flight < self._limit:
            waiter = self._waiters.popleft()
            if not waiter.done():
                self._in_flight += 1
                waiter.set_result(None)


_SHARED: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[tuple[str, int], InflightLimit]] = (
    weakref.WeakKeyDictionary()
)


def shared_inflight(key: str, maximum: int) -> InflightLimit:
    """The one :class:`InflightLimit` of the running event loop for ``key`` (a platform's base URL) and
    ``maximum``: the concurrent fetch steps of one snapshot share it, a new event loop (the next snapshot
    run) starts afresh. Raises ``RuntimeError`` outside a running event loop."""
    limits = _SHARED.setdefault(asyncio.get_running_loop(), {})
    found = limits.get((key, maximum))
    if found is None:
        found = limits[(key, maximum)] = InflightLimit(maximum)
    return found
