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
        (
            task("create"),
            "{not json",
            ["create task t-1", "not valid JSON", "problem_title, problem_description"],
        ),
        (
            task("solve", instruction="Solve the problem. 50-5000 chars. Be specific."),
            "too short",
            [
                "solve task t-1",
                "solution_text has 9 characters",
                "50-5000 characters (the task's instruction)",
            ],
        ),
        (task("flag"), {"category": "none"}, ["verdict is missing"]),
        (task("vote"), {"winner": "both"}, ["winner is 'both'"]),
        (
            task("create", categories=[{"slug": "health"}]),
            {"problem_title": "Title", "problem_description": "D" * 30, "category": "technology"},
            ["category 'technology' is not one of health"],
        ),
    ],
    ids=[
        "vote-prose",
        "flag-word",
        "create-broken",
        "solve-short",
        "flag-dict",
        "vote-dict",
        "create-cat",
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


def test_no_length_rule_is_assumed() -> None:
    """A task that states no bound gets none: 9 or 9,000 characters are the platform's to judge."""
    for text in ("too short", "x" * 9000):
        assert submission_body(task("solve"), text) == {"solution_text": text}
    create = {"problem_title": "T", "problem_description": "D", "category": "anything"}
    assert submission_body(task("create"), create) == create  # no bounds, no listed categories


def test_interface_tasks_get_content_and_dicts_pass_through() -> None:
    interface = {"id": "t-2", "prompt": "How do I fix a tap?", "type": "solve", "payload": {}}
    assert submission_body(interface, "text") == {"content": "text"}
    assert submission_body(interface, {"winner": "a"}) == {"winner": "a"}
    assert submission_body(task("audit"), {"x": 1}) == {"x": 1}  # unknown type: a dict is sent as it is
    assert submission_body(task("audit"), "anything") == {"content": "anything"}  # whatever it is called
    voted = {"id": "t-3", "kind": "vote", "prompt": "Which?", "choices": [{"key": "A", "text": "one"}, "B"]}
    for answer in ("A", "a", ' "b" ', "Solution A", "one"):
        assert submission_body(voted, answer)["content"] in ("A", "B")
    assert submission_body(voted, "Solution B") == {"content": "B"}
    assert submission_body(voted, "neither") == {"content": "neither"}  # no stated enum: the platform judges
    assert submission_body(voted, {"content": "a"}) == {"content": "a"}  # a dict is sent as it is
    with pytest.raises(TypeError, match="str or a dict"):
        submission_body(interface, 42)  # type: ignore[arg-type]


def test_rules_stated_by_the_task_or_passed_are_checked_naming_their_source() -> None:
    from solvelens.client.rules import FieldRule

    stated = {
        "id": "t-4",
        "kind": "answer",
        "prompt": "Fix the tap.",
        "constraints": {"content": {"minLength": 60, "maxLength": 2000}},
    }
    with pytest.raises(
        InvalidSubmissionError,
        match=r"content has 10 characters; the platform's rule: "
        r"60-2000 characters \(the task's constraints\)",
    ):
        submission_body(stated, "x" * 10)
    vote = {
        "id": "t-5",
        "kind": "vote",
        "prompt": "?",
        "choices": ["A", "B"],
        "constraints": {"enum": ["A", "B"]},
    }
    with pytest.raises(InvalidSubmissionError, match="one of A, B"):
        submission_body(vote, "neither")
    learned = FieldRule("solution_text", None, 2000, None, "learned from the platform's 400 answer")
    with pytest.raises(InvalidSubmissionError, match=r"at most 2000 characters \(learned from"):
        submission_body(task("solve"), "x" * 2500, rules=[learned])
    assert submission_body(task("solve"), "x" * 1500, rules=[learned]) == {"solution_text": "x" * 1500}
