"""The page walk over a list endpoint, and the registry of the platform's list endpoints.

A :class:`PageWalk` holds the state of one walk: the next request, the paginator in use, the page-size
fallback. The clients (``client.py``) send its requests and feed each answer to :meth:`PageWalk.accept`,
which returns the :class:`~solvelens.client.pagination.Page` and prepares the next request. No HTTP here.

Style, in order: the ``style`` passed to ``iter_pages``; the client's ``pagination=`` option for the endpoint;
a style learned by an earlier walk of the same endpoint; detection from the first answer
(:func:`~solvelens.client.pagination.detect_paginator`). The style in use is logged at INFO once per endpoint.

When the style was *detected* (not declared) and a page repeats the previous one (the server ignored the
paging parameters), the walk tries the other request styles before failing: ``offset`` (``offset=<records so
far>``), then ``cursor`` or ``next_link`` when the repeated answer offers a cursor or a next link. The style
that works is remembered for the endpoint (every problem's ``/solutions`` walk then uses it from the first
request). When none works, :class:`~solvelens.client.errors.PaginationError` names the endpoint, the styles
tried and the fix (declare the style with ``pagination=``).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import httpx

from solvelens.client.errors import (
    APIStatusError,
    BadRequestError,
    PaginationError,
    QueryValidationError,
    UnprocessableEntityError,
)
from solvelens.client.pagination import (
    CURSOR_KEYS,
    Page,
    PageRequest,
    Paginator,
    detect_paginator,
    extract_items,
    make_paginator,
    next_link_from_header,
    page_metadata,
)

if TYPE_CHECKING:
    from solvelens.client.base import BaseClient

__all__ = ["KNOWN_LIST_ENDPOINTS", "ListEndpoint", "PageWalk", "endpoint_key", "endpoint_name"]

log = logging.getLogger("solvelens.client")


@dataclass(frozen=True, slots=True)
class ListEndpoint:
    """A known list endpoint: path template, the envelope key of its list, the largest page size the real
    platform accepts, and its default pagination style (``None``: detect from the first answer)."""

    path: str
    items_key: str | None
    max_page_size: int | None
    style: str | None = None


#: The paginated endpoints of the platform, keyed by the name used in ``pagination=``/``page_sizes=`` options.
KNOWN_LIST_ENDPOINTS: dict[str, ListEndpoint] = {
    "problems": ListEndpoint("/problems", "problems", 50),
    "solutions": ListEndpoint("/problems/{problem_id}/solutions", "solutions", 100),
    "leaderboard": ListEndpoint("/leaderboard", "bots", 100),
    "categories": ListEndpoint("/categories", "categories", None, "single_page"),
}

_ID_SEGMENT = re.compile(r"^[0-9a-fA-F-]{8,}$|^\d+$")

#: Styles tried, in order, when a detected style's second page repeats the first.
_FALLBACK_ORDER = ("offset", "cursor", "next_link")


def endpoint_key(path: str) -> str:
    """Template of a path for per-endpoint settings: ``/problems/abc-123/solutions`` ->
    ``/problems/{id}/solutions``."""
    return "/".join("{id}" if _ID_SEGMENT.match(seg) else seg for seg in path.split("/"))


def endpoint_name(endpoint: str) -> str | None:
    """Name of a known list endpoint (``problems``, ``solutions``, ...) for a path, or ``None``."""
    key = endpoint_key(endpoint)
    for name, ep in KNOWN_LIST_ENDPOINTS.items():
        if endpoint_key(ep.path.replace("{problem_id}", "{id}")) == key:
            return name
    return None


def _offered_styles(body: Any, headers: Mapping[str, str]) -> set[str]:
    """Request styles an answer makes possible besides page numbers: always ``offset``; ``cursor`` when it
    carries a next cursor; ``next_link`` when it carries a next link (body or ``Link`` header)."""
    offered = {"offset"}
    meta = page_metadata(body)
    nxt = meta.get("next")
    link = isinstance(nxt, str) and nxt.startswith(("http://", "https://", "/", "?"))
    if any(meta.get(key) not in (None, "", False, True) for key in CURSOR_KEYS if key != "next") or (
        isinstance(nxt, str) and nxt and not link
    ):
        offered.add("cursor")
    if link or next_link_from_header(headers.get("link") or headers.get("Link")):
        offered.add("next_link")
    return offered


class PageWalk:
    """State of one walk over a list endpoint: the next request, the paginator, the page-size fallback and
    the style fallback (see the module docstring).

    ``client`` supplies ``limit_param``, ``max_pages`` and the per-client memory of rejected page sizes and
    learned styles. ``key`` names the endpoint in that memory (``solutions`` for every problem's solutions).
    """

    def __init__(
        self,
        client: BaseClient,
        path: str,
        params: Mapping[str, Any] | None,
        *,
        page_size: int | None,
        style: str | Paginator | None,
        items_key: str | None,
        key: str,
    ) -> None:
        self.client = client
        self.path = path
        known = KNOWN_LIST_ENDPOINTS.get(key)
        self.template = known.path.replace("{problem_id}", "{id}") if known else endpoint_key(path)
        self.key = key
        self.items_key = items_key
        self.limit_param = client.limit_param
        if key in client._rejected_page_sizes:
            page_size = None
        self.page_size = page_size
        self.base_params = {k: v for k, v in (params or {}).items() if v is not None}
        self.request = PageRequest(params=dict(self.base_params))
        learned = client._learned_styles.get(key) if style is None else None
        #: Whether the style was detected from the answers (then other styles are tried on a repeated page).
        self.detected = style is None and learned is None
        self.tried: list[str] = []
        self.paginator: Paginator | None
        if isinstance(style, Paginator):
            self.paginator = style
        elif style is not None or learned is not None:
            self.paginator = self._make(str(style or learned))
            self._announce(f"{self.paginator.name} pagination" + (" (learned)" if learned else " (declared)"))
        else:
            self.paginator = None
        if self.paginator is not None:
            self.paginator.init_request(self.request)
        elif page_size is not None:
            self.request.params[self.limit_param] = page_size
        self.number = 0
        self.offset = 0
        self.done = False

    def _make(self, style: str) -> Paginator:
        return make_paginator(
            style, page_size=self.page_size, limit_param=self.limit_param, max_pages=self.client.max_pages
        )

    def _announce(self, what: str) -> None:
        """Log the endpoint's style at INFO, once per endpoint and client."""
        if self.key not in self.client._announced_styles:
            self.client._announced_styles.add(self.key)
            log.info("GET %s: %s", self.template, what)

    def fall_back(self, exc: APIStatusError) -> bool:
        """On the first page, a rejected page size (400/422, or a validation 500 naming the limit parameter)
        is dropped so the server's default applies; returns True when the request should be sent again."""
        if self.number > 0 or self.limit_param not in self.request.params:
            return False
        if not isinstance(exc, BadRequestError | UnprocessableEntityError | QueryValidationError):
            return False
        if not exc.mentions(self.limit_param):
            return False
        log.warning(
            "%s rejected %s=%s (%s); using the server's default page size",
            self.path,
            self.limit_param,
            self.request.params[self.limit_param],
            exc.message[:120],
        )
        self.client._rejected_page_sizes.add(self.key)
        self.page_size = None
        if self.paginator is not None:
            self.paginator.drop_page_size(self.request)
        else:
            self.request.params.pop(self.limit_param, None)
        return True

    def accept(self, body: Any, headers: Mapping[str, str], url: httpx.URL) -> Page | None:
        """Read one answer; return its :class:`Page` and prepare the next request (or mark the walk done).

        Returns ``None`` when the answer repeated the previous page and the walk switched to another request
        style: send :attr:`request` again and feed its answer here. Raises :class:`PaginationError` (naming
        the endpoint and the fix) when no style gets past a repeated page.
        """
        items = extract_items(body, self.items_key)
        if self.paginator is None:
            self.paginator = detect_paginator(
                body,
                headers,
                page_size=self.page_size,
                limit_param=self.limit_param,
                max_pages=self.client.max_pages,
            )
            self._announce(f"{self.paginator.name} pagination (detected from the first answer)")
        if self.number > 0 and self.paginator.repeats(items):
            if self.detected and self._switch_style(items, body, headers):
                return None
            tried = ", ".join(self.tried or [self.paginator.name])
            raise PaginationError(
                f"GET {self.template}: page {self.number + 1} repeats page {self.number} with {tried} "
                "pagination: the server ignores these paging parameters; declare the style of this "
                f"endpoint, e.g. pagination={{{self.key!r}: 'cursor'}} (one of page_number, offset, cursor, "
                "next_link)"
            )
        used = PageRequest(params=dict(self.request.params), url=self.request.url)
        try:
            self.paginator.update_state(items, body, headers)
        except PaginationError as exc:
            raise PaginationError(f"GET {self.template}: {exc}") from None
        self.number += 1
        page = Page(
            items=items,
            total=self.paginator.total,
            number=self.number,
            offset=self.offset,
            request=used,
            body=body,
        )
        self.offset += len(items)
        if self.paginator.has_next:
            self.paginator.update_request(self.request)
            if self.request.url is not None:
                self.request.url = str(url.join(self.request.url))
        else:
            self.done = True
        return page

    def _switch_style(self, items: list[dict[str, Any]], body: Any, headers: Mapping[str, str]) -> bool:
        """Replace the paginator by the next untried style the repeated answer allows; prepare its request.
        Returns False when no style is left."""
        assert self.paginator is not None
        failed = self.paginator
        self.tried.append(failed.name)
        offered = _offered_styles(body, headers)
        for style in _FALLBACK_ORDER:
            if style in self.tried or style not in offered:
                continue
            candidate = self._make(style)
            candidate.adopt(failed, items, body, headers)
            if not candidate.has_next:
                continue
            request = PageRequest(params=dict(self.base_params))
            candidate.init_request(request)
            candidate.update_request(request)
            if request.url is not None:
                request.url = str(httpx.URL(self.client._url(self.path)).join(request.url))
            log.info(
                "GET %s: page %d repeated page %d with %s pagination (the server ignores %s); switching to "
                "%s pagination",
                self.template,
                self.number + 1,
                self.number,
                failed.name,
                ", ".join(sorted(set(self.request.params) - set(self.base_params) - {self.limit_param}))
                or "its parameters",
                style,
            )
            self.paginator = candidate
            self.request = request
            self.client._learned_styles[self.key] = style
            self.client._announced_styles.add(self.key)
            return True
        return False
