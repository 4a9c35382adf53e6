"""Detection of an endpoint's pagination from an answer: small pure detector functions, one list of them.

Each detector looks at one :class:`Answer` (the decoded body, the headers, the query parameters the
request sent, the records found) and returns a :class:`Detection` -- a
:class:`~solvelens.client.pagination.PaginatorSpec` with its parameter names, a confidence between 0 and 1
and the reason -- or ``None`` when it sees nothing of its style. :func:`candidates` runs :data:`DETECTORS`
and ranks what they found; the page walk builds the best one for the first page and, when a detected
style's next page repeats the previous one (the server ignored the parameters), tries the next candidate of
the same ranked list on the repeated answer (at most :data:`MAX_DETECTION_REQUESTS` extra requests per
endpoint). To teach the client a new convention, add a detector here and a recorded answer to
``tests/client/test_detect.py``.

Detectors (confidence): ``header_link`` (0.95) ``Link: <...>; rel="next"``; ``json_link`` (0.9) a URL at
``next``, ``links.next``, ``_links.next.href``, ``@odata.nextLink``, ``next_url``, ``paging.next``, ...;
``relay_connection`` (0.9) ``pageInfo.endCursor`` -> cursor ``after`` with ``first``; ``cursor_token`` (0.85)
``next_cursor``, ``nextPageToken``, ``next_token``, ``continuation``, a ``next`` token -> the matching
request parameter; ``stripe_list`` (0.85) ``{"object": "list", "has_more"}`` -> ``starting_after=<last id>``;
``offset_fields`` (0.8) ``offset``/``skip``/``$skip``, ``start`` with ``rows``, ``from`` with ``size``;
``page_fields`` (0.8) ``page``, ``page[number]``, ``totalPages``, ``X-Total-Pages`` (0-based when the first
page says 0); ``complete_list`` (0.3) a bare list shorter than asked -> single page; ``page_guess`` (0.2)
nothing: page numbers (the real platform's solutions); ``offset_guess`` (0.1-0.06) offsets under each common
vocabulary (``offset``/``limit``, ``skip``/``take``, ``$skip``/``$top``, ``start``/``rows``,
``from``/``size``); ``cursor_alternative`` (0.05) a found cursor under other parameter names.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from solvelens.client.locate import find_records
from solvelens.client.pagination import (
    DEFAULT_MAX_PAGES,
    META_KEYS,
    Paginator,
    PaginatorSpec,
    get_path,
    header,
    is_link,
    next_link_from_header,
    norm_key,
    page_metadata,
)

__all__ = [
    "DETECTORS",
    "MAX_DETECTION_REQUESTS",
    "OFFSET_VOCABULARIES",
    "Answer",
    "Detection",
    "Detector",
    "bare_envelope",
    "candidates",
    "detect_paginator",
    "size_param",
    "total_source",
]

log = logging.getLogger(__name__)

#: Most extra requests detection may spend on one endpoint (trying another style after a repeated page).
#: 6: the page-number guess's repeat, then offsets under each common vocabulary (:data:`OFFSET_VOCABULARIES`)
#: when nothing in the answers names one (a bare list with its total only in ``X-Total-Count``).
MAX_DETECTION_REQUESTS = 6
#: The common offset vocabularies (offset parameter -> page-size parameter), in the order they are guessed:
#: ``offset``/``limit``, ``skip``/``take`` (NestJS, Prisma), ``$skip``/``$top`` (OData), ``start``/``rows``
#: (Solr), ``from``/``size`` (Elasticsearch).
OFFSET_VOCABULARIES: dict[str, str] = {
    "offset": "limit",
    "skip": "take",
    "$skip": "$top",
    "start": "rows",
    "from": "size",
}


@dataclass(frozen=True, slots=True)
class Answer:
    """One answer of a list endpoint as the detectors see it: ``body`` (decoded JSON), ``headers``,
    ``params`` (the query parameters the request sent), ``items`` (the records found in it) and ``page_size``
    (the size asked for, or ``None``)."""

    body: Any
    headers: Mapping[str, str] = field(default_factory=dict)
    params: Mapping[str, Any] = field(default_factory=dict)
    items: list[Any] = field(default_factory=list)
    page_size: int | None = None

    @property
    def meta(self) -> dict[str, Any]:
        """The answer's normalised paging metadata (:func:`~solvelens.client.pagination.page_metadata`)."""
        return page_metadata(self.body, self.headers)


@dataclass(frozen=True, slots=True)
class Detection:
    """What a detector found: the paginator ``spec``, a ``confidence`` in 0..1 and a short ``reason``."""

    spec: PaginatorSpec
    confidence: float
    reason: str


Detector = Callable[[Answer], "Detection | list[Detection] | None"]


_LIMIT_KEYS = frozenset({"perpage", "pagesize", "size", "limit", "take", "top", "pagelimit"})


def _limit_param(answer: Answer, default: str = "limit") -> str:
    """The page-size parameter the answer's metadata names (``per_page``, ``pageSize``, ``page[size]``...)."""
    if not isinstance(answer.body, dict):
        return default
    for key, value in _meta_items(answer.body):
        if norm_key(key) in _LIMIT_KEYS and not isinstance(value, dict | list):
            return _param_name(key, answer.body)
    return default


def _meta_items(body: dict[str, Any]) -> list[tuple[str, Any]]:
    """``(key, value)`` of the body's top level and of its metadata objects, as sent (not normalised); the
    keys of a ``page`` object are the request's ``page[...]`` parameters (JSON:API: ``page[number]``)."""
    out = list(body.items())
    for key, value in body.items():
        if norm_key(key) in META_KEYS and isinstance(value, dict):
            for sub, sub_value in value.items():
                if norm_key(key) == "page":
                    out.append((f"page[{sub}]", sub_value))
                elif norm_key(sub) == "page" and isinstance(sub_value, dict):  # JSON:API meta.page
                    out.extend((f"page[{k}]", v) for k, v in sub_value.items())
                else:
                    out.append((sub, sub_value))
    return out


def _param_name(key: str, body: dict[str, Any]) -> str:
    """The request parameter for a metadata key (as sent)."""
    return key


# -- detectors ---------------------------------------------------------------------------------------------


def header_link(answer: Answer) -> Detection | None:
    """``Link: <url>; rel="next"`` (RFC 8288, e.g. GitHub): follow the header's next link."""
    if next_link_from_header(header(answer.headers, "link")):
        return Detection(PaginatorSpec("header_link"), 0.95, 'Link header with rel="next"')
    return None


#: Dot paths of a next link in a body, in order of preference.
NEXT_URL_PATHS: tuple[str, ...] = (
    "@odata.nextLink",
    "_links.next.href",
    "links.next.href",
    "links.next",
    "next",
    "next_url",
    "nextUrl",
    "next_page_url",
    "nextPageUrl",
    "nextLink",
    "paging.next",
    "pagination.next",
    "pagination.next_url",
    "meta.next",
)


def json_link(answer: Answer) -> Detection | None:
    """A URL (absolute or relative) for the next page in the body: ``next`` (Django REST framework),
    ``links.next`` (JSON:API), ``_links.next.href`` (HAL), ``@odata.nextLink`` (OData), ... A ``null`` there
    with links beside it is the same style on its last page."""
    body = answer.body
    if not isinstance(body, dict):
        return None
    paths = [p for p in NEXT_URL_PATHS if p in body or p.split(".", 1)[0] in body]
    for path in paths:
        value = get_path(body, path)
        if is_link(value):
            return Detection(PaginatorSpec("json_link", {"next_url_path": path}), 0.9, f"next link at {path}")
    for path in paths:
        if _present_null(body, path):
            spec = PaginatorSpec("json_link", {"next_url_path": path})
            return Detection(spec, 0.6, f"{path} is null (the last page)")
    return None


def _present_null(body: dict[str, Any], path: str) -> bool:
    head, _, last = path.rpartition(".")
    parent = get_path(body, head) if head else body
    return isinstance(parent, dict) and last in parent and parent[last] is None


def relay_connection(answer: Answer) -> Detection | None:
    """A Relay connection (``edges[].node``, ``pageInfo.endCursor``/``hasNextPage``): ``first``/``after``."""
    body = answer.body
    if not isinstance(body, dict):
        return None
    selector, _ = _records_path(body)
    container_path = selector.rsplit(".", 1)[0] if "." in selector else ""
    info_path = f"{container_path}.pageInfo" if container_path else "pageInfo"
    info = get_path(body, info_path)
    if isinstance(info, dict) and ("endCursor" in info or "hasNextPage" in info):
        options = {"cursor_param": "after", "cursor_path": f"{info_path}.endCursor", "limit_param": "first"}
        return Detection(PaginatorSpec("cursor", options), 0.9, f"Relay {info_path}.endCursor")
    return None


def _records_path(body: Any) -> tuple[str, list[Any]]:
    try:
        return find_records(body)
    except Exception:  # a body without records has no connection
        return "$", []


#: Normalised cursor key -> the request parameter it is sent back as (``None``: the key's own name).
_CURSOR_PARAMS: dict[str, str | None] = {
    "nextcursor": "cursor",
    "cursornext": "cursor",
    "nextpagetoken": None,
    "nexttoken": None,
    "continuationtoken": None,
    "continuation": None,
    "next": "cursor",
}


def _token_param(key: str) -> str:
    """``nextPageToken`` -> ``pageToken``, ``next_page_token`` -> ``page_token``, others as sent."""
    if norm_key(key) == "nexttoken":
        return key  # AWS: NextToken / next_token is sent back under its own name
    if key.startswith("next_"):
        return key[5:]
    if key.startswith("next") and key[4:5].isupper():
        return key[4].lower() + key[5:]
    if key.startswith("Next") and key[4:5].isupper():
        return key[4:]
    return key


def _cursor_fields(body: dict[str, Any]) -> list[tuple[str, str, Any]]:
    """``(dot path, normalised key, value)`` of every cursor-like field with a value in the body's top level
    or its metadata objects (``meta.next_cursor``, ``paging.cursors.after``)."""
    found: list[tuple[str, str, Any]] = []
    for key, value in body.items():
        norm = norm_key(key)
        if norm in _CURSOR_PARAMS and value not in (None, "") and not isinstance(value, dict | list | bool):
            found.append((key, norm, value))
        elif norm in META_KEYS | {"cursors"} and isinstance(value, dict):
            for sub, sub_value in value.items():
                sub_norm = norm_key(sub)
                if isinstance(sub_value, dict) and sub_norm == "cursors" and "after" in sub_value:
                    found.append((f"{key}.{sub}.after", "after", sub_value["after"]))
                elif (
                    sub_norm in _CURSOR_PARAMS
                    and sub_value not in (None, "")
                    and not isinstance(sub_value, dict | list | bool)
                ):
                    found.append((f"{key}.{sub}", sub_norm, sub_value))
    return [f for f in found if not (f[1] == "next" and is_link(f[2]))]


def cursor_token(answer: Answer) -> Detection | None:
    """A next cursor in the body: ``next_cursor``/``nextCursor`` -> ``cursor``; ``nextPageToken`` ->
    ``pageToken``; ``next_page_token`` -> ``page_token``; ``next_token``, ``continuation`` as named; a
    ``next`` that is not a URL -> ``cursor``; ``paging.cursors.after`` -> ``after``."""
    if not isinstance(answer.body, dict):
        return None
    fields = _cursor_fields(answer.body)
    if not fields:
        return None
    path, norm, _ = fields[0]
    leaf = path.rsplit(".", 1)[-1]
    param = "after" if norm == "after" else _CURSOR_PARAMS[norm] or _token_param(leaf)
    options = {"cursor_param": param, "cursor_path": path}
    return Detection(PaginatorSpec("cursor", options), 0.85, f"cursor at {path}")


def cursor_alternative(answer: Answer) -> list[Detection] | None:
    """Other common names for a found cursor's request parameter, tried only after the first one failed."""
    found = cursor_token(answer)
    if found is None:
        return None
    path = found.spec.options["cursor_path"]
    tried = found.spec.options["cursor_param"]
    names = [n for n in ("cursor", "after", "page_token", "continuation") if n != tried]
    return [
        Detection(PaginatorSpec("cursor", {"cursor_param": n, "cursor_path": path}), 0.05 - i * 0.01, "guess")
        for i, n in enumerate(names[:2])
    ]


def stripe_list(answer: Answer) -> Detection | None:
    """Stripe's list object ``{"object": "list", "data": [...], "has_more"}``: ``starting_after=<last
    id>``."""
    body = answer.body
    if isinstance(body, dict) and body.get("object") == "list" and "has_more" in body:
        options = {"cursor_param": "starting_after", "cursor_path": "$last.id"}
        return Detection(PaginatorSpec("cursor", options), 0.85, "Stripe list object")
    return None


def offset_fields(answer: Answer) -> Detection | None:
    """``offset``/``skip``/``$skip`` in the metadata (or the request), or ``start`` beside ``rows`` (Solr),
    ``from`` beside ``size`` (Elasticsearch): offset paging under those names."""
    if not isinstance(answer.body, dict):
        return None
    items = _meta_items(answer.body)
    names = {norm_key(key) for key, _ in items}
    for key, value in items:
        norm = norm_key(key)
        paired = (norm == "start" and "rows" in names) or (norm == "from" and "size" in names)
        if isinstance(value, dict | list | bool) or not (norm in ("offset", "skip", "pageoffset") or paired):
            continue
        param = _param_name(key, answer.body)
        options = {"offset_param": param, "limit_param": _limit_param(answer)}
        if norm in ("skip", "start", "from"):
            options["limit_param"] = OFFSET_VOCABULARIES.get(key, options["limit_param"])
        return Detection(PaginatorSpec("offset", options), 0.8, f"{key} in the answer")
    return None


def page_fields(answer: Answer) -> Detection | None:
    """A page number or page count in the metadata (``page``, ``currentPage``, ``page[number]``,
    ``totalPages``) or ``X-Total-Pages``: page-number paging, 0-based when the first page says 0."""
    body = answer.body
    items = _meta_items(body) if isinstance(body, dict) else []
    page_key = None
    counted = False
    for key, value in items:
        norm = norm_key(key)
        if norm in ("page", "currentpage", "pagenumber", "number") and not isinstance(
            value, dict | list | bool
        ):
            page_key = page_key or (key, value)
        elif norm in ("totalpages", "pagecount", "lastpage"):
            counted = True
    if page_key is None and not counted and header(answer.headers, "x-total-pages") is None:
        return None
    param = "page"
    base = 1
    if page_key is not None:
        key, value = page_key
        param = "page" if norm_key(key) in ("page", "currentpage") else _param_name(key, body)
        base = 0 if str(value) == "0" else 1
    options: dict[str, Any] = {"page_param": param, "base_page": base}
    limit = _limit_param(answer)
    if limit != "limit":
        options["limit_param"] = limit
    return Detection(PaginatorSpec("page_number", options), 0.8, "page number or count in the answer")


def complete_list(answer: Answer) -> Detection | None:
    """A bare list without a ``Link`` header that is shorter than the page size asked (or asked none): all
    there is (e.g. the real platform's ``/categories``)."""
    if header(answer.headers, "link") or not isinstance(answer.body, list):
        return None
    total = total_source(answer.body, answer.headers)
    if total is not None and int(get_path(answer.body, total, answer.headers)) > len(answer.items):
        return None  # a capped page: the total says more follow
    if answer.page_size is None or len(answer.items) < answer.page_size:
        return Detection(PaginatorSpec("single_page"), 0.3, "a bare list shorter than the page size")
    return None


def page_guess(answer: Answer) -> Detection:
    """No hint at all: page numbers (the real platform's style, e.g. its solutions), the first page's number
    found by asking page 1 (``base_page = "auto"``: a repeat of the first page means numbered from 1)."""
    spec = PaginatorSpec("page_number", {"base_page": "auto"})
    return Detection(spec, 0.2, "no paging metadata: the real platform's page/limit")


def offset_guess(answer: Answer) -> list[Detection]:
    """No hint at all: offsets under each common vocabulary (:data:`OFFSET_VOCABULARIES`, in order), tried
    when page numbers repeat a page."""
    guesses = [Detection(PaginatorSpec("offset"), 0.1, "no paging metadata")]
    for rank, (offset, size) in enumerate(list(OFFSET_VOCABULARIES.items())[1:], start=1):
        spec = PaginatorSpec("offset", {"offset_param": offset, "limit_param": size})
        guesses.append(Detection(spec, 0.1 - rank / 100, f"no paging metadata: {offset}/{size}"))
    return guesses


#: Every detector, in no particular order (the confidence ranks their findings).
DETECTORS: list[Detector] = [
    header_link,
    json_link,
    relay_connection,
    cursor_token,
    stripe_list,
    offset_fields,
    page_fields,
    complete_list,
    page_guess,
    offset_guess,
    cursor_alternative,
]


def candidates(answer: Answer, detectors: list[Detector] | None = None) -> list[Detection]:
    """Every paginator the detectors find in ``answer``, best first (ties keep the detectors' order), one per
    distinct spec."""
    found: list[Detection] = []
    for detector in detectors or DETECTORS:
        result = detector(answer)
        for detection in result if isinstance(result, list) else [result] if result else []:
            if all(d.spec != detection.spec for d in found):
                found.append(detection)
    return sorted(found, key=lambda d: -d.confidence)


def bare_envelope(body: Any, headers: Mapping[str, str], items_key: str | None) -> Detection | None:
    """:func:`candidates`' best for an answer that is the bare envelope ``{items_key: [...]}`` (nothing else
    in the body) without a ``Link`` or ``X-Total-Pages`` header (the real platform's solution lists), found
    without running every detector: they read the body's keys beside the list and those two headers, never
    the records, so only the guesses apply and :func:`page_guess` (0.2) ranks first. ``None`` for any other
    answer (rank :func:`candidates`). Each problem's solution walk asks this first (~50 us a list less);
    ``tests/client/test_detect.py`` checks that :func:`candidates` agrees for every registry envelope."""
    if (
        items_key is not None
        and isinstance(body, dict)
        and len(body) == 1
        and isinstance(body.get(items_key), list)
        and header(headers, "link") is None
        and header(headers, "x-total-pages") is None
    ):
        return page_guess(Answer(body, headers))
    return None


#: Where a total record count may be, in order: dot paths into the body, then headers.
TOTAL_PATHS: tuple[str, ...] = (
    "pagination.total",
    "meta.total",
    "total",
    "totalCount",
    "total_count",
    "@odata.count",
    "numFound",
    "meta.totalCount",
    "count",
    "header:X-Total-Count",
)


def total_source(body: Any, headers: Mapping[str, str]) -> str | None:
    """Where an answer states its total record count (a ``total_path``: dot path or ``header:<name>``), or
    ``None``."""
    for path in TOTAL_PATHS:
        value = get_path(body, path, headers)
        if (isinstance(value, int) and not isinstance(value, bool)) or (
            isinstance(value, str) and value.isdigit()
        ):
            return path
    return None


def detect_paginator(
    body: Any,
    headers: Mapping[str, str] | None = None,
    *,
    page_size: int | None = None,
    limit_param: str = "limit",
    max_pages: int = DEFAULT_MAX_PAGES,
    params: Mapping[str, Any] | None = None,
) -> Paginator:
    """The paginator of the best :func:`candidates` for a first answer (``body`` decoded, ``headers``). The
    returned paginator has *not* yet read ``body``: call ``update_state`` with it."""
    items = _records_path(body)[1]
    answer = Answer(body, headers or {}, params or {}, items, page_size)
    best = candidates(answer)[0]
    log.debug("pagination detected: %s (%s)", best.spec.as_toml(), best.reason)
    return best.spec.build(page_size=page_size, limit_param=limit_param, max_pages=max_pages)


def size_param(body: Any, headers: Mapping[str, str] | None = None) -> str | None:
    """The request parameter that sets how many records an answer of this shape holds, when the answer's
    convention names one: JSON:API documents ``page[size]``, OData ``$top``, Relay connections ``first``,
    else the page-size parameter the best detection uses (``None``: nothing says). Used for feeds (one answer
    of the newest records, ``/activity``), whose answers carry no next link to learn it from."""
    if isinstance(body, dict):
        data = body.get("data")
        if "jsonapi" in body or (
            isinstance(data, list) and data and isinstance(data[0], dict) and "attributes" in data[0]
        ):
            return "page[size]"
        if any(str(k).startswith("@odata.") for k in body) or isinstance(body.get("value"), list):
            return "$top"
        if isinstance(body.get("edges"), list) or isinstance(body.get("pageInfo"), dict):
            return "first"
    items = _records_path(body)[1] if isinstance(body, dict | list) else []
    best = candidates(Answer(body, headers or {}, {}, items, None))[0]
    limit = best.spec.options.get("limit_param")
    return str(limit) if limit else None
