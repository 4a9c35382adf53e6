"""The sandbox's announced and enforced quota (``sandbox serve --rate-limit N/hour``): a pure ASGI middleware
over every ``/api/v1`` route, shaped like the real platform's global ``@fastify/rate-limit`` (5,000 requests
an hour per address; ``shared/reference/real-platform-notes.md`` §6 and §13).

- **Quota**: ``limit`` requests per ``window`` seconds per client address (the first ``X-Forwarded-For``
  entry when a proxy sent one, else the peer address: a local stand-in trusts its proxy). Fixed windows, as
  fastify's: a client's window starts at its first request and its count resets when the window ends.
  Every ``/api/v1`` request counts, whatever its answer (errors, unknown routes, injected faults); ``/health``
  and ``/openapi.json`` are never limited. Counted by the ``limits`` library (fixed-window strategy, memory
  storage), so the count lives in the server process: a restart starts fresh windows.
- **Headers on every ``/api/v1`` answer**: ``X-RateLimit-Limit: N``, ``X-RateLimit-Remaining: R`` (after
  counting this request), ``X-RateLimit-Reset: S`` (whole seconds until the window resets, rounded up, as
  fastify sends it: ``3600`` on the first request of an hourly window), and the IETF draft's fields
  (draft-ietf-httpapi-ratelimit-headers-07): ``RateLimit-Policy: N;w=WINDOW`` and ``RateLimit: limit=N,
  remaining=R, reset=S``.
- **Over quota**: 429 with ``Retry-After: S`` (the same seconds as the reset), ``X-RateLimit-Remaining: 0``
  and fastify's body ``{"statusCode":429,"error":"Too Many Requests","message":"Rate limit exceeded, retry
  in 1 hour"}`` (the message names the window, as the real platform's did with ``retry-after: 3594``; not
  the ``{error}`` shape of the other errors); the request never reaches the application.

What the quota did, for tests and benchmarks (the server-side count): ``GET /_sandbox/rate-limit`` (outside
``/api/v1``, not counted; only when a quota is set) -> ``{"limit": N, "windowSeconds": W, "requests": n
(counted), "limited": n (answered 429), "addresses": n, "firstAt": s, "lastAt": s}`` (the first and the last
counted request's arrival on the server's monotonic clock, seconds; ``null`` before any): a client's measured
rate is ``(requests - 1) / (lastAt - firstAt)``.

``--rate-limit`` takes ``N/second``, ``N/minute``, ``N/hour`` or ``N/day`` (also ``N per hour`` and
``N/10 seconds``, the ``limits`` library's notation); a bare ``N`` keeps the former form: N per
``--rate-window`` seconds.
"""

from __future__ import annotations

import math
import time
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from typing import Any, Final

import orjson
from limits import RateLimitItemPerSecond, parse
from limits.aio.storage import MemoryStorage
from limits.aio.strategies import FixedWindowRateLimiter

from solvelens.sandbox.wallclock import WallClock

__all__ = ["API_PREFIX", "COUNTS_PATH", "RateLimit", "RateLimitMiddleware", "parse_rate_limit", "retry_in"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

#: The routes a quota applies to (``/health`` at the root and ``/openapi.json`` are outside it).
API_PREFIX: Final = "/api/v1"
#: The sandbox-only route answering what the quota counted (see the module docstring).
COUNTS_PATH: Final = "/_sandbox/rate-limit"


@dataclass(frozen=True)
class RateLimit:
    """A quota: ``limit`` requests per ``window_seconds`` (whole seconds, >= 1) per client address."""

    limit: int
    window_seconds: int

    def __post_init__(self) -> None:
        if self.limit < 1:
            raise ValueError(f"a rate limit allows at least 1 request per window, got {self.limit}")
        if self.window_seconds < 1:
            raise ValueError(f"a rate-limit window lasts at least 1 second, got {self.window_seconds}")

    def __str__(self) -> str:
        return f"{self.limit} per {self.window_seconds} s"


def parse_rate_limit(text: str, *, default_window: float = 60.0) -> RateLimit:
    """``"5000/hour"`` -> ``RateLimit(5000, 3600)``; also ``/second``, ``/minute``, ``/day``, ``N per hour``,
    ``N/10 seconds``; a bare ``"N"`` is N per ``default_window`` seconds (the former ``--rate-limit N
    --rate-window S`` form). Raises :class:`ValueError` with one line naming the accepted forms."""
    value = text.strip()
    hint = f"--rate-limit must look like N/hour, N/minute or N/second (e.g. 5000/hour), got {text!r}"
    if value.isdigit():
        if default_window < 1 or default_window != int(default_window):
            raise ValueError(f"--rate-window must be a whole number of seconds >= 1, got {default_window:g}")
        return RateLimit(int(value), int(default_window))
    try:
        item = parse(value)
    except ValueError:
        raise ValueError(hint) from None
    return RateLimit(item.amount, item.get_expiry())


def retry_in(seconds: float) -> str:
    """How fastify's limiter words a wait in its 429 message (the ``ms`` package's long form): ``1 hour``,
    ``59 minutes``, ``30 seconds``, ``1 second``."""
    units = (("day", 86400.0), ("hour", 3600.0), ("minute", 60.0), ("second", 1.0))
    for name, size in units:
        if seconds >= size:
            n = round(seconds / size)
            return f"{n} {name}{'s' if seconds >= 1.5 * size else ''}"
    return f"{round(seconds * 1000)} ms"


class RateLimitMiddleware:
    """Counts every ``/api/v1`` request per client address against a :class:`RateLimit`, adds the quota
    headers to the answer and answers 429 over quota (see the module docstring)."""

    def __init__(self, app: ASGIApp, rate_limit: RateLimit, wall: WallClock | None = None) -> None:
        self.app = app
        self.rate_limit = rate_limit
        #: The server's wall clock; advanced by a window or more since the last time, every open window ends.
        self.wall = wall or WallClock()
        self.moved = self.wall.offset
        self.item = RateLimitItemPerSecond(rate_limit.limit, rate_limit.window_seconds, namespace="sandbox")
        self.limiter = FixedWindowRateLimiter(MemoryStorage())
        self.policy = f"{rate_limit.limit};w={rate_limit.window_seconds}".encode()
        self.requests = 0
        self.limited = 0
        self.addresses: set[str] = set()
        self.first_at: float | None = None
        self.last_at: float | None = None

    @staticmethod
    def client_address(scope: Scope) -> str:
        """The first ``X-Forwarded-For`` address when present, else the peer's address."""
        for name, value in scope.get("headers") or ():
            if name == b"x-forwarded-for":
                first = value.decode("latin-1").split(",", 1)[0].strip()
                if first:
                    return first
        client = scope.get("client") or ("unknown", 0)
        return str(client[0])

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = str(scope.get("path", ""))
        if scope["type"] == "http" and path == COUNTS_PATH:
            await self._counts(send)
            return
        if scope["type"] != "http" or not (path == API_PREFIX or path.startswith(API_PREFIX + "/")):
            await self.app(scope, receive, send)
            return
        address = self.client_address(scope)
        self.requests += 1
        self.addresses.add(address)
        self.last_at = time.monotonic()
        if self.first_at is None:
            self.first_at = self.last_at
        if self.wall.offset - self.moved >= self.rate_limit.window_seconds:  # the clock passed every window
            await self.limiter.storage.reset()
            self.moved = self.wall.offset
        allowed = await self.limiter.hit(self.item, address)
        stats = await self.limiter.get_window_stats(self.item, address)
        reset = max(0, math.ceil(stats.reset_time - time.time()))
        remaining = stats.remaining if allowed else 0
        headers = self._headers(remaining, reset)
        if not allowed:
            self.limited += 1
            await self._reject(send, headers, reset)
            return

        async def send_with_quota(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", ()), *headers]}
            await send(message)

        await self.app(scope, receive, send_with_quota)

    async def _counts(self, send: Send) -> None:
        body = orjson.dumps(
            {
                "limit": self.rate_limit.limit,
                "windowSeconds": self.rate_limit.window_seconds,
                "requests": self.requests,
                "limited": self.limited,
                "addresses": len(self.addresses),
                "firstAt": self.first_at,
                "lastAt": self.last_at,
            }
        )
        headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    def _headers(self, remaining: int, reset: int) -> list[tuple[bytes, bytes]]:
        limit = self.rate_limit.limit
        return [
            (b"x-ratelimit-limit", str(limit).encode()),
            (b"x-ratelimit-remaining", str(remaining).encode()),
            (b"x-ratelimit-reset", str(reset).encode()),
            (b"ratelimit-policy", self.policy),
            (b"ratelimit", f"limit={limit}, remaining={remaining}, reset={reset}".encode()),
        ]

    async def _reject(self, send: Send, headers: list[tuple[bytes, bytes]], reset: int) -> None:
        wait = max(1, reset)
        body = orjson.dumps(
            {
                "statusCode": 429,
                "error": "Too Many Requests",
                "message": f"Rate limit exceeded, retry in {retry_in(self.rate_limit.window_seconds)}",
            }
        )
        start_headers = [
            (b"content-type", b"application/json; charset=utf-8"),
            (b"content-length", str(len(body)).encode()),
            (b"retry-after", str(wait).encode()),
            *headers,
        ]
        await send({"type": "http.response.start", "status": 429, "headers": start_headers})
        await send({"type": "http.response.body", "body": body})
