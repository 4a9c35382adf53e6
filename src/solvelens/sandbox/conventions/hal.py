"""The ``hal`` mode: HAL documents (draft-kelly-json-hal) with cursor tokens and header totals.

- Lists: ``{"_embedded": {"<kind>": [...]}, "_links": {"self": {"href"}, "next"?: {"href"}}}`` where
  ``<kind>`` is ``problems``, ``solutions``, ``bots`` (the leaderboard) or ``categories``; the total is the
  ``X-Total-Count`` header (never in the body). Paging: ``page_token`` (opaque, from the previous page's next
  link) and ``limit`` (capped silently at the route's maximum); the next link is RELATIVE
  (``/api/v1/problems?page_token=..&limit=..``, the request's filters kept) and absent on the last page.
  ``page``, ``offset``, ``cursor`` are ignored (a client sending ``page=2`` gets the first page again); a
  malformed ``page_token`` is 400.
- Records: snake_case (nested objects too); the id as ``<resource>_id`` (``problem_id``, ``solution_id``,
  ``bot_id`` for leaderboard entries and bots; categories keep ``slug``); problems and bots carry
  ``_links.self``.
- Single resources: the flat snake_case record with ``<resource>_id`` and ``_links.self``.
- Errors: RFC 9457 problem details, ``application/problem+json``: ``{"type", "title", "status", "detail",
  "code"?, "invalid_params"?: [{"name", "reason"}]}``.
- ``/tasks/next``: ``404`` problem details titled ``No task available`` when there is nothing to do, else
  ``{"task": {"task_type", "task_id", "payload": {snake_case}}, "_links": {"submit": {"href"}}}``.
- ``/search``: ``{"_embedded": {"problems": [...], "bots": [...]}, "_links": {"self"}}``.
Bodies are ``application/hal+json``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, Final

from fastapi import Query, Request
from fastapi.responses import Response

from solvelens.sandbox.conventions.base import (
    Convention,
    ListSpec,
    Pair,
    Record,
    Window,
    decode_token,
    encode_token,
    json_response,
    phrase,
)
from solvelens.sandbox.conventions.case import recase, to_snake
from solvelens.sandbox.http import API

__all__ = ["HalConvention"]

MEDIA: Final = "application/hal+json"
PROBLEM_MEDIA: Final = "application/problem+json"
TOKEN: Final = "hal"
#: Records that have a route of their own (``_links.self``).
SELF_ROUTES: Final = {"problem": "problems", "bot": "bots"}


def hal_record(singular: str, record: Record, id_field: str = "id") -> Record:
    """A platform record in snake_case with its id as ``<singular>_id`` (categories keep ``slug``)."""
    out: Record = {}
    for key, value in record.items():
        name = f"{singular}_id" if key == id_field == "id" else to_snake(key)
        out[name] = recase(value, to_snake)
    if singular in SELF_ROUTES and record.get("id"):
        out["_links"] = {"self": {"href": f"{API}/{SELF_ROUTES[singular]}/{record['id']}"}}
    return out


class HalConvention(Convention):
    """HAL envelopes, opaque ``page_token`` cursors with relative next links, ``X-Total-Count``."""

    name: ClassVar[str] = "hal"
    task_id_pointer: ClassVar[str] = "/task/task_id"
    media: ClassVar[str] = MEDIA
    error_media: ClassVar[str] = PROBLEM_MEDIA
    summary: ClassVar[str] = (
        "HAL: `_embedded.<kind>` lists, `page_token`/`limit` cursors with a relative `_links.next.href`, "
        "`X-Total-Count` header, snake_case records with `<resource>_id`, RFC 9457 problem details"
    )
    error_schema: ClassVar[dict[str, Any]] = {
        "type": "object",
        "required": ["type", "title", "status"],
        "properties": {
            "type": {"type": "string"},
            "title": {"type": "string"},
            "status": {"type": "integer"},
            "detail": {"type": "string"},
        },
    }

    def window_dependency(self, spec: ListSpec) -> Callable[..., Window]:
        if spec.feed:
            return _feed_window(spec)

        def hal_window(
            page_token: str | None = Query(
                None, max_length=64, description="Opaque token of the next page (from `_links.next.href`)."
            ),
            limit: int | None = Query(
                None,
                ge=1,
                description=f"Page size (default {spec.default_limit}; capped at {spec.max_limit}).",
            ),
        ) -> Window:
            size = min(limit or spec.default_limit, spec.max_limit)
            offset = decode_token(TOKEN, page_token, "page_token") if page_token else 0
            return Window(offset, size)

        return hal_window

    def render_list(
        self, spec: ListSpec, records: list[Record], w: Window, total: int, request: Request
    ) -> Response:
        links: Record = {"self": {"href": _relative(request, {})}}
        if spec.paged and w.offset + len(records) < total:
            token = encode_token(TOKEN, w.offset + len(records))
            links["next"] = {"href": _relative(request, {"page_token": token, "limit": w.limit})}
        body = {
            "_embedded": {spec.kind: [hal_record(spec.singular, r, spec.id_field) for r in records]},
            "_links": links,
        }
        return json_response(body, 200, MEDIA, {"X-Total-Count": str(total)})

    def render_one(self, singular: str, record: Record, request: Request) -> Response:
        body = hal_record(singular, record)
        body.setdefault("_links", {"self": {"href": request.url.path}})
        return json_response(body, media_type=MEDIA)

    def render_error(
        self, status: int, message: str, details: list[dict[str, Any]] | None = None, code: str | None = None
    ) -> Response:
        body: Record = {"type": "about:blank", "title": phrase(status), "status": status, "detail": message}
        if code:
            body["code"] = code
        if details:
            body["invalid_params"] = [
                {"name": d.get("field", ""), "reason": d.get("message", "")} for d in details
            ]
        return json_response(body, status, PROBLEM_MEDIA)

    def render_task(self, task: Record | None) -> Response:
        if task is None:
            body = {
                "type": "about:blank",
                "title": "No task available",
                "status": 404,
                "detail": "No task is available for this bot right now; poll again later.",
            }
            return json_response(body, 404, PROBLEM_MEDIA)
        inner = recase(task, to_snake)  # a typed task's task_type/task_id/payload, or a content task's fields
        task_id = task.get("taskId", task.get("id"))
        links = {"submit": {"href": f"{API}/tasks/{task_id}/submit"}}
        return json_response({"task": inner, "_links": links}, media_type=MEDIA)

    def render_search(self, result: dict[str, list[Record]], request: Request) -> Response:
        singular = {"problems": "problem", "bots": "bot"}
        embedded = {kind: [hal_record(singular[kind], r) for r in rs] for kind, rs in result.items()}
        body = {"_embedded": embedded, "_links": {"self": {"href": _relative(request, {})}}}
        return json_response(body, media_type=MEDIA)

    def submit_body(self, body: Any) -> Any:
        return recase(body, to_snake) if isinstance(body, dict) else body

    def list_schema(self, spec: ListSpec) -> dict[str, Any]:
        return {
            "type": "object",
            "required": ["_embedded", "_links"],
            "properties": {"_embedded": {"type": "object"}, "_links": {"type": "object"}},
        }

    def task_pairs(self, task_model: Any) -> list[Pair]:
        return [
            (200, '`{"task": {...}, "_links": {"submit"}}`', {"type": "object", "required": ["task"]}),
            (404, "No task available (problem details)", None),
        ]


def _feed_window(spec: ListSpec) -> Callable[..., Window]:
    """A feed (the newest records, no next link): ``limit`` only, capped silently."""

    def hal_feed(
        limit: int | None = Query(
            None,
            ge=1,
            description=f"How many of the newest (default {spec.default_limit}; capped at {spec.max_limit}).",
        ),
    ) -> Window:
        return Window(0, min(limit or spec.default_limit, spec.max_limit))

    return hal_feed


def _relative(request: Request, changes: dict[str, Any]) -> str:
    """The request's path and query (``page_token``/``limit`` replaced by ``changes`` when given)."""
    url = request.url.include_query_params(**changes) if changes else request.url
    return url.path + (f"?{url.query}" if url.query else "")
