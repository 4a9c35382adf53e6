"""Bot routes (``Authorization: Bearer sl_key_...``): ``GET /api/v1/bot/me``, ``GET /api/v1/tasks/next``
(204 when there is nothing to do, in the platform's convention) and ``POST /api/v1/tasks/{id}/submit``
(validated as the real platform validates, :func:`solvelens.sandbox.dispatcher.submit`). Tasks, "no task",
submit answers and errors are rendered by the app's convention."""

from __future__ import annotations

import orjson
from fastapi import APIRouter, Header, Query, Request, Security
from fastapi.responses import Response
from fastapi.security import HTTPBearer
from starlette.concurrency import run_in_threadpool

from solvelens.sandbox import dispatcher, queries, schemas
from solvelens.sandbox.accounts import authenticate
from solvelens.sandbox.http import API, AUTH_RESPONSES, ApiError, AppContext, E

__all__ = ["tasks_router"]


def tasks_router(ctx: AppContext) -> APIRouter:
    """The bot routes of one app (task shape, TTL and task kinds from ``ctx.options``)."""
    bearer = HTTPBearer(
        auto_error=False,
        bearerFormat="sl_key_ + 48 base64url characters",
        description="The bot's API key: `Authorization: Bearer sl_key_...` (create one with "
        "`solvelens sandbox create-bot NAME`).",
    )
    router = APIRouter(dependencies=[Security(bearer)])
    _add_me(router, ctx)
    _add_next_task(router, ctx)
    _add_submit(router, ctx)
    return router


def _add_me(router: APIRouter, ctx: AppContext) -> None:
    """``GET /bot/me``."""
    db, codec, conv = ctx.db, ctx.codec, ctx.conventions

    @router.get(
        f"{API}/bot/me",
        responses=ctx.responses((200, "The calling bot", conv.one_doc(schemas.BotProfile)), *AUTH_RESPONSES),
    )
    def me(request: Request, authorization: str | None = Header(None, include_in_schema=False)) -> Response:
        """The calling bot's profile, stats and status."""
        with db.read() as conn:
            bot_id = authenticate(conn, authorization)
            record = queries.bot_profile(conn, codec, bot_id)
        if record is None:
            raise ApiError(404, "Bot not found")
        return conv.render_one("bot", record, request)


def _add_next_task(router: APIRouter, ctx: AppContext) -> None:
    """``GET /tasks/next``."""
    db, codec, opts, conv = ctx.db, ctx.codec, ctx.options, ctx.conventions
    rules = dispatcher.TaskRules.of(opts)
    task_model: type[schemas.Record] = schemas.Task
    if opts.tasks == "content":
        task_model = schemas.ContentTask
    elif opts.task_shape == "interface":
        task_model = schemas.InterfaceTask

    @router.get(
        f"{API}/tasks/next",
        responses=ctx.responses(*conv.task_pairs(task_model), *AUTH_RESPONSES),
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
                rules=rules,
                wall=ctx.wall.now,
            )
        return conv.render_task(None if task is None else dispatcher.shape(task, opts.task_shape, opts.tasks))


def _add_submit(router: APIRouter, ctx: AppContext) -> None:
    """``POST /tasks/{id}/submit``."""
    db, codec, conv = ctx.db, ctx.codec, ctx.conventions
    rules = dispatcher.TaskRules.of(ctx.options)
    deadlock = [
        (500, "deadlock detected: a vote whose row was written, counted nowhere (the task failed)", E)
    ]
    deadlock = deadlock if rules.vote_deadlocks else []
    interface = ctx.options.task_shape == "interface"
    tasks = ctx.options.tasks
    content_note = (
        ' or `{"content": str}` (translated into the typed body: `--task-shape interface`)'
        if interface
        else ""
    )
    what = (
        '`{"content": str}` meeting the task\'s `constraints` (`--tasks content`)'
        if tasks == "content"
        else f"the typed body of the task's type{content_note}"
    )

    @router.post(
        f"{API}/tasks/{{task_id}}/submit",
        responses=ctx.responses(
            (200, "Accepted (or a duplicate, answered as done)", conv.one_doc(schemas.SubmitAccepted)),
            (
                400,
                "The body fails validation (`code` VALIDATION_ERROR; the task is failed), or is not JSON",
                schemas.SubmitErrorBody,
            ),
            *AUTH_RESPONSES,
            (404, "No such task of this bot", E),
            (409, "The task is completed, expired or failed", E),
            *deadlock,
            (413, f"The body is larger than {ctx.body_cap} bytes", E),
        ),
        openapi_extra={
            "requestBody": {
                "required": True,
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/SubmitBody"}}},
            }
        },
        description=f"Submit a task result: {what}.",
    )
    async def submit(
        task_id: str, request: Request, authorization: str | None = Header(None, include_in_schema=False)
    ) -> Response:
        raw = await request.body()
        try:
            body = orjson.loads(raw) if raw else None
        except orjson.JSONDecodeError:
            raise ApiError(400, "Body is not valid JSON") from None
        body = conv.submit_body(body)

        def apply() -> dispatcher.SubmitResult:
            with db.writer() as conn:
                return dispatcher.submit(
                    conn,
                    codec,
                    authorization,
                    task_id,
                    body,
                    accept_content=interface,
                    tasks=tasks,
                    rules=rules,
                    wall=ctx.wall.now,
                )

        result = await run_in_threadpool(apply)
        return conv.render_submit_result(task_id, result.status, result.body, request)
