"""What the sandbox's routers share: the app's context (options, database, id codec, wire convention) and
the OpenAPI ``responses`` of auth, validation and injected faults. The JSON answer, the ``{"error"}`` error
type and the ``/api/v1`` prefix are :mod:`solvelens.sandbox.answers` (re-exported here for the routes); the
convention modes import that module, never this one, so the context can name the convention without an
import cycle."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from solvelens.sandbox import schemas
from solvelens.sandbox.answers import API, JSON, ApiError, error_response, responses
from solvelens.sandbox.db import connect, transaction
from solvelens.sandbox.faults import FaultConfig
from solvelens.sandbox.ids import IdCodec
from solvelens.sandbox.options import (
    ListPaging,
    Refs,
    SandboxOptions,
    SolutionsPaging,
    TaskMode,
    TaskShape,
    TieOrder,
)
from solvelens.sandbox.paging import PaginationStyle
from solvelens.sandbox.wallclock import WallClock

if TYPE_CHECKING:
    from solvelens.sandbox.conventions import Convention

__all__ = [
    "API",
    "AUTH_RESPONSES",
    "INVALID_RESPONSE",
    "JSON",
    "ApiError",
    "AppContext",
    "Database",
    "ListPaging",
    "PaginationStyle",
    "Refs",
    "SandboxOptions",
    "SolutionsPaging",
    "TaskMode",
    "TaskShape",
    "TieOrder",
    "error_response",
    "fault_responses",
    "responses",
]


class Database:
    """One SQLite connection per server thread (autocommit; every request opens its own transaction).

    Writers of this process queue on one in-process lock (:meth:`writer`) before taking SQLite's write lock:
    SQLite's own busy handler makes a waiting writer sleep in steps of up to 100 ms, which at 50 concurrent
    bots cut the task throughput by more than half and made p50 latency exceed a second. Other processes
    (``advance``) still meet the busy timeout."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._local = threading.local()
        self._write_lock = threading.Lock()
        self._opened: list[sqlite3.Connection] = []  # every thread's, for :meth:`close`
        self._opened_lock = threading.Lock()

    @contextmanager
    def writer(self) -> Iterator[sqlite3.Connection]:
        """This thread's connection, holding the process's write lock (the caller opens the transaction)."""
        with self._write_lock:
            yield self.conn()

    def conn(self) -> sqlite3.Connection:
        """This thread's connection."""
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = connect(self.path)
            self._local.conn = conn
            with self._opened_lock:
                self._opened.append(conn)
        return conn

    def close(self) -> None:
        """Close every thread's connection (the server stopped: no request runs). A server thread that
        serves again opens a new one. The worker threads outlive a server run in this process (an in-process
        sandbox of the tests), so without this each run kept its connections and their file handles open."""
        with self._opened_lock:
            opened, self._opened = self._opened, []
        self._local = threading.local()
        for conn in opened:
            conn.close()

    @contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        """A read transaction: every statement inside sees the same committed state."""
        with transaction(self.conn()) as conn:
            yield conn


@dataclass(frozen=True)
class AppContext:
    """What every router of one app needs: its options, database, id codec, start time (monotonic s), the
    OpenAPI entries of the statuses fault injection may answer (``faulty``), the request body cap (bytes) and
    the wire convention that renders every answer (``conventions``), and the wall clock task lifetimes and
    quota windows are measured on (``wall``: :class:`~solvelens.sandbox.wallclock.WallClock`)."""

    options: SandboxOptions
    db: Database
    codec: IdCodec
    started: float
    faulty: dict[int | str, dict[str, Any]]
    body_cap: int
    conventions: Convention
    wall: WallClock = field(default_factory=WallClock)

    def responses(self, *pairs: tuple[int, str, Any]) -> dict[int | str, dict[str, Any]]:
        """OpenAPI ``responses`` of an ``/api`` route in this app's convention, plus the injected faults."""
        return {**self.conventions.document(*pairs), **self.faulty}


E = schemas.ErrorBody
INVALID_RESPONSE = (422, "Invalid query parameter (`details` names each field)", schemas.ValidationErrorBody)
AUTH_RESPONSES = (
    (401, "Missing, malformed, unknown or revoked API key", E),
    (403, "The bot is suspended or banned", E),
)


def fault_responses(faults: FaultConfig, *, rate_limited: bool = False) -> dict[int | str, dict[str, Any]]:
    """The statuses the fault injection and the quota (``rate_limited``) may answer on ``/api`` routes (none
    when off)."""
    out: dict[int | str, dict[str, Any]] = {}
    kinds = set(faults.kinds) if faults.rate else set()
    kinds |= set(faults.schedule) - {"ok"}
    retry_after = {
        "Retry-After": {"description": "Seconds to wait before retrying", "schema": {"type": "integer"}}
    }
    if rate_limited or "429" in kinds:
        out[429] = {
            "description": "Rate limited (injected, or over the quota: the body is fastify's "
            "{statusCode, error, message})",
            "model": E,
            "headers": retry_after,
        }
    if "500" in kinds:
        out[500] = {"description": "Injected server error", "model": E}
    if "502" in kinds or "html" in kinds:
        content: dict[str, Any] = {}
        if "502" in kinds:
            content["application/json"] = {"schema": {"$ref": "#/components/schemas/ErrorBody"}}
        if "html" in kinds:
            content["text/html"] = {"schema": {"type": "string"}}
        out[502] = {"description": "Injected bad gateway (JSON, or an HTML proxy page)", "content": content}
    if "503" in kinds:
        out[503] = {"description": "Injected unavailability", "model": E, "headers": retry_after}
    return out
