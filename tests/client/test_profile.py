"""Tests of ``solvelens.client.profile``: round trip, every setting overriding detection, settings that do not
fit failing with the endpoint and the setting named, and a wrong detection fixed by one profile line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from solvelens.client import PaginationError, PlatformClient, RetryPolicy
from solvelens.client.detect import MAX_DETECTION_REQUESTS
from solvelens.client.pagination import PaginatorSpec
from solvelens.client.profile import EndpointProfile, Profile, ProfileError, resolve_profile

BASE = "http://profile.test/api/v1"
ROWS = [{"id": f"p{i}", "title": f"T{i}"} for i in range(23)]


def _client(handler: Any, **kwargs: Any) -> PlatformClient:
    return PlatformClient(
        BASE, transport=httpx.MockTransport(handler), read_env=False, retry=RetryPolicy(attempts=1), **kwargs
    )


def test_round_trip() -> None:
    profile = Profile(
        {
            "problems": EndpointProfile(
                data_selector="_embedded.problems",
                record="flat",
                field_case="snake",
                id_field="problem_id",
                total_path="header:X-Total-Count",
                paginator=PaginatorSpec(
                    "cursor", {"cursor_param": "page_token", "cursor_path": "next_page_token"}
                ),
                page_size=50,
            ),
            "categories": EndpointProfile(paginator=PaginatorSpec("single_page")),
            "tasks_next": EndpointProfile(data_selector="task"),
        },
        base_url="http://x/api/v1",
    )
    text = profile.dumps()
    again = Profile.loads(text)
    assert again.endpoints == profile.endpoints
    assert again.base_url == profile.base_url
    assert again.dumps() == text


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[endpoints.problemz]\nrecord = 'flat'", r"\[endpoints.problemz\]: unknown endpoint"),
        ("[endpoints.problems]\nrecords = 'flat'", "unknown setting 'records'"),
        ("[endpoints.problems]\nrecord = 'document'", "record = 'document'"),
        ("[endpoints.problems.paginator]\ntype = 'sideways'", "type = 'sideways'"),
        ("[endpoints.problems.paginator]\ntype = 'offset'\ncursor_param = 'x'", "takes no 'cursor_param'"),
        ("[endpoints.problems\n", "not valid TOML"),
    ],
)
def test_bad_profiles_name_the_endpoint_and_setting(text: str, message: str) -> None:
    with pytest.raises(ProfileError, match=message):
        Profile.loads(text, source="p.toml")


def test_env_var_and_missing_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "p.toml"
    path.write_text("[endpoints.categories.paginator]\ntype = 'single_page'\n")
    monkeypatch.setenv("SOLVELENS_PROFILE", str(path))
    loaded = resolve_profile(None)
    assert loaded is not None and loaded.endpoints["categories"].paginator == PaginatorSpec("single_page")
    assert resolve_profile(None, read_env=False) is None
    with pytest.raises(ProfileError, match="cannot read the profile"):
        resolve_profile(tmp_path / "nope.toml")


def _continuation_server(requests: list[httpx.Request]) -> Any:
    """Pages by ``continuation=<token>`` and ignores ``cursor``; the body calls the token ``next_cursor``."""

    def answer(request: httpx.Request) -> httpx.Response:
        requests.append(request)
        start = int(request.url.params.get("continuation", "0"))
        page = ROWS[start : start + 5]
        nxt = str(start + 5) if start + 5 < len(ROWS) else None
        return httpx.Response(200, json={"items": page, "next_cursor": nxt})

    return answer


def test_a_wrong_detection_is_fixed_by_one_profile_line(tmp_path: Path) -> None:
    requests: list[httpx.Request] = []
    with _client(_continuation_server(requests)) as c, pytest.raises(PaginationError) as info:
        list(c.list_problems())
    message = str(info.value)
    assert "add to your profile: [endpoints.problems.paginator]" in message
    # the first page, its repeat, at most the detection cap (6 since the offset vocabularies of issue 29)
    assert len(requests) <= 1 + 1 + MAX_DETECTION_REQUESTS
    path = tmp_path / "profile.toml"
    path.write_text('[endpoints.problems]\npaginator = { type = "cursor", cursor_param = "continuation" }\n')
    requests.clear()
    with _client(_continuation_server(requests), profile=str(path)) as c:
        assert [p["id"] for p in c.list_problems()] == [r["id"] for r in ROWS]
    assert len(requests) == 5  # the declared paginator's pages only: no detection request


def test_settings_override_detection_and_misfits_name_the_setting() -> None:
    snake = [{"problem_id": r["id"], "title": r["title"]} for r in ROWS]

    def answer(request: httpx.Request) -> httpx.Response:
        offset = int(request.url.params.get("offset", "0"))
        return httpx.Response(
            200, json={"result": {"rows": snake[offset : offset + 10]}}, headers={"X-Total-Count": "23"}
        )

    profile = Profile.loads(
        '[endpoints.problems]\ndata_selector = "result.rows"\nid_field = "problem_id"\nfield_case = "snake"\n'
        'total_path = "header:X-Total-Count"\n'
        '[endpoints.problems.paginator]\ntype = "offset"\npage_size = 10\n'
    )
    with _client(answer, profile=profile) as c:
        assert [p["id"] for p in c.list_problems()] == [r["id"] for r in ROWS]
    wrong = Profile.loads('[endpoints.problems]\ndata_selector = "result.items"\n')
    with (
        _client(answer, profile=wrong) as c,
        pytest.raises(PaginationError, match=r"\[endpoints.problems\] data_selector"),
    ):
        list(c.list_problems())
    wrong_id = Profile.loads('[endpoints.problems]\ndata_selector = "result.rows"\nid_field = "pid"\n')
    with (
        _client(answer, profile=wrong_id) as c,
        pytest.raises(PaginationError, match=r"id_field = 'pid'.*problem_id"),
    ):
        list(c.list_problems())


def test_unset_record_settings_stay_detected_and_a_record_that_does_not_fit_is_named() -> None:
    snake = [{"ref": r["id"], "solution_count": 1} for r in ROWS[:3]]

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={"problems": snake if "page" not in request.url.params else []})

    only_id = Profile.loads('[endpoints.problems]\nid_field = "ref"\n')
    with _client(answer, profile=only_id) as c:
        assert next(iter(c.list_problems())) == {"id": "p0", "solutionCount": 1}  # snake_case still detected
    relay = Profile.loads('[endpoints.problems]\nrecord = "relay_node"\nid_field = "ref"\n')
    with (
        _client(answer, profile=relay) as c,
        pytest.raises(PaginationError, match="record = 'relay_node' does not fit"),
    ):
        list(c.list_problems())


def _nested_board(request: httpx.Request) -> httpx.Response:
    """A leaderboard whose entries reference their bot through ``botRef`` (issue 21), one page."""
    rows = [
        {"position": i + 1, "botRef": {"id": f"b{i}", "displayName": f"Bot {i}"}, "totalPoints": 9 - i}
        for i in range(3)
    ]
    return httpx.Response(200, json={"bots": rows, "pagination": {"page": 1, "total": 3, "totalPages": 1}})


def test_a_dotted_id_field_reads_ids_from_nested_references() -> None:
    profile = Profile.loads('[endpoints.leaderboard]\nid_field = "botRef.id"\n')
    with _client(_nested_board, profile=profile) as client:
        board = list(client.list_leaderboard())
    assert [(b["id"], b["name"]) for b in board] == [("b0", "Bot 0"), ("b1", "Bot 1"), ("b2", "Bot 2")]
    with _client(_nested_board) as client:  # detection finds the same
        assert [b["id"] for b in client.list_leaderboard()] == ["b0", "b1", "b2"]
        assert client.endpoints["leaderboard"].records.id_field == "botRef.id"


def test_a_dotted_id_field_the_records_do_not_have_names_the_setting() -> None:
    profile = Profile.loads('[endpoints.leaderboard]\nid_field = "owner.id"\n')
    client = _client(_nested_board, profile=profile)
    with client, pytest.raises(PaginationError, match=r"owner\.id"):
        list(client.list_leaderboard())
