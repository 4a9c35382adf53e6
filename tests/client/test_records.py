"""Tests of ``solvelens.client.records``: record styles detected once, normalised to the canonical form."""

from __future__ import annotations

from typing import Any

import pytest

from solvelens.client.errors import UnrecognizedResponseError
from solvelens.client.locate import stats_figures, unwrap_single
from solvelens.client.records import RecordStyle, detect_record_style, to_camel

CANONICAL = {"id": "p1", "title": "T", "solutionCount": 3, "topSolution": {"btScore": 1510.5, "botName": "b"}}


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        ("solution_count", "solutionCount"),
        ("SolutionCount", "solutionCount"),
        ("solutionCount", "solutionCount"),
        ("Id", "id"),
        ("ID", "id"),
        ("llm_model_version", "llmModelVersion"),
        ("@odata.count", "@odata.count"),
        ("_links", "_links"),
        ("3f2a-11aa", "3f2a-11aa"),
        ("42", "42"),
    ],
)
def test_to_camel(key: str, expected: str) -> None:
    assert to_camel(key) == expected


@pytest.mark.parametrize(
    ("record", "style"),
    [
        (
            {
                "problem_id": "p1",
                "title": "T",
                "solution_count": 3,
                "top_solution": {"bt_score": 1510.5, "bot_name": "b"},
            },
            ("flat", "snake", "problem_id"),
        ),
        (
            {
                "Id": "p1",
                "Title": "T",
                "SolutionCount": 3,
                "TopSolution": {"BtScore": 1510.5, "BotName": "b"},
            },
            ("flat", "pascal", "Id"),
        ),
        (
            {
                "problemId": "p1",
                "title": "T",
                "solutionCount": 3,
                "topSolution": {"btScore": 1510.5, "botName": "b"},
            },
            ("flat", "camel", "problemId"),
        ),
        (
            {
                "type": "problems",
                "id": "p1",
                "attributes": {
                    "title": "T",
                    "solution_count": 3,
                    "top_solution": {"bt_score": 1510.5, "bot_name": "b"},
                },
            },
            ("resource_object", "snake", "id"),
        ),
        (
            {
                "node": {
                    "problemId": "p1",
                    "title": "T",
                    "solutionCount": 3,
                    "topSolution": {"btScore": 1510.5, "botName": "b"},
                },
                "cursor": "c",
            },
            ("relay_node", "camel", "problemId"),
        ),
        (
            {
                "problem_id": "p1",
                "title": "T",
                "solution_count": 3,
                "top_solution": {"bt_score": 1510.5, "bot_name": "b"},
                "_links": {"self": {"href": "/x"}},
            },
            ("flat", "snake", "problem_id"),
        ),
    ],
)
def test_detected_style_normalises_to_the_canonical_record(
    record: dict[str, Any], style: tuple[str, str, str]
) -> None:
    detected = detect_record_style(record, "problems")
    assert (detected.record, detected.field_case, detected.id_field) == style
    assert not detected.identity
    assert detected.normalise(record) == CANONICAL


def test_the_real_platform_is_identity_and_untouched() -> None:
    style = detect_record_style(CANONICAL, "problems")
    assert style.identity
    items = [CANONICAL, dict(CANONICAL, id="p2")]
    assert style.normalise_all(items) is items  # the same list object: no per-record work


def test_ids_under_other_names_per_resource() -> None:
    entry = {"botId": "b1", "name": "x", "totalPoints": 5}
    assert detect_record_style(entry, "leaderboard").normalise(entry) == {
        "id": "b1",
        "name": "x",
        "totalPoints": 5,
    }
    solution = {"solution_id": "s1", "bot_id": "b1", "bt_score": 1500}
    assert detect_record_style(solution, "solutions").normalise(solution) == {
        "id": "s1",
        "botId": "b1",
        "btScore": 1500,
    }
    category = {
        "type": "categories",
        "id": "technology",
        "attributes": {"display_name": "Technology", "active_problems": 2},
    }
    assert detect_record_style(category, "categories").normalise(category) == {
        "slug": "technology",
        "displayName": "Technology",
        "activeProblems": 2,
    }


def test_a_natural_key_sent_as_the_resource_objects_id_goes_to_its_canonical_field() -> None:
    # /llm-leaderboard/families has no id on the real platform: its key is the family name (``family``).
    # JSON:API sends that key as the resource object's ``id``; the canonical record has it as ``family``.
    family = {"type": "families", "id": "gemini", "attributes": {"count": 3}}
    assert detect_record_style(family, "llm_families").normalise(family) == {"family": "gemini", "count": 3}
    flat = {"family": "gemini", "count": 3}
    style = detect_record_style(flat, "llm_families")
    assert style.identity and style.normalise(flat) is flat


def test_jsonapi_relationships_become_id_fields() -> None:
    obj = {
        "type": "solutions",
        "id": "s1",
        "attributes": {"bt_score": 1},
        "relationships": {
            "bot": {"data": {"type": "bots", "id": "b1"}},
            "problem": {"data": {"type": "problems", "id": "p1"}},
            "votes": {"data": [{"type": "votes", "id": "v"}]},
        },
    }
    assert detect_record_style(obj, "solutions").normalise(obj) == {
        "id": "s1",
        "btScore": 1,
        "botId": "b1",
        "problemId": "p1",
    }


def test_no_id_found_is_none_not_a_guess() -> None:
    style = detect_record_style({"title": "x"}, "problems")
    assert style.id_field is None and not style.identity


def test_invalid_declared_style_names_the_setting() -> None:
    with pytest.raises(ValueError, match="record = 'document'"):
        RecordStyle(record="document")


@pytest.mark.parametrize(
    "body",
    [
        {"data": {"type": "problems", "id": "p1", "attributes": {}}, "links": {"self": "/x"}},
        {"node": {"id": "p1"}},
        {"problem": {"id": "p1"}},
        {"id": "p1", "title": "flat"},
    ],
)
def test_unwrap_single(body: dict[str, Any]) -> None:
    assert unwrap_single(body, "problem")["id"] == "p1"


@pytest.mark.parametrize(
    "body",
    [
        {"totalProblems": 5, "totalBots": 2, "nested": {"activeBots": 1}},
        {"total_problems": 5, "total_bots": 2, "nested": {"active_bots": 1}},
        {
            "data": {
                "type": "stats",
                "id": "platform",
                "attributes": {"total_problems": 5, "total_bots": 2, "nested": {"active_bots": 1}},
            }
        },
        {"node": {"TotalProblems": 5, "TotalBots": 2, "Nested": {"ActiveBots": 1}}},
    ],
)
def test_stats_objects_become_one_dict_of_figures(body: dict[str, Any]) -> None:
    assert stats_figures(body) == {"totalProblems": 5, "totalBots": 2, "nested": {"activeBots": 1}}


@pytest.mark.parametrize(
    "body",
    [
        [{"name": "totalProblems", "value": 5}, {"name": "total_bots", "value": 2}],
        {"value": [{"Name": "TotalProblems", "Value": 5}, {"Name": "TotalBots", "Value": 2}]},
        {
            "data": [
                {"type": "stats", "id": "1", "attributes": {"metric": "totalProblems", "value": 5}},
                {"type": "stats", "id": "2", "attributes": {"metric": "totalBots", "value": 2}},
            ]
        },
    ],
)
def test_stats_name_value_pairs(body: Any) -> None:
    assert stats_figures(body) == {"totalProblems": 5, "totalBots": 2}


def test_stats_unknown_list_is_an_error() -> None:
    with pytest.raises(UnrecognizedResponseError, match=r"endpoints\.stats"):
        stats_figures([1, 2, 3])


def test_single_resources_search_and_stats_over_http_in_another_convention() -> None:
    import httpx

    from solvelens.client import PlatformClient, RetryPolicy

    answers = {
        "/api/v1/problems/p1": {
            "data": {"type": "problems", "id": "p1", "attributes": {"solution_count": 2}}
        },
        "/api/v1/bots/b1": {"node": {"botId": "b1", "globalElo": 1500}},
        "/api/v1/search": {
            "problems": [{"problem_id": "p1", "title": "x"}],
            "bots": [{"bot_id": "b1", "name": "n"}],
        },
        "/api/v1/stats": {"value": [{"Name": "TotalBots", "Value": 2}]},
    }
    transport = httpx.MockTransport(lambda r: httpx.Response(200, json=answers[r.url.path]))
    with PlatformClient(
        "http://r.test/api/v1", transport=transport, read_env=False, retry=RetryPolicy(1)
    ) as c:
        assert c.get_problem("p1") == {"id": "p1", "solutionCount": 2}
        assert c.get_bot("b1").id == "b1"
        found = c.search("x")
        assert found.problems == [{"id": "p1", "title": "x"}] and found.bots == [{"id": "b1", "name": "n"}]
        assert c.get_stats().total_bots == 2


def test_a_leaderboard_entry_referencing_its_bot_through_a_nested_object_is_identified() -> None:
    """Issue 21: ``{"position", "botRef": {"id", "displayName"}, ...}`` with no flat id."""
    entry = {"position": 1, "botRef": {"id": "b-1", "displayName": "Lunar"}, "totalPoints": 40}
    style = detect_record_style(entry, "leaderboard")
    assert style.id_field == "botRef.id" and not style.identity
    assert style.normalise(entry) == {
        "id": "b-1",
        "position": 1,
        "botRef": {"id": "b-1", "displayName": "Lunar"},
        "totalPoints": 40,
        "name": "Lunar",
    }


@pytest.mark.parametrize(
    ("entry", "expected"),
    [
        ({"id": "s1", "bot": {"id": "b-1", "name": "Lunar"}}, {"botId": "b-1", "botName": "Lunar"}),
        ({"id": "s1", "bot_ref": {"id": "b-2", "name": "Sol"}}, {"botId": "b-2", "botName": "Sol"}),
        ({"id": "s1", "author": {"id": "h-1", "username": "ann"}}, {"authorId": "h-1", "authorName": "ann"}),
    ],
)
def test_nested_references_of_other_resources_become_their_flat_fields(
    entry: dict[str, Any], expected: dict[str, Any]
) -> None:
    style = detect_record_style(entry, "solutions")
    assert style.id_field == "id"
    out = style.normalise(entry)
    assert {k: out[k] for k in expected} == expected and out["id"] == "s1"


def test_flat_records_and_single_resources_with_nested_objects_stay_identity() -> None:
    """The real platform: a problem listed with ``topSolution`` (no id) and a single problem's ``author``
    (the real GET /problems/{id}) are handed out untouched."""
    listed = {"id": "p1", "topSolution": {"btScore": 1500.0, "botName": "x"}}
    assert detect_record_style(listed, "problems").identity
    single = {"id": "p1", "author": {"id": "h-1", "username": "ann"}}
    assert detect_record_style(single, "problem").identity
    already = {"id": "s1", "botId": "b-1", "bot": {"id": "b-1", "name": "x"}}
    assert detect_record_style(already, "solutions").identity
