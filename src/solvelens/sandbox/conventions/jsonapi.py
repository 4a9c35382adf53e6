"""The ``jsonapi`` mode: JSON:API 1.1 documents (https://jsonapi.org/format/).

- Lists: ``{"data": [resource objects], "links": {"self", "first", "prev"?, "next"?}, "meta": {"total": N}}``;
  ``page[number]`` (1-based) and ``page[size]`` (capped silently at the route's maximum); ``links`` are
  absolute URLs; ``next`` is absent on the last page, ``prev`` on the first. Other paging parameters
  (``page``, ``limit``, ``cursor``...) are ignored, as a JSON:API server ignores them.
- Records: resource objects ``{"type", "id", "attributes", "relationships"?}``: ``attributes`` in snake_case
  (nested objects too), foreign keys (``botId``, ``humanAuthorId``, ``botAuthorId``) moved to to-one
  ``relationships`` (``bot``, ``human_author``, ``bot_author``: ``{"data": {"type", "id"} | null}``);
  categories use their slug as ``id``; leaderboard entries are ``bots``.
- Single resources (a problem, a bot, ``/bot/me``, ``/stats``): ``{"data": resource object, "links":
  {"self"}}``.
- Errors: ``{"errors": [{"status": "404", "title", "detail", "code"?, "source"?: {"parameter"|"pointer"}}]}``
  (one entry per failed field); invalid query parameters are 400.
- ``/tasks/next``: ``200 {"data": null}`` when there is nothing to do, else ``{"data": {"type": "tasks",
  "id", "attributes": {"task_type", "payload": {snake_case}}}}``.
- Submits take the typed body (snake_case, camelCase or PascalCase keys; a ``{"data": {"attributes":
  {...}}}`` document too) and answer ``{"data": {"type": "submissions", "id": task id, "attributes"}}``.
- ``/search``: ``{"data": [problems and bots resource objects], "meta": {"problems": n, "bots": n}}``.
All bodies are ``application/vnd.api+json``.
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
    json_response,
    phrase,
)
from solvelens.sandbox.conventions.case import recase, to_snake
from solvelens.sandbox.paging import MAX_PAGE

__all__ = ["JsonApiConvention"]

MEDIA: Final = "application/vnd.api+json"
#: Foreign keys of the platform records -> (relationship name, related type).
RELATIONSHIPS: Final = {
    "botId": ("bot", "bots"),
    "humanAuthorId": ("human_author", "humans"),
    "botAuthorId": ("bot_author", "bots"),
    "problemId": ("problem", "problems"),
    "voterBotId": ("voter_bot", "bots"),
    "solutionAId": ("solution_a", "solutions"),
    "solutionBId": ("solution_b", "solutions"),
}
TYPES: Final = {
    "problem": "problems",
    "solution": "solutions",
    "bot": "bots",
    "category": "categories",
    "model": "models",
}


def resource_object(kind: str, record: Record, id_field: str = "id") -> Record:
    """A platform record as a JSON:API resource object of type ``kind``."""
    attributes: Record = {}
    relationships: Record = {}
    for key, value in record.items():
        if key == id_field:
            continue
        if key in RELATIONSHIPS:
            name, related = RELATIONSHIPS[key]
            relationships[name] = {"data": None if value is None else {"type": related, "id": value}}
        else:
            attributes[to_snake(key)] = recase(value, to_snake)
    out: Record = {"type": kind, "id": str(record.get(id_field, "")), "attributes": attributes}
    if relationships:
        out["relationships"] = relationships
    return out


class JsonApiConvention(Convention):
    """JSON:API documents with ``page[number]``/``page[size]`` paging and absolute page links."""

    name: ClassVar[str] = "jsonapi"
    task_id_pointer: ClassVar[str] = "/data/id"
    media: ClassVar[str] = MEDIA
    error_media: ClassVar[str] = MEDIA
    summary: ClassVar[str] = (
        "JSON:API documents: `data` resource objects (snake_case attributes, relationships), "
        "`page[number]`/`page[size]`, absolute `links.next`, `meta.total`, `errors` arrays"
    )
    error_schema: ClassVar[dict[str, Any]] = {
        "type": "object",
        "required": ["errors"],
        "properties": {"errors": {"type": "array", "items": {"type": "object"}}},
    }

    def window_dependency(self, spec: ListSpec) -> Callable[..., Window]:
        if spec.feed:
            return _feed_window(spec)

        def jsonapi_window(
            number: int = Query(1, alias="page[number]", ge=1, le=MAX_PAGE, description="1-based page."),
            size: int | None = Query(
                None,
                alias="page[size]",
                ge=1,
                description=f"Page size (default {spec.default_limit}; above {spec.max_limit} it is "
                f"capped at {spec.max_limit}).",
            ),
        ) -> Window:
            limit = min(size or spec.default_limit, spec.max_limit)
            return Window((number - 1) * limit, limit, number)

        return jsonapi_window

    def _link(self, request: Request, w: Window, number: int) -> str:
        return str(request.url.include_query_params(**{"page[number]": number, "page[size]": w.limit}))

    def render_list(
        self, spec: ListSpec, records: list[Record], w: Window, total: int, request: Request
    ) -> Response:
        data = [resource_object(spec.kind, r, spec.id_field) for r in records]
        links: Record = {"self": str(request.url)}
        if spec.paged:
            links["first"] = self._link(request, w, 1)
            if w.page > 1:
                links["prev"] = self._link(request, w, w.page - 1)
            if w.offset + len(records) < total:
                links["next"] = self._link(request, w, w.page + 1)
        return json_response({"data": data, "links": links, "meta": {"total": total}}, media_type=MEDIA)

    def render_one(self, singular: str, record: Record, request: Request) -> Response:
        kind = TYPES.get(singular, singular)
        if singular == "stats":
            record = {"id": "platform", **record}
        body = {"data": resource_object(kind, record), "links": {"self": str(request.url)}}
        return json_response(body, media_type=MEDIA)

    def render_error(
        self, status: int, message: str, details: list[dict[str, Any]] | None = None, code: str | None = None
    ) -> Response:
        base: Record = {"status": str(status), "title": phrase(status), "detail": message}
        if code:
            base["code"] = code
        errors = []
        for d in details or []:
            field = str(d.get("field", ""))
            # a submit's field (VALIDATION_ERROR) sits in the document; anything else is a query parameter
            source = {"pointer": f"/data/attributes/{field}"} if code else {"parameter": field}
            errors.append({**base, "detail": f"{message}: {field}: {d.get('message', '')}", "source": source})
        return json_response({"errors": errors or [base]}, status, MEDIA)

    def render_task(self, task: Record | None) -> Response:
        if task is None:
            return json_response({"data": None}, media_type=MEDIA)
        task_id = task.get("taskId", task.get("id"))  # a typed task's taskId, a content task's id
        attributes = recase({k: v for k, v in task.items() if k not in ("taskId", "id")}, to_snake)
        body = {"data": {"type": "tasks", "id": task_id, "attributes": attributes}}
        return json_response(body, media_type=MEDIA)

    def render_search(self, result: dict[str, list[Record]], request: Request) -> Response:
        data = [resource_object(kind, r) for kind, records in result.items() for r in records]
        meta = {kind: len(records) for kind, records in result.items()}
        return json_response(
            {"data": data, "meta": meta, "links": {"self": str(request.url)}}, media_type=MEDIA
        )

    def submit_body(self, body: Any) -> Any:
        if isinstance(body, dict) and isinstance(body.get("data"), dict):
            body = body["data"].get("attributes", body["data"])
        return recase(body, to_snake) if isinstance(body, dict) else body

    def list_schema(self, spec: ListSpec) -> dict[str, Any]:
        return {
            "type": "object",
            "required": ["data", "links", "meta"],
            "properties": {
                "data": {"type": "array", "items": {"type": "object"}},
                "links": {"type": "object"},
                "meta": {"type": "object"},
            },
        }

    def task_pairs(self, task_model: Any) -> list[Pair]:
        return [
            (
                200,
                '`{"data": task resource object}`, or `{"data": null}` when there is nothing to do',
                {"type": "object", "required": ["data"]},
            )
        ]


def _feed_window(spec: ListSpec) -> Callable[..., Window]:
    """A feed (the newest records, no further pages): ``page[size]`` only, capped silently."""

    def jsonapi_feed(
        size: int | None = Query(
            None,
            alias="page[size]",
            ge=1,
            description=f"How many of the newest (default {spec.default_limit}; above {spec.max_limit} "
            f"capped at {spec.max_limit}); the feed has no further pages.",
        ),
    ) -> Window:
        return Window(0, min(size or spec.default_limit, spec.max_limit))

    return jsonapi_feed
