"""Typed results of single-object endpoints: ``dict`` subclasses with typed read-only properties.

Each result *is* the JSON object exactly as the server sent it (every unknown field kept, ``json.dumps``
works, ``record["anyField"]`` works), and adds typed properties for the fields the real platform is known to
send (``problem.solution_count`` reads ``solutionCount``). A property returns ``None`` when the field is
absent. ``record.raw`` is a plain-``dict`` copy of the JSON.

List iterators (``list_problems``, ``list_solutions``, ``list_leaderboard``) yield plain dicts for speed.

Both task shapes are understood by :class:`Task`: the interface's ``{"id", "prompt"}`` and the real platform's
``{"taskId", "taskType", "payload"}``.
"""

from __future__ import annotations

from typing import Any

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
    "is_task",
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
    """``GET /tasks/next``: either ``{"id", "prompt", ...}`` (interface) or ``{"taskId", "taskType",
    "payload"}`` (real platform; payload keys snake_case, e.g. ``problem_title``, ``solution_a_text``)."""

    __slots__ = ()

    @property
    def id(self) -> str:
        """The id used in the submit path (``taskId`` or ``id``)."""
        return str(self.get("taskId", self.get("id")))

    @property
    def type(self) -> str | None:
        """``flag | solve | vote | create`` when the server says (``taskType``/``type``), else ``None``."""
        return self._str("taskType", "type", "task_type")

    @property
    def payload(self) -> dict[str, Any]:
        """``payload`` of a real-platform task, or ``{}``."""
        value = self.get("payload")
        return value if isinstance(value, dict) else {}

    @property
    def prompt(self) -> str | None:
        """The text to work on: ``prompt`` (interface) or the payload's ``instruction``."""
        value = self.get("prompt")
        if value is not None:
            return str(value)
        instruction = self.payload.get("instruction")
        return str(instruction) if instruction is not None else None


class SubmitResult(Record):
    """``POST /tasks/{id}/submit``: the server's answer (e.g. ``{"success": true, "result": {...}}``).

    ``recovered`` is true when the first attempt's response was lost and the retry answered 409 "already
    completed": the first submission counted, nothing was submitted twice; the dict then holds the 409 body.
    """

    __slots__ = ("recovered",)

    def __init__(self, data: dict[str, Any] | None = None, *, recovered: bool = False) -> None:
        super().__init__(data or {})
        self.recovered = recovered
