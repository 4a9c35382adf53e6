"""Tests of ``solvelens.client.pagination`` from recorded responses of each style (no HTTP)."""

from __future__ import annotations

from typing import Any

import pytest

from solvelens.client.detect import detect_paginator
from solvelens.client.errors import PaginationError
from solvelens.client.locate import extract_items
from solvelens.client.pagination import (
    CursorPaginator,
    NextLinkPaginator,
    OffsetPaginator,
    PageNumberPaginator,
    PageRequest,
    Paginator,
    SinglePagePaginator,
    make_paginator,
    next_link_from_header,
    page_metadata,
)


def _recs(start: int, n: int) -> list[dict[str, Any]]:
    return [{"id": f"r{i}", "n": i} for i in range(start, start + n)]


def _drive(
    paginator: Paginator, answers: list[tuple[Any, dict[str, str]]]
) -> tuple[list[dict[str, Any]], list[PageRequest]]:
    """Feed recorded answers to a paginator; return the items and the requests it built (first included)."""
    request = PageRequest(params={})
    paginator.init_request(request)
    requests = [PageRequest(dict(request.params), request.url)]
    items: list[dict[str, Any]] = []
    for body, headers in answers:
        page = extract_items(body)
        items.extend(page)
        paginator.update_state(page, body, headers)
        if not paginator.has_next:
            break
        paginator.update_request(request)
        requests.append(PageRequest(dict(request.params), request.url))
    return items, requests


# -- recorded responses of the real platform ----------------------------------------------------------------

REAL_CATEGORIES = [
    {
        "slug": "technology",
        "displayName": "Technology",
        "icon": "💻",
        "description": "...",
        "activeProblems": 12,
    },
    {"slug": "health", "displayName": "Health", "icon": "🩺", "description": "...", "activeProblems": 3},
]


def _real_problems_page(page: int, limit: int, total: int) -> dict[str, Any]:
    start = (page - 1) * limit
    n = max(0, min(limit, total - start))
    return {
        "problems": _recs(start, n),
        "pagination": {"page": page, "limit": limit, "total": total, "totalPages": -(-total // limit)},
    }


def test_real_categories_bare_list_is_one_page() -> None:
    paginator = detect_paginator(REAL_CATEGORIES, {})
    assert isinstance(paginator, SinglePagePaginator)
    items, requests = _drive(paginator, [(REAL_CATEGORIES, {})])
    assert items == REAL_CATEGORIES
    assert len(requests) == 1


def test_real_problems_stop_at_total_pages() -> None:
    answers = [(_real_problems_page(p, 50, 120), {}) for p in (1, 2, 3, 4)]
    paginator = detect_paginator(answers[0][0], {}, page_size=50)
    assert isinstance(paginator, PageNumberPaginator)
    items, requests = _drive(paginator, answers)
    assert [r["n"] for r in items] == list(range(120))
    assert [r.params for r in requests] == [{"limit": 50}, {"limit": 50, "page": 2}, {"limit": 50, "page": 3}]
    assert paginator.total == 120


def test_total_pages_reached_on_a_full_last_page() -> None:
    # 100 records, 50 per page: page 2 is full, but totalPages says it is the last; no third request.
    answers = [(_real_problems_page(p, 50, 100), {}) for p in (1, 2, 3)]
    items, requests = _drive(PageNumberPaginator(page_size=50), answers)
    assert len(items) == 100
    assert len(requests) == 2


def test_real_solutions_without_total_stop_on_a_short_page() -> None:
    answers = [
        ({"solutions": _recs(0, 100)}, {}),
        ({"solutions": _recs(100, 37)}, {}),
        ({"solutions": []}, {}),
    ]
    paginator = detect_paginator(answers[0][0], {}, page_size=100)
    assert isinstance(paginator, PageNumberPaginator)  # no metadata: the platform's page/limit is assumed
    items, requests = _drive(paginator, answers)
    assert len(items) == 137
    assert len(requests) == 2
    assert paginator.total is None  # unknown, never guessed


def test_solutions_full_last_page_then_empty_page() -> None:
    answers = [({"solutions": _recs(0, 100)}, {}), ({"solutions": []}, {}), ({"solutions": _recs(0, 1)}, {})]
    items, requests = _drive(PageNumberPaginator(page_size=100), answers)
    assert len(items) == 100
    assert len(requests) == 2


def test_short_page_with_server_default_page_size() -> None:
    # No page size requested: the page size in effect is the server's `limit` (20), so 7 items end the walk.
    answers = [
        ({"bots": _recs(0, 20), "pagination": {"page": 1, "limit": 20}}, {}),
        ({"bots": _recs(20, 7), "pagination": {"page": 2, "limit": 20}}, {}),
        ({"bots": _recs(99, 20), "pagination": {"page": 3, "limit": 20}}, {}),
    ]
    items, requests = _drive(PageNumberPaginator(), answers)
    assert len(items) == 27
    assert requests[0].params == {}


def test_repeated_page_raises() -> None:
    same = {"problems": _recs(0, 50)}
    with pytest.raises(PaginationError, match="repeats"):
        _drive(PageNumberPaginator(page_size=50), [(same, {}), (same, {}), (same, {})])


def test_max_pages_is_a_hard_stop() -> None:
    answers = [({"items": _recs(i * 2, 2)}, {}) for i in range(10)]
    with pytest.raises(PaginationError, match="more than 3 pages"):
        _drive(PageNumberPaginator(page_size=2, max_pages=3), answers)


# -- offset --------------------------------------------------------------------------------------------------


def test_offset_style_detected_and_stops_at_total() -> None:
    answers = [
        ({"data": _recs(0, 10), "pagination": {"offset": 0, "limit": 10, "total": 25}}, {}),
        ({"data": _recs(10, 10), "pagination": {"offset": 10, "limit": 10, "total": 25}}, {}),
        ({"data": _recs(20, 5), "pagination": {"offset": 20, "limit": 10, "total": 25}}, {}),
    ]
    paginator = detect_paginator(answers[0][0], {}, page_size=10)
    assert isinstance(paginator, OffsetPaginator)
    items, requests = _drive(paginator, answers)
    assert [r["n"] for r in items] == list(range(25))
    assert [r.params.get("offset") for r in requests] == [0, 10, 20]


def test_offset_configured_sends_offset_zero_first() -> None:
    answers = [({"items": _recs(0, 3), "total": 5}, {}), ({"items": _recs(3, 2), "total": 5}, {})]
    items, requests = _drive(OffsetPaginator(page_size=3), answers)
    assert requests[0].params == {"limit": 3, "offset": 0}
    assert requests[1].params == {"limit": 3, "offset": 3}
    assert len(items) == 5


def test_has_more_false_stops_even_on_a_full_page() -> None:
    answers = [
        ({"results": _recs(0, 10), "offset": 0, "has_more": True}, {}),
        ({"results": _recs(10, 10), "offset": 10, "has_more": False}, {}),
        ({"results": _recs(20, 10), "offset": 20, "has_more": True}, {}),
    ]
    items, requests = _drive(OffsetPaginator(page_size=10), answers)
    assert len(items) == 20
    assert len(requests) == 2


def test_has_more_true_overrides_a_short_page() -> None:
    answers = [
        ({"results": _recs(0, 4), "hasMore": True}, {}),
        ({"results": _recs(4, 10), "hasMore": False}, {}),
    ]
    items, _ = _drive(OffsetPaginator(page_size=10), answers)
    assert len(items) == 14


# -- cursor --------------------------------------------------------------------------------------------------


def test_cursor_style_follows_until_null() -> None:
    answers = [
        ({"items": _recs(0, 2), "next_cursor": "c1", "has_more": True}, {}),
        ({"items": _recs(2, 2), "next_cursor": "c2", "has_more": True}, {}),
        ({"items": _recs(4, 1), "next_cursor": None, "has_more": False}, {}),
    ]
    paginator = detect_paginator(answers[0][0], {}, page_size=2)
    assert isinstance(paginator, CursorPaginator)
    items, requests = _drive(paginator, answers)
    assert len(items) == 5
    assert [r.params.get("cursor") for r in requests] == [None, "c1", "c2"]


def test_cursor_in_nested_metadata_camel_case() -> None:
    answers = [
        ({"data": _recs(0, 2), "meta": {"nextCursor": "abc"}}, {}),
        ({"data": _recs(2, 2), "meta": {"nextCursor": ""}}, {}),
    ]
    paginator = detect_paginator(answers[0][0], {})
    assert isinstance(paginator, CursorPaginator)
    items, _ = _drive(paginator, answers)
    assert len(items) == 4


def test_repeated_cursor_raises() -> None:
    answers = [
        ({"items": _recs(0, 2), "next_cursor": "same"}, {}),
        ({"items": _recs(2, 2), "next_cursor": "same"}, {}),
    ]
    with pytest.raises(PaginationError, match="cursor 'same' repeated"):
        _drive(CursorPaginator(page_size=2), answers)


def test_cursor_empty_page_stops() -> None:
    answers = [({"items": _recs(0, 2), "next_cursor": "c1"}, {}), ({"items": [], "next_cursor": "c2"}, {})]
    items, requests = _drive(CursorPaginator(page_size=2), answers)
    assert len(items) == 2
    assert len(requests) == 2


# -- next link -----------------------------------------------------------------------------------------------


def test_next_link_in_body() -> None:
    base = "http://h/api/v1/problems"
    answers = [
        ({"results": _recs(0, 2), "next": f"{base}?page=2"}, {}),
        ({"results": _recs(2, 2), "next": f"{base}?page=3"}, {}),
        ({"results": _recs(4, 1), "next": None}, {}),
    ]
    paginator = detect_paginator(answers[0][0], {})
    assert isinstance(paginator, NextLinkPaginator)
    items, requests = _drive(paginator, answers)
    assert len(items) == 5
    assert [r.url for r in requests] == [None, f"{base}?page=2", f"{base}?page=3"]


def test_next_link_in_links_object() -> None:
    body = {"items": _recs(0, 1), "links": {"next": {"href": "/api/v1/x?after=1"}}}
    assert page_metadata(body)["next"] == "/api/v1/x?after=1"
    assert isinstance(detect_paginator(body, {}), NextLinkPaginator)


def test_link_header() -> None:
    link1 = '<http://h/api/v1/bots?page=2>; rel="next", <http://h/api/v1/bots?page=9>; rel="last"'
    link2 = '<http://h/api/v1/bots?page=1>; rel="prev"'
    answers = [(_recs(0, 3), {"link": link1}), (_recs(3, 3), {"link": link2})]
    paginator = detect_paginator(answers[0][0], answers[0][1], page_size=3)
    assert isinstance(paginator, NextLinkPaginator)
    items, requests = _drive(paginator, answers)
    assert len(items) == 6
    assert requests[1].url == "http://h/api/v1/bots?page=2"
    assert len(requests) == 2


def test_repeated_next_link_raises() -> None:
    answers = [({"items": _recs(0, 1), "next": "/x?p=2"}, {}), ({"items": _recs(1, 1), "next": "/x?p=2"}, {})]
    with pytest.raises(PaginationError, match="repeated"):
        _drive(NextLinkPaginator(), answers)


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ('<https://a/b?page=2>; rel="next"', "https://a/b?page=2"),
        ('<https://a/b?page=1>; rel="prev", <https://a/b?page=3>; rel=next', "https://a/b?page=3"),
        ('<https://a/b?page=1>; rel="prev"', None),
        (None, None),
    ],
)
def test_next_link_from_header(header: str | None, expected: str | None) -> None:
    assert next_link_from_header(header) == expected


# -- items and detection -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        [{"id": 1}],
        {"data": [{"id": 1}]},
        {"items": [{"id": 1}], "total": 1},
        {"results": [{"id": 1}]},
        {"problems": [{"id": 1}], "pagination": {}},
        {"bots": [{"id": 1}], "pagination": {}},
        {"solutions": [{"id": 1}]},
        {"whatever": [{"id": 1}], "next": None},
        {"data": {"items": [{"id": 1}]}},
    ],
)
def test_extract_items_finds_the_list(body: Any) -> None:
    assert extract_items(body) == [{"id": 1}]


def test_extract_items_prefers_the_named_key() -> None:
    body = {"problems": [{"id": 1}], "bots": [{"id": 2}]}
    assert extract_items(body, "bots") == [{"id": 2}]


def test_extract_items_null_list_is_empty_and_unknown_shape_raises() -> None:
    assert extract_items({"items": None, "next_cursor": None}) == []
    assert extract_items(None) == []
    with pytest.raises(PaginationError, match="cannot find"):
        extract_items({"a": [1], "b": [2]})


def test_bare_list_as_long_as_the_page_size_is_paged() -> None:
    assert isinstance(detect_paginator(_recs(0, 5), {}, page_size=5), PageNumberPaginator)


def test_make_paginator_registry() -> None:
    assert isinstance(make_paginator("offset", page_size=5), OffsetPaginator)
    assert isinstance(make_paginator("page"), PageNumberPaginator)
    assert isinstance(make_paginator("cursor"), CursorPaginator)
    with pytest.raises(ValueError, match="unknown pagination style"):
        make_paginator("sideways")


def test_drop_page_size_removes_the_limit() -> None:
    paginator = PageNumberPaginator(page_size=500)
    request = PageRequest(params={})
    paginator.init_request(request)
    assert request.params == {"limit": 500}
    paginator.drop_page_size(request)
    assert request.params == {}
    assert paginator.page_size is None


# -- a short page is the end only when nothing says otherwise -----------------------------------------------


def test_short_page_is_not_the_end_while_the_header_total_says_more() -> None:
    answers = [
        ({"items": _recs(0, 13)}, {"X-Total-Count": "30"}),
        ({"items": _recs(13, 13)}, {"X-Total-Count": "30"}),
        ({"items": _recs(26, 4)}, {"X-Total-Count": "30"}),
    ]
    items, requests = _drive(OffsetPaginator(page_size=100), answers)
    assert len(items) == 30
    assert [r.params["offset"] for r in requests] == [0, 13, 26]


def test_short_page_is_not_the_end_while_the_page_count_says_more() -> None:
    answers = [
        ({"items": _recs(0, 7), "totalPages": 3}, {}),
        ({"items": _recs(7, 7), "totalPages": 3}, {}),
        ({"items": _recs(14, 2), "totalPages": 3}, {}),
    ]
    items, requests = _drive(PageNumberPaginator(page_size=50), answers)
    assert len(items) == 16
    assert len(requests) == 3


def test_short_page_with_a_next_link_or_has_more_goes_on() -> None:
    answers = [({"items": _recs(0, 3), "has_more": True}, {}), ({"items": _recs(3, 2)}, {})]
    items, _ = _drive(PageNumberPaginator(page_size=10), answers)
    assert len(items) == 5


def test_zero_based_pages_stop_at_the_page_count() -> None:
    answers = [
        ({"content": _recs(0, 2), "page": 0, "totalPages": 2}, {}),
        ({"content": _recs(2, 2), "page": 1, "totalPages": 2}, {}),
    ]
    paginator = PageNumberPaginator(page_size=2, base_page=0)
    items, requests = _drive(paginator, answers)
    assert len(items) == 4
    assert [r.params.get("page") for r in requests] == [None, 1]


def test_cursor_and_link_paths() -> None:
    answers = [
        ({"edges": _recs(0, 2), "pageInfo": {"endCursor": "e1", "hasNextPage": True}}, {}),
        ({"edges": _recs(2, 1), "pageInfo": {"endCursor": "e2", "hasNextPage": False}}, {}),
    ]
    items, requests = _drive(
        CursorPaginator(
            cursor_param="after", cursor_path="pageInfo.endCursor", limit_param="first", page_size=2
        ),
        answers,
    )
    assert len(items) == 3 and requests[1].params == {"first": 2, "after": "e1"}
    odata = [
        ({"value": _recs(0, 2), "@odata.nextLink": "http://h/x?$skip=2"}, {}),
        ({"value": _recs(2, 1)}, {}),
    ]
    items, requests = _drive(NextLinkPaginator(next_url_path="@odata.nextLink", source="body"), odata)
    assert len(items) == 3 and requests[1].url == "http://h/x?$skip=2"
