"""The ``odata`` mode: OData v4 JSON (https://docs.oasis-open.org/odata/odata-json-format/v4.01/).

- Lists: ``{"@odata.context", "value": [...], "@odata.count": N, "@odata.nextLink"?: absolute URL}`` plus the
  ``X-Total-Count`` header. Paging: ``$skip`` and ``$top``; the server pages at its OWN size whatever
  ``$top`` asks (server-driven paging: 7 problems, 9 solutions, 13 leaderboard rows a page; ``$top`` only
  lowers it), so a page shorter than ``$top`` is not the end: ``@odata.nextLink`` (``$skip`` advanced, the
  request's other parameters kept) is present while records remain. ``page``, ``limit``, ``offset`` are
  ignored. ``@odata.count`` is always present (``$count`` is accepted and changes nothing).
- Records: PascalCase (``Id``, ``Title``, ``SolutionCount``; nested objects too); categories keyed by
  ``Slug``.
- Single resources: the flat PascalCase record with ``@odata.context``.
- Errors: ``{"error": {"code", "message", "target"?, "details"?: [{"code", "message", "target"}]}}``;
  invalid query options are 400.
- ``/tasks/next``: ``200 {"value": []}`` when there is nothing to do, else ``{"value": [{"TaskType",
  "TaskId", "Payload": {PascalCase}}]}``.
- ``/search``: ``{"@odata.context", "Problems": [...], "Bots": [...]}``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, Final

from fastapi import Depends, Query, Request
from fastapi.responses import Response

from solvelens.sandbox import paging
from solvelens.sandbox.answers import API
from solvelens.sandbox.conventions.base import Convention, ListSpec, Pair, Record, json_response
from solvelens.sandbox.conventions.case import recase, to_pascal, to_snake
from solvelens.sandbox.paging import Window

__all__ = ["OdataConvention"]

MEDIA: Final = "application/json;odata.metadata=minimal"
CODES: Final = {
    400: "BadRequest",
    401: "Unauthorized",
    403: "Forbidden",
    404: "NotFound",
    405: "MethodNotAllowed",
    409: "Conflict",
    413: "PayloadTooLarge",
    422: "UnprocessableEntity",
    500: "InternalServerError",
}


def _context(request: Request, fragment: str) -> str:
    return f"{request.base_url}{API.lstrip('/')}/$metadata#{fragment}"


class OdataConvention(Convention):
    """OData v4 collections: ``value``, ``$top``/``$skip``, server-driven ``@odata.nextLink``, PascalCase."""

    name: ClassVar[str] = "odata"
    media: ClassVar[str] = MEDIA
    task_id_pointer: ClassVar[str] = "/value/0/TaskId"
    summary: ClassVar[str] = (
        "OData v4: `value` lists, `$top`/`$skip` with the server's own page size and an absolute "
        "`@odata.nextLink`, `@odata.count` + `X-Total-Count`, PascalCase records, "
        '`{"error": {code, message}}`'
    )
    error_schema: ClassVar[dict[str, Any]] = {
        "type": "object",
        "required": ["error"],
        "properties": {
            "error": {
                "type": "object",
                "required": ["code", "message"],
                "properties": {"code": {"type": "string"}, "message": {"type": "string"}},
            }
        },
    }

    def window_dependency(self, spec: ListSpec) -> Callable[..., Window]:
        if spec.feed:  # the newest records, no @odata.nextLink; $skip is not offered
            text = f"How many of the newest (default {spec.default_limit}; capped at {spec.max_limit})."
            return paging.feed_window(spec.size("$top", minimum=0, description=text))
        text = f"At most this many (the server pages at {spec.server_page})."
        top = paging.Size("$top", None, spec.server_page, minimum=0, description=text)
        skipped = paging.offset_window(top, name="$skip")

        def odata_window(
            w: Window = Depends(skipped),
            count: str | None = Query(
                None, alias="$count", description="Accepted; the count is always sent."
            ),
        ) -> Window:
            return w

        return odata_window

    def render_list(
        self, spec: ListSpec, records: list[Record], w: Window, total: int, request: Request
    ) -> Response:
        body: Record = {
            "@odata.context": _context(request, to_pascal(spec.kind)),
            "@odata.count": total,
            "value": [recase(r, to_pascal) for r in records],
        }
        end = w.offset + len(records)
        if spec.paged and records and end < total:
            body["@odata.nextLink"] = str(request.url.include_query_params(**{"$skip": end}))
        return json_response(body, 200, MEDIA, {"X-Total-Count": str(total)})

    def render_one(self, singular: str, record: Record, request: Request) -> Response:
        body = {
            "@odata.context": _context(request, f"{to_pascal(singular)}/$entity"),
            **recase(record, to_pascal),
        }
        return json_response(body, media_type=MEDIA)

    def render_error(
        self, status: int, message: str, details: list[dict[str, Any]] | None = None, code: str | None = None
    ) -> Response:
        error: Record = {"code": code or CODES.get(status, str(status)), "message": message}
        if details:
            error["target"] = str(details[0].get("field", ""))
            error["details"] = [
                {
                    "code": code or CODES.get(status, str(status)),
                    "message": str(d.get("message", "")),
                    "target": str(d.get("field", "")),
                }
                for d in details
            ]
        return json_response({"error": error}, status, MEDIA)

    def render_task(self, task: Record | None) -> Response:
        value = [] if task is None else [recase(task, to_pascal)]
        return json_response({"@odata.context": _context_static("Tasks"), "value": value}, media_type=MEDIA)

    def render_search(self, result: dict[str, list[Record]], request: Request) -> Response:
        body: Record = {"@odata.context": _context(request, "SearchResult")}
        body.update({to_pascal(kind): [recase(r, to_pascal) for r in rs] for kind, rs in result.items()})
        return json_response(body, media_type=MEDIA)

    def submit_body(self, body: Any) -> Any:
        return recase(body, to_snake) if isinstance(body, dict) else body

    def list_schema(self, spec: ListSpec) -> dict[str, Any]:
        return {
            "type": "object",
            "required": ["value", "@odata.count"],
            "properties": {
                "value": {"type": "array", "items": {"type": "object"}},
                "@odata.count": {"type": "integer"},
                "@odata.nextLink": {"type": "string", "format": "uri"},
            },
        }

    def task_pairs(self, task_model: Any) -> list[Pair]:
        return [
            (
                200,
                '`{"value": [task]}`, or `{"value": []}` when there is nothing to do',
                {"type": "object", "required": ["value"]},
            )
        ]


def _context_static(fragment: str) -> str:
    return f"$metadata#{fragment}"
