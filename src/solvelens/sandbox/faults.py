"""Fault injection: a pure ASGI middleware over ``/api/`` routes (``/health`` is
never affected, so readiness checks stay reliable). The request body cap (``max_body_bytes``) is configured
here too but enforced by :class:`~solvelens.sandbox.limits.BodyLimitMiddleware`, which is always installed.

Fault kinds (chosen per request, deterministic for a given arrival order):

| kind       | response                                                                                   |
|------------|--------------------------------------------------------------------------------------------|
| ``429``    | 429 ``{"statusCode":429,"error":"Too Many Requests","message":...}`` + ``Retry-After``       |
| ``500``    | 500 ``{"error":"Internal server error"}``                                                  |
| ``502``    | 502 ``{"error":"Bad Gateway"}``                                                            |
| ``503``    | 503 ``{"error":"Service Unavailable"}`` + ``Retry-After``                                  |
| ``slow``   | the normal answer after ``slow_ms`` extra milliseconds                                     |
| ``truncate`` | the normal status and headers, but only the first half of the body (no Content-Length)  |
| ``html``   | 502 with an HTML error page (``text/html``), as a proxy in front of a platform would send  |

A request gets a fault from ``schedule`` (the n-th ``/api/`` request gets ``schedule[n-1]``; ``ok`` = none)
and, after the schedule, with probability ``rate`` (kind drawn from ``kinds`` with ``random.Random(seed)``).
``paths`` narrows both to requests whose path starts with one of the prefixes (relative to ``/api/v1`` or
absolute), e.g. ``("/tasks/next",)`` for a platform whose task queue is down while its reads work; the
schedule then counts those requests only.
``latency_ms`` is added to every ``/api/`` answer. ``max_body_bytes`` answers 413 to larger request bodies
(``None``: the default cap of 64 KiB, :data:`~solvelens.sandbox.limits.DEFAULT_MAX_BODY_BYTES`).
The quota a platform announces and enforces (``--rate-limit``) is :mod:`solvelens.sandbox.ratelimit`.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

import orjson

from solvelens.sandbox.switches import switch

if TYPE_CHECKING:
    from fastapi import FastAPI

FAULT_KINDS: Final = ("429", "500", "502", "503", "slow", "truncate", "html")
Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

_HTML = (
    b"<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1>"
    b"</center><hr><center>nginx</center></body></html>"
)


@dataclass(frozen=True)
class FaultConfig:
    """Fault injection and limits (everything off by default). See the module docstring."""

    rate: float = switch(0.0, flag="--fault-rate", key="fault_rate", help="Probability of a fault.")
    kinds: tuple[str, ...] = switch(
        FAULT_KINDS, flag="--fault-kinds", key="fault_kinds", help="Fault kinds to draw (comma-separated)."
    )
    seed: int = switch(0, flag="--fault-seed", key="fault_seed", help="Seed of the fault draws.")
    schedule: tuple[str, ...] = switch(
        (),
        flag="--fault-schedule",
        key="fault_schedule",
        help="Faults of the first requests, e.g. 503,ok,429.",
    )
    latency_ms: float = switch(0.0, flag="--latency-ms", help="Added latency (ms).")
    slow_ms: float = switch(1500.0, flag="--slow-ms", help="Latency of a 'slow' fault (ms).")
    retry_after_seconds: int = switch(
        1, flag="--retry-after", key="retry_after", help="Retry-After of 429/503."
    )
    max_body_bytes: int | None = switch(
        None,
        flag="--max-body-bytes",
        none_as=0,
        help="Request body cap in bytes (413, with or without Content-Length); 0 = the default 64 KiB.",
    )
    paths: tuple[str, ...] = switch(
        (),
        flag="--fault-paths",
        key="fault_paths",
        help="Inject faults only on these path prefixes (comma-separated, e.g. /tasks/next); default: every "
        "/api/ route.",
    )

    def __post_init__(self) -> None:
        unknown = [k for k in (*self.kinds, *self.schedule) if k not in (*FAULT_KINDS, "ok")]
        if unknown:
            raise ValueError(
                f"unknown fault kinds {unknown}; known: {', '.join(FAULT_KINDS)} (and ok in schedules)"
            )
        if not 0.0 <= self.rate <= 1.0:
            raise ValueError("fault rate must be between 0 and 1")
        if any(not p.startswith("/") for p in self.paths):
            raise ValueError(f"fault paths must start with '/' (e.g. /tasks/next), got {list(self.paths)}")
        if self.max_body_bytes is not None and self.max_body_bytes < 1:
            raise ValueError("max_body_bytes must be >= 1 (None = the default cap)")

    @property
    def active(self) -> bool:
        """Whether the middleware has anything to do."""
        return bool(self.rate or self.schedule or self.latency_ms)


async def _send_json(
    send: Send, status: int, body: dict[str, Any], headers: list[tuple[bytes, bytes]]
) -> None:
    data = orjson.dumps(body)
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(data)).encode()),
                *headers,
            ],
        }
    )
    await send({"type": "http.response.body", "body": data})


class FaultMiddleware:
    """The ASGI middleware applying a :class:`FaultConfig` to ``/api/`` requests."""

    def __init__(self, app: ASGIApp, config: FaultConfig) -> None:
        self.app = app
        self.config = config
        self.rng = random.Random(config.seed)
        self.count = 0

    def _targeted(self, path: str) -> bool:
        paths = self.config.paths
        return not paths or any(path.startswith((p, "/api/v1" + p)) for p in paths)

    def _decide(self) -> str:
        self.count += 1
        cfg = self.config
        if self.count <= len(cfg.schedule):
            return cfg.schedule[self.count - 1]
        if cfg.rate and self.rng.random() < cfg.rate:
            return self.rng.choice(cfg.kinds)
        return "ok"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not str(scope.get("path", "")).startswith("/api/"):
            await self.app(scope, receive, send)
            return
        cfg = self.config
        kind = self._decide() if self._targeted(str(scope.get("path", ""))) else "ok"
        if cfg.latency_ms:
            await asyncio.sleep(cfg.latency_ms / 1000)
        retry_after = [(b"retry-after", str(cfg.retry_after_seconds).encode())]
        if kind == "429":
            message = f"Rate limit exceeded, retry in {cfg.retry_after_seconds} second(s)"
            body = {"statusCode": 429, "error": "Too Many Requests", "message": message}
            await _send_json(send, 429, body, retry_after)
        elif kind == "500":
            await _send_json(send, 500, {"error": "Internal server error"}, [])
        elif kind == "502":
            await _send_json(send, 502, {"error": "Bad Gateway"}, [])
        elif kind == "503":
            await _send_json(send, 503, {"error": "Service Unavailable"}, retry_after)
        elif kind == "html":
            headers = [(b"content-type", b"text/html"), (b"content-length", str(len(_HTML)).encode())]
            await send({"type": "http.response.start", "status": 502, "headers": headers})
            await send({"type": "http.response.body", "body": _HTML})
        elif kind == "truncate":
            await self._truncated(scope, receive, send)
        else:
            if kind == "slow":
                await asyncio.sleep(cfg.slow_ms / 1000)
            await self.app(scope, receive, send)

    async def _truncated(self, scope: Scope, receive: Receive, send: Send) -> None:
        start: Message | None = None
        chunks: list[bytes] = []

        async def capture(message: Message) -> None:
            nonlocal start
            if message["type"] == "http.response.start":
                start = message
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))

        await self.app(scope, receive, capture)
        assert start is not None
        body = b"".join(chunks)
        headers = [(k, v) for k, v in start.get("headers", []) if k.lower() != b"content-length"]
        await send({"type": "http.response.start", "status": start["status"], "headers": headers})
        await send({"type": "http.response.body", "body": body[: len(body) // 2]})


def install_faults(app: FastAPI, config: FaultConfig) -> None:
    """Add :class:`FaultMiddleware` to ``app`` when ``config`` has anything switched on."""
    if config.active:
        app.add_middleware(FaultMiddleware, config=config)  # type: ignore[arg-type]
