"""The normalised view of a task: what it asks for, read from the task as the platform sent it.

A solver gets the task as the platform sent it (:class:`~solvelens.client.models.Task`: the envelope removed,
nothing renamed, nothing dropped) and, beside it, this view (``task.view``): the same in every shape and
field case, and the same for the sync and async clients (both read tasks with
:func:`~solvelens.client.models.parse_task`).

:class:`TaskView` fields:

- ``id``: the id used in the submit path (``taskId``, ``id``, ``task_id``, ``TaskId``; a JSON:API resource's
  ``id``);
- ``kind``: what the platform calls the task (``taskType``, ``type``, ``kind``; lower case), or ``None``;
- ``typed``: whether the platform types the task itself, i.e. the real platform's envelope (``taskType``, in
  any case, of ``flag``, ``solve``, ``vote`` or ``create``, with a ``payload``): its answer is that type's
  JSON body (:mod:`solvelens.client.submission`). Every other task (a ``type`` or ``kind`` of any name
  included) is answered ``{"content": <string>}``;
- ``prompt``: the text to work on (``prompt``, else the payload's ``instruction``), or ``None``;
- ``choices``: the choices the task offers (:class:`Choice`: ``key`` and ``text``), from its ``choices`` /
  ``options`` (a list of strings or objects, or an object ``{key: text}``), or a typed vote's two solutions
  (``a``, ``b``) and ``skip``; ``()`` when it offers none;
- ``payload``: the typed payload with snake_case keys (``problem_title``, ``solution_a_text``), or ``{}``;
- ``response_format``: the payload's ``response_format`` (a string on the real platform), or ``None``;
- ``limits``: the rules the task states for its answer's fields
  (:class:`~solvelens.client.rules.FieldRule`, each with where it was read): its ``constraints``, and
  length bounds its instruction, prompt or ``response_format`` states as the rule (a "Respond with" bound;
  never guidance);
- ``guidance``: the lengths the task advises but the platform does not validate
  (:class:`~solvelens.client.rules.Guidance`: field, bounds, the line that says it), e.g. the real solve
  instruction's "Aim for 400-1200 characters" beside its rule "(10-2000 characters)": advice for the
  solver, never enforced;
- ``title``: the problem's title (``problem_title`` or ``title``, without the ``---DATA---`` wrapper), or
  ``None`` (a create task has no problem yet; an interface task only a prompt).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Final

from solvelens.client.pagination import norm_key
from solvelens.client.rules import (
    SOURCES,
    FieldRule,
    Guidance,
    guidance_from_text,
    rules_from_constraints,
    rules_from_text,
)

__all__ = ["ANSWER_FIELDS", "TYPED_KINDS", "Choice", "TaskView", "flat_fields", "strip_data", "view_of"]

#: Task kinds the real platform types itself (answered with the typed body of the kind).
TYPED_KINDS: Final = ("flag", "solve", "vote", "create")
#: Per typed kind, the words of an instruction that name a text field of its body.
ANSWER_FIELDS: Final[dict[str, dict[str, str]]] = {
    "solve": {
        "solution": "solution_text",
        "solution_text": "solution_text",
        "text": "solution_text",
        "answer": "solution_text",
    },
    "create": {
        "title": "problem_title",
        "problem_title": "problem_title",
        "description": "problem_description",
        "problem_description": "problem_description",
    },
}
#: The one text field a typed kind's bare bounds belong to.
_SINGLE_FIELD: Final = {"solve": "solution_text"}
_DATA_MARKERS: Final = ("---DATA---", "---/DATA---", "===BEGIN CONTENT===", "===END CONTENT===")


@dataclass(frozen=True)
class Choice:
    """One choice a task offers: ``key`` (what an answer sends, e.g. ``A``) and ``text`` (what it stands
    for; ``None`` when the task gives none)."""

    key: str
    text: str | None = None


@dataclass(frozen=True)
class TaskView:
    """What a task asks for, normalised (see the module docstring for each field)."""

    id: str
    kind: str | None
    typed: bool
    prompt: str | None
    choices: tuple[Choice, ...] = ()
    payload: dict[str, Any] = field(default_factory=dict)
    response_format: Any = None
    limits: tuple[FieldRule, ...] = ()
    title: str | None = None
    guidance: tuple[Guidance, ...] = ()

    @property
    def answer_field(self) -> str | None:
        """The body field a string answer fills: ``content`` for an untyped task, ``solution_text`` for a
        typed solve, ``None`` for other typed kinds (their string answers are converted)."""
        if not self.typed:
            return "content"
        return _SINGLE_FIELD.get(self.kind or "")


def strip_data(text: Any) -> str:
    """``text`` without the platform's ``---DATA---`` wrapper markers, whitespace collapsed."""
    value = str(text or "")
    for marker in _DATA_MARKERS:
        value = value.replace(marker, "")
    return " ".join(value.split())


def flat_fields(obj: dict[str, Any]) -> dict[str, Any]:
    """A task object's fields for reading: a JSON:API resource's ``attributes`` beside its ``id``."""
    attributes = obj.get("attributes")
    if isinstance(attributes, dict) and "type" in obj:
        return {"id": obj.get("id"), **attributes}
    return obj


_SNAKE_1 = re.compile(r"(?<=[a-z0-9])([A-Z])")
_SNAKE_2 = re.compile(r"([A-Z]+)([A-Z][a-z])")


def to_snake(key: str) -> str:
    """``problemTitle``/``ProblemTitle`` -> ``problem_title``, ``solutionAText`` -> ``solution_a_text``."""
    return _SNAKE_1.sub(r"_\1", _SNAKE_2.sub(r"\1_\2", key)).lower()


def _snake_deep(value: Any) -> Any:
    if isinstance(value, dict):
        return {to_snake(k) if isinstance(k, str) else k: _snake_deep(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_snake_deep(v) for v in value]
    return value


def _get(fields: dict[str, Any], *names: str) -> Any:
    """The first present field among ``names`` (compared by :func:`norm_key`)."""
    by_norm = {norm_key(k): k for k in fields}
    for name in names:
        key = by_norm.get(name)
        if key is not None and fields[key] is not None:
            return fields[key]
    return None


def _choice(item: Any, index: int) -> Choice | None:
    if isinstance(item, str | int | float) and not isinstance(item, bool):
        return Choice(str(item))
    if isinstance(item, dict):
        key = _get(item, "key", "id", "value", "label", "name")
        text = _get(item, "text", "label", "description", "content", "title")
        if key is None:
            return None
        return Choice(str(key), None if text is None or text == key else str(text))
    return None


def _choices(
    fields: dict[str, Any], kind: str | None, payload: dict[str, Any], typed: bool
) -> tuple[Choice, ...]:
    listed = _get(fields, "choices", "options")
    if isinstance(listed, dict):
        return tuple(Choice(str(k), None if v is None else str(v)) for k, v in listed.items())
    if isinstance(listed, list):
        return tuple(c for i, item in enumerate(listed) if (c := _choice(item, i)) is not None)
    if typed and kind == "vote":
        return (
            Choice("a", strip_data(payload.get("solution_a_text")) or None),
            Choice("b", strip_data(payload.get("solution_b_text")) or None),
            Choice("skip"),
        )
    return ()


def _texts(fields: dict[str, Any], typed: bool, payload: dict[str, Any]) -> list[tuple[str, str]]:
    """(where, text) of the texts a task states its answer's bounds in: instruction, prompt, format."""
    texts = (
        ("instruction", payload.get("instruction")),
        ("prompt", None if typed else _get(fields, "prompt")),
        ("response_format", payload.get("response_format", _get(fields, "responseformat"))),
    )
    return [(where, text) for where, text in texts if isinstance(text, str)]


def _limits(
    fields: dict[str, Any], kind: str | None, typed: bool, payload: dict[str, Any]
) -> tuple[FieldRule, ...]:
    """The rules the task states: constraints first, then bounds in its instruction, prompt, format."""
    rules = list(rules_from_constraints(_get(fields, "constraints", "limits", "rules")))
    words = ANSWER_FIELDS.get(kind or "", {}) if typed else {}
    single = _SINGLE_FIELD.get(kind or "") if typed else "content"
    for where, text in _texts(fields, typed, payload):
        for rule in rules_from_text(text, words, single=single, source=SOURCES[where]):
            if all(r.field != rule.field for r in rules):
                rules.append(rule)
    return tuple(rules)


def _guidance(
    fields: dict[str, Any], kind: str | None, typed: bool, payload: dict[str, Any]
) -> tuple[Guidance, ...]:
    """The lengths the task's texts advise (never enforced), the first per field."""
    words = ANSWER_FIELDS.get(kind or "", {}) if typed else {}
    single = _SINGLE_FIELD.get(kind or "") if typed else "content"
    advised: list[Guidance] = []
    for where, text in _texts(fields, typed, payload):
        for item in guidance_from_text(text, words, single=single, source=SOURCES[where]):
            if all(g.field != item.field for g in advised):
                advised.append(item)
    return tuple(advised)


def view_of(obj: dict[str, Any]) -> TaskView:
    """The :class:`TaskView` of a task object as the platform sent it (any field case, a JSON:API
    resource object, the real platform's envelope or the interface's ``{id, prompt}``)."""
    fields = flat_fields(obj)
    task_id = _get(fields, "taskid", "id")
    raw_kind = _get(fields, "tasktype", "kind", "type")
    kind = str(raw_kind).lower() if raw_kind is not None else None
    raw_payload = _get(fields, "payload")
    payload: dict[str, Any] = _snake_deep(raw_payload) if isinstance(raw_payload, dict) else {}
    typed = _get(fields, "tasktype") is not None and kind in TYPED_KINDS and isinstance(raw_payload, dict)
    prompt = _get(fields, "prompt")
    if prompt is None:
        prompt = payload.get("instruction")
    title = payload.get("problem_title") or payload.get("title") or _get(fields, "problemtitle", "title")
    return TaskView(
        id=str(task_id),
        kind=kind,
        typed=typed,
        prompt=None if prompt is None else str(prompt),
        choices=_choices(fields, kind, payload, typed),
        payload=payload,
        response_format=payload.get("response_format", _get(fields, "responseformat")),
        limits=_limits(fields, kind, typed, payload),
        title=strip_data(title) or None,
        guidance=_guidance(fields, kind, typed, payload),
    )
