"""The ``relay`` mode: Relay-style connections (https://relay.dev/graphql/connections.htm) served as REST.

- Lists: ``{"edges": [{"node": {...}, "cursor"}], "pageInfo": {"hasNextPage", "hasPreviousPage",
  "startCursor", "endCursor"}, "totalCount": N}``. Paging: ``first`` (capped silently at the route's maximum)
  and ``after`` (the ``endCursor`` of the previous page, opaque); ``page``, ``limit``, ``offset``, ``cursor``
  are ignored; a malformed ``after`` is 400.
- Records (nodes): camelCase with the id as ``<resource>Id`` (``problemId``, ``solutionId``, ``botId`` for
  leaderboard entries and bots); categories keep ``slug``.
- Single resources (a problem, a bot, ``/bot/me``, ``/stats``): the flat camelCase record, id as
  ``<resource>Id`` (no ``node`` wrapper).
- Errors: ``{"error": {"code", "message", "details"?: [{"field", "message"}]}}``; codes are upper-case
  (``NOT_FOUND``, ``BAD_REQUEST``, ``UNAUTHENTICATED``...).
- ``/tasks/next``: ``200 {}`` when there is nothing to do, else ``{"node": {"taskType", "taskId", "payload":
  {camelCase}}}``.
- ``/search``: ``{"problems": connection, "bots": connection}`` (one page each).
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
)
from solvelens.sandbox.conventions.case import recase, to_camel, to_snake

__all__ = ["RelayConvention"]

TOKEN: Final = "arrayconnection"
CODES: Final = {
    400: "BAD_REQUEST",
    401: "UNAUTHENTICATED",
    403: "FORBIDDEN",
    404: "NOT_FOUND",
    405: "METHOD_NOT_ALLOWED",
    409: "CONFLICT",
    413: "PAYLOAD_TOO_LARGE",
    500: "INTERNAL",
}


def node(singular: str, record: Record, id_field: str = "id") -> Record:
    """A platform record with its id as ``<singular>Id`` (categories keep ``slug``)."""
    if id_field != "id":
        return dict(record)
    return {(f"{singular}Id" if key == "id" else key): value for key, value in record.items()}


def connection(singular: str, records: list[Record], offset: int, total: int, id_field: str = "id") -> Record:
    """A Relay connection of ``records`` starting at ``offset`` of ``total``."""
    edges = [
        {"node": node(singular, r, id_field), "cursor": encode_token(TOKEN, offset + i)}
        for i, r in enumerate(records)
    ]
    return {
        "edges": edges,
        "pageInfo": {
            "hasNextPage": offset + len(records) < total,
            "hasPreviousPage": offset > 0,
            "startCursor": edges[0]["cursor"] if edges else None,
            "endCursor": edges[-1]["cursor"] if edges else None,
        },
        "totalCount": total,
    }


class RelayConvention(Convention):
    """Relay connections with ``first``/``after`` cursors and ``totalCount``."""

    name: ClassVar[str] = "relay"
    task_id_pointer: ClassVar[str] = "/node/taskId"
    summary: ClassVar[str] = (
        "Relay connections: `edges[].node` + `pageInfo.hasNextPage/endCursor`, `first`/`after`, "
        '`totalCount`, camelCase records with `<resource>Id`, `{"error": {code, message}}`'
    )
    error_schema: ClassVar[dict[str, Any]] = {
        "type": "object",
        "required": ["error"],
        "properties": {"error": {"type": "object", "required": ["code", "message"]}},
    }

    def window_dependency(self, spec: ListSpec) -> Callable[..., Window]:
        if spec.feed:
            return _feed_window(spec)

        def relay_window(
            first: int | None = Query(
                None,
                ge=1,
                description=f"Page size (default {spec.default_limit}; capped at {spec.max_limit}).",
            ),
            after: str | None = Query(
                None, max_length=64, description="`pageInfo.endCursor` of the previous page."
            ),
        ) -> Window:
            size = min(first or spec.default_limit, spec.max_limit)
            offset = decode_token(TOKEN, after, "after") + 1 if after else 0
            return Window(offset, size)

        return relay_window

    def render_list(
        self, spec: ListSpec, records: list[Record], w: Window, total: int, request: Request
    ) -> Response:
        return json_response(connection(spec.singular, records, w.offset, total, spec.id_field))

    def render_one(self, singular: str, record: Record, request: Request) -> Response:
        return json_response(node(singular, record) if singular != "stats" else record)

    def render_error(
        self, status: int, message: str, details: list[dict[str, Any]] | None = None, code: str | None = None
    ) -> Response:
        error: Record = {"code": code or CODES.get(status, str(status)), "message": message}
        if details:
            error["details"] = details
        return json_response({"error": error}, status)

    def render_task(self, task: Record | None) -> Response:
        if task is None:
            return json_response({})
        return json_response({"node": recase(task, to_camel)})

    def render_search(self, result: dict[str, list[Record]], request: Request) -> Response:
        singular = {"problems": "problem", "bots": "bot"}
        body = {kind: connection(singular[kind], rs, 0, len(rs)) for kind, rs in result.items()}
        return json_response(body)

    def submit_body(self, body: Any) -> Any:
        return recase(body, to_snake) if isinstance(body, dict) else body

    def list_schema(self, spec: ListSpec) -> dict[str, Any]:
        return {
            "type": "object",
            "required": ["edges", "pageInfo", "totalCount"],
            "properties": {
                "edges": {"type": "array", "items": {"type": "object"}},
                "pageInfo": {"type": "object"},
                "totalCount": {"type": "integer"},
            },
        }

    def task_pairs(self, task_model: Any) -> list[Pair]:
        return [(200, '`{"node": task}`, or `{}` when there is nothing to do', {"type": "object"})]


def _feed_window(spec: ListSpec) -> Callable[..., Window]:
    """A feed (the newest records; ``hasNextPage`` false): ``first`` only, capped silently."""

    def relay_feed(
        first: int | None = Query(
            None,
            ge=1,
            description=f"How many of the newest (default {spec.default_limit}; capped at {spec.max_limit}).",
        ),
    ) -> Window:
        return Window(0, min(first or spec.default_limit, spec.max_limit))

    return relay_feed
