"""The ``platform`` mode: the real platform's shapes, exactly as the sandbox served them before modes existed
(``{"problems": [...], "pagination": {...}}``, bare ``/categories``, ``{"error": str}``, 204 for no task),
with its switches: ``pagination`` (page | offset | cursor), ``solutions_paging`` (default | offset),
``paging`` (default | zero) and ``refs`` (flat | nested).

``paging="zero"`` (another implementation's paging, issue 21): problems, a problem's solutions and the
leaderboard are paged by ``page`` numbered from 0 (default 0) and ``limit`` capped silently at
:data:`ZERO_PAGE_SIZE` whatever it asks (default the same, no upper bound refused), answered
``{<key>: [...], "pagination": {"page": n}}`` with the total only in the ``X-Total-Count`` header (no total,
page size or page count in the body). The other lists (categories, ``/activity``, ``/llm-leaderboard``,
comparisons) keep their shapes. ``refs="nested"``: list entries reference their resource through nested
objects (:mod:`solvelens.sandbox.conventions.refs`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from fastapi import Query, Request
from fastapi.responses import Response
from pydantic import create_model

from solvelens.sandbox import paging, schemas
from solvelens.sandbox.conventions import refs
from solvelens.sandbox.conventions.base import Convention, ListSpec, Pair, Record, Window
from solvelens.sandbox.http import JSON, ApiError, PaginationStyle, error_response, responses

__all__ = ["ITEMS_MAX_LIMIT", "ZERO_PAGE_SIZE", "PlatformConvention"]

#: With ``--solutions-paging offset``, a page of solutions holds at most this many, whatever ``limit`` asks.
ITEMS_MAX_LIMIT = 10
#: With ``--paging zero``, a page holds at most this many records, whatever ``limit`` asks.
ZERO_PAGE_SIZE = 15


class PlatformConvention(Convention):
    """The real platform's wire shapes (the default mode)."""

    name: ClassVar[str] = "platform"
    validation_status: ClassVar[int] = 422
    summary: ClassVar[str] = (
        "the real platform's shapes: named lists with a `pagination` block (page/limit), bare `/categories`, "
        'camelCase records, `{"error": str}` errors, 204 when there is no task'
    )

    def __init__(
        self,
        style: PaginationStyle = "page",
        items_solutions: bool = False,
        *,
        zero: bool = False,
        nested: bool = False,
    ) -> None:
        self.style = style
        self.items_solutions = items_solutions
        self.zero = zero
        self.nested = nested

    def _items(self, spec: ListSpec) -> bool:
        return self.items_solutions and spec.resource == "solutions"

    def window_dependency(self, spec: ListSpec) -> Callable[..., Window]:
        if spec.feed:
            return _feed_window(spec)
        if spec.platform_shape == "offset":
            return _offset_window(spec)
        if self.zero and spec.paged:
            return _zero_window(spec)
        items = self._items(spec)
        style: PaginationStyle = "offset" if items else self.style
        documented = (items or self.style == "offset") if spec.resource == "solutions" else None
        max_limit = spec.max_limit

        def platform_window(
            page: int | None = paging.page_query(style),
            offset: int | None = paging.offset_query(self.style, documented=documented),
            cursor: str | None = paging.cursor_query(style),
            limit: int = Query(
                spec.default_limit, ge=1, le=max_limit, description=f"Page size (1-{max_limit})."
            ),
        ) -> Window:
            if items:  # another implementation's own page size cap, applied silently
                limit = min(limit, ITEMS_MAX_LIMIT)
            w = paging.window(style, page, offset, cursor, limit)
            return Window(w.offset, w.limit, w.page, w.style)

        return platform_window

    def render_list(
        self, spec: ListSpec, records: list[Record], w: Window, total: int, request: Request
    ) -> Response:
        if spec.platform_shape == "named":
            return JSON({spec.key: records})
        if spec.platform_shape == "offset":
            block = {"limit": w.limit, "offset": w.offset, "total": total}
            return JSON({spec.key: records, "pagination": block})
        if not spec.paged:
            return JSON(records)
        if self.nested:
            records = refs.nest(spec.resource, records, w.offset)
        if self.zero:
            headers = {"X-Total-Count": str(total)}
            return JSON({spec.key: records, "pagination": {"page": w.page}}, headers=headers)
        if self._items(spec):
            return JSON({"items": records, "has_more": w.offset + len(records) < total, "total": total})
        window = paging.Window(w.style, w.offset, w.limit, w.page)  # type: ignore[arg-type]
        shown = total if spec.platform_total else None
        return JSON(paging.envelope(window, spec.key, records, shown, total))

    def render_one(self, singular: str, record: Record, request: Request) -> Response:
        return JSON(record)

    def render_error(
        self, status: int, message: str, details: list[dict[str, Any]] | None = None, code: str | None = None
    ) -> Response:
        return error_response(status, message, details)

    def render_task(self, task: Record | None) -> Response:
        return Response(status_code=204) if task is None else JSON(task)

    def render_search(self, result: dict[str, list[Record]], request: Request) -> Response:
        return JSON(result)

    def render_submit_result(self, task_id: str, status: int, body: Record, request: Request) -> Response:
        return JSON(body, status_code=status)

    def list_doc(self, spec: ListSpec, item: type[Any], platform_model: Any) -> Any:
        if not spec.paged or spec.platform_shape != "switch":
            return platform_model
        if self.nested:
            item = refs.NESTED_ITEMS.get(spec.resource, item)
        if self.zero:
            return _zero_model(spec, item)
        if self.nested and self.style == "page" and not self._items(spec):
            fields: dict[str, Any] = {spec.key: (list[item], ...)}  # type: ignore[valid-type]
            return create_model(f"Nested{platform_model.__name__}", __base__=platform_model, **fields)
        if self._items(spec):
            return schemas.ItemsPage[item]  # type: ignore[valid-type]
        return paging.listing_model(self.style, item, platform_model)

    def one_doc(self, model: Any) -> Any:
        return model

    def task_pairs(self, task_model: Any) -> list[Pair]:
        return [
            (200, "The bot's active task, or a new one", task_model),
            (204, "Nothing to do (empty body)", None),
        ]

    def document(self, *pairs: Pair) -> dict[int | str, dict[str, Any]]:
        return responses(*pairs)


def _feed_window(spec: ListSpec) -> Callable[..., Window]:
    """``limit`` only (1..max, default as the spec). Above the maximum is a 400 naming it, as the issue's
    contract asks of ``/activity`` (the real server answers a 500 ``too_big`` there)."""
    max_limit = spec.max_limit

    def feed_window(
        limit: int = Query(
            spec.default_limit,
            ge=1,
            description=f"How many of the newest records (1-{max_limit}; no paging).",
            json_schema_extra={"maximum": max_limit},
        ),
    ) -> Window:
        if limit > max_limit:
            message = f"limit must be at most {max_limit}, got {limit}"
            raise ApiError(400, message, [{"field": "limit", "message": message}])
        return Window(0, limit)

    return feed_window


def _offset_window(spec: ListSpec) -> Callable[..., Window]:
    """The real offset paging: ``offset`` (0-based) and ``limit`` (1..max); ``page`` is not read."""
    max_limit = spec.max_limit

    def offset_window(
        offset: int = Query(0, ge=0, le=paging.MAX_OFFSET, description="Records to skip."),
        limit: int = Query(spec.default_limit, ge=1, le=max_limit, description=f"Page size (1-{max_limit})."),
    ) -> Window:
        return Window(offset, limit, style="offset")

    return offset_window


def _zero_window(spec: ListSpec) -> Callable[..., Window]:
    """``--paging zero``: ``page`` from 0 and ``limit`` capped silently at :data:`ZERO_PAGE_SIZE`."""

    def zero_window(
        page: int = Query(0, ge=0, le=paging.MAX_PAGE, description="0-based page number."),
        limit: int = Query(
            ZERO_PAGE_SIZE, ge=1, description=f"Page size (capped at {ZERO_PAGE_SIZE}, whatever is asked)."
        ),
    ) -> Window:
        size = min(limit, ZERO_PAGE_SIZE)
        return Window(page * size, size, page, style="zero")

    return zero_window


class ZeroPagination(schemas.Record):
    """The page block of ``--paging zero``: the 0-based page number only (the total is ``X-Total-Count``)."""

    page: int


def _zero_model(spec: ListSpec, item: type[Any]) -> type[Any]:
    """The documented answer of a ``--paging zero`` list: ``{<key>: [item], "pagination": {"page"}}``."""
    fields: dict[str, Any] = {spec.key: (list[item], ...), "pagination": (ZeroPagination, ...)}  # type: ignore[valid-type]
    return create_model(f"Zero{spec.key.title()}Page", __base__=schemas.Record, **fields)
