"""The sandbox platform's FastAPI application (:func:`create_app`), served by uvicorn.

Routes (all JSON; every error body is ``{"error": str}``, plus ``details`` on 422 and on a submit's 400):

Every answer carries three headers declaring what this platform is: ``X-Platform-Id`` (a UUID made when the
platform is first served and kept in its database, so it survives a new port), ``X-Platform-Clock:
simulated`` (its dates are on the simulated clock) and ``X-Platform-Time`` (the simulated now, ISO 8601 UTC
with milliseconds, e.g. ``2026-03-01T12:00:00.000Z``: what a snapshot taken now should record as its time).
Snapshots record them; the real platform sends none.

- ``GET /health`` (root):
``{"status":"healthy","timestamp":iso (wall clock),"uptime":s,"database":"ok","clock":iso}``;
  ``clock`` is the simulated UTC time.
- ``GET /api/v1/problems`` ``?category&status&author_type&sort&page&limit`` (limit 1..50, default 20)
- ``GET /api/v1/problems/{id}``, ``GET /api/v1/problems/{id}/solutions`` ``?page&limit`` (1..100, default 50)
- ``GET /api/v1/categories`` (bare array), ``GET /api/v1/leaderboard`` ``?sort&page&limit``
  (1..100, default 20)
- ``GET /api/v1/bots/{id}``, ``GET /api/v1/stats``, ``GET /api/v1/search`` ``?q&type&category&limit`` (1..50)
- Bot endpoints (``Authorization: Bearer sl_key_...``): ``GET /api/v1/tasks/next`` (204 when nothing to do),
  ``POST /api/v1/tasks/{id}/submit`` (validated as strictly as the real platform: 400 ``VALIDATION_ERROR``
  fails the task; :mod:`solvelens.sandbox.dispatcher`), ``GET /api/v1/bot/me``.

The routes live in routers, one per resource (:mod:`solvelens.sandbox.routes`), built per app from an
:class:`~solvelens.sandbox.http.AppContext`; every answer is rendered by the app's wire convention
(:mod:`solvelens.sandbox.conventions`; every mode pages through :mod:`solvelens.sandbox.paging`).

Convention modes (``conventions``; the shapes above are the default ``platform`` mode): ``jsonapi`` (JSON:API
documents, ``page[number]``/``page[size]``), ``hal`` (HAL, ``page_token`` cursors, ``X-Total-Count``, RFC 9457
errors), ``odata`` (``value``/``@odata.nextLink``, ``$top``/``$skip`` with the server's own page size,
PascalCase) and ``relay`` (connections, ``first``/``after``). Each reads only its own paging parameters.

Switches (off by default, i.e. the real platform's behaviour): ``pagination`` (``page`` | ``offset`` |
``cursor``), ``solutions_paging`` (``offset``: a problem's solutions as another implementation pages them),
``task_shape`` (``real`` | ``interface``: ``{id, prompt}`` tasks, and ``{"content"}`` submissions accepted),
fault injection
(:mod:`solvelens.sandbox.faults`), a quota per client address announced in ``X-RateLimit-*``/``RateLimit``
headers and enforced with 429 (``rate_limit``, :mod:`solvelens.sandbox.ratelimit`). Request bodies are
capped (413; 64 KiB unless ``max_body_bytes`` says otherwise, :mod:`solvelens.sandbox.limits`). Serving
never changes data: only ``/tasks/*`` writes
(and ``meta.platform_id``, made once on the first serve).

``/openapi.json`` documents every route of the configured server (its pagination style and task shape): the
query parameters with their limits, the bearer key of the bot routes, the submit bodies, and a response model
(:mod:`solvelens.sandbox.schemas`) for every status a route answers, errors included.
"""

from __future__ import annotations

import threading
import time
import uuid
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.utils import get_openapi
from fastapi.responses import Response
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from solvelens.sandbox import schemas, switches
from solvelens.sandbox.accounts import AuthError
from solvelens.sandbox.conventions import CONVENTIONS, Convention, make_convention
from solvelens.sandbox.db import clock_ms, connect, ensure_schema, get_meta, iso, set_meta, transaction
from solvelens.sandbox.faults import FaultConfig, install_faults
from solvelens.sandbox.http import (
    API,
    JSON,
    ApiError,
    AppContext,
    Database,
    PaginationStyle,
    SandboxOptions,
    SolutionsPaging,
    TaskShape,
    fault_responses,
)
from solvelens.sandbox.ids import IdCodec
from solvelens.sandbox.limits import DEFAULT_MAX_BODY_BYTES, BodyLimitMiddleware
from solvelens.sandbox.paging import CURSOR_PATTERN, MAX_OFFSET, MAX_PAGE
from solvelens.sandbox.ratelimit import RateLimit, RateLimitMiddleware, parse_rate_limit
from solvelens.sandbox.routes import OPTIONAL, routers
from solvelens.sandbox.schemas import CategorySlug as Category
from solvelens.sandbox.wallclock import CLOCK_PATH

__all__ = [
    "CONVENTIONS",
    "CURSOR_PATTERN",
    "MAX_OFFSET",
    "MAX_PAGE",
    "Category",
    "PaginationStyle",
    "SandboxOptions",
    "SolutionsPaging",
    "TaskShape",
    "create_app",
]


#: Held while an app's routes are built: FastAPI builds each route parameter's validator inside
#: ``warnings.catch_warnings()`` (silencing pydantic's ``UnsupportedFieldAttributeWarning`` on aliased
#: parameters), which swaps the process's one filter list; apps built in threads at once (servers started
#: side by side) would restore it under each other and let the warning through.
_BUILDING = threading.Lock()


def create_app(
    db_path: Path,
    *,
    faults: FaultConfig | None = None,
    rate_limit: RateLimit | str | None = None,
    **switches: Any,
) -> FastAPI:
    """The FastAPI app serving the platform stored at ``db_path`` (built by ``build_platform``).

    ``switches``: the fields of :class:`~solvelens.sandbox.options.SandboxOptions` by name (each field's
    help says what it does), e.g. ``conventions="hal"``, ``tie_order="stable"``, ``without=("activity",)``;
    ``faults``: fault injection and body cap (:class:`~solvelens.sandbox.faults.FaultConfig`);
    ``rate_limit``: a quota per client address on every ``/api/v1`` route (``"5000/hour"`` or a
    :class:`RateLimit`), announced in headers and enforced with 429 (:mod:`solvelens.sandbox.ratelimit`).
    Raises :class:`FileNotFoundError` when the database does not exist and :class:`ValueError` when it is
    not a sandbox platform, or for a switch value not among its choices, an unknown mode, an unknown
    ``without`` name, a platform-only switch (``pagination``, ``solutions_paging``, ``paging``, ``refs``,
    ``task_shape="interface"``) with another mode, or a malformed ``rate_limit``; :class:`TypeError` for an
    unknown switch.
    """
    values: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in switches.items()}
    if faults is not None:
        values["faults"] = faults
    if isinstance(rate_limit, str):
        values["rate_limit"] = rate_limit
    opts = SandboxOptions(**values)
    quota = rate_limit if isinstance(rate_limit, RateLimit) else None
    return build_app(Path(db_path), opts, quota)


def build_app(db_path: Path, opts: SandboxOptions, rate_limit: RateLimit | None = None) -> FastAPI:
    """The app of :func:`create_app` from its options (same errors); ``rate_limit`` overrides
    ``opts.rate_limit``."""
    conv = check_options(opts)
    if rate_limit is None:
        rate_limit = quota_of(opts)
    if not db_path.exists():
        raise FileNotFoundError(f"No sandbox platform at {db_path}; build one with build_platform()")
    db = Database(db_path)
    with db.read() as conn:
        has_meta = conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'"
        ).fetchone()
        seed = get_meta(conn, "seed") if has_meta else None
    if seed is None:
        raise ValueError(f"{db_path} is not a sandbox platform (no seed in its meta table)")
    _migrate(db_path)
    ctx = AppContext(
        options=opts,
        db=db,
        codec=IdCodec(int(seed)),
        started=time.monotonic(),
        faulty=fault_responses(opts.faults, rate_limited=rate_limit is not None),
        body_cap=opts.faults.max_body_bytes or DEFAULT_MAX_BODY_BYTES,
        conventions=conv,
    )
    app = FastAPI(
        title="solvelens sandbox platform",
        version="1.0",
        description=f"{__doc__}\n**This server's conventions: `{conv.name}`**: {conv.summary}.",
        default_response_class=JSON,
        openapi_url="/openapi.json",
    )
    app.state.options = opts
    app.state.db = db
    install_faults(app, opts.faults)
    # the quota: outside the faults (a faulted answer counts), inside the body cap (a 413 does not)
    if rate_limit is not None:
        app.add_middleware(RateLimitMiddleware, rate_limit=rate_limit, wall=ctx.wall)  # type: ignore[arg-type]
    app.add_middleware(BodyLimitMiddleware, max_bytes=ctx.body_cap)  # type: ignore[arg-type]
    # outermost: every answer (errors, faults, 413 included) declares the platform and its clock
    app.add_middleware(DeclarationMiddleware, platform_id=platform_id(db_path), db=db)  # type: ignore[arg-type]
    _install_error_handlers(app, conv)
    with _BUILDING:  # FastAPI's warning filter around each parameter it builds is not thread-safe
        for router in routers(ctx):
            app.include_router(router)
        _add_clock_route(app, ctx)
    app.openapi = lambda: _openapi(app, opts, conv)  # type: ignore[method-assign]
    return app


def _add_clock_route(app: FastAPI, ctx: AppContext) -> None:
    """``POST /_sandbox/clock`` ``{"advance": seconds}``: move the server's wall clock forward (task
    lifetimes, quota windows: :mod:`solvelens.sandbox.wallclock`); answers ``{"offset": seconds}``, 400 for
    a body without a non-negative number. Not part of the platform's interface (not in ``/openapi.json``)."""

    @app.post(CLOCK_PATH, include_in_schema=False)
    async def advance_clock(request: Request) -> Response:
        try:
            body = await request.json()
            offset = ctx.wall.advance(float(body["advance"]))
        except (ValueError, TypeError, KeyError) as exc:
            return JSON({"error": f"give {{'advance': seconds >= 0}} ({exc})"}, status_code=400)
        return JSON({"offset": offset})


def check_options(opts: SandboxOptions) -> Convention:
    """The options' wire convention, after checking every switch: raises :class:`ValueError` with one line
    naming the option (as ``sandbox serve`` spells it), the accepted values and the value given."""
    switches.check(opts)
    conv = make_convention(
        opts.conventions,
        pagination=opts.pagination,
        solutions_paging=opts.solutions_paging,
        paging=opts.paging,
        refs=opts.refs,
    )
    if opts.conventions != "platform" and opts.task_shape != "real":
        raise ValueError(
            f"--task-shape interface applies to --conventions platform only, not {opts.conventions}"
        )
    if opts.tasks == "content" and opts.task_shape != "real":
        raise ValueError("--tasks content serves its own task shape: leave --task-shape at real")
    for name in opts.without:
        if name not in OPTIONAL:
            raise ValueError(f"--without: unknown endpoint {name!r}; use any of {', '.join(OPTIONAL)}")
    quota_of(opts)
    return conv


def quota_of(opts: SandboxOptions) -> RateLimit | None:
    """The quota of ``opts.rate_limit`` (a bare N per ``opts.rate_window`` s), ``None`` when empty or 0;
    raises :class:`ValueError` naming the accepted forms."""
    if opts.rate_limit.strip() in ("", "0"):
        return None
    return parse_rate_limit(opts.rate_limit, default_window=opts.rate_window)


def _migrate(db_path: Path) -> None:
    """Bring a platform built by an older version to the current schema (adds the activity log)."""
    conn = connect(db_path)
    try:
        ensure_schema(conn)
    finally:
        conn.close()


#: Response headers declaring the platform's identity and its clock (see the module docstring).
PLATFORM_ID_HEADER = "X-Platform-Id"
PLATFORM_CLOCK_HEADER = "X-Platform-Clock"
PLATFORM_TIME_HEADER = "X-Platform-Time"


def platform_id(db_path: Path) -> str:
    """The platform's stable identity: ``meta('platform_id')``, a UUID written on first call."""
    conn = connect(db_path)
    try:
        with transaction(conn, immediate=True):
            value = get_meta(conn, "platform_id")
            if value is None:
                value = str(uuid.uuid4())
                set_meta(conn, "platform_id", value)
    finally:
        conn.close()
    return value


class DeclarationMiddleware:
    """Adds ``X-Platform-Id``, ``X-Platform-Clock: simulated`` and ``X-Platform-Time: <simulated now>`` (ISO
    8601 UTC with milliseconds, ``2026-01-15T10:30:00.000Z``: ``meta('clock_ms')`` read from the database for
    each answer, so a clock moved by ``sandbox simulate`` in another process shows at once) to every answer
    (pure ASGI: no body buffering). The clock is read on the event loop thread's connection of ``db`` (one
    indexed row of the ``meta`` table; closed with the others by :meth:`Database.close`)."""

    def __init__(self, app: ASGIApp, platform_id: str, db: Database) -> None:
        self.app = app
        self.db = db
        self.headers = [
            (PLATFORM_ID_HEADER.lower().encode(), platform_id.encode()),
            (PLATFORM_CLOCK_HEADER.lower().encode(), b"simulated"),
        ]

    def _now(self) -> bytes:
        """The simulated now as ``X-Platform-Time`` shows it."""
        return str(iso(clock_ms(self.db.conn()))).encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_declared(message: Message) -> None:
            if message["type"] == "http.response.start":
                time_header = (PLATFORM_TIME_HEADER.lower().encode(), self._now())
                message = {**message, "headers": [*message.get("headers", ()), *self.headers, time_header]}
            await send(message)

        await self.app(scope, receive, send_declared)


def _install_error_handlers(app: FastAPI, conv: Convention) -> None:
    """Every error is answered in the convention's error shape (the platform's: ``{"error": str}`` +
    ``details``; a bad query parameter is ``conv.validation_status``)."""

    @app.exception_handler(ApiError)
    async def _api_error(request: Request, exc: ApiError) -> Response:
        return conv.render_error(exc.status, exc.message, exc.details)

    @app.exception_handler(AuthError)
    async def _auth_error(request: Request, exc: AuthError) -> Response:
        return conv.render_error(exc.status, exc.message)

    @app.exception_handler(RequestValidationError)
    async def _validation(request: Request, exc: RequestValidationError) -> Response:
        details = [
            {
                "field": ".".join(str(p) for p in e.get("loc", ())[1:]) or "body",
                "message": str(e.get("msg", "")),
            }
            for e in exc.errors()
        ]
        return conv.render_error(conv.validation_status, "Validation error", details)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> Response:
        message = str(exc.detail)
        if exc.status_code == 404 and message == "Not Found":
            message = f"Route {request.method}:{request.url.path} not found"
        response = conv.render_error(exc.status_code, message)
        for name, value in (exc.headers or {}).items():
            response.headers[name] = value  # e.g. Allow on 405
        return response

    @app.exception_handler(Exception)
    async def _crash(request: Request, exc: Exception) -> Response:
        return conv.render_error(500, "Internal server error")


def _openapi(app: FastAPI, opts: SandboxOptions, conv: Convention) -> dict[str, Any]:
    """``/openapi.json``: FastAPI's document plus the submit body schema and the task -> submit link."""
    if app.openapi_schema is None:
        spec = get_openapi(
            title=app.title, version=app.version, description=app.description, routes=app.routes
        )
        body = schemas.submit_body_schema(
            interface=opts.task_shape == "interface", content=opts.tasks == "content"
        )
        components = spec.setdefault("components", {}).setdefault("schemas", {})
        components.update(body.pop("$defs", {}))
        if "SolveBody" in components:  # the bounds this server validates (--solution-length)
            text = components["SolveBody"]["properties"]["solution_text"]
            text["minLength"], text["maxLength"] = opts.solution_bounds
        described = (
            'or `{"content": str}`' if opts.task_shape == "interface" else "(nothing else is accepted)"
        )
        if opts.tasks == "content":
            described = '(with `--tasks content`: only `{"content": str}`, under the task\'s constraints)'
        components["SubmitBody"] = {
            **body,
            "title": "SubmitBody",
            "description": f"A submission: the typed body of the task's type {described}.",
        }
        # FastAPI documents its own 422 shape on routes whose parameters cannot fail validation
        # (a free string path id, the hidden Authorization header): those routes never answer 422.
        for operations in spec["paths"].values():
            for operation in operations.values():
                if "HTTPValidationError" in str(operation["responses"].get("422", "")):
                    del operation["responses"]["422"]
        for name in ("HTTPValidationError", "ValidationError"):
            components.pop(name, None)
        task_ok = spec["paths"][f"{API}/tasks/next"]["get"]["responses"]["200"]
        pointer = "/id" if opts.task_shape == "interface" else conv.task_id_pointer
        if opts.tasks == "content":  # a content task's id is `id` in the mode's case
            head, _, last = pointer.rpartition("/")
            pointer = f"{head}/{'Id' if last[:1].isupper() else 'id'}"
        task_ok["links"] = {
            "SubmitTask": {
                "operationId": spec["paths"][f"{API}/tasks/{{task_id}}/submit"]["post"]["operationId"],
                "parameters": {"task_id": f"$response.body#{pointer}"},
                "description": "Submit the result of the task handed out.",
            }
        }
        app.openapi_schema = spec
    return app.openapi_schema
