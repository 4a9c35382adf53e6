"""The request body cap of the sandbox server: a pure ASGI middleware answering 413 to any request whose body
is larger than the cap, whether it announces its size (``Content-Length``) or not (``Transfer-Encoding:
chunked``).

A body without ``Content-Length`` is read chunk by chunk and counted; the application only ever sees a body
within the cap (replayed from the buffer). Before answering 413 the middleware reads and discards up to
:data:`DRAIN_BYTES` more, so the client can finish sending and read the answer instead of meeting a reset
connection; the 413 closes the connection (``Connection: close``).

413 body: ``{"error": "Request body is larger than N bytes"}``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any, Final

import orjson

#: Default cap: the longest valid submission (5,000 characters, each a JSON-escaped surrogate pair of 12
#: bytes) fits; the real platform's own cap is 10 KiB (``--max-body-bytes 10240`` mirrors it).
DEFAULT_MAX_BODY_BYTES: Final = 64 * 1024
#: How much of an oversized body is read and discarded before the 413 (beyond it the connection is closed).
DRAIN_BYTES: Final = 8 * 1024 * 1024

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class BodyLimitMiddleware:
    """Answer 413 to request bodies larger than ``max_bytes`` (see the module docstring)."""

    def __init__(self, app: ASGIApp, max_bytes: int = DEFAULT_MAX_BODY_BYTES) -> None:
        if max_bytes < 1:
            raise ValueError("max_bytes must be >= 1")
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length: bytes | None = None
        chunked = False
        for name, value in scope.get("headers") or ():
            if name == b"content-length":
                length = value
            elif name == b"transfer-encoding":
                chunked = True
        if length is not None and not chunked:
            if length.isdigit() and int(length) <= self.max_bytes:
                await self.app(scope, receive, send)
            else:
                await self._drain(receive, 0)
                await self._reject(send)
            return
        if not chunked:
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body = message.get("body", b"")
            size += len(body)
            if size > self.max_bytes:
                if message.get("more_body", False):
                    await self._drain(receive, size)
                await self._reject(send)
                return
            chunks.append(body)
            if not message.get("more_body", False):
                break
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": b"".join(chunks), "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def _drain(self, receive: Receive, read: int) -> None:
        while read <= DRAIN_BYTES:
            message = await receive()
            if message["type"] != "http.request":
                return
            read += len(message.get("body", b""))
            if not message.get("more_body", False):
                return

    async def _reject(self, send: Send) -> None:
        data = orjson.dumps({"error": f"Request body is larger than {self.max_bytes} bytes"})
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(data)).encode()),
            (b"connection", b"close"),
        ]
        await send({"type": "http.response.start", "status": 413, "headers": headers})
        await send({"type": "http.response.body", "body": data})
