"""What a bot sends for a task: the body form the platform asks for, checked only against rules it stated.

The form comes from the task (:class:`~solvelens.client.taskview.TaskView`):

- A task the platform types itself (``view.typed``: the real platform's ``{"taskType", "taskId",
  "payload"}`` of ``flag``/``solve``/``vote``/``create``) is answered with the body of its type; the real
  platform answers anything else with 400 ``VALIDATION_ERROR``, fails the task and, for a flag, counts a
  failed attempt against the problem. A string result becomes that body where that is unambiguous (solve:
  ``solution_text``, plus the model the bot declares; vote: ``a``/``b``/``skip`` or a solution id ->
  ``winner``; flag and create: a JSON object string), otherwise it is refused locally. The body's shape is
  the real platform's documented body of the type (required fields, ``winner`` a|b|skip, ``verdict``
  green|red, a ``category`` the task lists).
- Every other task, whatever its kind is called, is answered with the interface's ``{"content": <string>}``;
  a string that names one of the choices the task offers (its key, ``"Solution A"``, or the choice's text)
  is sent as the choice's key (``{"content": "A"}``). A dict result is sent as it is.

Limits (lengths, allowed values) are never assumed: only the rules the task states (``view.limits``: its
constraints, its instruction's or response format's bounds) and the ones the caller passes (learned from
the platform's validation answers, or declared by the solver; :mod:`solvelens.client.rules`) are checked. A
body that breaks one raises :class:`~solvelens.client.errors.InvalidSubmissionError` naming the field, the
rule and where it was read, before any request; it claims nothing about what the platform would do beyond
the rule it stated. Guidance a task gives (``view.guidance``: "Aim for 400-1200 characters") is never
checked: only what the platform validates is.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any, Final

from solvelens.client.errors import InvalidSubmissionError
from solvelens.client.models import Task
from solvelens.client.rules import FieldRule, check_rules
from solvelens.client.taskview import Choice, TaskView, view_of

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

#: Body fields per typed task (the real platform's ``response_format``); required ones first.
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
#: Text fields of the typed bodies (a non-string there is refused).
_TEXT_FIELDS: Final = (
    "solution_text",
    "llm_model",
    "llm_model_version",
    "problem_title",
    "problem_description",
)
#: The real platform's 8 category slugs (for solvers; a create is checked only against what its task lists).
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
_WINNERS: Final = ("a", "b", "skip")
_VERDICTS: Final = ("green", "red")
_DOCUMENTED: Final = "the real platform's documented {kind} body"
_CHOICE_WORDS: Final = re.compile(r"^(?:solution|option|choice|answer)\s+(\S+)$", re.IGNORECASE)


def is_typed_task(task: Mapping[str, Any]) -> bool:
    """Whether ``task`` (as sent) is one the platform types itself (see the module docstring)."""
    return _view(task).typed


def _view(task: Mapping[str, Any]) -> TaskView:
    return task.view if isinstance(task, Task) else view_of(dict(task))


def _refuse(view: TaskView, problem: str, *, shape: bool = False) -> InvalidSubmissionError:
    """The local refusal: the task, what is wrong, and (for the typed body's shape) the body it needs."""
    kind = view.kind or "task"
    fields = EXPECTED_FIELDS.get(kind, ()) if view.typed else ("content",)
    described = ""
    if shape and view.typed:
        required = _REQUIRED.get(kind, ())
        parts = [f"{f}{'' if f in required else ' (optional)'}{_enum_words(f)}" for f in fields]
        described = (
            f"; a {kind} body is a JSON object with {', '.join(parts)} ({_DOCUMENTED.format(kind=kind)})"
        )
    return InvalidSubmissionError(
        f"{kind} task {view.id}: {problem}{described} (not sent)",
        task_type=kind,
        expected=fields,
    )


def _enum_words(field: str) -> str:
    return {"winner": " a|b|skip", "verdict": " green|red"}.get(field, "")


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


def _from_string(view: TaskView, text: str) -> dict[str, Any]:
    """The typed body a string stands for, when that is unambiguous; raises otherwise."""
    kind = view.kind
    if kind == "solve":
        return {"solution_text": text}
    if kind == "vote":
        token = text.strip().strip("\"'.").strip().lower()
        if token in _WINNERS:
            return {"winner": token}
        for side in ("a", "b"):
            if text.strip() and text.strip() == str(view.payload.get(f"solution_{side}_id", "")):
                return {"winner": side}
        raise _refuse(view, f"the solver returned {text[:40]!r}, not a, b, skip or a solution id", shape=True)
    stripped = text.strip()
    if stripped.startswith("{"):
        try:
            parsed = json.loads(stripped)
        except ValueError:
            raise _refuse(view, "the solver returned a string that is not valid JSON", shape=True) from None
        if isinstance(parsed, dict):
            return parsed
    raise _refuse(view, f"the solver returned the string {text[:40]!r}, not a JSON object", shape=True)


def _shape_problems(view: TaskView, body: Mapping[str, Any]) -> list[str]:
    """What the typed body of ``view.kind`` lacks (required fields, types, the documented values)."""
    kind = str(view.kind)
    problems = [f"{field} is missing" for field in _REQUIRED[kind] if body.get(field) is None]
    for field in _TEXT_FIELDS:
        value = body.get(field)
        if field in EXPECTED_FIELDS[kind] and value is not None and not isinstance(value, str):
            problems.append(f"{field} is {type(value).__name__}, not a string")
    if kind == "vote" and body.get("winner") is not None and body["winner"] not in _WINNERS:
        problems.append(f"winner is {body['winner']!r}")
    if kind == "flag" and body.get("verdict") is not None and body["verdict"] not in _VERDICTS:
        problems.append(f"verdict is {body['verdict']!r}")
    return problems


def _category_problem(view: TaskView, body: Mapping[str, Any]) -> str | None:
    """A create's category that is not one the task lists (nothing checked when it lists none)."""
    listed = task_categories(view.payload)
    category = body.get("category")
    if view.kind != "create" or not listed or category is None or category in listed:
        return None
    return f"category {category!r} is not one of {', '.join(listed)} (the categories the task lists)"


def _choice_key(choices: tuple[Choice, ...], text: str) -> str | None:
    """The key of the choice ``text`` names (its key in any case or quoting, ``Solution A``, its text)."""
    token = text.strip().strip("\"'.").strip()
    named = _CHOICE_WORDS.match(token)
    for candidate in (token, named.group(1) if named else None):
        if candidate is None:
            continue
        for choice in choices:
            if candidate.lower() == choice.key.lower():
                return choice.key
    for choice in choices:
        if choice.text and token == choice.text.strip():
            return choice.key
    return None


def _content_body(view: TaskView, result: str) -> dict[str, Any]:
    """``{"content": result}``; a string naming a choice the task offers becomes the choice's key."""
    if view.choices:
        key = _choice_key(view.choices, result)
        if key is not None:
            return {"content": key}
    return {"content": result}


def submission_body(
    task: Mapping[str, Any],
    result: SubmitBody,
    *,
    llm_model: str | None = None,
    llm_model_version: str | None = None,
    rules: Iterable[FieldRule] = (),
) -> dict[str, Any]:
    """The JSON body to submit for ``task`` (as the server sent it; a :class:`Task` or a plain dict) given
    the solver's ``result`` (see the module docstring for the form).

    A typed solve body gets ``llm_model`` / ``llm_model_version`` (the model the bot declares) unless the
    result names its own. ``rules``: more rules for this task's fields besides those it states (learned from
    the platform's validation answers, declared by the solver). Raises
    :class:`~solvelens.client.errors.InvalidSubmissionError` (nothing is sent) and :class:`TypeError` for a
    result that is neither a string nor a dict.
    """
    if not isinstance(result, str | Mapping):
        raise TypeError(f"a submission is a str or a dict, not {type(result).__name__}")
    view = _view(task)
    all_rules = (*view.limits, *rules)
    if not view.typed:
        body = _content_body(view, result) if isinstance(result, str) else dict(result)
        problems = check_rules(body, all_rules)
    else:
        body = _from_string(view, result) if isinstance(result, str) else dict(result)
        if view.kind == "solve":
            if llm_model and body.get("llm_model") is None:
                body["llm_model"] = llm_model
            if llm_model_version and body.get("llm_model_version") is None:
                body["llm_model_version"] = llm_model_version
        shape = _shape_problems(view, body)
        if shape:
            raise _refuse(view, "; ".join(shape), shape=True)
        category = _category_problem(view, body)
        problems = [category, *check_rules(body, all_rules)] if category else check_rules(body, all_rules)
    if problems:
        raise _refuse(view, "; ".join(problems))
    return body
