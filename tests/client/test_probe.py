"""Tests of ``solvelens.client.probe`` against the sandbox over real HTTP, in two convention modes: what it
finds, how many requests it spends, and that its profile reads the platform as detection does."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest

from solvelens.client import PlatformClient
from solvelens.client.pagination import PaginatorSpec
from solvelens.client.probe import probe
from solvelens.client.profile import Profile
from solvelens.sandbox.process import SandboxServer


class Counting(httpx.HTTPTransport):
    """A real HTTP transport that counts what it sends."""

    def __init__(self) -> None:
        super().__init__()
        self.paths: list[str] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.paths.append(request.url.path)
        return super().handle_request(request)


def _listing(client: PlatformClient) -> tuple[list[str], list[str], list[str]]:
    problems = [p["id"] for p in client.list_problems(sort="oldest")]
    board = [b["id"] for b in client.list_leaderboard()]
    cats = [c["slug"] for c in client.list_categories()]
    return problems, board, cats


@pytest.mark.parametrize("mode", ["platform", "hal"])
def test_probe_findings_requests_and_profile(
    mode: str, convention_sandbox: Callable[..., SandboxServer]
) -> None:
    server = convention_sandbox(mode, tie_order="stable")  # compares two walks of the lists
    transport = Counting()
    with PlatformClient(server.base_url, read_env=False, transport=transport, profile=None) as client:
        findings, profile = probe(client)
    by_name = {f.name: f for f in findings}
    assert list(by_name) == [
        *("problems", "solutions", "leaderboard", "categories", "problem", "bot", "stats"),
        *("activity", "llm_leaderboard", "llm_families", "solution", "comparisons"),  # the optional endpoints
    ]
    assert all(f.error is None for f in findings)
    assert len(transport.paths) <= 20, transport.paths  # two small pages of each list, one of each resource
    assert {"/api/v1/activity", "/api/v1/llm-leaderboard"} <= set(transport.paths)
    assert by_name["activity"].page_size == 2
    assert by_name["comparisons"].id_field == ("id" if mode == "platform" else "comparison_id")
    problems = profile.endpoints["problems"]
    if mode == "platform":
        assert (by_name["problems"].envelope, by_name["problems"].record) == ("problems", "flat camel")
        assert problems.paginator == PaginatorSpec("page_number", {"page_param": "page", "base_page": 1})
        assert problems.total_path == "pagination.total"
        assert "problem" not in profile.endpoints  # identity: nothing to declare
    else:
        assert (problems.data_selector, problems.field_case, problems.id_field) == (
            "_embedded.problems",
            "snake",
            "problem_id",
        )
        assert problems.paginator == PaginatorSpec("json_link", {"next_url_path": "_links.next.href"})
        assert problems.total_path == "header:X-Total-Count"
        assert by_name["bot"].id_field == "bot_id"
    assert by_name["categories"].id_field == "slug"
    again = Profile.loads(profile.dumps())
    with (
        PlatformClient(server.base_url, read_env=False, profile=None) as detected,
        PlatformClient(server.base_url, read_env=False, profile=again) as profiled,
    ):
        assert _listing(profiled) == _listing(detected)


def test_probe_says_which_optional_endpoints_are_not_offered(
    make_sandbox: Callable[..., SandboxServer],
) -> None:
    server = make_sandbox(without=("activity", "llm-leaderboard", "comparisons", "solution"))
    with PlatformClient(server.base_url, read_env=False, profile=None) as client:
        findings, profile = probe(client)
    errors = {f.name: f.error for f in findings if f.error is not None}
    assert errors == {
        name: "not offered (404)"
        for name in ("activity", "llm_leaderboard", "llm_families", "solution", "comparisons")
    }
    assert not {"activity", "llm_leaderboard", "llm_families", "solution", "comparisons"} & set(
        profile.endpoints
    )


def test_probe_writes_the_feed_size_parameter_the_profile_then_asks_first(
    convention_sandbox: Callable[..., SandboxServer],
) -> None:
    """JSON:API's feed reads ``page[size]``: the profile says so, and a client reading it asks the feed's 50
    events with one request."""
    server = convention_sandbox("jsonapi")
    with PlatformClient(server.base_url, read_env=False, profile=None) as client:
        _, profile = probe(client)
    assert profile.endpoints["activity"].paginator == PaginatorSpec(
        "single_page", {"limit_param": "page[size]"}
    )
    transport = Counting()
    again = Profile.loads(profile.dumps())
    with PlatformClient(server.base_url, read_env=False, profile=again, transport=transport) as client:
        events = client.activity(50)
    assert transport.paths == ["/api/v1/activity"] and len(events) > 20
