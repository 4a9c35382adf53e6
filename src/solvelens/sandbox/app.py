"""The sandbox platform's FastAPI application (:func:`create_app`), served by uvicorn.

Routes (all JSON; every error body is ``{"error": str}`` plus ``details`` on 422):

- ``GET /health`` (root):
``{"status":"healthy","timestamp":iso (wall clock),"uptime":s,"database":"ok","clock":iso}``;
  ``clock`` is the simulated UTC time.
- ``GET /api/v1/problems`` ``?category&status&author_type&sort&page&limit`` (limit 1..50, default 20)
- ``GET /api/v1/problems/{id}``, ``GET /api/v1/problems/{id}/solutions`` ``?page&limit`` (1..100, default 50)
- ``GET /api/v1/categories`` (bare array), ``GET /api/v1/leaderboard`` ``?sort&page&limit`` (1..100, default
20)
- ``GET /api/v1/bots/{id}``, ``GET /api/v1/stats``, ``GET /api/v1/search`` ``?q&type&category&limit`` (1..50)
- Bot endpoints (``Authorization: Bearer sl_key_...``): ``GET /api/v1/tasks/next`` (204 when nothing to do),
  ``POST /api/v1/tasks/{id}/submit``, ``GET /api/v1/bot/me``.

Switches (off by default, i.e. the real platform's behaviour): ``pagination`` (``page`` | ``offset`` |
``cursor``), ``task_shape`` (``real`` | ``interface``), fault injection, body cap and per-key rate limit
(:mod:`solvelens.sandbox.faults`). Serving never changes data: only ``/tasks/*`` writes.
"""

from __future__ import annotations

import base64
import binascii
import math
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

import orjson
from fastapi import FastAPI, Header, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException

from solvelens.sandbox import dispatcher, queries
from solvelens.sandbox.accounts import AuthError, authenticate
from solvelens.sandbox.catalog import CATEGORY_SLUGS
from solvelens.sandbox.db import clock_ms, connect, get_meta, iso, transaction
from solvelens.sandbox.faults import FaultConfig, install_faults
from solvelens.sandbox.ids import IdCodec
from solvelens.sandbox.search import search as run_search

Category = Literal[
    "technology",
    "science_nature",
    "health",
    "business_finance",
    "education_career",
    "society_culture",
    "philosophy_ideas",
    "lifestyle",
]
assert set(Category.__args__) == set(CATEGORY_SLUGS)  # type: ignore[attr-defined]
PaginationStyle = Literal["page", "offset", "cursor"]
TaskShape = Literal["real", "interface"]


class JSON(Response):
    """A JSON response rendered with orjson (fast for pages of a thousand records)."""

    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        return orjson.dumps(content)


class ApiError(Exception):
    """An error answered as ``{"error": message}`` (+ ``details`` when given) with ``status``."""

    def __init__(self, status: int, message: str, details: list[dict[str, Any]] | None = None) -> None:
        super().__init__(message)
        self.status, self.message, self.details = status, message, details


@dataclass(frozen=True)
class SandboxOptions:
    """Server switches; the defaults mirror the real platform."""

    task_ttl_seconds: float = 180.0
    task_shape: TaskShape = "real"
    pagination: PaginationStyle = "page"
    task_types: tuple[str, ...] = dispatcher.TASK_TYPES
    faults: FaultConfig = field(default_factory=FaultConfig)


class Database:
    """One SQLite connection per server thread (autocommit; every request opens its own transaction)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._local = threading.local()

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


def _error(status: int, message: str, details: list[dict[str, Any]] | None = None) -> JSON:
    body: dict[str, Any] = {"error": message}
    if details is not None:
        body["details"] = details
    return JSON(body, status_code=status)


def _encode_cursor(offset: int) -> str:
    return base64.urlsafe_b64encode(f"o:{offset}".encode()).decode().rstrip("=")


def _decode_cursor(cursor: str) -> int:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        if not raw.startswith("o:"):
            raise ValueError
        offset = int(raw[2:])
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise ApiError(422, "Validation error", [{"field": "cursor", "message": "Invalid cursor"}]) from None
    if offset < 0:
        raise ApiError(422, "Validation error", [{"field": "cursor", "message": "Invalid cursor"}])
    return offset


@dataclass(frozen=True)
class _Window:
    style: PaginationStyle
    offset: int
    limit: int
    page: int


def _window(
    style: PaginationStyle, page: int | None, offset: int | None, cursor: str | None, limit: int
) -> _Window:
    if style == "offset":
        off = offset or 0
    elif style == "cursor":
        off = _decode_cursor(cursor) if cursor else 0
    else:
        off = ((page or 1) - 1) * limit
    return _Window(style, off, limit, page or 1)


def _envelope(
    w: _Window, key: str, items: list[dict[str, Any]], total: int | None, real_total: int
) -> dict[str, Any]:
    """The list envelope of the configured style (``total`` None = the real shape has no pagination block)."""
    if w.style == "offset":
        return {"items": items, "total": real_total, "offset": w.offset, "limit": w.limit}
    if w.style == "cursor":
        more = w.offset + len(items) < real_total
        return {
            "data": items,
            "next_cursor": _encode_cursor(w.offset + len(items)) if more else None,
            "has_more": more,
        }
    if total is None:
        return {key: items}
    pages = math.ceil(total / w.limit) if total else 0
    return {key: items, "pagination": {"page": w.page, "limit": w.limit, "total": total, "totalPages": pages}}


def create_app(
    db_path: Path,
    *,
    task_ttl_seconds: float = 180.0,
    task_shape: TaskShape = "real",
    pagination: PaginationStyle = "page",
    task_types: tuple[str, ...] | list[str] = dispatcher.TASK_TYPES,
    faults: FaultConfig | None = None,
) -> FastAPI:
    """The FastAPI app serving the platform stored at ``db_path`` (built by ``build_platform``).

    ``task_ttl_seconds``: wall-clock lifetime of a handed-out task; ``task_shape``: ``real``
    (``{taskType, taskId, payload}``) or ``interface`` (``{id, prompt, type, payload}``); ``pagination``: list
    envelope style; ``task_types``: which task kinds the dispatcher hands out; ``faults``: fault injection,
    body
    cap and rate limit (:class:`~solvelens.sandbox.faults.FaultConfig`). Raises :class:`FileNotFoundError`
    when
    the database does not exist.
    """
    db_path = Path(db_path)
    if not db_path.exists():
        raise FileNotFoundError(f"No sandbox platform at {db_path}; build one with build_platform()")
    opts = SandboxOptions(
        task_ttl_seconds, task_shape, pagination, tuple(task_types), faults or FaultConfig()
    )
    db = Database(db_path)
    with db.read() as conn:
        seed = get_meta(conn, "seed")
    if seed is None:
        raise ValueError(f"{db_path} is not a sandbox platform (no seed in its meta table)")
    codec = IdCodec(int(seed))
    started = time.monotonic()
    style = opts.pagination

    app = FastAPI(
        title="solvelens sandbox platform",
        version="1.0",
        description=__doc__,
        default_response_class=JSON,
        openapi_url="/openapi.json",
    )
    app.state.options = opts
    app.state.db = db
    install_faults(app, opts.faults)

    @app.exception_handler(ApiError)
    async def _api_error(request: Request, exc: ApiError) -> Response:
        return _error(exc.status, exc.message, exc.details)

    @app.exception_handler(AuthError)
    async def _auth_error(request: Request, exc: AuthError) -> Response:
        return _error(exc.status, exc.message)

    @app.exception_handler(RequestValidationError)
    async def _validation(request: Request, exc: RequestValidationError) -> Response:
        details = [
            {
                "field": ".".join(str(p) for p in e.get("loc", ())[1:]) or "body",
                "message": str(e.get("msg", "")),
            }
            for e in exc.errors()
        ]
        return _error(422, "Validation error", details)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> Response:
        message = str(exc.detail)
        if exc.status_code == 404 and message == "Not Found":
            message = f"Route {request.method}:{request.url.path} not found"
        return _error(exc.status_code, message)

    @app.exception_handler(Exception)
    async def _crash(request: Request, exc: Exception) -> Response:
        return _error(500, "Internal server error")

    @app.get("/health")
    def health() -> Response:
        """Liveness, wall-clock timestamp, uptime (s) and the simulated clock."""
        try:
            with db.read() as conn:
                clock = iso(clock_ms(conn))
            database = "ok"
        except sqlite3.Error:
            clock, database = None, "error"
        now = datetime.now(UTC)
        return JSON(
            {
                "status": "healthy" if database == "ok" else "degraded",
                "timestamp": now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z",
                "uptime": round(time.monotonic() - started, 3),
                "database": database,
                "clock": clock,
            }
        )

    api = "/api/v1"

    @app.get(f"{api}/problems")
    def problems(
        category: Category | None = None,
        status: str | None = None,
        author_type: Literal["human", "bot"] | None = None,
        sort: Literal["newest", "oldest", "most_solutions", "most_votes"] = "newest",
        page: int | None = Query(None, ge=1),
        offset: int | None = Query(None, ge=0),
        cursor: str | None = None,
        limit: int = Query(20, ge=1, le=50),
    ) -> Response:
        """Problems (rejected excluded unless ``status=rejected``), paginated."""
        w = _window(style, page, offset, cursor, limit)
        with db.read() as conn:
            items, total = queries.list_problems(
                conn,
                codec,
                category=category,
                status=status,
                author_type=author_type,
                sort=sort,
                offset=w.offset,
                limit=limit,
            )
        return JSON(_envelope(w, "problems", items, total, total))

    @app.get(f"{api}/problems/{{problem_id}}")
    def problem(problem_id: str) -> Response:
        """One problem: full row + author + topSolutions (<= 3)."""
        pid = codec.decode("problem", problem_id)
        with db.read() as conn:
            record = queries.get_problem(conn, codec, pid) if pid is not None else None
        if record is None:
            raise ApiError(404, "Problem not found")
        return JSON(record)

    @app.get(f"{api}/problems/{{problem_id}}/solutions")
    def solutions(
        problem_id: str,
        page: int | None = Query(None, ge=1),
        offset: int | None = Query(None, ge=0),
        cursor: str | None = None,
        limit: int = Query(50, ge=1, le=100),
    ) -> Response:
        """Ranked solutions of a problem (``{"solutions": [...]}``, no total, in the real shape)."""
        pid = codec.decode("problem", problem_id)
        w = _window(style, page, offset, cursor, limit)
        with db.read() as conn:
            count = queries.problem_exists(conn, pid) if pid is not None else None
            if count is None or pid is None:
                raise ApiError(404, "Problem not found")
            items = queries.list_solutions(conn, codec, pid, offset=w.offset, limit=limit)
        return JSON(_envelope(w, "solutions", items, None, count))

    @app.get(f"{api}/categories")
    def categories() -> Response:
        """The 8 categories (bare array)."""
        with db.read() as conn:
            return JSON(queries.list_categories(conn))

    @app.get(f"{api}/leaderboard")
    def leaderboard(
        sort: Literal["points", "elo", "solutions", "votes", "accuracy"] = "points",
        page: int | None = Query(None, ge=1),
        offset: int | None = Query(None, ge=0),
        cursor: str | None = None,
        limit: int = Query(20, ge=1, le=100),
    ) -> Response:
        """Active bots in rank order (no rank field)."""
        w = _window(style, page, offset, cursor, limit)
        with db.read() as conn:
            items, total = queries.list_leaderboard(conn, codec, sort=sort, offset=w.offset, limit=limit)
        return JSON(_envelope(w, "bots", items, total, total))

    @app.get(f"{api}/bots/{{bot_id}}")
    def bot(bot_id: str) -> Response:
        """Public bot profile + badges, topSolutions, recentActivity."""
        bid = codec.decode("bot", bot_id)
        with db.read() as conn:
            record = queries.bot_public(conn, codec, bid) if bid is not None else None
        if record is None:
            raise ApiError(404, "Bot not found")
        return JSON(record)

    @app.get(f"{api}/stats")
    def stats() -> Response:
        """Platform-wide figures (ints)."""
        with db.read() as conn:
            return JSON(queries.stats(conn))

    @app.get(f"{api}/search")
    def search(
        q: str = Query(..., min_length=1, max_length=200),
        type: Literal["problems", "bots", "all"] = "all",
        category: Category | None = None,
        limit: int = Query(20, ge=1, le=50),
    ) -> Response:
        """Substring search over problems and bots."""
        with db.read() as conn:
            return JSON(run_search(conn, codec, q, type=type, category=category, limit=limit))

    @app.get(f"{api}/bot/me")
    def me(authorization: str | None = Header(None)) -> Response:
        """The calling bot's profile, stats and status."""
        with db.read() as conn:
            bot_id = authenticate(conn, authorization)
            record = queries.bot_profile(conn, codec, bot_id)
        return JSON(record)

    @app.get(f"{api}/tasks/next")
    def next_task(
        authorization: str | None = Header(None),
        brief: str | None = None,
        instruct: str | None = None,
        categories: str | None = None,
    ) -> Response:
        """The calling bot's active task, or a new one, or 204 (empty body) when there is nothing to do."""
        mode = "none" if instruct == "none" else ("brief" if brief == "true" else "full")
        task = dispatcher.next_task(
            db.conn(),
            codec,
            authorization,
            ttl_seconds=opts.task_ttl_seconds,
            mode=mode,
            slim_categories=categories == "slim",
            task_types=opts.task_types,
        )
        if task is None:
            return Response(status_code=204)
        return JSON(dispatcher.shape(task, opts.task_shape))

    @app.post(f"{api}/tasks/{{task_id}}/submit")
    async def submit(task_id: str, request: Request, authorization: str | None = Header(None)) -> Response:
        """Submit a task result: the real typed bodies or ``{"content": "..."}``."""
        raw = await request.body()
        try:
            body = orjson.loads(raw) if raw else None
        except orjson.JSONDecodeError:
            raise ApiError(400, "Body is not valid JSON") from None
        result = await run_in_threadpool(
            lambda: dispatcher.submit(db.conn(), codec, authorization, task_id, body)
        )
        return JSON(result.body, status_code=result.status)

    return app
