"""The sandbox server's wall clock: what task lifetimes and quota windows are measured on.

It is the machine's clock (seconds since the epoch, UTC) plus an offset that only moves forward: a test
moves it with ``POST /_sandbox/clock`` (``{"advance": seconds}``, answered with ``{"offset": seconds}``), so a
task's expiry (``--task-ttl``) or the end of a quota window (``--rate-limit``) is reached at once instead of
slept for. The simulated calendar (``sandbox simulate``, ``X-Platform-Time``) is another clock
(:mod:`solvelens.sandbox.db`) and does not move with it.

Quota windows (the ``limits`` library's fixed windows, which keep their own expiry times) move by whole
windows: an advance, or several adding up, of a window or more ends every window open at the time; a shorter
one leaves them as they are (:class:`solvelens.sandbox.ratelimit.RateLimitMiddleware`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Final

__all__ = ["CLOCK_PATH", "WallClock"]

#: The control route that moves the clock (outside ``/api/v1``: never counted against a quota).
CLOCK_PATH: Final = "/_sandbox/clock"


class WallClock:
    """The machine's clock plus :attr:`offset` (seconds, never negative); ``source`` is the machine's clock
    (``time.time``)."""

    def __init__(self, source: Callable[[], float] = time.time) -> None:
        self._source = source
        self._lock = threading.Lock()
        self.offset = 0.0

    def now(self) -> float:
        """Seconds since the epoch (UTC) on this clock."""
        return self._source() + self.offset

    def advance(self, seconds: float) -> float:
        """Move the clock ``seconds`` forward; returns the new offset. Raises ``ValueError`` for a negative
        or non-finite ``seconds`` (the clock never goes back)."""
        if not 0 <= seconds < float("inf"):
            raise ValueError(f"the sandbox clock only moves forward: advance {seconds!r} seconds")
        with self._lock:
            self.offset += seconds
            return self.offset
