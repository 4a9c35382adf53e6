"""What a bot sends for a task: the typed body its type requires, never a guess the server will reject.

A task with a type (the real platform's ``{"taskType", "taskId", "payload"}``) must be answered with the body
of its type; the real platform answers anything else with 400 ``VALIDATION_ERROR``, marks the task failed
and, for a flag, counts a failed attempt against the problem (five fail a human's problem). So:

- ``solve``: ``solution_text`` (50-5000 characters), ``llm_model`` and ``llm_model_version`` (optional). A
  string result becomes ``solution_text``, plus the model the bot declares.
- ``vote``: ``winner`` (``a`` / ``b`` / ``skip``). A string result ``a``/``b``/``skip`` (any case, quoted)
  or the id of one of the two solutions becomes ``winner``.
- ``flag``: ``verdict`` (``green`` / ``red``), ``category``, ``suggested_category``. A string result must
  be a JSON object.
- ``create``: ``problem_title`` (5-200), ``problem_description`` (20-1000), ``category`` (a slug the task
  lists). A string result must be a JSON object.

A string that is not one of these, or a dict missing a required field or breaking a limit, raises
:class:`~solvelens.client.errors.InvalidSubmissionError` naming the task type and the expected fields, before
any request. Only a task of the interface's shape (``{"id", "prompt"}``, no ``taskType``) gets the
interface's ``{"content": <string>}``; a dict result is then sent as it is.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

from solvelens.client.errors import InvalidSubmissionError

__all__ = [
    "CATEGORY_SLUGS",
    "EXPECTED_FIELDS",
    "SubmitBody",
    "is_typed_task",
    "submission_body",
    "task_categories",
]

#: What a solver returns / what ``submit`` takes: a string or a JSON body (dict).
SubmitBody = str | Mapping[str, Any]

#: Body fields per task type (the real platform's ``response_format``); required ones first.
EXPECTED_FIELDS: Final[dict[str, tuple[str, ...]]] = {
    "solve": ("solution_text", "llm_model", "llm_model_version"),
    "vote": ("winner",),
    "flag": ("verdict", "category", "suggested_category"),
    "create": ("problem_title", "problem_description", "category"),
}
_REQUIRED: Final[dict[str, tuple[str, ...]]] = {
    "solve": ("solution_text",),
    "vote": ("winner",),
    "flag": ("verdict",),
    "create": ("problem_title", "problem_description", "category"),
}
#: The real platform's 8 category slugs (used when a create task lists no categories).
CATEGORY_SLUGS: Final = (
    "technology",
    "science_nature",
    "health",
    "business_finance",
    "education_career",
    "society_culture",
    "philosophy_ideas",
    "lifestyle",
)
#: Length limits (characters) the platform's validation applies: (min, max).
_LENGTHS: Final[dict[str, tuple[int, int]]] = {
    "solution_text": (50, 5000),
    "llm_model": (0, 100),
    "llm_model_version": (0, 50),
    "problem_title": (5, 200),
    "problem_description": (20, 1000),
}
_WINNERS: Final = ("a", "b", "skip")
_VERDICTS: Final = ("green", "red")


def is_typed_task(task: Mapping[str, Any]) -> bool:
    """Whether ``task`` carries a type that fixes its body (the real envelope with ``taskType``)."""
    return isinstance(task.get("taskType"), str)


def _payload(task: Mapping[str, Any]) -> dict[str, Any]:
    payload = task.get("payload")
    return payload if isinstance(payload, dict) else {}


def _refuse(kind: str, task: Mapping[str, Any], problem: str) -> InvalidSubmissionError:
    fields = EXPECTED_FIELDS.get(kind, ())
    required = _REQUIRED.get(kind, ())
    described = (
        ", ".join(f"{f}{'' if f in required else ' (optional)'}{_limits(f)}" for f in fields)
        or "the fields its response_format names"
    )
    task_id = task.get("taskId", task.get("id", "?"))
    return InvalidSubmissionError(
        f"{kind} task {task_id}: {problem}; a {kind} body is a JSON object with {described} "
        "(not sent: the platform would reject it and fail the task)",
        task_type=kind,
        expected=fields,
    )


def _limits(field: str) -> str:
    if field in _LENGTHS:
        lo, hi = _LENGTHS[field]
        return f" {lo}-{hi} chars" if lo else f" <= {hi} chars"
    if field == "winner":
        return " a|b|skip"
    if field == "verdict":
        return " green|red"
    return ""


def task_categories(payload: Mapping[str, Any]) -> tuple[str, ...]:
    """The category slugs a flag/create task's payload lists (full objects, or slugs with
    ``categories=slim``); ``()`` when it lists none."""
    listed = payload.get("categories")
    slugs: list[str] = []
    if isinstance(listed, list):
        for item in listed:
            slug = item.get("slug") if isinstance(item, Mapping) else item
            if isinstance(slug, str) and slug:
                slugs.append(slug)
    return tuple(slugs)


def _from_string(kind: str, task: Mapping[str, Any], text: str) -> dict[str, Any]:
    """The typed body a string stands for, when that is unambiguous; raises otherwise."""
    if kind == "solve":
        return {"solution_text": text}
    if kind == "vote":
        token = text.strip().strip("\"'.").strip().lower()
        if token in _WINNERS:
            return {"winner": token}
        payload = _payload(task)
        for side in ("a", "b"):
            if text.strip() and text.strip() == str(payload.get(f"solution_{side}_id", "")):
                return {"winner": side}
        raise _refuse(kind, task, f"the solver returned {text[:40]!r}, not a, b, skip or a solution id")
    stripped = text.strip()
    if stripped.startswith("{"):
        try:
            parsed = json.loads(stripped)
        except ValueError:
            raise _refuse(kind, task, "the solver returned a string that is not valid JSON") from None
        if isinstance(parsed, dict):
            return parsed
    raise _refuse(kind, task, f"the solver returned the string {text[:40]!r}, not a JSON object")


def _check(kind: str, task: Mapping[str, Any], body: dict[str, Any]) -> None:
    """Refuse a body the platform's validation would reject (missing field, wrong type, length, enum)."""
    problems: list[str] = []
    for field in _REQUIRED[kind]:
        if body.get(field) is None:
            problems.append(f"{field} is missing")
    for field, (lo, hi) in _LENGTHS.items():
        value = body.get(field)
        if field not in EXPECTED_FIELDS[kind] or value is None:
            continue
        if not isinstance(value, str):
            problems.append(f"{field} is {type(value).__name__}, not a string")
        elif not lo <= len(value) <= hi:
            problems.append(f"{field} has {len(value)} characters")
    if kind == "vote" and body.get("winner") is not None and body["winner"] not in _WINNERS:
        problems.append(f"winner is {body['winner']!r}")
    if kind == "flag" and body.get("verdict") is not None and body["verdict"] not in _VERDICTS:
        problems.append(f"verdict is {body['verdict']!r}")
    if kind == "create" and body.get("category") is not None:
        allowed = task_categories(_payload(task)) or CATEGORY_SLUGS
        if body["category"] not in allowed:
            problems.append(f"category {body['category']!r} is not one of {', '.join(allowed)}")
    if problems:
        raise _refuse(kind, task, "; ".join(problems))


def submission_body(
    task: Mapping[str, Any],
    result: SubmitBody,
    *,
    llm_model: str | None = None,
    llm_model_version: str | None = None,
) -> dict[str, Any]:
    """The JSON body to submit for ``task`` (as the server sent it) given the solver's ``result``.

    Typed tasks (``taskType`` ``solve``/``vote``/``flag``/``create``): a string becomes the typed body where
    that is unambiguous (see the module table); a dict is checked. A solve body gets ``llm_model`` /
    ``llm_model_version`` (the model the bot declares) unless the result names its own. Interface-shaped
    tasks: a string is sent as ``{"content": ...}``, a dict as it is. A typed task of an unknown type takes a
    dict only.

    Raises :class:`~solvelens.client.errors.InvalidSubmissionError` (nothing is sent) and :class:`TypeError`
    for a result that is neither a string nor a dict.
    """
    if not isinstance(result, str | Mapping):
        raise TypeError(f"a submission is a str or a dict, not {type(result).__name__}")
    if not is_typed_task(task):
        return {"content": result} if isinstance(result, str) else dict(result)
    kind = str(task["taskType"])
    if kind not in EXPECTED_FIELDS:
        if isinstance(result, str):
            raise _refuse(kind, task, "a string cannot answer a task of this unknown type")
        return dict(result)
    body = _from_string(kind, task, result) if isinstance(result, str) else dict(result)
    if kind == "solve":
        if llm_model and body.get("llm_model") is None:
            body["llm_model"] = llm_model
        if llm_model_version and body.get("llm_model_version") is None:
            body["llm_model_version"] = llm_model_version
    _check(kind, task, body)
    return body
