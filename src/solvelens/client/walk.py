"""The page walk over a list endpoint: detection, the style fallback on a repeated page, the page-size
fallback.

A :class:`PageWalk` holds the state of one walk: the next request, the paginator in use, the page-size
fallback. The clients (``client.py``) send its requests and feed each answer to :meth:`PageWalk.accept`,
which returns the :class:`~solvelens.client.pagination.Page` (records in the canonical form,
:mod:`solvelens.client.records`) and prepares the next request. No HTTP here.

What the client knows about the endpoint is its :class:`~solvelens.client.memory.EndpointState` (handed to
each walk; walks never touch the client); where the records are in each answer is
:func:`~solvelens.client.locate.read_records`'s.

Paginator, in order: the ``style`` passed to ``iter_pages`` or the client's ``pagination=`` option; the
profile's ``[endpoints.<name>.paginator]``; a style learned by an earlier walk of the same endpoint; detection
from the first answer (:func:`~solvelens.client.detect.candidates`). The style in use is logged at INFO once
per endpoint.

When the style was *detected* (not declared) and a page repeats the previous one (the server ignored the
paging parameters), the walk tries the next candidate the same detectors find in the repeated answer (an
offset, a cursor or a next link it offers), spending at most
:data:`~solvelens.client.detect.MAX_DETECTION_REQUESTS` extra requests per endpoint. The style that works is
remembered for the endpoint (every problem's ``/solutions`` walk then uses it from the first request). When
none works, :class:`~solvelens.client.errors.PaginationError` names the endpoint, the styles tried and the
profile line that fixes it.

Ties served in another order on every call (the real platform orders equal points or scores at random:
real-platform-notes §13, §15) make a tie group that spans a page boundary read some of its records twice
and miss others, since each page is its own query. A walk therefore hands out each record once (by its id,
:meth:`PageWalk._identity`; a record without an id by its whole content, so two identical id-less records
are one) and remembers which pages held a record read twice. When the records read are fewer than the
announced total (or, where none is announced, than the records the pages served: :attr:`PageWalk.expected`),
the client reads those pages again (:meth:`PageWalk.next_round`, at most :data:`MAX_TIE_ROUNDS` rounds) and
hands out what they add; a list still short after that is walked once more from the start (a list that
moved), and then raises
:class:`~solvelens.client.errors.IncompleteListError`: never padded, never repeated.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import httpx

from solvelens.client.detect import (
    MAX_DETECTION_REQUESTS,
    Answer,
    Detection,
    bare_envelope,
    candidates,
)
from solvelens.client.endpoints import ENDPOINTS, endpoint_key
from solvelens.client.errors import (
    APIStatusError,
    BadRequestError,
    IncompleteListError,
    PaginationError,
    QueryValidationError,
    UnprocessableEntityError,
)
from solvelens.client.locate import read_records, shape
from solvelens.client.memory import EndpointState
from solvelens.client.pagination import (
    Page,
    PageNumberPaginator,
    PageRequest,
    Paginator,
    PaginatorSpec,
    get_path,
)

__all__ = ["CLEAR", "MAX_TIE_ROUNDS", "PageWalk", "endpoint_key"]

log = logging.getLogger("solvelens.client")


#: Confidence from which a detection wins over an endpoint's default style.
CLEAR = 0.5
#: Rounds of re-reads of a short list's tie pages (:meth:`PageWalk.next_round`). A tie group of G records
#: whose pages hold s_1..s_k of them (sum G) is reshuffled on every call, so one read of those pages misses a
#: given record with probability prod(1 - s_j/G) <= exp(-1) ~ 0.37, independently per round: after the walk
#: and 15 rounds at most exp(-16) ~ 1.1e-7, so a tie group of 10,000 records is read whole 99.9 % of the
#: time or better (1,000 bots at 0 points over 10 pages of 100: a read misses a bot with probability
#: 0.9^10 ~ 0.35, and the group is whole after about 8 reads). A round costs one request per tie page and
#: stops as soon as the list is whole; the bound is spent only on a list that never serves a record (then
#: IncompleteListError).
MAX_TIE_ROUNDS = 15


def _setting(state: EndpointState, key: str) -> str:
    return f"[endpoints.{state.name}] {key}"


class PageWalk:
    """State of one walk over a list endpoint: the next request, the paginator, the page-size fallback and
    the style fallback (see the module docstring).

    Args:
        state: the endpoint's :class:`EndpointState` (from the client's :class:`EndpointMemory`).
        path: the path walked (relative to the base URL). ``url``: its absolute URL (relative next links are
            resolved against the answers' URLs, a fallback's first request against this).
        params: the endpoint's query parameters. ``page_size``: size to ask for (``None``: server default).
        style: a paginator type or instance that overrides everything else (``None``: see the module).
        items_key: the real platform's envelope key of the list. ``limit_param``, ``max_pages``: defaults.
        default_style: the style to use when detection finds nothing clear (:data:`CLEAR`).
    """

    def __init__(
        self,
        state: EndpointState,
        path: str,
        params: Mapping[str, Any] | None,
        *,
        url: str,
        page_size: int | None,
        style: str | Paginator | None,
        items_key: str | None,
        limit_param: str = "limit",
        max_pages: int = 1_000_000,
        default_style: str | None = None,
    ) -> None:
        self.state = state
        self.default_style = default_style
        self.path = path
        self.url = url
        self._given = (params, page_size, items_key, limit_param, max_pages)
        #: Identities of the records handed out -> the index (0-based) of the page that first held each.
        self.seen: dict[Any, int] = {}
        #: The request of each page of this walk, by index (what :meth:`next_round` sends again).
        self._requests: list[PageRequest] = []
        #: Indexes of the pages a tie group read twice spans (from a record's first page to its repeat's).
        self._tie_pages: set[int] = set()
        #: Records this walk's pages served again (a tie group reshuffled between pages, or a moved list).
        self.duplicates = 0
        #: Rounds of tie re-reads done, and the pages they read again.
        self.rounds = 0
        self.rereads = 0
        known = ENDPOINTS.get(state.name)
        self.template = known.path if known else endpoint_key(path)
        self.key = state.name
        self.items_key = items_key
        self.limit_param = limit_param
        self.max_pages = max_pages
        if state.page_size is not None and style is None:
            page_size = state.page_size
        if state.page_size_rejected:
            page_size = None
        self.page_size = page_size
        self.base_params = {k: v for k, v in (params or {}).items() if v is not None}
        self.request = PageRequest(params=dict(self.base_params))
        spec = state.paginator if style is None else None
        #: Whether the style was detected from the answers (then other styles are tried on a repeated page).
        self.detected = style is None and spec is None
        self.tried: list[PaginatorSpec] = []
        #: Whether the paginator was just switched to by detection and has not yet read a new page: while it
        #: is, a page starting with a record already handed out is a repeat (the server ignored the guessed
        #: offset parameter, and perhaps honoured its size parameter: the same records, another page size).
        self.probing = False
        #: The paginator in use as configuration (``None`` for a paginator instance passed in, or before the
        #: first answer of a detected walk).
        self.spec: PaginatorSpec | None = None
        self.paginator: Paginator | None
        if isinstance(style, Paginator):
            self.paginator = style
        elif style is not None:
            self.spec = PaginatorSpec(style)
            self.paginator = self._make(self.spec)
            self._announce(f"{self.paginator.name} pagination (declared)")
        elif spec is not None:
            self.spec = spec
            self.paginator = self._make(spec)
            how = "declared in the profile" if state.paginator_declared else "learned"
            self._announce(f"{self.paginator.name} pagination ({how})")
        else:
            self.paginator = None
        if self.paginator is not None:
            self.paginator.init_request(self.request)
        elif page_size is not None:
            self.request.params[self.limit_param] = page_size
        self.number = 0
        self.offset = 0
        self.done = False

    def _make(self, spec: PaginatorSpec) -> Paginator:
        options = dict(spec.options)
        if self.state.total_path is not None:
            options.setdefault("total_path", self.state.total_path)
        try:
            return PaginatorSpec(spec.type, options).build(
                page_size=self.page_size, limit_param=self.limit_param, max_pages=self.max_pages
            )
        except ValueError as exc:
            raise PaginationError(f"GET {self.template}: [endpoints.{self.key}.paginator]: {exc}") from None

    def _announce(self, what: str) -> None:
        """Log the endpoint's style at INFO, once per endpoint and client."""
        if not self.state.announced:
            self.state.announced = True
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
        self.state.page_size_rejected = True
        self.page_size = None
        if self.paginator is not None:
            self.paginator.drop_page_size(self.request)
        else:
            self.request.params.pop(self.limit_param, None)
        return True

    def records(self, body: Any) -> list[Any]:
        """The records of an answer in the canonical form (:func:`read_records`)."""
        return read_records(self.state, body, self.items_key, self.template)

    def accept(self, body: Any, headers: Mapping[str, str], url: httpx.URL) -> Page | None:
        """Read one answer; return its :class:`Page` and prepare the next request (or mark the walk done).

        Returns ``None`` when the answer repeated the previous page and the walk switched to another request
        style: send :attr:`request` again and feed its answer here. Raises :class:`PaginationError` (naming
        the endpoint and the profile line that fixes it) when no style gets past a repeated page, or when a
        profile setting does not fit the answer.
        """
        items = self.records(body)
        if self.paginator is None:
            best = self._detect(body, headers, items)
            self.tried.append(best.spec)
            self.spec = best.spec
            self.paginator = self._make(best.spec)
            self._announce(f"{self.paginator.name} pagination (detected from the first answer)")
        elif (
            self.number == 0
            and self.state.total_path is not None
            and get_path(body, self.state.total_path, headers) is None
        ):
            raise PaginationError(
                f"GET {self.template}: the profile's {_setting(self.state, 'total_path')} = "
                f"{self.state.total_path!r} is not in the answer ({shape(body)}); fix or remove it"
            )
        if self.number > 0 and isinstance(self.paginator, PageNumberPaginator):
            unsure = self.paginator.unsure and self.number == 1
            shares = unsure and any(self._identity(item) in self.seen for item in items)
            if self.paginator.absorb_repeat(items, shares):  # page 1 was the first page again: from 1
                self.paginator.update_request(self.request)
                return None
            if self.paginator.base_page == 0 and self.number == 1:
                log.debug("GET %s: pages numbered from 0 (page 1 is the second)", self.template)
        if self.number > 0 and (self.paginator.repeats(items) or self._probe_repeats(items)):
            if self.detected and self._switch_style(items, body, headers):
                return None
            raise PaginationError(self._repeat_message())
        self.probing = False
        used = PageRequest(params=dict(self.request.params), url=self.request.url)
        try:
            self.paginator.update_state(items, body, headers)
        except PaginationError as exc:
            raise PaginationError(f"GET {self.template}: {exc}") from None
        self._requests.append(used)
        fresh = self._fresh(items, self.number)
        self.number += 1
        page = Page(
            items=fresh,
            total=self.paginator.total,
            number=self.number,
            offset=self.offset,
            request=used,
            body=body,
            headers=headers,
        )
        self.offset += len(fresh)
        self._prepare_next(url)
        return page

    def _detect(self, body: Any, headers: Mapping[str, str], items: list[Any]) -> Detection:
        """The style of a detected walk from its first answer: the best :func:`candidates` (a bare envelope
        without paging hints: :func:`bare_envelope`, the same without ranking every detector), or the
        endpoint's default style when none is clear (:data:`CLEAR`)."""
        best = bare_envelope(body, headers, self.items_key)
        if best is None:
            best = candidates(Answer(body, headers, self.request.params, items, self.page_size))[0]
        if self.default_style is not None and best.confidence < CLEAR:
            best = Detection(PaginatorSpec(self.default_style), 1.0, "the endpoint's default")
        return best

    def _fresh(self, items: list[Any], index: int | None) -> list[Any]:
        """The records of ``items`` not handed out before (in order), now marked as handed out. ``index``: the
        page of this walk they come from (a record seen before marks the pages from its first page to this
        one as tie pages), ``None`` for a page of another walk."""
        fresh: list[Any] = []
        for item in items:
            ident = self._identity(item)
            first = self.seen.get(ident)
            if first is None:
                self.seen[ident] = -1 if index is None else index
                fresh.append(item)
                continue
            if index is None or first < 0:
                continue
            if self.rounds == 0:
                self.duplicates += 1
            self._tie_pages.update(range(min(first, index), max(first, index) + 1))
        return fresh

    def _prepare_next(self, url: httpx.URL) -> None:
        """The next request (a page size the server capped is asked as capped), or the walk is done."""
        paginator = self.paginator
        assert paginator is not None
        if paginator.capped is not None and self.number == 1:
            log.info(
                "GET %s: the server caps the page size at %d (asked %d); asking %d from now on",
                self.template,
                paginator.page_size,
                paginator.capped,
                paginator.page_size,
            )
        if not paginator.has_next:
            self.done = True
            return
        paginator.update_request(self.request)
        limit = paginator.limit_param
        if paginator.capped is not None and self.request.url is None and limit in self.request.params:
            self.request.params[limit] = paginator.page_size
        if self.request.url is not None:
            self.request.url = str(url.join(self.request.url))

    def _probe_repeats(self, items: list[Any]) -> bool:
        """While probing a switched style: whether the page starts with a record already handed out."""
        return self.probing and bool(items) and self._identity(items[0]) in self.seen

    def _identity(self, record: Any) -> Any:
        key = self.state.records.canonical_id if self.state.records is not None else "id"
        if isinstance(record, dict) and isinstance(record.get(key), str | int):
            return record[key]
        return repr(record)

    @property
    def announced(self) -> int | None:
        """The list's total as the platform announced it (body or headers), or ``None``."""
        return None if self.paginator is None else self.paginator.total

    @property
    def expected(self) -> int | None:
        """The records the list holds as far as this walk can tell: the announced total, else, when its pages
        served a record twice, the records they served (each page is a window of the list, so a record served
        twice took the place of one not served: the real platform's ``/problems/{id}/solutions`` announces no
        total); ``None`` when neither is known."""
        if self.announced is not None:
            return self.announced
        if self.duplicates and self.paginator is not None:
            return self.paginator.records_seen
        return None

    @property
    def short(self) -> bool:
        """Whether the walk ended with fewer distinct records than :attr:`expected`."""
        total = self.expected
        return self.done and total is not None and self.offset < total

    def next_round(self) -> list[tuple[int, PageRequest]]:
        """The pages to read again in the next round of tie re-reads, as ``(index, request)`` in page order
        (feed each answer to :meth:`absorb`); ``[]`` when the list is whole, no page served a record twice, or
        :data:`MAX_TIE_ROUNDS` rounds are done. Send each only while :attr:`short` (a round stops early)."""
        if not self.short or not self._tie_pages or self.rounds >= MAX_TIE_ROUNDS:
            return []
        self.rounds += 1
        self.state.tie_rounds += 1
        return [(i, self._requests[i]) for i in sorted(self._tie_pages) if i < len(self._requests)]

    def absorb(self, index: int, body: Any, headers: Mapping[str, str]) -> Page | None:
        """Read a tie re-read's answer of page ``index``: its records this walk has not handed out, as a page
        placed after what it read (``None`` when there are none). Records it repeats from other pages widen
        the tie pages of the next round."""
        self.rereads += 1
        self.state.rereads += 1
        items = self.records(body)
        new = self._fresh(items, index)
        total = self.paginator.total if self.paginator is not None else None
        if not self.short:
            self._log_ties()
        return self._extra(new, total, self._requests[index], body, headers)

    def _log_ties(self) -> None:
        log.info(
            "GET %s: %d record(s) read twice (ties served in another order on each call); %d re-read(s) of "
            "the pages the ties span in %d round(s) found the rest",
            self.template,
            self.duplicates,
            self.rereads,
            self.rounds,
        )

    def again(self) -> PageWalk:
        """A fresh walk of the same list with the style this one used (the re-walk of a short list: feed its
        pages to :meth:`missing`)."""
        params, page_size, items_key, limit_param, max_pages = self._given
        style = self.spec.type if self.spec is not None and not self.detected else None
        return PageWalk(
            self.state,
            self.path,
            params,
            url=self.url,
            page_size=page_size,
            style=style,
            items_key=items_key,
            limit_param=limit_param,
            max_pages=max_pages,
            default_style=self.default_style,
        )

    def missing(self, page: Page) -> Page | None:
        """The records of a re-walk's ``page`` this walk has not handed out, as a page placed after what it
        read (``None`` when there are none)."""
        return self._extra(self._fresh(page.items, None), page.total, page.request, page.body, page.headers)

    def _extra(
        self,
        new: list[Any],
        total: int | None,
        request: PageRequest,
        body: Any,
        headers: Mapping[str, str],
    ) -> Page | None:
        """``new`` records (already marked handed out) as a page after what this walk read, else ``None``."""
        if not new:
            return None
        extra = Page(new, total, self.number + 1, self.offset, request, body, headers)
        self.number += 1
        self.offset += len(new)
        return extra

    def check_whole(self, rewalk: PageWalk) -> None:
        """After a re-walk: raise :class:`IncompleteListError` when the records read (both walks) are still
        fewer than the total the platform announces now (the re-walk's, else this walk's :attr:`expected`)."""
        total = rewalk.announced if rewalk.announced is not None else self.expected
        if total is not None and self.offset < total:
            raise IncompleteListError(
                self.template,
                announced=total,
                read=self.offset,
                rereads=self.rereads,
                served=self.announced is None and rewalk.announced is None,
            )

    def _repeat_message(self) -> str:
        assert self.paginator is not None
        tried = ", ".join(dict.fromkeys([s.type for s in self.tried] or [self.paginator.name]))
        return (
            f"GET {self.template}: page {self.number + 1} repeats page {self.number} with {tried} "
            "pagination: the server ignores these paging parameters; add to your profile: "
            f'[endpoints.{self.key}.paginator] type = "cursor", cursor_param = "<the parameter the API '
            'documents>" (or type = "page_number" with page_param, "offset" with offset_param, "json_link" '
            f"with next_url_path; in Python: pagination={{{self.key!r}: 'cursor'}})"
        )

    def _switch_style(self, items: list[dict[str, Any]], body: Any, headers: Mapping[str, str]) -> bool:
        """Replace the paginator by the best untried candidate the repeated answer allows; prepare its
        request. Returns False when none is left or the endpoint's detection budget is spent."""
        assert self.paginator is not None
        failed = self.paginator
        answer = Answer(body, headers, self.request.params, items, self.page_size)
        for detection in candidates(answer):
            if self.state.detection_requests >= MAX_DETECTION_REQUESTS:
                return False
            if detection.spec in self.tried or detection.spec.type == "single_page":
                continue
            self.tried.append(detection.spec)
            candidate = self._make(detection.spec)
            candidate.adopt(failed, items, body, headers)
            if not candidate.has_next:
                continue
            request = PageRequest(params=dict(self.base_params))
            candidate.init_request(request)
            candidate.update_request(request)
            if request.url is not None:
                request.url = str(httpx.URL(self.url).join(request.url))
            log.info(
                "GET %s: page %d repeated page %d with %s pagination (the server ignores %s); switching to "
                "%s pagination",
                self.template,
                self.number + 1,
                self.number,
                failed.name,
                ", ".join(sorted(set(self.request.params) - set(self.base_params) - {self.limit_param}))
                or "its parameters",
                candidate.name,
            )
            self.state.detection_requests += 1
            self.probing = True
            self.paginator = candidate
            self.request = request
            self.state.paginator = detection.spec
            self.spec = detection.spec
            self.state.announced = True
            return True
        return False
