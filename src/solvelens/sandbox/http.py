"""What the sandbox's routers share: the app's context (options, database, id codec), JSON responses, the
``{"error"}`` error type and the OpenAPI ``responses`` helpers."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal

import orjson
from fastapi.responses import JSONResponse

from solvelens.sandbox import dispatcher, schemas
from solvelens.sandbox.db import connect, transaction
from solvelens.sandbox.faults import FaultConfig
from solvelens.sandbox.ids import IdCodec

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
    "SandboxOptions",
    "error_response",
    "fault_responses",
    "responses",
]

#: The path prefix of every platform route (``GET /health`` is at the root).
API: Final = "/api/v1"
PaginationStyle = Literal["page", "offset", "cursor"]
SolutionsPaging = Literal["default", "offset"]
TieOrder = Literal["stable", "shuffle"]
TaskShape = Literal["real", "interface"]
#: ``--tasks``: ``typed`` (the real platform's typed tasks) or ``content`` (``{id, kind, prompt, choices,
#: constraints}`` answered ``{"content"}``).
TaskMode = Literal["typed", "content"]
ListPaging = Literal["default", "zero"]
Refs = Literal["flat", "nested"]


class JSON(JSONResponse):
    """A JSON response rendered with orjson (fast for pages of a thousand records)."""

    def render(self, content: Any) -> bytes:
        return orjson.dumps(content)


class ApiError(Exception):
    """An error answered as ``{"error": message}`` (+ ``details`` when given) with ``status``."""

    def __init__(self, status: int, message: str, details: list[dict[str, Any]] | None = None) -> None:
        super().__init__(message)
        self.status, self.message, self.details = status, message, details


def error_response(status: int, message: str, details: list[dict[str, Any]] | None = None) -> JSON:
    """``{"error": message[, "details": [...]]}`` with ``status``."""
    body: dict[str, Any] = {"error": message}
    if details is not None:
        body["details"] = details
    return JSON(body, status_code=status)


@dataclass(frozen=True)
class SandboxOptions:
    """Server switches; the defaults mirror the real platform.

    ``solutions_paging``: ``default`` (a problem's solutions page like the other lists, in the ``pagination``
    style) or ``offset`` (another implementation of the interface: ``offset``/``limit`` requests answered
    ``{"items", "has_more", "total"}``, ``page`` ignored, at most 10 per page).
    ``tie_order``: how solutions with equal scores are ordered (solution lists, ``topSolution(s)``):
    ``stable`` (``createdAt``, then id: the one default that is not the real platform's, so tests can
    compare listing order) or ``shuffle`` (at random on every call, as the real platform does).
    ``paging`` / ``refs``: the list shapes of issue 21 (:mod:`solvelens.sandbox.conventions.platform`).
    """

    task_ttl_seconds: float = 180.0
    task_shape: TaskShape = "real"
    pagination: PaginationStyle = "page"
    solutions_paging: SolutionsPaging = "default"
    task_types: tuple[str, ...] = dispatcher.TASK_TYPES
    faults: FaultConfig = field(default_factory=FaultConfig)
    conventions: str = "platform"
    #: optional endpoints left out (names of :data:`solvelens.sandbox.routes.OPTIONAL`)
    without: tuple[str, ...] = ()
    tie_order: TieOrder = "stable"
    tasks: TaskMode = "typed"
    #: ``zero``: lists paged from 0 with a capped page size and the total in ``X-Total-Count`` (platform mode)
    paging: ListPaging = "default"
    #: ``nested``: list entries reference bots and authors through nested objects (platform mode)
    refs: Refs = "flat"


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
        return conn

    @contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        """A read transaction: every statement inside sees the same committed state."""
        with transaction(self.conn()) as conn:
            yield conn


@dataclass(frozen=True)
class AppContext:
    """What every router of one app needs: its options, database, id codec, start time (monotonic s), the
    OpenAPI entries of the statuses fault injection may answer (``faulty``), the request body cap (bytes) and
    the wire convention that renders every answer (``conventions``)."""

    options: SandboxOptions
    db: Database
    codec: IdCodec
    started: float
    faulty: dict[int | str, dict[str, Any]]
    body_cap: int
    conventions: Convention

    def responses(self, *pairs: tuple[int, str, Any]) -> dict[int | str, dict[str, Any]]:
        """OpenAPI ``responses`` of an ``/api`` route in this app's convention, plus the injected faults."""
        return {**self.conventions.document(*pairs), **self.faulty}


def responses(*pairs: tuple[int, str, type[Any] | None]) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses`` of a route: (status, description, model or None for an empty body)."""
    out: dict[int | str, dict[str, Any]] = {}
    for status, description, model in pairs:
        out[status] = (
            {"description": description} if model is None else {"description": description, "model": model}
        )
    return out


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
