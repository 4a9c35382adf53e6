"""Unit tests of each detector in ``solvelens.client.detect`` from recorded answers (no HTTP)."""

from __future__ import annotations

from typing import Any

import pytest

from solvelens.client.detect import (
    Answer,
    bare_envelope,
    candidates,
    complete_list,
    cursor_token,
    detect_paginator,
    header_link,
    json_link,
    offset_fields,
    page_fields,
    relay_connection,
    stripe_list,
)
from solvelens.client.endpoints import ENDPOINTS
from solvelens.client.locate import find_records
from solvelens.client.pagination import (
    CursorPaginator,
    NextLinkPaginator,
    OffsetPaginator,
    PageNumberPaginator,
    PaginatorSpec,
    SinglePagePaginator,
)

RECS = [{"id": "a"}, {"id": "b"}]


def _answer(body: Any, headers: dict[str, str] | None = None, page_size: int | None = 2) -> Answer:
    return Answer(body, headers or {}, {}, find_records(body)[1], page_size)


def _spec(detector: Any, body: Any, headers: dict[str, str] | None = None) -> PaginatorSpec:
    found = detector(_answer(body, headers))
    assert found is not None
    return found.spec


def test_header_link_github() -> None:
    link = '<https://api.x/items?page=2&per_page=2>; rel="next", <https://api.x/items?page=9>; rel="last"'
    assert _spec(header_link, RECS, {"link": link}) == PaginatorSpec("header_link")
    assert header_link(_answer(RECS, {"link": '<https://api.x/items?page=1>; rel="prev"'})) is None


@pytest.mark.parametrize(
    ("body", "path"),
    [
        (
            {"results": RECS, "next": "https://api.x/items?page=2", "count": 9},
            "next",
        ),  # Django REST framework
        ({"data": RECS, "links": {"next": "https://api.x/items?page[number]=2"}}, "links.next"),  # JSON:API
        (
            {"_embedded": {"items": RECS}, "_links": {"next": {"href": "/api/v1/items?t=x"}}},
            "_links.next.href",
        ),
        ({"value": RECS, "@odata.nextLink": "https://api.x/items?$skip=2"}, "@odata.nextLink"),  # OData
        ({"data": RECS, "paging": {"next": "https://graph.x/items?after=q"}}, "paging.next"),  # Facebook
    ],
)
def test_json_link_finds_the_next_url(body: dict[str, Any], path: str) -> None:
    assert _spec(json_link, body) == PaginatorSpec("json_link", {"next_url_path": path})


def test_json_link_null_is_the_last_page_and_a_token_is_not_a_link() -> None:
    last = _spec(json_link, {"data": RECS, "links": {"self": "/x", "next": None}})
    assert last == PaginatorSpec("json_link", {"next_url_path": "links.next"})
    assert json_link(_answer({"items": RECS, "next": "abc123"})) is None


def test_relay_connection_top_level_and_nested() -> None:
    edges = [{"node": r, "cursor": "c"} for r in RECS]
    spec = _spec(relay_connection, {"edges": edges, "pageInfo": {"hasNextPage": True, "endCursor": "e"}})
    assert spec.options == {
        "cursor_param": "after",
        "cursor_path": "pageInfo.endCursor",
        "limit_param": "first",
    }
    nested = {"data": {"problems": {"edges": edges, "pageInfo": {"endCursor": "e", "hasNextPage": True}}}}
    assert _spec(relay_connection, nested).options["cursor_path"] == "data.problems.pageInfo.endCursor"


@pytest.mark.parametrize(
    ("body", "param", "path"),
    [
        ({"items": RECS, "next_cursor": "c1", "has_more": True}, "cursor", "next_cursor"),
        ({"data": RECS, "meta": {"nextCursor": "c1"}}, "cursor", "meta.nextCursor"),
        ({"items": RECS, "nextPageToken": "t"}, "pageToken", "nextPageToken"),  # Google
        ({"items": RECS, "next_page_token": "t"}, "page_token", "next_page_token"),
        ({"Items": RECS, "NextToken": "t"}, "NextToken", "NextToken"),  # AWS
        ({"items": RECS, "next_token": "t"}, "next_token", "next_token"),
        ({"items": RECS, "continuation": "t"}, "continuation", "continuation"),
        ({"items": RECS, "next": "opaque"}, "cursor", "next"),
        (
            {"data": RECS, "paging": {"cursors": {"after": "q", "before": "p"}}},
            "after",
            "paging.cursors.after",
        ),
    ],
)
def test_cursor_token_names_the_request_parameter(body: dict[str, Any], param: str, path: str) -> None:
    assert _spec(cursor_token, body).options == {"cursor_param": param, "cursor_path": path}


def test_cursor_token_ignores_empty_cursors() -> None:
    assert cursor_token(_answer({"items": RECS, "next_cursor": None, "has_more": False})) is None


def test_stripe_list_uses_the_last_id() -> None:
    spec = _spec(stripe_list, {"object": "list", "data": RECS, "has_more": True, "url": "/v1/x"})
    assert spec.options == {"cursor_param": "starting_after", "cursor_path": "$last.id"}
    paginator = spec.build(page_size=2, limit_param="limit", max_pages=10)
    paginator.update_state(RECS, {"object": "list", "data": RECS, "has_more": True})
    assert paginator.cursor == "b"


@pytest.mark.parametrize(
    ("body", "options"),
    [
        (
            {"items": RECS, "offset": 0, "limit": 2, "total": 5},
            {"offset_param": "offset", "limit_param": "limit"},
        ),
        ({"items": RECS, "skip": 0, "take": 2}, {"offset_param": "skip", "limit_param": "take"}),
        ({"value": RECS, "$skip": 0}, {"offset_param": "$skip", "limit_param": "$top"}),
        (
            {"data": RECS, "meta": {"page": {"offset": 0, "limit": 2}}},
            {"offset_param": "page[offset]", "limit_param": "page[limit]"},
        ),
    ],
)
def test_offset_fields_names(body: dict[str, Any], options: dict[str, str]) -> None:
    assert _spec(offset_fields, body).options == options


@pytest.mark.parametrize(
    ("body", "headers", "options"),
    [
        (
            {"problems": RECS, "pagination": {"page": 1, "limit": 2, "totalPages": 3}},
            {},
            {"page_param": "page", "base_page": 1},
        ),
        (
            {"content": RECS, "page": 0, "size": 2, "totalPages": 3},
            {},
            {"page_param": "page", "base_page": 0, "limit_param": "size"},
        ),
        (
            {"items": RECS, "page": 1, "per_page": 2},
            {},
            {"page_param": "page", "base_page": 1, "limit_param": "per_page"},
        ),
        (
            {"data": RECS, "meta": {"page": {"number": 1, "size": 2}}},
            {},
            {"page_param": "page[number]", "base_page": 1, "limit_param": "page[size]"},
        ),
        ({"items": RECS}, {"X-Total-Pages": "4"}, {"page_param": "page", "base_page": 1}),
    ],
)
def test_page_fields_names_and_base(body: Any, headers: dict[str, str], options: dict[str, Any]) -> None:
    assert _spec(page_fields, body, headers).options == options


def test_complete_list_only_for_a_bare_list_shorter_than_asked() -> None:
    assert _spec(complete_list, RECS[:1]) == PaginatorSpec("single_page")
    assert complete_list(_answer(RECS)) is None  # as long as asked: maybe more
    assert complete_list(_answer({"items": RECS[:1]})) is None


def test_candidates_rank_and_the_real_platform_keeps_its_styles() -> None:
    problems = {"problems": RECS, "pagination": {"page": 1, "limit": 2, "total": 9, "totalPages": 5}}
    assert isinstance(detect_paginator(problems, {}, page_size=2), PageNumberPaginator)
    assert isinstance(detect_paginator({"solutions": RECS}, {}, page_size=2), PageNumberPaginator)
    assert isinstance(detect_paginator(RECS[:1], {}, page_size=None), SinglePagePaginator)
    ranked = [d.spec.type for d in candidates(_answer({"solutions": RECS}))]
    assert ranked[:2] == ["page_number", "offset"]  # the guesses, in the order a repeated page tries them
    both = {"items": RECS, "next_cursor": "c", "offset": 0}
    assert isinstance(detect_paginator(both, {}), CursorPaginator)
    assert isinstance(detect_paginator({"items": RECS, "offset": 0}, {}), OffsetPaginator)
    assert isinstance(
        detect_paginator({"value": RECS, "@odata.nextLink": "/x?$skip=2"}, {}), NextLinkPaginator
    )


#: Records whose own fields carry every word a detector looks for beside a list (the records are never read).
_TEMPTING = [
    {"id": "a", "next": "https://x/?page=2", "next_cursor": "c", "offset": 0, "page": 1, "totalPages": 9},
    {"id": "b", "pageInfo": {"endCursor": "e"}, "object": "list", "has_more": True, "links": {"next": "/n"}},
]


@pytest.mark.parametrize("key", sorted({e.items_key for e in ENDPOINTS.values() if e.items_key}))
@pytest.mark.parametrize("records", [[], RECS, _TEMPTING, [{"id": str(i)} for i in range(100)]])
@pytest.mark.parametrize("page_size", [None, 2, 100])
def test_a_bare_envelope_is_detected_as_every_detector_ranks_it(
    key: str, records: list[dict[str, Any]], page_size: int | None
) -> None:
    """The shortcut each solution walk takes (:func:`bare_envelope`) gives what ranking every detector
    gives, for every envelope key of the registry; with anything beside the list, or a paging header, it
    leaves the answer to :func:`candidates`."""
    body = {key: records}
    answer = Answer(body, {"content-type": "application/json"}, {"page": 1}, records, page_size)
    assert bare_envelope(body, answer.headers, key) == candidates(answer)[0]
    link = {"Link": '<https://x/?page=2>; rel="next"'}
    assert bare_envelope(body, link, key) is None
    assert bare_envelope(body, {"X-Total-Pages": "3"}, key) is None
    assert bare_envelope({**body, "next": None}, {}, key) is None
    assert bare_envelope(records, {}, key) is None
