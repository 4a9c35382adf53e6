"""Tests of ``solvelens.client.models.parse_task``: tasks in any envelope, every "no task", unknown bodies."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from solvelens.client import PlatformClient, RetryPolicy, UnrecognizedResponseError
from solvelens.client.models import parse_task
from solvelens.client.rules import FieldRule

KEY = "os_key_" + "k" * 48
PAYLOAD = {"problem_id": "p1", "problem_title": "T", "solution_a_id": "s1", "solution_a_text": "A"}
CANONICAL = {"taskType": "vote", "taskId": "t1", "payload": PAYLOAD}


@pytest.mark.parametrize(
    "body",
    [
        CANONICAL,  # the real platform
        {
            "data": {"type": "tasks", "id": "t1", "attributes": {"task_type": "vote", "payload": PAYLOAD}}
        },  # JSON:API
        {"task": {"task_type": "vote", "task_id": "t1", "payload": PAYLOAD}},  # HAL-style
        {
            "value": [
                {
                    "TaskType": "Vote",
                    "TaskId": "t1",
                    "Payload": {
                        "ProblemId": "p1",
                        "ProblemTitle": "T",
                        "SolutionAId": "s1",
                        "SolutionAText": "A",
                    },
                }
            ]
        },  # OData
        {
            "node": {
                "taskType": "vote",
                "taskId": "t1",
                "payload": {
                    "problemId": "p1",
                    "problemTitle": "T",
                    "solutionAId": "s1",
                    "solutionAText": "A",
                },
            }
        },  # Relay
        [CANONICAL],
    ],
)
def test_a_task_in_any_envelope_is_kept_as_sent_with_one_normalised_view(body: Any) -> None:
    task = parse_task(body)
    assert task is not None
    inner = body[0] if isinstance(body, list) else next(iter(body.values())) if len(body) == 1 else body
    inner = inner[0] if isinstance(inner, list) else inner
    assert dict(task) == inner  # the envelope removed, nothing renamed or dropped
    assert (task.id, task.kind, task.payload) == ("t1", "vote", PAYLOAD)  # the view, in every shape
    assert task.view.typed and [c.key for c in task.choices] == ["a", "b", "skip"]


def test_the_platform_and_interface_shapes_are_returned_as_sent() -> None:
    interface = {"id": "t9", "prompt": "Say hi", "extra": 1}
    assert parse_task(interface) == interface
    assert parse_task(CANONICAL) == CANONICAL


@pytest.mark.parametrize(
    "body",
    [
        None,
        "",
        {},
        [],
        {"data": None},
        {"data": []},
        {"value": []},
        {"task": None},
        {"@odata.context": "x", "value": []},
        {"message": "No tasks available"},
        {"prompt": "a task without id"},
        {"node": None},
    ],
)
def test_every_no_task_form(body: Any) -> None:
    assert parse_task(body) is None


@pytest.mark.parametrize("body", [{"job": {"ref": "j1"}}, {"status": "ok", "queue": 3}, [1, 2], "busy"])
def test_an_unknown_body_is_an_error_naming_its_keys_and_the_fix(body: Any) -> None:
    with pytest.raises(UnrecognizedResponseError) as info:
        parse_task(body)
    message = str(info.value)
    assert "[endpoints.tasks_next] data_selector" in message
    if isinstance(body, dict):
        assert all(k in message for k in body)


def test_a_profile_data_selector_reads_a_task_anywhere() -> None:
    body = {"job": {"ticket": {"taskType": "solve", "taskId": "t2", "payload": {"problem_id": "p"}}}}
    task = parse_task(body, selector="job.ticket")
    assert task is not None and task.id == "t2"


def _client(body: Any, status: int = 200, **kwargs: Any) -> PlatformClient:
    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(status, json=body)

    transport = httpx.MockTransport(answer)
    return PlatformClient(
        "http://t.test/api/v1",
        api_key=KEY,
        transport=transport,
        read_env=False,
        retry=RetryPolicy(attempts=1),
        **kwargs,
    )


def test_next_task_over_http_raises_for_unknown_and_reads_404_problem_details_as_no_task() -> None:
    with (
        _client({"job": {"ref": "j1"}}) as c,
        pytest.raises(UnrecognizedResponseError, match="top-level keys: job"),
    ):
        c.next_task()
    problem = {"type": "about:blank", "title": "No task available", "status": 404}
    with _client(problem, 404) as c:
        assert c.next_task() is None
    with _client({"task": {"task_type": "solve", "task_id": "t3", "payload": {"problem_id": "p"}}}) as c:
        task = c.next_task()
        assert task is not None and (task.id, task.type) == ("t3", "solve")


def test_an_interface_task_of_any_kind_is_untyped_with_its_choices_and_limits() -> None:
    body = {
        "id": "t7",
        "kind": "vote",
        "prompt": "Which answer is better? Reply A or B.",
        "choices": [{"key": "A", "text": "first"}, {"key": "B", "text": "second"}],
        "constraints": {"content": {"enum": ["A", "B"]}},
        "extra": {"kept": True},
    }
    task = parse_task(body)
    assert task is not None and dict(task) == body
    view = task.view
    assert (view.id, view.kind, view.typed, view.answer_field) == ("t7", "vote", False, "content")
    assert [(c.key, c.text) for c in view.choices] == [("A", "first"), ("B", "second")]
    assert view.limits == (FieldRule("content", None, None, ("A", "B"), "the task's constraints"),)
    answer = parse_task({"id": "t8", "kind": "answer", "prompt": "Fix it. Answer in 60-2000 characters."})
    assert answer is not None
    assert answer.limits == (FieldRule("content", 60, 2000, None, "the task's prompt"),)


def test_typed_limits_come_from_the_instruction_never_from_a_table() -> None:
    full = {
        "taskType": "create",
        "taskId": "t9",
        "payload": {
            "instruction": "Propose one: a title (5-200 characters), a description (20-1000 characters)."
        },
    }
    task = parse_task(full)
    assert task is not None
    assert {(r.field, r.min_length, r.max_length) for r in task.limits} == {
        ("problem_title", 5, 200),
        ("problem_description", 20, 1000),
    }
    bare = parse_task({"taskType": "solve", "taskId": "t10", "payload": {"problem_title": "T"}})
    assert bare is not None and bare.limits == ()
