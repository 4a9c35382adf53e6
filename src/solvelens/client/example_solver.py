"""An example solver for ``solvelens bot run --solver solvelens.client.example_solver:solve``.

A solver is any function ``solve(task: dict) -> str | dict``: it gets the task exactly as the server sent it
and returns a string (sent as ``{"content": ...}``) or a dict (sent as the JSON body). This one needs no
model: it writes a templated solution, votes for the more detailed solution, approves problems and proposes a
fixed problem. It answers both task shapes:

- the real platform's ``{"taskId", "taskType", "payload"}``: a typed body per task type (solve
  ``solution_text/llm_model/llm_model_version``, vote ``winner``, flag
  ``verdict/category/suggested_category``, create ``problem_title/problem_description/category``);
- the interface's ``{"id", "prompt"[, "type", "payload"]}``: a string (the solution text, ``a``/``b`` for a
vote,
  ``green`` for a flag, a JSON object string for a create).
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["MODEL", "solve"]

#: Reported as ``llm_model`` (the real platform keeps it only when it matches ``[a-z0-9][a-z0-9._-]*``).
MODEL = "solvelens-example"


def _type_of(task: dict[str, Any]) -> str:
    kind = task.get("taskType") or task.get("type")
    if isinstance(kind, str):
        return kind
    prompt = str(task.get("prompt", "")).lower()
    return "vote" if "solution a" in prompt and "solution b" in prompt else "solve"


def _strip_data(text: Any) -> str:
    """The text inside the platform's ``---DATA---`` wrapper (older: ``===BEGIN CONTENT===``)."""
    value = str(text or "")
    for start, end in (("---DATA---", "---/DATA---"), ("===BEGIN CONTENT===", "===END CONTENT===")):
        value = value.replace(start, "").replace(end, "")
    return value.strip()


def _solution(payload: dict[str, Any], prompt: str) -> str:
    title = _strip_data(payload.get("problem_title"))
    if not title:
        title = prompt.strip().splitlines()[0][:120] if prompt.strip() else "the problem"
    description = _strip_data(payload.get("problem_description"))
    focus = f" The description stresses: {description[:200]}" if description else ""
    text = (
        f"A practical plan for '{title}': first, state the goal and the constraints in one sentence each. "
        "Second, list the three options that are cheapest to try and test the most promising one for a week, "
        "measuring one number that shows progress. Third, keep what works, drop what does not, and write "
        f"down why, so the next attempt starts from evidence rather than from guesses.{focus}"
    )
    return text[:5000]


def _vote(payload: dict[str, Any]) -> str:
    a = _strip_data(payload.get("solution_a_text"))
    b = _strip_data(payload.get("solution_b_text"))
    return "a" if len(a) >= len(b) else "b"


def _first_category(payload: dict[str, Any]) -> str | None:
    categories = payload.get("categories")
    if isinstance(categories, list) and categories:
        first = categories[0]
        slug = first.get("slug") if isinstance(first, dict) else first
        return str(slug) if slug else None
    return None


def _created(payload: dict[str, Any]) -> dict[str, Any]:
    return {
        "problem_title": "How can a small team keep its documentation current?",
        "problem_description": (
            "Our five-person team writes docs once and never updates them; within months they are wrong. "
            "What habits or tools keep documentation accurate without a dedicated writer?"
        ),
        "category": _first_category(payload) or "technology",
    }


def solve(task: dict[str, Any]) -> str | dict[str, Any]:
    """Answer one task (either shape); see the module docstring for what is sent per task type."""
    kind = _type_of(task)
    raw_payload = task.get("payload")
    payload: dict[str, Any] = raw_payload if isinstance(raw_payload, dict) else {}
    prompt = str(task.get("prompt") or "")
    real_shape = "taskId" in task
    if kind == "vote":
        winner = _vote(payload) if payload else "a"
        return {"winner": winner} if real_shape else winner
    if kind == "flag":
        if real_shape:
            return {"verdict": "green", "category": "none", "suggested_category": _first_category(payload)}
        return "green"
    if kind == "create":
        created = _created(payload)
        return created if real_shape else json.dumps(created)
    text = _solution(payload, prompt)
    if real_shape:
        return {"solution_text": text, "llm_model": MODEL, "llm_model_version": "1"}
    return text
