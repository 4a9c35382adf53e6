"""Tests of ``solvelens.client.submission``: the typed body a task requires, or a local refusal."""

from __future__ import annotations

import json
from typing import Any

import pytest

from solvelens.client import InvalidSubmissionError, submission_body

SOLUTION = "Measure the problem for a week, then change one thing at a time and keep what works best."


def task(kind: str, **payload: Any) -> dict[str, Any]:
    return {"taskType": kind, "taskId": "t-1", "payload": payload}


def test_string_solve_becomes_solution_text_with_the_declared_model() -> None:
    body = submission_body(task("solve"), SOLUTION, llm_model="gpt-4o", llm_model_version="2024-08")
    assert body == {"solution_text": SOLUTION, "llm_model": "gpt-4o", "llm_model_version": "2024-08"}
    assert submission_body(task("solve"), SOLUTION) == {"solution_text": SOLUTION}
    own = {"solution_text": SOLUTION, "llm_model": "mine"}
    assert submission_body(task("solve"), own, llm_model="declared")["llm_model"] == "mine"


@pytest.mark.parametrize(
    ("answer", "winner"),
    [("a", "a"), ("B", "b"), (' "skip" ', "skip"), ("b.", "b"), ("sol-a", "a"), ("sol-b", "b")],
)
def test_string_vote_becomes_winner(answer: str, winner: str) -> None:
    t = task("vote", solution_a_id="sol-a", solution_b_id="sol-b")
    assert submission_body(t, answer) == {"winner": winner}


def test_json_object_strings_become_flag_and_create_bodies() -> None:
    flag = {"verdict": "green", "category": "none", "suggested_category": "health"}
    assert submission_body(task("flag"), json.dumps(flag)) == flag
    create = {"problem_title": "A new problem", "problem_description": "D" * 30, "category": "health"}
    t = task("create", categories=["technology", "health"])
    assert submission_body(t, "  " + json.dumps(create)) == create


@pytest.mark.parametrize(
    ("t", "answer", "words"),
    [
        (task("vote"), "Solution A is better", ["vote task t-1", "winner", "a|b|skip"]),
        (task("flag"), "green", ["flag task t-1", "not a JSON object", "verdict green|red"]),
        (task("create"), "{not json", ["create task t-1", "not valid JSON", "problem_title 5-200 chars"]),
        (task("solve"), "too short", ["solve task t-1", "solution_text has 9 characters", "50-5000"]),
        (task("flag"), {"category": "none"}, ["verdict is missing"]),
        (task("vote"), {"winner": "both"}, ["winner is 'both'"]),
        (
            task("create", categories=[{"slug": "health"}]),
            {"problem_title": "Title", "problem_description": "D" * 30, "category": "technology"},
            ["category 'technology' is not one of health"],
        ),
        (task("audit"), "anything", ["audit task t-1", "unknown type"]),
    ],
    ids=[
        "vote-prose",
        "flag-word",
        "create-broken",
        "solve-short",
        "flag-dict",
        "vote-dict",
        "create-cat",
        "unknown",
    ],
)
def test_ambiguous_or_invalid_answers_are_refused_naming_type_and_fields(
    t: dict, answer: Any, words: list
) -> None:
    with pytest.raises(InvalidSubmissionError) as info:
        submission_body(t, answer)
    message = str(info.value)
    for word in words:
        assert word in message, message
    assert "not sent" in message
    assert info.value.task_type == t["taskType"]


def test_interface_tasks_get_content_and_dicts_pass_through() -> None:
    interface = {"id": "t-2", "prompt": "How do I fix a tap?", "type": "solve", "payload": {}}
    assert submission_body(interface, "text") == {"content": "text"}
    assert submission_body(interface, {"winner": "a"}) == {"winner": "a"}
    assert submission_body(task("audit"), {"x": 1}) == {"x": 1}  # unknown type: a dict is sent as it is
    with pytest.raises(TypeError, match="str or a dict"):
        submission_body(interface, 42)  # type: ignore[arg-type]
