"""Property-based: every combination of envelope x paging style x record style is walked completely.

A fake server (:mod:`tests.client.conventions_server`, httpx.MockTransport) serves a list of canonical
records in one combination, capping pages at its own size when asked; the client, told nothing, must hand
every record back once, in order, in the canonical form, with at most ``MAX_DETECTION_REQUESTS`` detection
requests on top of the pages.
"""

from __future__ import annotations

import math

import httpx
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from solvelens.client import PaginationError, PlatformClient, RetryPolicy
from solvelens.client.detect import MAX_DETECTION_REQUESTS
from tests.client.conventions_server import (
    BASE,
    ENVELOPES,
    PAGINGS,
    RECORD_STYLES,
    ConventionServer,
    canonical_records,
    compatible,
)

FAST = RetryPolicy(attempts=1)
COMBINATIONS = [(e, p, r) for e in ENVELOPES for p in PAGINGS for r in RECORD_STYLES if compatible(e, p, r)]


def _walk(server: ConventionServer, page_size: int) -> list[dict]:
    transport = httpx.MockTransport(server.handle)
    with PlatformClient(BASE, transport=transport, read_env=False, retry=FAST) as client:
        return [item for page in client.problem_pages(page_size=page_size) for item in page.items]


def test_every_envelope_paging_and_record_style_has_a_combination() -> None:
    assert {c[0] for c in COMBINATIONS} == set(ENVELOPES)
    assert {c[1] for c in COMBINATIONS} == set(PAGINGS)
    assert {c[2] for c in COMBINATIONS} == set(RECORD_STYLES)
    assert len(COMBINATIONS) > 100


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    combination=st.sampled_from(COMBINATIONS),
    n=st.integers(min_value=0, max_value=37),
    page_size=st.integers(min_value=1, max_value=12),
    cap=st.sampled_from([None, 3, 7]),
)
def test_walk_returns_every_record_once_in_order_canonical(
    combination: tuple[str, str, str], n: int, page_size: int, cap: int | None
) -> None:
    envelope, paging, record = combination
    if paging == "page_plain":
        cap = None  # no total, no link, no count: a short page is the only end a client can see
    server = ConventionServer(canonical_records(n), envelope, paging, record, cap=cap)
    effective = min(page_size, cap) if cap else page_size
    try:
        items = _walk(server, page_size)
    except PaginationError as exc:
        # Exactly one full page and nothing saying whether more exist (a cursor style on its only page): the
        # walk asks for more, sees the page repeat under every style, and fails loudly instead of guessing.
        assert n == effective, (combination, cap, str(exc))
        assert "add to your profile: [endpoints.problems.paginator]" in str(exc)
        return
    assert items == canonical_records(n), (combination, cap)
    pages = max(1, math.ceil(n / effective))
    assert len(server.requests) <= pages + 1 + MAX_DETECTION_REQUESTS, (
        combination,
        [str(r.url) for r in server.requests],
    )


def test_capped_server_with_a_header_total_is_walked_to_the_end() -> None:
    """The issue's leaderboard: 13 rows a page whatever ``limit`` asks, ``X-Total-Count`` says more."""
    server = ConventionServer(canonical_records(30), "items", "skip_take", "pascal", cap=13)
    assert [r["id"] for r in _walk(server, 100)] == [r["id"] for r in canonical_records(30)]
    assert [r.url.params.get("skip") for r in server.requests] == [None, "13", "26"]


def test_zero_based_pages_with_a_capped_size_and_a_header_total_are_read_whole() -> None:
    """Issue 21's list: pages numbered from 0, 15 rows a page whatever ``limit`` asks, the total only in
    ``X-Total-Count``, nothing in the body: all 42 are read; the cap is learned from the first answer and
    asked from then on; page 1 (the second page) is not skipped."""
    server = ConventionServer(canonical_records(42), "bare", "page_zero_header", "camel", cap=15)
    assert [r["id"] for r in _walk(server, 50)] == [r["id"] for r in canonical_records(42)]
    asked = [(r.url.params.get("page"), r.url.params.get("limit")) for r in server.requests]
    assert asked == [(None, "50"), ("1", "15"), ("2", "15")]


def test_one_based_pages_without_metadata_drop_the_repeated_first_page() -> None:
    """No page number in the answers and pages numbered from 1: page 1 repeats the first answer (one extra
    request), the walk goes on with page 2 and hands out every record once."""
    server = ConventionServer(canonical_records(12), "bare", "page_plain", "camel")
    assert [r["id"] for r in _walk(server, 5)] == [r["id"] for r in canonical_records(12)]
    assert [r.url.params.get("page") for r in server.requests] == [None, "1", "2", "3"]
