"""Paginators: one class per pagination style, and an answer's paging metadata.

No HTTP happens here. A paginator reads each answer (:meth:`Paginator.update_state`) and builds the next
request (:meth:`Paginator.update_request`), so every style is unit-tested from recorded responses. Which
paginator fits an endpoint is decided by the detectors of :mod:`solvelens.client.detect` (or a profile);
the page walk (:mod:`solvelens.client.walk`) sends the requests. Types use dlt's rest_api vocabulary:

- ``page_number`` (:class:`PageNumberPaginator`): ``page_param=N+1`` (``page``, ``page[number]``), from
  ``base_page`` 1 or 0; stops at the page count or total;
- ``offset`` (:class:`OffsetPaginator`): ``offset_param=<records so far>`` (``offset``, ``skip``,
  ``$skip``); stops at the total;
- ``cursor`` (:class:`CursorPaginator`): ``cursor_param=<the cursor at cursor_path>``; stops without one;
- ``json_link`` / ``header_link`` (:class:`NextLinkPaginator`): the URL at ``next_url_path`` in the body /
  ``rel="next"`` of the ``Link`` header (``next_link``: whichever the answer carries); stops without one;
- ``single_page`` (:class:`SinglePagePaginator`): one answer is the whole list.

Every style stops on an empty page and on ``has_more: false`` (``hasMore``, ``pageInfo.hasNextPage``).
Page and offset styles also stop on a page shorter than the page size in effect -- but only when nothing
says otherwise: a total not yet reached (body or ``X-Total-Count``), a page count not yet reached
(``totalPages`` or ``X-Total-Pages``), ``has_more: true`` or a next link mean the server capped the page
size silently, and the walk goes on. Hard stops win: a page whose items repeat the previous page's, a cursor
or link seen before, or more than ``max_pages`` pages raise :class:`PaginationError` -- a walk never loops
forever.

Where the records are is :mod:`solvelens.client.locate`'s (a paginator is handed them). Metadata
(:func:`page_metadata`) is read from the body's top level, a ``pagination``/``meta``/``pageInfo``/``paging``
object, ``links``/``_links``, OData's ``@odata.*`` keys and the ``X-Total-Count``/``X-Total-Pages``/``Link``
headers, with names compared without case, ``_``, ``-``, ``@``, ``.`` and ``$`` (``totalPages`` =
``total_pages``).
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

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
    "PaginatorSpec",
    "SinglePagePaginator",
    "get_path",
    "make_paginator",
    "next_link_from_header",
    "page_metadata",
]

#: Normalised envelope keys whose object holds pagination metadata.
META_KEYS: frozenset[str] = frozenset({"pagination", "meta", "pageinfo", "paging", "page"})
#: Default hard stop on the number of pages in one walk.
DEFAULT_MAX_PAGES = 1_000_000
#: Normalised metadata keys of a total record count, in order of preference (``count`` is checked apart).
TOTAL_KEYS: tuple[str, ...] = (
    "total",
    "totalcount",
    "totalitems",
    "totalresults",
    "totalrecords",
    "odatacount",
    "numfound",
)
#: Normalised metadata keys of a page count.
TOTAL_PAGES_KEYS: tuple[str, ...] = ("totalpages", "pagecount", "pages", "lastpage")
#: Normalised metadata keys saying whether more pages follow.
HAS_MORE_KEYS: tuple[str, ...] = ("hasmore", "hasnext", "hasnextpage", "moreitems", "moreavailable")
#: Normalised body keys that carry the next cursor, in order of preference.
CURSOR_KEYS: tuple[str, ...] = (
    "nextcursor",
    "nextpagetoken",
    "endcursor",
    "cursornext",
    "nexttoken",
    "continuationtoken",
    "continuation",
    "next",
)
_NORM = str.maketrans("", "", "_-@.$ []")


def norm_key(key: str) -> str:
    """A metadata key compared loosely: lower case without ``_ - @ . $ [ ]`` (``@odata.nextLink`` ->
    ``odatanextlink``, ``page[size]`` -> ``pagesize``)."""
    return key.translate(_NORM).lower()


def is_link(value: Any) -> bool:
    """Whether ``value`` is a next link: an absolute http(s) URL, or a relative one (``/...`` or ``?...``)."""
    return isinstance(value, str) and value.startswith(("http://", "https://", "/", "?"))


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

    ``items``: the records, in the canonical form (:mod:`solvelens.client.records`; on the real platform
    exactly as sent). ``total``: total records the server reported (body or ``X-Total-Count``), or ``None``
    when it does not say (never guessed). ``number``: 1-based position of this page in the walk. ``offset``:
    number of distinct records the walk handed out before this page (so ``offset + i + 1`` is an item's
    position in the walk: no rank where the platform lists ties in any order). ``request``: what fetched it.
    ``body``: the decoded JSON envelope as sent. ``headers``: the answer's headers.
    """

    items: list[dict[str, Any]]
    total: int | None
    number: int
    offset: int
    request: PageRequest
    body: Any = None
    headers: Mapping[str, str] = field(default_factory=dict)

    def __iter__(self) -> Any:
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)


def header(headers: Mapping[str, str] | None, name: str) -> str | None:
    """A response header by name, in any case (``httpx.Headers`` or a plain dict of recorded headers)."""
    if not headers:
        return None
    value = headers.get(name)
    if value is None and not hasattr(headers, "get_list"):  # a plain dict: compare names without case
        lowered = name.lower()
        value = next((v for k, v in headers.items() if k.lower() == lowered), None)
    return value


def get_path(data: Any, path: str, headers: Mapping[str, str] | None = None) -> Any:
    """The value at a dot ``path`` in ``data`` (``"$"``: ``data`` itself; ``"header:X-Total-Count"``: that
    response header). A key that itself contains dots (``@odata.nextLink``) is matched whole first. Returns
    ``None`` when any step is missing."""
    if path in ("$", ""):
        return data
    if path.startswith("header:"):
        return header(headers, path[7:])
    if not isinstance(data, dict):
        return None
    if path in data or "." not in path:
        return data.get(path)
    parts = path.split(".")
    current = data
    i = 0
    while i < len(parts):
        if not isinstance(current, dict):
            return None
        for j in range(len(parts), i, -1):  # longest key first: "@odata.nextLink" before "@odata"
            key = ".".join(parts[i:j])
            if key in current:
                current = current[key]
                i = j
                break
        else:
            return None
    return current


def page_metadata(body: Any, headers: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Pagination metadata of an answer, keys normalised (:func:`norm_key`): the body's top level first, then
    a nested ``pagination``/``meta``/``pageInfo``/``paging`` object, ``links.next``/``_links.next.href`` and
    ``@odata.nextLink`` as ``next``, then the headers ``X-Total-Count`` (``total``) and ``X-Total-Pages``
    (``totalpages``). Returns only the header figures for a bare list."""
    meta: dict[str, Any] = {}
    if isinstance(body, dict):
        for key, value in body.items():
            norm = norm_key(key)
            if norm in META_KEYS and isinstance(value, dict):
                for sub_key, sub_value in value.items():
                    meta.setdefault(norm_key(sub_key), sub_value)
            elif not isinstance(value, list):
                meta.setdefault(norm, value)
        links = body.get("links") or body.get("_links")
        if isinstance(links, dict) and "next" in links:
            nxt = links["next"]
            if isinstance(nxt, dict):
                nxt = nxt.get("href")
            if isinstance(nxt, str) or nxt is None:
                meta["next"] = nxt
        if "odatanextlink" in meta:
            meta.setdefault("next", meta["odatanextlink"])
    if headers:
        for name, key in (("x-total-count", "total"), ("x-total-pages", "totalpages")):
            value = header(headers, name)
            if value is not None:
                meta.setdefault(key, value)
    return meta


def _fingerprint(items: list[dict[str, Any]]) -> tuple[Any, ...]:
    """Cheap identity of a page: its length and the ids (or reprs) of its first and last items."""
    if not items:
        return (0,)
    first, last = items[0], items[-1]
    if isinstance(first, dict) and isinstance(last, dict) and "id" in first and "id" in last:
        return (len(items), first["id"], last["id"])
    return (len(items), repr(first), repr(last))


def as_int(value: Any) -> int | None:
    """``value`` as an int when it is one (also a digit string or an integral float), else ``None``."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.isdigit():
        return int(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def _first(meta: Mapping[str, Any], keys: tuple[str, ...]) -> Any:
    for key in keys:
        value = meta.get(key)
        if value is not None:
            return value
    return None


class Paginator(ABC):
    """Base of all paginators: reads each answer, builds the next request, and applies the common stops.

    Args:
        page_size: the page size sent as ``limit_param`` (``None``: let the server choose its default).
        limit_param: query parameter carrying the page size (``limit``, ``per_page``, ``page[size]``,
            ``$top``, ``first``, ...).
        max_pages: hard stop; more pages raise :class:`PaginationError`.
        total_path: where the total record count is (a dot path into the body or ``header:X-Total-Count``);
            ``None``: any of the usual places.

    Use: ``p.init_request(req)`` once, then per answer ``p.update_state(items, body, headers)`` and, while
    ``p.has_next``, ``p.update_request(req)``.
    """

    name: str = "base"
    #: Whether a page shorter than the page size can end the walk (true for page and offset styles).
    short_page_stops: bool = True

    def __init__(
        self,
        *,
        page_size: int | None = None,
        limit_param: str = "limit",
        max_pages: int = DEFAULT_MAX_PAGES,
        total_path: str | None = None,
    ) -> None:
        self.page_size = page_size
        self.limit_param = limit_param
        self.max_pages = max_pages
        self.total_path = total_path
        self.has_next = True
        self.pages_seen = 0
        self.records_seen = 0
        self.total: int | None = None
        #: The page count the last answer announced (``totalPages``, ``X-Total-Pages``), or ``None``.
        self.total_pages: int | None = None
        self._effective_size: int | None = page_size
        self._last_fingerprint: tuple[Any, ...] | None = None
        #: The page size asked first when the server capped it (``page_size`` is then the cap), else ``None``.
        self.capped: int | None = None

    def __repr__(self) -> str:
        return f"{type(self).__name__}(page_size={self.page_size!r})"

    @property
    def page_size_in_effect(self) -> int | None:
        """The page size the answers show: the one asked for, else what the server said or sent first."""
        return self._effective_size

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
        self._advance(items, page_metadata(body, headers), headers, body)

    def _read_total(
        self, meta: Mapping[str, Any], body: Any, headers: Mapping[str, str], items: list[Any]
    ) -> int | None:
        if self.total_path is not None:
            return as_int(get_path(body, self.total_path, headers))
        total = as_int(_first(meta, TOTAL_KEYS))
        if total is None:
            # ``count`` is the total in Django REST framework, but the page's own length elsewhere: trust it
            # only when it cannot be the page length of a full page.
            count = as_int(meta.get("count"))
            full = self._effective_size is not None and len(items) >= self._effective_size
            if count is not None and (count != len(items) or not full):
                total = count
        return total

    def update_state(
        self, items: list[dict[str, Any]], body: Any, headers: Mapping[str, str] | None = None
    ) -> None:
        """Read one answer: count it, apply the common stops, then the style's own rule (:meth:`_advance`).

        Raises :class:`PaginationError` when the page repeats the previous one or ``max_pages`` is exceeded.
        """
        headers = headers or {}
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
        meta = page_metadata(body, headers)
        total = self._read_total(meta, body, headers, items)
        if total is not None:
            self.total = total
        pages = _first(meta, TOTAL_PAGES_KEYS)
        self.total_pages = as_int(pages)
        if self._effective_size is None:
            # Page size in effect when none was requested: what the server says, else the first page's length.
            size = _first(meta, ("limit", "pagesize", "perpage", "size", "top", "first"))
            self._effective_size = as_int(size) or (len(items) or None)
        has_more = _first(meta, HAS_MORE_KEYS)
        if self.pages_seen == 1 and self.page_size and 0 < len(items) < self.page_size:
            self._learn_cap(len(items), meta, has_more)
        if not items:
            self.has_next = False
            return
        if has_more is False:
            self.has_next = False
            return
        if self.short_page_stops and self._ends_here(items, meta, has_more):
            self.has_next = False
            return
        self._advance(items, meta, headers, body)

    def _learn_cap(self, size: int, meta: Mapping[str, Any], has_more: Any) -> None:
        """A first page shorter than asked while the answer says more follow (a total not reached, more pages,
        ``has_more``, a next link): the server caps the page size at ``size``; ask that from now on
        (:attr:`capped`)."""
        more = (
            (self.total is not None and self.total > size)
            or has_more is True
            or is_link(meta.get("next"))
            or (self.total_pages is not None and self.total_pages > 1)
        )
        if more:
            self.capped = self.page_size
            self.page_size = self._effective_size = size

    def _ends_here(self, items: list[Any], meta: Mapping[str, Any], has_more: Any) -> bool:
        """Page/offset styles: the walk ends at the total, or on a short page when nothing says otherwise."""
        if self.total is not None:
            return self.records_seen >= self.total
        if has_more is True or is_link(meta.get("next")) or self.total_pages is not None:
            return False
        return self._effective_size is not None and len(items) < self._effective_size

    @abstractmethod
    def _advance(
        self, items: list[dict[str, Any]], meta: dict[str, Any], headers: Mapping[str, str], body: Any
    ) -> None:
        """Style-specific: read the answer's cursor/link/page count; set ``has_next``."""

    @abstractmethod
    def update_request(self, request: PageRequest) -> None:
        """Turn ``request`` (the previous one) into the request for the next page."""


class SinglePagePaginator(Paginator):
    """The list is complete in one answer (e.g. the real platform's ``/categories`` bare array)."""

    name = "single_page"
    short_page_stops = False

    def _advance(
        self, items: list[dict[str, Any]], meta: dict[str, Any], headers: Mapping[str, str], body: Any
    ) -> None:
        self.has_next = False

    def update_request(self, request: PageRequest) -> None:
        raise PaginationError("a single-page list has no next page")


class PageNumberPaginator(Paginator):
    """Page numbers: ``page_param`` (``page``; ``page[number]``, ``pageNumber``) counted from ``base_page``
    (1, or 0), as on the real platform's /problems, /leaderboard and a problem's /solutions. The first request
    sends no page number (the server's first page). Stops at the page count (``totalPages``,
    ``X-Total-Pages``) or the total when the server reports them, else on a short or empty page."""

    name = "page_number"

    def __init__(self, *, page_param: str = "page", base_page: int | str = 1, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if base_page not in (0, 1, "auto"):
            raise ValueError(f'base_page = {base_page!r}: choose 0, 1 or "auto"')
        self.page_param = page_param
        #: Whether the first page's number is still unknown (``base_page = "auto"``; :meth:`absorb_repeat`).
        self.unsure = base_page == "auto"
        self.base_page = 1 if self.unsure else int(base_page)
        self.page = self.base_page

    def _advance(
        self, items: list[dict[str, Any]], meta: dict[str, Any], headers: Mapping[str, str], body: Any
    ) -> None:
        stated = as_int(_first(meta, ("page", "currentpage", "pagenumber", "number")))
        if self.unsure and self.pages_seen == 1 and stated in (0, 1):
            self.unsure = False
            self.base_page = self.page = int(stated)  # type: ignore[arg-type]
        current = self.page if stated is None else stated
        if self.total_pages is not None and current - self.base_page + 1 >= self.total_pages:
            self.has_next = False

    def adopt(
        self, previous: Paginator, items: list[dict[str, Any]], body: Any, headers: Mapping[str, str]
    ) -> None:
        """As :meth:`Paginator.adopt`; a style tried after a repeated page asks page 2 at once (numbered from
        1: the first page is known, asking page 1 to tell would spend a request of the fallback)."""
        self.unsure = False
        super().adopt(previous, items, body, headers)

    def absorb_repeat(self, items: list[dict[str, Any]], shares: bool = False) -> bool:
        """``base_page = "auto"`` and the first answer stated no page number: the second request asked page 1,
        which is the second page of a list numbered from 0 and the first page again of a list numbered from 1.
        Called with that answer's records: True when they repeat the first page (numbered from 1: drop the
        answer, the next request asks page 2), False when they do not (numbered from 0: read it as page 2).
        ``shares``: the answer holds a record of the first page (the walk compares ids): also a repeat, as a
        platform that orders ties differently on each call serves the first page again in another order
        (a list numbered from 0 whose first two pages share a reshuffled tie is then read as numbered from
        1: its page 2 is skipped, and a total shows the shortfall; declare ``base_page = 0`` in a profile)."""
        if not (self.unsure and self.pages_seen == 1):
            return False
        self.unsure = False
        if shares or self.repeats(items):
            return True
        self.base_page = 0
        return False

    def announced_requests(self, request: PageRequest) -> list[PageRequest]:
        """The requests of every further page the last answer announced: from ``request`` (the next
        request, already advanced by :meth:`update_request`) to the last page (at most ``max_pages``);
        ``[]`` when the server announced no page count. Lets a caller fetch them concurrently and feed the
        answers back in order."""
        if not self.has_next or self.total_pages is None or self.unsure:
            return []
        last = min(self.total_pages - 1 + self.base_page, self.max_pages)
        return [
            PageRequest(params={**request.params, self.page_param: number})
            for number in range(self.page, last + 1)
        ]

    def update_request(self, request: PageRequest) -> None:
        self.page = 1 if self.unsure else self.page + 1  # unsure: ask page 1 (see absorb_repeat)
        request.params[self.page_param] = self.page
        request.url = None


class OffsetPaginator(Paginator):
    """Offsets: ``offset_param`` (``offset``, ``skip``, ``$skip``) = the number of records received so far,
    with the page size as ``limit_param`` (``limit``, ``take``, ``$top``); stops at the total."""

    name = "offset"

    def __init__(self, *, offset_param: str = "offset", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.offset_param = offset_param

    def init_request(self, request: PageRequest) -> None:
        super().init_request(request)
        request.params[self.offset_param] = 0

    def _advance(
        self, items: list[dict[str, Any]], meta: dict[str, Any], headers: Mapping[str, str], body: Any
    ) -> None:
        if self.total is not None and self.records_seen >= self.total:
            self.has_next = False

    def update_request(self, request: PageRequest) -> None:
        request.params[self.offset_param] = self.records_seen
        request.url = None


class CursorPaginator(Paginator):
    """A cursor sent back as ``cursor_param`` (``cursor``, ``after``, ``page_token``, ``continuation``, ...).

    ``cursor_path``: where the next cursor is -- a dot path into the body (``next_cursor``,
    ``pageInfo.endCursor``), ``"$last.<field>"`` for a field of the page's last record (Stripe's
    ``starting_after=<last id>``), or ``None``: any of :data:`CURSOR_KEYS` in the metadata. Stops when the
    cursor is missing, null or empty (or on ``has_more: false``); a cursor seen before raises
    :class:`PaginationError`."""

    name = "cursor"
    short_page_stops = False

    def __init__(
        self, *, cursor_param: str = "cursor", cursor_path: str | None = None, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.cursor_param = cursor_param
        self.cursor_path = cursor_path
        self.cursor: str | None = None
        self._seen: set[str] = set()

    def _find(self, items: list[dict[str, Any]], meta: dict[str, Any], body: Any) -> Any:
        if self.cursor_path is None:
            found = (meta[k] for k in CURSOR_KEYS if meta.get(k) not in (None, "") and not is_link(meta[k]))
            return next(found, None)
        if self.cursor_path.startswith("$last."):
            last = items[-1] if items else None
            return last.get(self.cursor_path[6:]) if isinstance(last, dict) else None
        return get_path(body, self.cursor_path)

    def _advance(
        self, items: list[dict[str, Any]], meta: dict[str, Any], headers: Mapping[str, str], body: Any
    ) -> None:
        cursor = self._find(items, meta, body)
        if cursor in (None, "") or isinstance(cursor, bool | dict | list):
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
    """Follows a next link: at ``next_url_path`` in the body (``json_link``; ``None``: ``next``,
    ``links.next``, ``_links.next.href`` or ``@odata.nextLink``), or ``rel="next"`` in a ``Link`` header
    (``header_link``); ``next_link`` takes whichever the answer carries. The link may be relative; the walk
    resolves it against the request URL. Stops when there is no link; a link seen before raises
    :class:`PaginationError`."""

    name = "next_link"
    short_page_stops = False

    def __init__(self, *, next_url_path: str | None = None, source: str = "any", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.next_url_path = next_url_path
        self.source = source
        self.name = {"body": "json_link", "header": "header_link"}.get(source, "next_link")
        self.next_url: str | None = None
        self._seen: set[str] = set()

    def _advance(
        self, items: list[dict[str, Any]], meta: dict[str, Any], headers: Mapping[str, str], body: Any
    ) -> None:
        link: Any = None
        if self.source != "header":
            link = get_path(body, self.next_url_path) if self.next_url_path else meta.get("next")
        if (not isinstance(link, str) or not link) and self.source != "body":
            link = next_link_from_header(header(headers, "link"))
        if not isinstance(link, str) or not link:
            self.has_next = False
            return
        if link in self._seen:
            raise PaginationError(f"next link {link[:80]!r} repeated after {self.pages_seen} pages")
        self._seen.add(link)
        self.next_url = link

    def update_request(self, request: PageRequest) -> None:
        request.url = self.next_url
        request.params = {}


#: Registry: paginator type -> (class, fixed options). ``next_link`` reads a body link or a Link header.
PAGINATORS: dict[str, tuple[type[Paginator], dict[str, Any]]] = {
    "page_number": (PageNumberPaginator, {}),
    "offset": (OffsetPaginator, {}),
    "cursor": (CursorPaginator, {}),
    "json_link": (NextLinkPaginator, {"source": "body"}),
    "header_link": (NextLinkPaginator, {"source": "header"}),
    "next_link": (NextLinkPaginator, {}),
    "single_page": (SinglePagePaginator, {}),
}
_ALIASES = {"page": "page_number", "link": "next_link"}
#: The options each paginator type takes (besides page_size, limit_param, max_pages, total_path).
PAGINATOR_OPTIONS: dict[str, tuple[str, ...]] = {
    "page_number": ("page_param", "base_page"),
    "offset": ("offset_param",),
    "cursor": ("cursor_param", "cursor_path"),
    "json_link": ("next_url_path",),
    "header_link": (),
    "next_link": ("next_url_path",),
    "single_page": (),
}
_COMMON_OPTIONS = ("page_size", "limit_param", "max_pages", "total_path")


def make_paginator(style: str, **options: Any) -> Paginator:
    """A paginator from its type (``page_number``, ``offset``, ``cursor``, ``json_link``, ``header_link``,
    ``next_link``, ``single_page``; ``page`` is accepted for ``page_number``) and options. Raises
    :class:`ValueError` for an unknown type or an option the type does not take."""
    key = _ALIASES.get(style, style)
    if key not in PAGINATORS:
        raise ValueError(
            f"unknown pagination style (paginator type) {style!r}; choose one of {sorted(PAGINATORS)}"
        )
    cls, fixed = PAGINATORS[key]
    allowed = PAGINATOR_OPTIONS[key] + _COMMON_OPTIONS
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise ValueError(
            f"paginator type {key!r} takes no {', '.join(unknown)} (it takes {', '.join(allowed)})"
        )
    return cls(**fixed, **options)


@dataclass(frozen=True, slots=True)
class PaginatorSpec:
    """A paginator as configuration: its ``type`` and options in dlt's rest_api vocabulary (``page_param``,
    ``base_page``, ``offset_param``, ``cursor_param``, ``cursor_path``, ``next_url_path``, ``limit_param``,
    ``total_path``). What a detector returns and a profile's ``[endpoints.<name>.paginator]`` table holds."""

    type: str
    options: Mapping[str, Any] = field(default_factory=dict)

    def build(self, *, page_size: int | None, limit_param: str, max_pages: int) -> Paginator:
        """The paginator (``limit_param`` of the spec wins over the given default)."""
        options = dict(self.options)
        options.setdefault("limit_param", limit_param)
        return make_paginator(self.type, page_size=page_size, max_pages=max_pages, **options)

    def as_toml(self) -> str:
        """Inline TOML of the spec, e.g. ``type = "cursor", cursor_param = "after"``."""
        parts = [f'type = "{self.type}"']
        for key, value in self.options.items():
            parts.append(f'{key} = "{value}"' if isinstance(value, str) else f"{key} = {value}")
        return ", ".join(parts)
