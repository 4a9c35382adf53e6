"""How the sandbox's list routes page: the request window (page, offset or cursor), the answer's envelope
in the configured style, and the query parameters each style documents.

- ``page`` (the real platform): ``page``/``limit`` requests, answered ``{<key>: [...], "pagination": {page,
  limit, total, totalPages}}`` (a problem's solutions: ``{"solutions": [...]}`` only);
- ``offset``: ``offset``/``limit``, answered ``{"items", "total", "offset", "limit"}``;
- ``cursor``: ``cursor``/``limit``, answered ``{"data", "next_cursor", "has_more"}``.

``--solutions-paging offset`` makes a problem's solutions page as another implementation of the interface
does: ``offset``/``limit`` requests (``page`` ignored, at most 10 per page whatever ``limit`` asks) answered
``{"items", "has_more", "total"}``.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Final

from fastapi import Query

from solvelens.sandbox import schemas
from solvelens.sandbox.http import ApiError, PaginationStyle

__all__ = [
    "CURSOR_PATTERN",
    "MAX_OFFSET",
    "MAX_PAGE",
    "Window",
    "cursor_query",
    "envelope",
    "items_envelope",
    "listing_model",
    "offset_query",
    "page_query",
    "window",
]

#: Largest ``page`` and ``offset`` accepted (beyond SQLite's 64-bit integers a query would fail).
MAX_PAGE: Final = 1_000_000_000
MAX_OFFSET: Final = 2**53
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
class Window:
    """The records one request asks for: ``offset`` and ``limit`` (``page`` for the page style)."""

    style: PaginationStyle
    offset: int
    limit: int
    page: int


def window(
    style: PaginationStyle, page: int | None, offset: int | None, cursor: str | None, limit: int
) -> Window:
    """The window of a request in ``style`` (parameters of the other styles are ignored)."""
    if style == "offset":
        off = offset or 0
    elif style == "cursor":
        off = _decode_cursor(cursor) if cursor else 0
    else:
        off = ((page or 1) - 1) * limit
    return Window(style, off, limit, page or 1)


def envelope(
    w: Window, key: str, items: list[dict[str, Any]], total: int | None, real_total: int
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


def items_envelope(w: Window, items: list[dict[str, Any]], total: int) -> dict[str, Any]:
    """``{"items", "has_more", "total"}``: the answer of ``--solutions-paging offset``."""
    return {"items": items, "has_more": w.offset + len(items) < total, "total": total}


def listing_model(style: PaginationStyle, item: type[Any], page_model: type[Any]) -> type[Any]:
    """The documented response model of a list route in ``style`` (``page_model`` for the page style)."""
    if style == "offset":
        return schemas.OffsetPage[item]  # type: ignore[valid-type]
    if style == "cursor":
        return schemas.CursorPage[item]  # type: ignore[valid-type]
    return page_model


def page_query(style: PaginationStyle) -> Any:
    """The ``page`` query parameter (documented in the page style only)."""
    return Query(
        None, ge=1, le=MAX_PAGE, description="1-based page number.", include_in_schema=style == "page"
    )


def offset_query(style: PaginationStyle, *, documented: bool | None = None) -> Any:
    """The ``offset`` query parameter (documented in the offset style, or when ``documented``)."""
    return Query(
        None,
        ge=0,
        le=MAX_OFFSET,
        description="Records to skip (offset pagination).",
        include_in_schema=style == "offset" if documented is None else documented,
    )


def cursor_query(style: PaginationStyle) -> Any:
    """The ``cursor`` query parameter (documented in the cursor style only)."""
    return Query(
        None,
        pattern=CURSOR_PATTERN,
        description="`next_cursor` of the previous page (cursor pagination).",
        include_in_schema=style == "cursor",
    )
