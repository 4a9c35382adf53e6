"""Typed results of single-object endpoints: ``dict`` subclasses with typed read-only properties.

Each result *is* the JSON object exactly as the server sent it (every unknown field kept, ``json.dumps``
works, ``record["anyField"]`` works), and adds typed properties for the fields the real platform is known to
send (``problem.solution_count`` reads ``solutionCount``). A property returns ``None`` when the field is
absent. ``record.raw`` is a plain-``dict`` copy of the JSON.

List iterators (``list_problems``, ``list_solutions``, ``list_leaderboard``) yield plain dicts for speed.

A task is kept as the platform sent it (:class:`Task`; :func:`parse_task` removes only its envelope: a
JSON:API document, ``{"task": ...}``, ``{"value": [task]}``, ``{"node": ...}``, a one-item list); its
normalised reading is ``task.view`` (:mod:`solvelens.client.taskview`).
"""

from __future__ import annotations

import re
from typing import Any

from solvelens.client.errors import UnrecognizedResponseError
from solvelens.client.pagination import get_path, norm_key
from solvelens.client.rules import FieldRule
from solvelens.client.taskview import Choice, TaskView, flat_fields, view_of

__all__ = [
    "Bot",
    "Category",
    "Health",
    "Problem",
    "Record",
    "SearchResult",
    "Stats",
    "SubmitResult",
    "Task",
    "is_no_task",
    "is_task",
    "parse_task",
]


class Record(dict[str, Any]):
    """A JSON object from the platform, kept whole; subclasses add typed properties."""

    __slots__ = ()

    @property
    def raw(self) -> dict[str, Any]:
        """A plain ``dict`` copy of the JSON object as the server sent it."""
        return dict(self)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({dict.__repr__(self)})"

    def _str(self, *keys: str) -> str | None:
        for key in keys:
            value = self.get(key)
            if value is not None:
                return str(value)
        return None

    def _int(self, key: str) -> int | None:
        value = self.get(key)
        return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else None

    def _float(self, key: str) -> float | None:
        value = self.get(key)
        return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


class Problem(Record):
    """``GET /problems/{id}``: the problem row plus ``author`` and ``topSolutions`` (real platform,
    camelCase)."""

    __slots__ = ()

    @property
    def id(self) -> str | None:
        """Problem id (UUID string)."""
        return self._str("id")

    @property
    def title(self) -> str | None:
        """Title."""
        return self._str("title")

    @property
    def status(self) -> str | None:
        """``pending | approved | rejected | active | mature``."""
        return self._str("status")

    @property
    def category(self) -> str | None:
        """Category slug."""
        return self._str("category")

    @property
    def author_type(self) -> str | None:
        """``human | bot`` (``authorType``)."""
        return self._str("authorType", "author_type")

    @property
    def solution_count(self) -> int | None:
        """``solutionCount``."""
        return self._int("solutionCount")

    @property
    def comparison_count(self) -> int | None:
        """``comparisonCount``."""
        return self._int("comparisonCount")

    @property
    def created_at(self) -> str | None:
        """``createdAt``, ISO-8601 UTC string."""
        return self._str("createdAt", "created_at")

    @property
    def top_solutions(self) -> list[dict[str, Any]]:
        """``topSolutions`` (at most 3 on the real platform), or ``[]``."""
        value = self.get("topSolutions")
        return value if isinstance(value, list) else []


class Bot(Record):
    """``GET /bots/{id}`` (public profile + ``badges``, ``topSolutions``, ``recentActivity``) and ``GET
    /bot/me``."""

    __slots__ = ()

    @property
    def id(self) -> str | None:
        """Bot id (UUID string)."""
        return self._str("id")

    @property
    def name(self) -> str | None:
        """Unique bot name."""
        return self._str("name")

    @property
    def status(self) -> str | None:
        """``active | suspended | banned``."""
        return self._str("status")

    @property
    def total_points(self) -> int | None:
        """``totalPoints``."""
        return self._int("totalPoints")

    @property
    def total_solutions(self) -> int | None:
        """``totalSolutions``."""
        return self._int("totalSolutions")

    @property
    def total_votes(self) -> int | None:
        """``totalVotes``."""
        return self._int("totalVotes")

    @property
    def vote_accuracy(self) -> float | None:
        """``voteAccuracy`` (0..1)."""
        return self._float("voteAccuracy")

    @property
    def elo(self) -> float | None:
        """``globalElo``."""
        return self._float("globalElo")


class Category(Record):
    """One entry of ``GET /categories``: ``{slug, displayName, icon, description, activeProblems}``."""

    __slots__ = ()

    @property
    def slug(self) -> str | None:
        """Category slug, e.g. ``technology``."""
        return self._str("slug")

    @property
    def name(self) -> str | None:
        """``displayName`` (or ``name``)."""
        return self._str("displayName", "name")

    @property
    def problem_count(self) -> int | None:
        """``activeProblems`` (counts problems of every status on the real platform)."""
        value = self._int("activeProblems")
        return value if value is not None else self._int("totalProblems")


class Stats(Record):
    """``GET /stats``: platform-wide figures (all ints on the real platform)."""

    __slots__ = ()

    @property
    def total_problems(self) -> int | None:
        """``totalProblems``."""
        return self._int("totalProblems")

    @property
    def total_solutions(self) -> int | None:
        """``totalSolutions``."""
        return self._int("totalSolutions")

    @property
    def total_bots(self) -> int | None:
        """``totalBots`` (bots with status active)."""
        return self._int("totalBots")


class SearchResult(Record):
    """``GET /search``: ``{"problems": [...], "bots": [...]}``; a key is present only when its type was
    searched."""

    __slots__ = ()

    @property
    def problems(self) -> list[dict[str, Any]]:
        """Matching problems, or ``[]``."""
        value = self.get("problems")
        return value if isinstance(value, list) else []

    @property
    def bots(self) -> list[dict[str, Any]]:
        """Matching bots, or ``[]``."""
        value = self.get("bots")
        return value if isinstance(value, list) else []


class Health(Record):
    """``GET <root>/health``: ``{status, timestamp, uptime, database}`` (+ ``clock`` on the sandbox)."""

    __slots__ = ()

    @property
    def status(self) -> str | None:
        """``healthy | degraded``."""
        return self._str("status")

    @property
    def clock(self) -> str | None:
        """The sandbox's simulated UTC time (ISO-8601), or ``None`` on the real platform."""
        return self._str("clock")


def is_task(body: Any) -> bool:
    """True when ``body`` is a task: a JSON object with a non-empty ``taskId`` or ``id``.

    ``None``, ``{}``, ``{"message": "No tasks available"}`` and a task without id all mean "nothing to do".
    """
    if not isinstance(body, dict):
        return False
    task_id = body.get("taskId", body.get("id"))
    return task_id not in (None, "")


class Task(Record):
    """``GET /tasks/next``: the task exactly as the platform sent it (the envelope removed, nothing renamed,
    nothing dropped), e.g. the interface's ``{"id", "prompt", ...}``, the real platform's ``{"taskType",
    "taskId", "payload"}``, a JSON:API resource object ``{"type", "id", "attributes"}``, an OData
    ``{"TaskType", "TaskId", "Payload"}``.

    Beside it, ``view`` is the normalised :class:`~solvelens.client.taskview.TaskView` (id, kind, typed,
    prompt, choices, snake_case payload, response format, the limits the task states, the problem's title);
    ``id``, ``kind``/``type``, ``prompt``, ``payload``, ``choices`` and ``limits`` read it.
    """

    __slots__ = ("_view",)

    def __init__(self, data: dict[str, Any] | None = None) -> None:
        super().__init__(data or {})
        self._view: TaskView | None = None

    @property
    def view(self) -> TaskView:
        """The normalised view (computed once; the dict itself is never changed)."""
        if self._view is None:
            self._view = view_of(self)
        return self._view

    @property
    def id(self) -> str:
        """The id used in the submit path."""
        return self.view.id

    @property
    def kind(self) -> str | None:
        """What the platform calls the task (``taskType``/``type``/``kind``, lower case), or ``None``."""
        return self.view.kind

    @property
    def type(self) -> str | None:
        """Same as :attr:`kind` (kept for solvers written before it)."""
        return self.view.kind

    @property
    def payload(self) -> dict[str, Any]:
        """The typed payload with snake_case keys, or ``{}``."""
        return self.view.payload

    @property
    def prompt(self) -> str | None:
        """The text to work on: ``prompt``, else the payload's ``instruction``."""
        return self.view.prompt

    @property
    def choices(self) -> tuple[Choice, ...]:
        """The choices the task offers (``Choice(key, text)``), or ``()``."""
        return self.view.choices

    @property
    def limits(self) -> tuple[FieldRule, ...]:
        """The rules the task states for its answer's fields."""
        return self.view.limits


class SubmitResult(Record):
    """``POST /tasks/{id}/submit``: the server's answer (e.g. ``{"success": true, "result": {...}}``).

    ``recovered`` is true when the first attempt's response was lost and the retry answered 409 "already
    completed": the first submission counted, nothing was submitted twice; the dict then holds the 409 body.
    """

    __slots__ = ("recovered",)

    def __init__(self, data: dict[str, Any] | None = None, *, recovered: bool = False) -> None:
        super().__init__(data or {})
        self.recovered = recovered


#: Keys of a JSON document that are never the task itself.
_DOCUMENT_KEYS = frozenset({"links", "meta", "included", "jsonapi", "_links", "@odata.context"})
#: Keys that wrap a task: JSON:API ``data``, HAL-style ``task``, Relay ``node``, OData ``value``, others.
_TASK_WRAPPERS = ("data", "task", "node", "value", "item", "result", "items", "tasks", "edges")
#: Keys of an error-like body that may say "no task" (``{"message": "No tasks available"}``).
_MESSAGE_KEYS = frozenset({"message", "error", "detail", "title", "status", "type", "code", "statuscode"})
_NO_TASK_TEXT = re.compile(r"\bno\s+(?:tasks?|work)\b|nothing to do", re.IGNORECASE)


def _content_keys(body: dict[str, Any]) -> list[str]:
    return [k for k in body if k not in _DOCUMENT_KEYS]


def is_no_task(body: Any) -> bool:
    """Whether a ``/tasks/next`` answer means "nothing to do": empty body/``None``, ``{}``, ``[]``, an
    envelope
    whose only content is empty (``{"data": null}``, ``{"data": []}``, ``{"value": []}``, ``{"task": null}``),
    or a message that says so (``{"message": "No tasks available"}``)."""
    if body in (None, "", [], {}):
        return True
    if not isinstance(body, dict):
        return False
    content = _content_keys(body)
    if not content:
        return True
    if len(content) == 1 and content[0] in _TASK_WRAPPERS and body[content[0]] in (None, [], {}):
        return True
    if all(norm_key(k) in _MESSAGE_KEYS for k in content):
        return any(isinstance(body[k], str) and _NO_TASK_TEXT.search(body[k]) for k in content)
    return False


def _unwrap_task(body: Any) -> Any:
    """The task object inside an envelope (one level of wrapper, a one-item list), kept as sent."""
    for _ in range(3):
        if isinstance(body, list) and len(body) == 1:
            body = body[0]
        elif (
            isinstance(body, dict)
            and len(content := _content_keys(body)) == 1
            and content[0] in _TASK_WRAPPERS
        ):
            body = body[content[0]]
        else:
            break
    return body


def parse_task(body: Any, *, selector: str | None = None) -> Task | None:
    """A ``/tasks/next`` 200 answer as a :class:`Task`, or ``None`` for "nothing to do".

    The task is the object as sent, only its envelope removed (``{"data": ...}``, ``{"task": ...}``,
    ``{"value": [task]}``, ``{"node": ...}``, a one-item list); nothing in it is renamed or dropped (the
    normalised reading is ``task.view``). "No task": see :func:`is_no_task`, and a task without id (the
    interface's reference loop treats it as nothing to do). ``selector``: the profile's
    ``[endpoints.tasks_next] data_selector`` (dot path to the task object). Raises
    :class:`UnrecognizedResponseError` naming the body's top-level keys and that profile setting for any
    other body.
    """
    if selector is not None:
        body = get_path(body, selector)
    if is_no_task(body):
        return None
    obj = body if isinstance(body, dict) and _is_taskish(body) else _unwrap_task(body)
    if isinstance(obj, dict) and _is_taskish(obj):
        fields = flat_fields(obj)
        has_id = any(norm_key(k) in ("taskid", "id") and fields[k] not in (None, "") for k in fields)
        return Task(obj) if has_id else None
    if is_no_task(obj):
        return None
    keys = sorted(map(str, body)) if isinstance(body, dict) else []
    shape = f"top-level keys: {', '.join(keys) or 'none'}" if isinstance(body, dict) else type(body).__name__
    raise UnrecognizedResponseError(
        f'GET /tasks/next answered 200 with a body that is neither a task nor "no task" ({shape}); if it '
        'holds the task, add to your profile: [endpoints.tasks_next] data_selector = "<path to the task>"',
        endpoint="tasks_next",
        keys=keys,
    )


def _is_taskish(obj: dict[str, Any]) -> bool:
    """Whether an object is a task (or a task without id): it has one of :data:`_TASKISH`'s fields."""
    return any(norm_key(k) in _TASKISH for k in flat_fields(obj))


#: Normalised keys that make an object a task (with an id: a task; without: "nothing to do").
_TASKISH = frozenset({"taskid", "tasktype", "payload", "prompt"})
