"""The sandbox platform's FastAPI application (:func:`create_app`), served by uvicorn.

Routes (all JSON; every error body is ``{"error": str}`` plus ``details`` on 422):

- ``GET /health`` (root):
``{"status":"healthy","timestamp":iso (wall clock),"uptime":s,"database":"ok","clock":iso}``;
  ``clock`` is the simulated UTC time.
- ``GET /api/v1/problems`` ``?category&status&author_type&sort&page&limit`` (limit 1..50, default 20)
- ``GET /api/v1/problems/{id}``, ``GET /api/v1/problems/{id}/solutions`` ``?page&limit`` (1..100, default 50)
- ``GET /api/v1/categories`` (bare array), ``GET /api/v1/leaderboard`` ``?sort&page&limit``
  (1..100, default 20)
- ``GET /api/v1/bots/{id}``, ``GET /api/v1/stats``, ``GET /api/v1/search`` ``?q&type&category&limit`` (1..50)
- Bot endpoints (``Authorization: Bearer sl_key_...``): ``GET /api/v1/tasks/next`` (204 when nothing to do),
  ``POST /api/v1/tasks/{id}/submit``, ``GET /api/v1/bot/me``.

Switches (off by default, i.e. the real platform's behaviour): ``pagination`` (``page`` | ``offset`` |
``cursor``), ``task_shape`` (``real`` | ``interface``), fault injection and per-key rate limit
(:mod:`solvelens.sandbox.faults`). Request bodies are capped (413; 64 KiB unless ``max_body_bytes`` says
otherwise, :mod:`solvelens.sandbox.limits`). Serving never changes data: only ``/tasks/*`` writes.

``/openapi.json`` documents every route of the configured server (its pagination style and task shape): the
query parameters with their limits, the bearer key of the bot routes, the submit bodies, and a response model
(:mod:`solvelens.sandbox.schemas`) for every status a route answers, errors included.
"""

from __future__ import annotations

import math
import re
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final, Literal

import orjson
from fastapi import FastAPI, Header, Query, Request, Security
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.utils import get_openapi
from fastapi.responses import JSONResponse, Response
from fastapi.security import HTTPBearer
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException

from solvelens.sandbox import dispatcher, queries, schemas
from solvelens.sandbox.accounts import AuthError, authenticate
from solvelens.sandbox.catalog import CATEGORY_SLUGS
from solvelens.sandbox.db import clock_ms, connect, get_meta, iso, transaction
from solvelens.sandbox.faults import FaultConfig, install_faults
from solvelens.sandbox.ids import IdCodec
from solvelens.sandbox.limits import DEFAULT_MAX_BODY_BYTES, BodyLimitMiddleware
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
#: Largest ``page`` and ``offset`` accepted (beyond SQLite's 64-bit integers a query would fail).
MAX_PAGE: Final = 1_000_000_000
MAX_OFFSET: Final = 2**53


class JSON(JSONResponse):
    """A JSON response rendered with orjson (fast for pages of a thousand records)."""

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


def _error(status: int, message: str, details: list[dict[str, Any]] | None = None) -> JSON:
    body: dict[str, Any] = {"error": message}
    if details is not None:
        body["details"] = details
    return JSON(body, status_code=status)


#: The cursor of the ``cursor`` pagination style: ``o`` + the offset of the next record (clients treat it as
#: opaque). Every string of this form is a valid cursor (past the end: an empty page); others answer 422.
CURSOR_PATTERN: Final = r"^o(0|[1-9][0-9]{0,14})$"


def _encode_cursor(offset: int) -> str:
    return f"o{offset}"


def _decode_cursor(cursor: str) -> int:
    if re.match(CURSOR_PATTERN, cursor) is None:
        raise ApiError(422, "Validation error", [{"field": "cursor", "message": "Invalid cursor"}])
    return int(cursor[1:])


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


def _responses(*pairs: tuple[int, str, type[Any] | None]) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses`` of a route: (status, description, model or None for an empty body)."""
    out: dict[int | str, dict[str, Any]] = {}
    for status, description, model in pairs:
        out[status] = (
            {"description": description} if model is None else {"description": description, "model": model}
        )
    return out


_E = schemas.ErrorBody
_INVALID = (422, "Invalid query parameter (`details` names each field)", schemas.ValidationErrorBody)
_AUTH = (
    (401, "Missing, malformed, unknown or revoked API key", _E),
    (403, "The bot is suspended or banned", _E),
)


def _fault_responses(faults: FaultConfig) -> dict[int | str, dict[str, Any]]:
    """The statuses the fault injection and rate limit may answer on ``/api`` routes (none when off)."""
    out: dict[int | str, dict[str, Any]] = {}
    kinds = set(faults.kinds) if faults.rate else set()
    kinds |= set(faults.schedule) - {"ok"}
    retry_after = {
        "Retry-After": {"description": "Seconds to wait before retrying", "schema": {"type": "integer"}}
    }
    if faults.rate_limit or "429" in kinds:
        out[429] = {
            "description": "Rate limited (injected or per-key limit)",
            "model": _E,
            "headers": retry_after,
        }
    if "500" in kinds:
        out[500] = {"description": "Injected server error", "model": _E}
    if "502" in kinds or "html" in kinds:
        content: dict[str, Any] = {}
        if "502" in kinds:
            content["application/json"] = {"schema": {"$ref": "#/components/schemas/ErrorBody"}}
        if "html" in kinds:
            content["text/html"] = {"schema": {"type": "string"}}
        out[502] = {"description": "Injected bad gateway (JSON, or an HTML proxy page)", "content": content}
    if "503" in kinds:
        out[503] = {"description": "Injected unavailability", "model": _E, "headers": retry_after}
    return out


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
    body cap and rate limit (:class:`~solvelens.sandbox.faults.FaultConfig`). Raises
    :class:`FileNotFoundError` when the database does not exist and :class:`ValueError` when it is not a
    sandbox platform.
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
    body_cap = opts.faults.max_body_bytes or DEFAULT_MAX_BODY_BYTES

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
    app.add_middleware(BodyLimitMiddleware, max_bytes=body_cap)  # type: ignore[arg-type]  # outermost
    faulty = _fault_responses(opts.faults)
    bearer = HTTPBearer(
        auto_error=False,
        bearerFormat="sl_key_ + 48 base64url characters",
        description="The bot's API key: `Authorization: Bearer sl_key_...` (create one with "
        "`solvelens sandbox create-bot NAME`).",
    )
    bot_auth = [Security(bearer)]

    def listing(item: type[Any], page_model: type[Any]) -> type[Any]:
        if style == "offset":
            return schemas.OffsetPage[item]  # type: ignore[valid-type]
        if style == "cursor":
            return schemas.CursorPage[item]  # type: ignore[valid-type]
        return page_model

    def page_q() -> Any:
        return Query(
            None, ge=1, le=MAX_PAGE, description="1-based page number.", include_in_schema=style == "page"
        )

    def offset_q() -> Any:
        return Query(
            None,
            ge=0,
            le=MAX_OFFSET,
            description="Records to skip (offset pagination).",
            include_in_schema=style == "offset",
        )

    def cursor_q() -> Any:
        return Query(
            None,
            pattern=CURSOR_PATTERN,
            description="`next_cursor` of the previous page (cursor pagination).",
            include_in_schema=style == "cursor",
        )

    def api_responses(*pairs: tuple[int, str, type[Any] | None]) -> dict[int | str, dict[str, Any]]:
        return {**_responses(*pairs), **faulty}

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
        response = _error(exc.status_code, message)
        for name, value in (exc.headers or {}).items():
            response.headers[name] = value  # e.g. Allow on 405
        return response

    @app.exception_handler(Exception)
    async def _crash(request: Request, exc: Exception) -> Response:
        return _error(500, "Internal server error")

    @app.get("/health", responses=_responses((200, "Server health", schemas.Health)))
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

    @app.get(
        f"{api}/problems",
        responses=api_responses(
            (200, "A page of problems", listing(schemas.ProblemSummary, schemas.ProblemList)), _INVALID
        ),
    )
    def problems(
        category: Category | None = None,
        status: str | None = Query(
            None,
            max_length=200,
            description="pending|approved|rejected|active|mature; anything else (or `all`): every status "
            "but rejected.",
        ),
        author_type: Literal["human", "bot"] | None = None,
        sort: Literal["newest", "oldest", "most_solutions", "most_votes"] = "newest",
        page: int | None = page_q(),
        offset: int | None = offset_q(),
        cursor: str | None = cursor_q(),
        limit: int = Query(20, ge=1, le=50, description="Page size (1-50)."),
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

    @app.get(
        f"{api}/problems/{{problem_id}}",
        responses=api_responses((200, "The problem", schemas.ProblemDetail), (404, "No such problem", _E)),
    )
    def problem(problem_id: str) -> Response:
        """One problem: full row + author + topSolutions (<= 3)."""
        pid = codec.decode("problem", problem_id)
        with db.read() as conn:
            record = queries.get_problem(conn, codec, pid) if pid is not None else None
        if record is None:
            raise ApiError(404, "Problem not found")
        return JSON(record)

    @app.get(
        f"{api}/problems/{{problem_id}}/solutions",
        responses=api_responses(
            (200, "A page of ranked solutions", listing(schemas.Solution, schemas.SolutionList)),
            (404, "No such problem", _E),
            _INVALID,
        ),
    )
    def solutions(
        problem_id: str,
        page: int | None = page_q(),
        offset: int | None = offset_q(),
        cursor: str | None = cursor_q(),
        limit: int = Query(50, ge=1, le=100, description="Page size (1-100)."),
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

    @app.get(
        f"{api}/categories",
        responses=api_responses((200, "The 8 categories (bare array)", list[schemas.Category])),
    )
    def categories() -> Response:
        """The 8 categories (bare array)."""
        with db.read() as conn:
            return JSON(queries.list_categories(conn))

    @app.get(
        f"{api}/leaderboard",
        responses=api_responses(
            (200, "Active bots in rank order", listing(schemas.LeaderboardBot, schemas.Leaderboard)), _INVALID
        ),
    )
    def leaderboard(
        sort: Literal["points", "elo", "solutions", "votes", "accuracy"] = "points",
        page: int | None = page_q(),
        offset: int | None = offset_q(),
        cursor: str | None = cursor_q(),
        limit: int = Query(20, ge=1, le=100, description="Page size (1-100)."),
    ) -> Response:
        """Active bots in rank order (no rank field)."""
        w = _window(style, page, offset, cursor, limit)
        with db.read() as conn:
            items, total = queries.list_leaderboard(conn, codec, sort=sort, offset=w.offset, limit=limit)
        return JSON(_envelope(w, "bots", items, total, total))

    @app.get(
        f"{api}/bots/{{bot_id}}",
        responses=api_responses(
            (200, "The bot's public profile", schemas.BotPublic), (404, "No such bot", _E)
        ),
    )
    def bot(bot_id: str) -> Response:
        """Public bot profile + badges, topSolutions, recentActivity."""
        bid = codec.decode("bot", bot_id)
        with db.read() as conn:
            record = queries.bot_public(conn, codec, bid) if bid is not None else None
        if record is None:
            raise ApiError(404, "Bot not found")
        return JSON(record)

    @app.get(f"{api}/stats", responses=api_responses((200, "Platform-wide figures", schemas.Stats)))
    def stats() -> Response:
        """Platform-wide figures (ints)."""
        with db.read() as conn:
            return JSON(queries.stats(conn))

    @app.get(
        f"{api}/search",
        responses=api_responses((200, "Matching problems and bots", schemas.SearchResult), _INVALID),
    )
    def search(
        q: str = Query(
            ...,
            min_length=1,
            max_length=200,
            pattern=r"^[^\x00]*$",
            description="Keyword (1-200 characters, no NUL), matched as a literal substring.",
        ),
        type: Literal["problems", "bots", "all"] = "all",
        category: Category | None = None,
        limit: int = Query(20, ge=1, le=50, description="Results per type (1-50)."),
    ) -> Response:
        """Case-insensitive substring search over problems and bots."""
        with db.read() as conn:
            return JSON(run_search(conn, codec, q, type=type, category=category, limit=limit))

    @app.get(
        f"{api}/bot/me",
        dependencies=bot_auth,
        responses=api_responses((200, "The calling bot", schemas.BotProfile), *_AUTH),
    )
    def me(authorization: str | None = Header(None, include_in_schema=False)) -> Response:
        """The calling bot's profile, stats and status."""
        with db.read() as conn:
            bot_id = authenticate(conn, authorization)
            record = queries.bot_profile(conn, codec, bot_id)
        return JSON(record)

    task_model = schemas.InterfaceTask if opts.task_shape == "interface" else schemas.Task

    @app.get(
        f"{api}/tasks/next",
        dependencies=bot_auth,
        responses=api_responses(
            (200, "The bot's active task, or a new one", task_model),
            (204, "Nothing to do (empty body)", None),
            *_AUTH,
        ),
    )
    def next_task(
        authorization: str | None = Header(None, include_in_schema=False),
        brief: str | None = Query(None, description="`true`: brief instructions (not validated)."),
        instruct: str | None = Query(None, description="`none`: no instruction key (not validated)."),
        categories: str | None = Query(
            None, description="`slim`: categories as a list of slugs (not validated)."
        ),
    ) -> Response:
        """The calling bot's active task, or a new one, or 204 (empty body) when there is nothing to do."""
        mode = "none" if instruct == "none" else ("brief" if brief == "true" else "full")
        with db.writer() as conn:
            task = dispatcher.next_task(
                conn,
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

    @app.post(
        f"{api}/tasks/{{task_id}}/submit",
        dependencies=bot_auth,
        responses=api_responses(
            (200, "Accepted (or a duplicate, answered as done)", schemas.SubmitAccepted),
            (400, "The body is not JSON", _E),
            *_AUTH,
            (404, "No such task of this bot", _E),
            (409, "The task is completed, expired or failed", _E),
            (413, f"The body is larger than {body_cap} bytes", _E),
            (422, "The body does not fit the task (the task is then failed)", schemas.ValidationErrorBody),
        ),
        openapi_extra={
            "requestBody": {
                "required": True,
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/SubmitBody"}}},
            }
        },
    )
    async def submit(
        task_id: str, request: Request, authorization: str | None = Header(None, include_in_schema=False)
    ) -> Response:
        """Submit a task result: the real typed bodies or ``{"content": "..."}``."""
        raw = await request.body()
        try:
            body = orjson.loads(raw) if raw else None
        except orjson.JSONDecodeError:
            raise ApiError(400, "Body is not valid JSON") from None

        def apply() -> dispatcher.SubmitResult:
            with db.writer() as conn:
                return dispatcher.submit(conn, codec, authorization, task_id, body)

        result = await run_in_threadpool(apply)
        return JSON(result.body, status_code=result.status)

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            spec = get_openapi(
                title=app.title, version=app.version, description=app.description, routes=app.routes
            )
            body = schemas.submit_body_schema()
            components = spec.setdefault("components", {}).setdefault("schemas", {})
            components.update(body.pop("$defs", {}))
            components["SubmitBody"] = {
                **body,
                "title": "SubmitBody",
                "description": 'A submission: the typed body of the task\'s type, or `{"content": str}`.',
            }
            # FastAPI documents its own 422 shape on routes whose parameters cannot fail validation
            # (a free string path id, the hidden Authorization header): those routes never answer 422.
            for operations in spec["paths"].values():
                for operation in operations.values():
                    if "HTTPValidationError" in str(operation["responses"].get("422", "")):
                        del operation["responses"]["422"]
            for name in ("HTTPValidationError", "ValidationError"):
                components.pop(name, None)
            task_ok = spec["paths"][f"{api}/tasks/next"]["get"]["responses"]["200"]
            id_key = "id" if opts.task_shape == "interface" else "taskId"
            task_ok["links"] = {
                "SubmitTask": {
                    "operationId": spec["paths"][f"{api}/tasks/{{task_id}}/submit"]["post"]["operationId"],
                    "parameters": {"task_id": f"$response.body#/{id_key}"},
                    "description": "Submit the result of the task handed out.",
                }
            }
            app.openapi_schema = spec
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
    return app
