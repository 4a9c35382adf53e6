"""Paginators: one class per pagination style, plus detection of the style from a first response.

No HTTP happens here. A paginator reads each answer (:meth:`Paginator.update_state`) and builds the next
request (:meth:`Paginator.update_request`), so every style is unit-tested from recorded responses. The
client's page walk (``client.py``) sends the requests.

| name            | class                   | next request                        | own stop           |
|-----------------|-------------------------|-------------------------------------|--------------------|
| ``page_number`` | ``PageNumberPaginator`` | ``page=N+1`` (1-based)              | totalPages, total  |
| ``offset``      | ``OffsetPaginator``     | ``offset=<records so far>``         | total reached      |
| ``cursor``      | ``CursorPaginator``     | ``cursor=<next cursor from body>``  | no next cursor     |
| ``next_link``   | ``NextLinkPaginator``   | ``next`` URL (body or Link header)  | no next link       |
| ``single_page`` | ``SinglePagePaginator`` | none                                | after one page     |

Every style also stops on an empty page, on ``has_more: false`` (``hasMore``) and, for page/offset styles, on
a short page (fewer items than the page size in effect). Hard stops win: a page whose items repeat the
previous page's, a cursor or link seen before, or more than ``max_pages`` pages raise :class:`PaginationError`
— a walk never loops forever.

The list inside a response is found by :func:`extract_items`: a bare JSON array, or the first list under
``data``/``items``/``results``/a named key (``problems``, ``bots``, ``solutions``, ...), or the only list in
the envelope. Pagination metadata is read from the body's top level and from a
``pagination``/``meta``/``pageInfo`` object, with camelCase and snake_case names treated alike (``totalPages``
= ``total_pages``).
"""

from __future__ import annotations

import logging
import re
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from solvelens.client.errors import PaginationError

__all__ = [
    "PAGINATORS",
    "CursorPaginator",
    "NextLinkPaginator",
    "OffsetPaginator",
    "Page",
    "PageNumberPaginator",
    "PageRequest",
    "Paginator",
    "SinglePagePaginator",
    "detect_paginator",
    "extract_items",
    "make_paginator",
    "page_metadata",
]

log = logging.getLogger(__name__)

#: Envelope keys that hold the list, tried in this order (the named lists are the real platform's).
ITEM_KEYS: tuple[str, ...] = (
    "data",
    "items",
    "results",
    "problems",
    "solutions",
    "bots",
    "categories",
    "records",
)
#: Envelope keys whose object holds pagination metadata.
META_KEYS: tuple[str, ...] = ("pagination", "meta", "page_info", "pageinfo", "paging")
#: Default hard stop on the number of pages in one walk.
DEFAULT_MAX_PAGES = 1_000_000


@dataclass(slots=True)
class PageRequest:
    """The request for one page: query ``params`` (merged into the endpoint's), or an absolute ``url`` to
    follow.

    When ``url`` is set (a next link) it already carries its own query string and ``params`` is ignored.
    """

    params: dict[str, Any] = field(default_factory=dict)
    url: str | None = None


@dataclass(slots=True)
class Page:
    """One page of a list endpoint.

    ``items``: the records (plain dicts, exactly as sent). ``total``: total records the server reported, or
    ``None`` when it does not say (never guessed). ``number``: 1-based position of this page in the walk.
    ``offset``: number of records before this page in the walk (so ``offset + i + 1`` is an item's position,
    e.g. its leaderboard rank). ``request``: what fetched it. ``body``: the decoded JSON envelope.
    """

    items: list[dict[str, Any]]
    total: int | None
    number: int
    offset: int
    request: PageRequest
    body: Any = None

    def __iter__(self) -> Any:
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)


def _norm(key: str) -> str:
    return key.replace("_", "").replace("-", "").lower()


def page_metadata(body: Any) -> dict[str, Any]:
    """Pagination metadata of a response body, keys normalised (lower case, no ``_``): top level first, then
    a nested ``pagination``/``meta``/``pageInfo`` object. Returns ``{}`` for a bare list."""
    if not isinstance(body, dict):
        return {}
    meta: dict[str, Any] = {}
    for key, value in body.items():
        norm = _norm(key)
        if norm in META_KEYS and isinstance(value, dict):
            for sub_key, sub_value in value.items():
                meta.setdefault(_norm(sub_key), sub_value)
        elif not isinstance(value, list):
            meta[norm] = value
    links = body.get("links") or body.get("_links")
    if isinstance(links, dict):
        nxt = links.get("next")
        if isinstance(nxt, dict):
            nxt = nxt.get("href")
        if isinstance(nxt, str) or nxt is None:
            meta.setdefault("next", nxt)
    return meta


def extract_items(body: Any, items_key: str | None = None) -> list[dict[str, Any]]:
    """The list of records in a response body.

    Accepts a bare JSON array, or an object holding the list under ``items_key`` (tried first when given),
    under one of :data:`ITEM_KEYS`, or as its only list value. An envelope whose known list key is ``null``
    counts as empty. Raises :class:`PaginationError` when no list can be found.
    """
    if isinstance(body, list):
        return body
    if isinstance(body, dict):
        keys = (items_key, *ITEM_KEYS) if items_key else ITEM_KEYS
        for key in keys:
            value = body.get(key)
            if isinstance(value, list):
                return value
            if isinstance(value, dict):
                inner = [v for k, v in value.items() if k in ITEM_KEYS and isinstance(v, list)]
                if inner:
                    return inner[0]
        lists = [v for v in body.values() if isinstance(v, list)]
        if len(lists) == 1:
            return lists[0]
        if not lists and any(k in body for k in ITEM_KEYS):
            return []
    if body is None:
        return []
    shape = f"keys {sorted(body)}" if isinstance(body, dict) else type(body).__name__
    raise PaginationError(f"cannot find the list of records in the response ({shape})")


def _fingerprint(items: list[dict[str, Any]]) -> tuple[Any, ...]:
    """Cheap identity of a page: its length and the ids (or reprs) of its first and last items."""
    if not items:
        return (0,)
    first, last = items[0], items[-1]
    if isinstance(first, dict) and isinstance(last, dict) and "id" in first and "id" in last:
        return (len(items), first["id"], last["id"])
    return (len(items), repr(first), repr(last))


def _as_int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.isdigit():
        return int(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


class Paginator(ABC):
    """Base of all paginators: reads each answer, builds the next request, and applies the common stops.

    Args:
        page_size: the page size sent as ``limit_param`` (``None``: let the server choose its default).
        limit_param: query parameter carrying the page size (default ``limit``).
        max_pages: hard stop; more pages raise :class:`PaginationError`.

    Use: ``p.init_request(req)`` once, then per answer ``p.update_state(items, body, headers)`` and, while
    ``p.has_next``, ``p.update_request(req)``.
    """

    name: ClassVar[str] = "base"
    #: Whether a page shorter than the page size ends the walk (true for page and offset styles).
    short_page_stops: ClassVar[bool] = True

    def __init__(
        self,
        *,
        page_size: int | None = None,
        limit_param: str = "limit",
        max_pages: int = DEFAULT_MAX_PAGES,
    ) -> None:
        self.page_size = page_size
        self.limit_param = limit_param
        self.max_pages = max_pages
        self.has_next = True
        self.pages_seen = 0
        self.records_seen = 0
        self.total: int | None = None
        self._effective_size: int | None = page_size
        self._last_fingerprint: tuple[Any, ...] | None = None

    def __repr__(self) -> str:
        return f"{type(self).__name__}(page_size={self.page_size!r})"

    def drop_page_size(self, request: PageRequest) -> None:
        """Stop sending a page size (the server rejected it): use the server's default from now on."""
        self.page_size = None
        self._effective_size = None
        request.params.pop(self.limit_param, None)

    def init_request(self, request: PageRequest) -> None:
        """Prepare the first request (sets the page size when one is configured)."""
        if self.page_size is not None:
            request.params[self.limit_param] = self.page_size

    def repeats(self, items: list[dict[str, Any]]) -> bool:
        """Whether ``items`` (a non-empty page) repeat the previous page this paginator read."""
        return bool(items) and _fingerprint(items) == self._last_fingerprint

    def adopt(
        self, previous: Paginator, items: list[dict[str, Any]], body: Any, headers: Mapping[str, str]
    ) -> None:
        """Take over a walk from ``previous`` (another style whose next page repeated the last one): keep its
        counts, total and page size in effect, then read the repeated answer for this style's own next step
        (a cursor or a next link; ``has_next`` turns False when the answer offers none)."""
        self.pages_seen = previous.pages_seen
        self.records_seen = previous.records_seen
        self.total = previous.total
        self._effective_size = previous._effective_size
        self._last_fingerprint = previous._last_fingerprint
        self.has_next = True
        self._advance(items, page_metadata(body), headers)

    def update_state(
        self, items: list[dict[str, Any]], body: Any, headers: Mapping[str, str] | None = None
    ) -> None:
        """Read one answer: count it, apply the common stops, then the style's own rule (:meth:`_advance`).

        Raises :class:`PaginationError` when the page repeats the previous one or ``max_pages`` is exceeded.
        """
        self.pages_seen += 1
        if self.pages_seen > self.max_pages:
            raise PaginationError(f"more than {self.max_pages} pages: stopping ({type(self).__name__})")
        if self.repeats(items):
            raise PaginationError(
                f"page {self.pages_seen} repeats page {self.pages_seen - 1} ({type(self).__name__}): "
                "the server ignores the pagination parameters; configure the style for this endpoint"
            )
        self._last_fingerprint = _fingerprint(items)
        self.records_seen += len(items)
        meta = page_metadata(body)
        total = _as_int(meta.get("total", meta.get("totalcount", meta.get("totalitems"))))
        if total is not None:
            self.total = total
        if self._effective_size is None:
            # Page size in effect when none was requested: what the server says, else the first page's length.
            self._effective_size = _as_int(meta.get("limit", meta.get("pagesize", meta.get("perpage")))) or (
                len(items) or None
            )
        if not items:
            self.has_next = False
            return
        has_more = meta.get("hasmore", meta.get("hasnext", meta.get("hasnextpage")))
        if has_more is False:
            self.has_next = False
            return
        if self.total is not None and self.records_seen >= self.total and self.short_page_stops:
            self.has_next = False
            return
        if (
            self.short_page_stops
            and has_more is not True
            and self._effective_size is not None
            and len(items) < self._effective_size
        ):
            self.has_next = False
            return
        self._advance(items, meta, headers or {})

    @abstractmethod
    def _advance(self, items: list[dict[str, Any]], meta: dict[str, Any], headers: Mapping[str, str]) -> None:
        """Style-specific: read the answer's cursor/link/page count; set ``has_next``."""

    @abstractmethod
    def update_request(self, request: PageRequest) -> None:
        """Turn ``request`` (the previous one) into the request for the next page."""


class SinglePagePaginator(Paginator):
    """The list is complete in one answer (e.g. the real platform's ``/categories`` bare array)."""

    name = "single_page"
    short_page_stops = False

    def _advance(self, items: list[dict[str, Any]], meta: dict[str, Any], headers: Mapping[str, str]) -> None:
        self.has_next = False

    def update_request(self, request: PageRequest) -> None:
        raise PaginationError("a single-page list has no next page")


class PageNumberPaginator(Paginator):
    """``page``/``limit`` (1-based page numbers), as on the real platform's /problems, /leaderboard and a
    problem's /solutions. Stops at ``totalPages`` (or ``total`` records) when the server reports them, else on
    a short or empty page."""

    name = "page_number"

    def __init__(self, *, page_param: str = "page", base_page: int = 1, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.page_param = page_param
        self.page = base_page
        #: The page count the last answer announced (``totalPages``), or ``None`` when it did not say.
        self.total_pages: int | None = None

    def _advance(self, items: list[dict[str, Any]], meta: dict[str, Any], headers: Mapping[str, str]) -> None:
        total_pages = _as_int(meta.get("totalpages", meta.get("pages", meta.get("pagecount"))))
        self.total_pages = total_pages
        current = _as_int(meta.get("page", meta.get("currentpage"))) or self.page
        if total_pages is not None and current >= total_pages:
            self.has_next = False

    def announced_requests(self, request: PageRequest) -> list[PageRequest]:
        """The requests of every further page the last answer announced: from ``request`` (the next
        request, already advanced by :meth:`update_request`) to page ``totalPages`` (at most ``max_pages``);
        ``[]`` when the server announced no page count. Lets a caller fetch them concurrently and feed the
        answers back in order."""
        if not self.has_next or self.total_pages is None:
            return []
        last = min(self.total_pages, self.max_pages)
        return [
            PageRequest(params={**request.params, self.page_param: number})
            for number in range(self.page, last + 1)
        ]

    def update_request(self, request: PageRequest) -> None:
        self.page += 1
        request.params[self.page_param] = self.page
        request.url = None


class OffsetPaginator(Paginator):
    """``offset``/``limit``: the next offset is the number of records received so far; stops at ``total``."""

    name = "offset"

    def __init__(self, *, offset_param: str = "offset", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.offset_param = offset_param

    def init_request(self, request: PageRequest) -> None:
        super().init_request(request)
        request.params[self.offset_param] = 0

    def _advance(self, items: list[dict[str, Any]], meta: dict[str, Any], headers: Mapping[str, str]) -> None:
        if self.total is not None and self.records_seen >= self.total:
            self.has_next = False

    def update_request(self, request: PageRequest) -> None:
        request.params[self.offset_param] = self.records_seen
        request.url = None


#: Normalised body keys that carry the next cursor, in order of preference.
CURSOR_KEYS: tuple[str, ...] = ("nextcursor", "nextpagetoken", "endcursor", "cursornext", "next")


class CursorPaginator(Paginator):
    """Cursor in the body (``next_cursor``/``nextCursor``/``next_page_token``/``pageInfo.endCursor``), sent
    back as ``cursor_param``. Stops when the cursor is missing, null or empty; a cursor seen before raises
    :class:`PaginationError`."""

    name = "cursor"
    short_page_stops = False

    def __init__(self, *, cursor_param: str = "cursor", cursor_key: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.cursor_param = cursor_param
        self.cursor_key = _norm(cursor_key) if cursor_key else None
        self.cursor: str | None = None
        self._seen: set[str] = set()

    def _advance(self, items: list[dict[str, Any]], meta: dict[str, Any], headers: Mapping[str, str]) -> None:
        keys = (self.cursor_key,) if self.cursor_key else CURSOR_KEYS
        cursor: Any = None
        for key in keys:
            value = meta.get(key)
            if value not in (None, ""):
                cursor = value
                break
        if cursor is None or isinstance(cursor, bool):
            self.has_next = False
            return
        cursor = str(cursor)
        if cursor in self._seen:
            raise PaginationError(f"cursor {cursor[:40]!r} repeated after {self.pages_seen} pages")
        self._seen.add(cursor)
        self.cursor = cursor

    def update_request(self, request: PageRequest) -> None:
        request.params[self.cursor_param] = self.cursor
        request.url = None


_LINK_NEXT = re.compile(r'<([^>]*)>\s*;[^,]*?\brel="?([^";,]*\bnext\b[^";,]*)"?', re.IGNORECASE)


def next_link_from_header(value: str | None) -> str | None:
    """The URL of ``rel="next"`` in an RFC 8288 ``Link`` header, or ``None``."""
    if not value:
        return None
    for match in _LINK_NEXT.finditer(value):
        if "next" in match.group(2).lower().split():
            return match.group(1).strip()
    return None


class NextLinkPaginator(Paginator):
    """Follows a next link: ``next`` (or ``links.next``) in the body, else ``rel="next"`` in a ``Link``
    header. The link may be relative; the client resolves it against the request URL. Stops when there is no
    link; a link seen before raises :class:`PaginationError`."""

    name = "next_link"
    short_page_stops = False

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.next_url: str | None = None
        self._seen: set[str] = set()

    def _advance(self, items: list[dict[str, Any]], meta: dict[str, Any], headers: Mapping[str, str]) -> None:
        link = meta.get("next")
        if not isinstance(link, str) or not link:
            link = next_link_from_header(headers.get("link") or headers.get("Link"))
        if not link:
            self.has_next = False
            return
        if link in self._seen:
            raise PaginationError(f"next link {link[:80]!r} repeated after {self.pages_seen} pages")
        self._seen.add(link)
        self.next_url = link

    def update_request(self, request: PageRequest) -> None:
        request.url = self.next_url
        request.params = {}


#: Registry: style name -> paginator class (used by ``pagination=`` options of the client).
PAGINATORS: dict[str, type[Paginator]] = {
    cls.name: cls
    for cls in (PageNumberPaginator, OffsetPaginator, CursorPaginator, NextLinkPaginator, SinglePagePaginator)
}


def make_paginator(style: str, **options: Any) -> Paginator:
    """A paginator from its registry name (``page_number``, ``offset``, ``cursor``, ``next_link``,
    ``single_page``; ``page`` is accepted for ``page_number``). Raises :class:`ValueError` for an unknown
    name."""
    key = {"page": "page_number", "link": "next_link", "header_link": "next_link"}.get(style, style)
    try:
        cls = PAGINATORS[key]
    except KeyError:
        raise ValueError(f"unknown pagination style {style!r}; choose one of {sorted(PAGINATORS)}") from None
    return cls(**options)


def detect_paginator(
    body: Any,
    headers: Mapping[str, str] | None = None,
    *,
    page_size: int | None = None,
    limit_param: str = "limit",
    max_pages: int = DEFAULT_MAX_PAGES,
) -> Paginator:
    """Pick the paginator for a list endpoint from its first answer (``body`` decoded, ``headers``).

    Rules, first match wins: a next link in the body or a ``Link: rel="next"`` header: next link; a next
    cursor: cursor; ``offset`` in the metadata: offset; ``page``/``totalPages``: page number; a bare array
    without a Link header that is shorter than the requested page size (or with no page size requested):
    single page; otherwise page number (the real platform's style), which is logged as a fallback. The
    returned paginator has *not* yet read ``body``: call ``update_state`` with it.
    """
    common: dict[str, Any] = {"page_size": page_size, "limit_param": limit_param, "max_pages": max_pages}
    meta = page_metadata(body)
    link_header = (headers or {}).get("link") or (headers or {}).get("Link")
    nxt = meta.get("next")
    if (isinstance(nxt, str) and nxt.startswith(("http://", "https://", "/", "?"))) or next_link_from_header(
        link_header
    ):
        return NextLinkPaginator(**common)
    if any(key in meta for key in ("nextcursor", "nextpagetoken", "endcursor", "cursornext")) or (
        isinstance(nxt, str) and nxt
    ):
        return CursorPaginator(**common)
    if "offset" in meta:
        return OffsetPaginator(**common)
    if any(key in meta for key in ("page", "totalpages", "currentpage")):
        return PageNumberPaginator(**common)
    if "next" in meta:
        # A ``next: null`` envelope with nothing else: next-link style on its last page.
        return NextLinkPaginator(**common)
    if isinstance(body, list) and (page_size is None or len(body) < page_size):
        return SinglePagePaginator(**common)
    log.debug("no pagination metadata in the first answer: assuming page/limit")
    return PageNumberPaginator(**common)
