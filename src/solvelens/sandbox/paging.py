"""How every convention mode pages a list, written once: the request window (:class:`Window`), the page-size
rule (:class:`Size`), the one cursor encoding (:func:`encode_cursor`, :data:`CURSOR_PATTERN`) and the FastAPI
dependencies that read a mode's paging parameters under the mode's own names (:func:`page_window`,
:func:`offset_window`, :func:`cursor_window`, :func:`feed_window`). A mode
(:mod:`solvelens.sandbox.conventions`) only names its parameters and draws its envelope.

Cursors (the platform's ``--pagination cursor``, HAL's ``page_token``, Relay's ``after``) are ``o`` + a
0-based offset (clients treat them as opaque): every string of :data:`CURSOR_PATTERN` is a valid cursor (past
the end: an empty page), anything else fails validation (the mode's validation status, naming the
parameter). Page numbers are bounded by :data:`MAX_PAGE`, offsets by :data:`MAX_OFFSET` (beyond SQLite's
64-bit integers a query would fail).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final, Literal

from fastapi import Depends, Query

from solvelens.sandbox.answers import ApiError
from solvelens.sandbox.options import PaginationStyle

__all__ = [
    "CURSOR_PATTERN",
    "MAX_OFFSET",
    "MAX_PAGE",
    "PaginationStyle",
    "Size",
    "Window",
    "cursor_query",
    "cursor_window",
    "decode_cursor",
    "encode_cursor",
    "feed_window",
    "offset_query",
    "offset_window",
    "page_query",
    "page_window",
]

#: The platform mode's list envelope styles (``--pagination``).
MAX_PAGE: Final = 1_000_000_000
MAX_OFFSET: Final = 2**53
CURSOR_PATTERN: Final = r"^o(0|[1-9][0-9]{0,14})$"


@dataclass(frozen=True)
class Window:
    """The records one request asks for: ``offset`` (0-based) and ``limit`` (after the mode's cap);
    ``page``: the page number as the request gave it (page-numbered modes; 1 otherwise)."""

    offset: int
    limit: int
    page: int = 1


def encode_cursor(offset: int) -> str:
    """The cursor of the record at ``offset`` (0-based)."""
    return f"o{offset}"


def decode_cursor(cursor: str | None) -> int:
    """The offset of a cursor that matched :data:`CURSOR_PATTERN` (0 for none)."""
    return int(cursor[1:]) if cursor else 0


@dataclass(frozen=True)
class Size:
    """A page-size parameter: its wire ``name``, ``default`` and ``maximum``; ``minimum`` (OData's ``$top``
    may be 0). ``over``: what a value above the maximum gets: ``cap`` (served at the maximum, silently, as
    most servers do), ``invalid`` (a validation error, the platform's 422) or ``refuse`` (a 400 naming the
    limit: the platform's ``/activity``). ``default=None``: the maximum (a server-driven page size)."""

    name: str
    default: int | None
    maximum: int
    minimum: int = 1
    over: Literal["cap", "invalid", "refuse"] = "cap"
    description: str = ""

    def query(self) -> Any:
        """The FastAPI ``Query`` of this parameter (documented with its bounds)."""
        text = (
            self.description
            or {
                "cap": f"Page size (default {self.default or self.maximum}; capped at {self.maximum}).",
                "invalid": f"Page size ({self.minimum}-{self.maximum}).",
                "refuse": f"How many of the newest records ({self.minimum}-{self.maximum}; no paging).",
            }[self.over]
        )
        if self.over == "invalid":
            return Query(self.default, alias=self.name, ge=self.minimum, le=self.maximum, description=text)
        extra = {"maximum": self.maximum} if self.over == "refuse" else None
        return Query(
            self.default if self.over == "refuse" else None,
            alias=self.name,
            ge=self.minimum,
            description=text,
            json_schema_extra=extra,
        )

    def of(self, value: int | None) -> int:
        """The page size served for ``value`` (the parameter as sent, ``None`` when absent)."""
        if value is None:
            return self.maximum if self.default is None else self.default
        if value > self.maximum and self.over == "refuse":
            message = f"{self.name} must be at most {self.maximum}, got {value}"
            raise ApiError(400, message, [{"field": self.name, "message": message}])
        return min(value, self.maximum)


def page_window(
    size: Size, *, name: str = "page", first: int = 1, documented: bool = True
) -> Callable[..., Window]:
    """Page-numbered paging: ``name`` (numbered from ``first``; default ``first``) and ``size``."""

    def page_paging(
        number: int = Query(
            first,
            alias=name,
            ge=first,
            le=MAX_PAGE,
            description=f"{first}-based page number.",
            include_in_schema=documented,
        ),
        served: int = Depends(_served(size)),
    ) -> Window:
        return Window((number - first) * served, served, number)

    return page_paging


def offset_window(size: Size, *, name: str = "offset") -> Callable[..., Window]:
    """Offset paging: ``name`` (records to skip, default 0) and ``size``."""

    def offset_paging(
        offset: int = Query(0, alias=name, ge=0, le=MAX_OFFSET, description="Records to skip."),
        served: int = Depends(_served(size)),
    ) -> Window:
        return Window(offset, served)

    return offset_paging


def cursor_window(
    size: Size, *, name: str, after: bool = False, description: str = ""
) -> Callable[..., Window]:
    """Cursor paging: ``name`` (a cursor of :func:`encode_cursor`; absent: the first page) and ``size``.
    ``after``: the cursor names the last record already read (Relay), else the first record to read."""

    def cursor_paging(
        cursor: str | None = Query(
            None, alias=name, pattern=CURSOR_PATTERN, description=description or "Cursor of the next page."
        ),
        served: int = Depends(_served(size)),
    ) -> Window:
        offset = decode_cursor(cursor) + (1 if after and cursor else 0)
        return Window(offset, served)

    return cursor_paging


def feed_window(size: Size) -> Callable[..., Window]:
    """A feed (the newest records, no further pages): ``size`` only."""

    def feed_paging(served: int = Depends(_served(size))) -> Window:
        return Window(0, served)

    return feed_paging


def _served(size: Size) -> Callable[..., int]:
    """The dependency reading ``size`` and giving the page size served. An optional parameter (``cap``:
    absent means the default) is documented as nullable; one with a default that is checked (``invalid``,
    ``refuse``) as a plain integer with its bounds."""
    if size.over == "cap":

        def optional_size(limit: int | None = size.query()) -> int:
            return size.of(limit)

        return optional_size

    def checked_size(limit: int = size.query()) -> int:
        return size.of(limit)

    return checked_size


def page_query(style: PaginationStyle) -> Any:
    """The platform's ``page`` query parameter (documented in the page style only)."""
    return Query(
        None, ge=1, le=MAX_PAGE, description="1-based page number.", include_in_schema=style == "page"
    )


def offset_query(style: PaginationStyle, *, documented: bool | None = None) -> Any:
    """The platform's ``offset`` query parameter (documented in the offset style, or when ``documented``)."""
    return Query(
        None,
        ge=0,
        le=MAX_OFFSET,
        description="Records to skip (offset pagination).",
        include_in_schema=style == "offset" if documented is None else documented,
    )


def cursor_query(style: PaginationStyle) -> Any:
    """The platform's ``cursor`` query parameter (documented in the cursor style only)."""
    return Query(
        None,
        pattern=CURSOR_PATTERN,
        description="`next_cursor` of the previous page (cursor pagination).",
        include_in_schema=style == "cursor",
    )
