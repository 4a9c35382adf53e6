"""Response and request models of the sandbox server: what ``/openapi.json`` documents for every route and
status.

The routes serialise their records with orjson (fast at a thousand records a page); these pydantic models are
the *documentation* of those bodies, checked against the live server by schemathesis
(``tests/sandbox/test_openapi.py``). Every record model allows extra fields (``extra="allow"``), because the
real platform adds fields over time and a client must keep unknown fields. Field names are exactly the JSON
keys (camelCase on reads, snake_case inside task payloads and submit bodies, as on the real platform).

Timestamps are ISO-8601 UTC strings with milliseconds (``2026-01-15T10:30:00.000Z``); ids are UUID strings
(badge and activity ids are integers).
"""

from __future__ import annotations

import functools
import re
from typing import Annotated, Any, Generic, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, create_model
from pydantic.json_schema import SkipJsonSchema

from solvelens.sandbox import catalog

Timestamp = Annotated[
    str, Field(json_schema_extra={"format": "date-time"}, examples=["2026-01-15T10:30:00.000Z"])
]
Uuid = Annotated[str, Field(json_schema_extra={"format": "uuid"})]
CategorySlug = catalog.CategorySlug
ProblemStatus = Literal["pending", "approved", "rejected", "active", "mature"]
BotStatus = Literal["active", "suspended", "banned"]
TaskType = Literal["flag", "solve", "vote", "create"]


class Record(BaseModel):
    """Base of every documented body: unknown (future) fields are allowed."""

    model_config = ConfigDict(extra="allow")


# ------------------------------------------------------------------------------------------------ errors
class ErrorDetail(Record):
    """One failed field of a 422: ``field`` (dotted path, ``body`` for the whole body) and ``message``."""

    field: str
    message: str


class ErrorBody(Record):
    """Every error: ``{"error": str}``; validation errors (422) add ``details``. Injected 429 faults carry the
    real rate limiter's ``statusCode`` and ``message`` as extra fields."""

    error: str
    details: list[ErrorDetail] | SkipJsonSchema[None] = None


class ValidationErrorBody(Record):
    """422 (invalid query parameters): ``{"error": "Validation error", "details": [{field, message}]}``."""

    error: str
    details: list[ErrorDetail]


class SubmitErrorBody(Record):
    """400 on submit. A body failing validation is answered as the real platform answers it (and fails the
    task): ``{"error": "Validation error", "code": "VALIDATION_ERROR", "statusCode": 400, "details":
    [{field, message}, ...]}``; a body that is not JSON: ``{"error": "Body is not valid JSON"}``."""

    error: str
    code: Literal["VALIDATION_ERROR"] | SkipJsonSchema[None] = None
    statusCode: Literal[400] | SkipJsonSchema[None] = None
    details: list[ErrorDetail] | SkipJsonSchema[None] = None


# ------------------------------------------------------------------------------------------------ health
class Health(Record):
    """``GET /health``: wall-clock ``timestamp``, ``uptime`` (seconds), ``clock`` (simulated UTC time)."""

    status: Literal["healthy", "degraded"]
    timestamp: Timestamp
    uptime: float
    database: Literal["ok", "error"]
    clock: Timestamp | None


# ------------------------------------------------------------------------------------------------ lists
class Pagination(Record):
    """The real platform's page block: 1-based ``page``, ``limit``, ``total`` records, ``totalPages``."""

    page: int
    limit: int
    total: int
    totalPages: int


T = TypeVar("T")


class OffsetPage(Record, Generic[T]):
    """A list in the ``offset`` pagination style (server switch ``--pagination offset``)."""

    items: list[T]
    total: int
    offset: int
    limit: int


class ItemsPage(Record, Generic[T]):
    """A problem's solutions as another implementation of the interface pages them (server switch
    ``--solutions-paging offset``): ``offset``/``limit`` requests, no offset in the answer."""

    items: list[T]
    has_more: bool
    total: int


class CursorPage(Record, Generic[T]):
    """A list in the ``cursor`` pagination style (server switch ``--pagination cursor``)."""

    data: list[T]
    next_cursor: str | None
    has_more: bool


class TopSolution(Record):
    """The best solution of a problem in a problem list item."""

    text: str
    btScore: float
    botName: str | None


class ProblemSummary(Record):
    """A ``GET /problems`` item."""

    id: Uuid
    title: str
    description: str
    status: ProblemStatus
    category: CategorySlug | None
    authorType: Literal["human", "bot"]
    solutionCount: int
    comparisonCount: int
    greenFlags: int
    redFlags: int
    createdAt: Timestamp
    topSolution: TopSolution | None


class ProblemList(Record):
    """``GET /problems`` (page style)."""

    problems: list[ProblemSummary]
    pagination: Pagination


class Solution(Record):
    """A ranked solution (``GET /problems/{id}/solutions`` item and ``topSolutions`` of a problem)."""

    id: Uuid
    text: str
    btScore: float
    comparisonCount: int
    winCount: int
    lossCount: int
    confidenceInterval: float
    llmModel: str | None
    createdAt: Timestamp
    botId: Uuid | None
    botName: str | None
    ownerBotName: str | None


class SolutionList(Record):
    """``GET /problems/{id}/solutions`` (page style): no pagination block, as on the real platform."""

    solutions: list[Solution]


class HumanAuthor(Record):
    """The human author of a problem."""

    id: Uuid
    username: str


class BotAuthor(Record):
    """The bot author of a problem."""

    id: Uuid
    name: str
    ownerBotName: str | None


class ProblemDetail(Record):
    """``GET /problems/{id}``: the full problem row + ``author`` + ``topSolutions`` (at most 3)."""

    id: Uuid
    authorType: Literal["human", "bot"]
    humanAuthorId: Uuid | None
    botAuthorId: Uuid | None
    title: str
    description: str
    status: ProblemStatus
    category: CategorySlug | None
    categoryAssignedBy: str | None
    categoryConfidence: float | None
    greenFlags: int
    redFlags: int
    solutionCount: int
    comparisonCount: int
    attentionScore: float
    lastBotActivityAt: Timestamp | None
    createdAt: Timestamp
    updatedAt: Timestamp
    failedFlagAttempts: int
    author: BotAuthor | HumanAuthor | None
    topSolutions: list[Solution] = Field(max_length=3)


class Category(Record):
    """A ``GET /categories`` item (``activeProblems`` counts every problem of the category)."""

    slug: CategorySlug
    displayName: str
    icon: str
    description: str
    activeProblems: int


class LeaderboardBot(Record):
    """A ``GET /leaderboard`` item (no rank field: rank = position + page offset)."""

    id: Uuid
    name: str
    status: BotStatus
    totalPoints: int
    totalSolutions: int
    totalVotes: int
    voteAccuracy: float
    globalElo: int
    lastActiveAt: Timestamp | None
    ownerBotName: str | None


class Leaderboard(Record):
    """``GET /leaderboard`` (page style)."""

    bots: list[LeaderboardBot]
    pagination: Pagination


# ------------------------------------------------------------------------------------------------ bots
class Badge(Record):
    """A badge row."""

    id: int
    botId: Uuid
    badgeType: str
    tier: Literal["bronze", "silver", "gold", "platinum"]
    earnedAt: Timestamp


class BotProfile(Record):
    """``GET /bot/me``: the calling bot's profile, stats and status."""

    id: Uuid
    name: str
    description: str | None
    status: BotStatus
    totalPoints: int
    totalSolutions: int
    totalVotes: int
    totalFlags: int
    totalProblemsCreated: int
    voteAccuracy: float
    globalElo: int
    lastActiveAt: Timestamp | None
    totalTasksCompleted: int
    createdAt: Timestamp
    ownerBotName: str | None
    badges: list[Badge]


class BotTopSolution(Record):
    """One of a bot's best solutions (``topSolutions`` of ``GET /bots/{id}``)."""

    id: Uuid
    text: str
    btScore: float
    problemId: Uuid
    problemTitle: str
    comparisonCount: int
    winCount: int
    createdAt: Timestamp


class Activity(Record):
    """One ``recentActivity`` entry; ``metadata`` is a JSON-encoded string or null."""

    id: int
    action: Literal[
        "flag_submitted",
        "solution_submitted",
        "vote_cast",
        "problem_created",
        "solution_first_place",
        "solution_top_3",
    ]
    problemId: Uuid | None
    problemTitle: str | None
    solutionId: Uuid | None
    metadata: str | None
    createdAt: Timestamp


class FeedEvent(Record):
    """One ``GET /activity`` event (newest first; ``id`` is serial). ``action`` is one of
    :data:`solvelens.sandbox.activity.ACTIONS`; ``metadata`` a JSON-encoded string or null; ``botId``/
    ``botName`` null for a human's problem or an automatic status change, ``problemId`` null for a badge."""

    id: int
    action: str
    botId: Uuid | None
    botName: str | None
    ownerBotName: str | None
    problemId: Uuid | None
    problemTitle: str | None
    metadata: str | None
    createdAt: Timestamp


class ActivityFeed(Record):
    """``GET /activity``: the latest events, newest first, no paging."""

    activities: list[FeedEvent] = Field(max_length=50)


class LlmModel(Record):
    """One ``GET /llm-leaderboard`` entry: the figures of every solution written with ``modelName``."""

    id: Uuid
    modelName: str
    modelVersion: str | None
    modelFamily: str
    totalSolutions: int
    avgBtScore: float
    bestBtScore: float
    totalWins: int
    totalComparisons: int
    winRate: float
    top3Count: int
    firstPlaceCount: int
    uniqueBots: int
    firstSeenAt: Timestamp
    lastSeenAt: Timestamp
    updatedAt: Timestamp


class OffsetPagination(Record):
    """The ``pagination`` block of ``GET /llm-leaderboard`` (offset paging: no page numbers)."""

    limit: int
    offset: int
    total: int


class LlmLeaderboard(Record):
    """``GET /llm-leaderboard``: models in the requested order, offset-paged."""

    models: list[LlmModel]
    pagination: OffsetPagination


class LlmFamily(Record):
    """A model family and how many models of it the leaderboard lists."""

    family: str
    count: int


class LlmFamilies(Record):
    """``GET /llm-leaderboard/families``."""

    families: list[LlmFamily]


class SolutionDetail(Solution):
    """``GET /solutions/{id}``: a solution with its model version and its problem."""

    llmModelVersion: str | None
    problemId: Uuid
    problemTitle: str


class Comparison(Record):
    """One vote on a solution: which of the two won (``skip``: neither)."""

    id: Uuid
    solutionAId: Uuid
    solutionBId: Uuid
    winner: Literal["a", "b", "skip"]
    voterBotId: Uuid | None
    voterBotName: str | None
    createdAt: Timestamp


class ComparisonList(Record):
    """``GET /solutions/{id}/comparisons``: the 50 most recent votes, newest first, no paging."""

    comparisons: list[Comparison] = Field(max_length=50)


class BotPublic(BotProfile):
    """``GET /bots/{id}``: the profile + ``topSolutions`` (<= 5) + ``recentActivity`` (<= 20, newest
    first)."""

    topSolutions: list[BotTopSolution] = Field(max_length=5)
    recentActivity: list[Activity] = Field(max_length=20)


class Stats(Record):
    """``GET /stats`` (all ints)."""

    totalProblems: int
    humanProblems: int
    botProblems: int
    totalSolutions: int
    totalComparisons: int
    totalBots: int
    activeBots: int
    activeProblems: int
    matureProblems: int


class SearchProblem(Record):
    """A problem found by ``GET /search``."""

    id: Uuid
    title: str
    description: str
    status: ProblemStatus
    category: CategorySlug | None
    authorType: Literal["human", "bot"]
    solutionCount: int
    createdAt: Timestamp


class SearchBot(Record):
    """A bot found by ``GET /search``."""

    id: Uuid
    name: str
    description: str | None
    totalPoints: int
    globalElo: int
    totalSolutions: int
    ownerBotName: str | None


class SearchResult(Record):
    """``GET /search``: a key is present only when its type was searched (``type=problems`` -> problems
    only)."""

    problems: list[SearchProblem] | SkipJsonSchema[None] = None
    bots: list[SearchBot] | SkipJsonSchema[None] = None


# ------------------------------------------------------------------------------------------------ tasks
class CategoryRef(Record):
    """A category inside a flag/create task payload (full form; ``categories=slim`` sends slugs)."""

    slug: CategorySlug
    name: str
    description: str


class TaskPayload(Record):
    """A task payload (snake_case). Which keys are present depends on the task type: flag (problem_*,
    categories, instruction, response_format), solve (problem_*, instruction, response_format), vote
    (problem_id, problem_title, solution_a_*/solution_b_*, instruction; no response_format), create
    (categories, instruction, response_format). ``instruction`` is absent with ``instruct=none``."""

    problem_id: Uuid | SkipJsonSchema[None] = None
    problem_title: str | SkipJsonSchema[None] = None
    problem_description: str | SkipJsonSchema[None] = None
    solution_a_id: Uuid | SkipJsonSchema[None] = None
    solution_a_text: str | SkipJsonSchema[None] = None
    solution_b_id: Uuid | SkipJsonSchema[None] = None
    solution_b_text: str | SkipJsonSchema[None] = None
    categories: list[CategoryRef] | list[CategorySlug] | SkipJsonSchema[None] = None
    instruction: str | SkipJsonSchema[None] = None
    response_format: str | SkipJsonSchema[None] = None


class Task(Record):
    """``GET /tasks/next`` in the real shape (``--task-shape real``)."""

    taskType: TaskType
    taskId: Uuid
    payload: TaskPayload


class InterfaceTask(Record):
    """``GET /tasks/next`` in the interface shape (``--task-shape interface``): ``prompt`` is the task as one
    text."""

    id: Uuid
    prompt: str
    type: TaskType
    payload: TaskPayload


class ContentChoice(Record):
    """One choice a content task offers: ``key`` (what the answer's ``content`` is) and ``text``."""

    key: str
    text: str


class ContentRule(Record):
    """The answer's ``content`` rules a content task states (JSON Schema keywords): a length range, or the
    values it may take."""

    minLength: int | SkipJsonSchema[None] = None
    maxLength: int | SkipJsonSchema[None] = None
    enum: list[str] | SkipJsonSchema[None] = None


class ContentConstraints(Record):
    """The rules of a content task's answer, per body field (only ``content``)."""

    content: ContentRule


class ContentTask(Record):
    """``GET /tasks/next`` with ``--tasks content``: the interface's ``{id, prompt}`` with the task's ``kind``
    (``answer``, ``vote``, ``review``, ``propose``), the ``choices`` a vote or review offers, and the
    ``constraints`` its answer ``{"content": str}`` must meet (enforced on submit)."""

    id: Uuid
    kind: Literal["answer", "vote", "review", "propose"]
    prompt: str
    choices: list[ContentChoice] | SkipJsonSchema[None] = None
    constraints: ContentConstraints


class SolveResult(Record):
    """Result of a solve submission."""

    solution_id: Uuid


class NewScore(Record):
    """A solution's score after a vote."""

    newScore: float


class VoteResult(Record):
    """Result of a vote submission (skip leaves the scores unchanged)."""

    solutionA: NewScore
    solutionB: NewScore


class FlagResult(Record):
    """Result of a flag submission: the normalised body plus the problem's new status."""

    verdict: Literal["green", "red"]
    category: str
    suggested_category: CategorySlug | None
    problem_new_status: ProblemStatus


class CreateResult(Record):
    """Result of a create submission."""

    problem_id: Uuid


class SubmitAccepted(Record):
    """``POST /tasks/{id}/submit`` 200: ``{"success": true, "result": {...}}``, or for a duplicate (solve on
    an already solved problem, create with an existing title) ``{"success": true, "message", "duplicate":
    true}``."""

    success: Literal[True]
    result: SolveResult | VoteResult | FlagResult | CreateResult | SkipJsonSchema[None] = None
    message: str | SkipJsonSchema[None] = None
    duplicate: bool | SkipJsonSchema[None] = None


# ------------------------------------------------------------------------------------------ submit bodies
class SolveBody(Record):
    """Solve: ``solution_text`` 10-2000 characters (the bounds the real platform was seen to validate; a
    server with ``--solution-length 50-5000`` validates :func:`solve_body_model`'s); ``llm_model`` (<= 100,
    stored lower-cased when it looks like a model name) and ``llm_model_version`` (<= 50) optional."""

    solution_text: str = Field(min_length=10, max_length=2000)
    llm_model: str | None = Field(None, max_length=100)
    llm_model_version: str | None = Field(None, max_length=50)


class BotRenamed(Record):
    """``PUT /user/bot-profile``'s answer: the new name and the one it replaced."""

    success: bool
    botName: str
    previousName: str


class VoteBody(Record):
    """Vote: the better solution, or ``skip``."""

    winner: Literal["a", "b", "skip"]


class FlagBody(Record):
    """Flag: ``verdict`` green/red; sloppy ``category``/``suggested_category`` values are normalised (unknown
    category -> none; unknown suggestion -> null; red with none -> spam)."""

    verdict: Literal["green", "red"]
    category: str | None = Field(None, examples=["none", "spam"])
    suggested_category: str | None = Field(None, examples=["technology"])


class CreateBody(Record):
    """Create: a new problem."""

    problem_title: str = Field(min_length=5, max_length=200)
    problem_description: str = Field(min_length=20, max_length=1000)
    category: CategorySlug


class ContentBody(Record):
    """The interface's generic body, accepted with ``--task-shape interface`` only: solve -> the text; vote ->
    ``a``/``b``/``skip``; flag -> ``green``/``red``; create -> a JSON object string or
    ``title\\ndescription``."""

    content: str


TypedSubmitBody = SolveBody | VoteBody | FlagBody | CreateBody
SubmitBody = TypedSubmitBody | ContentBody


def submit_body_schema(*, interface: bool = False, content: bool = False) -> dict[str, Any]:
    """The JSON schema (OpenAPI 3.1 request body, ``$defs`` inlined under ``components``) of a submission:
    the typed bodies, plus ``{"content"}`` when the server runs with ``--task-shape interface``; only
    ``{"content"}`` with ``--tasks content``."""
    model: Any = ContentBody if content else SubmitBody if interface else TypedSubmitBody
    return TypeAdapter(model).json_schema(ref_template="#/components/schemas/{model}")


@functools.cache
def solve_body_model(min_length: int, max_length: int) -> type[BaseModel]:
    """:class:`SolveBody` validating ``solution_text`` of ``min_length``-``max_length`` characters."""
    field = SolveBody.model_fields["solution_text"]
    if (min_length, max_length) == (10, 2000):
        return SolveBody
    assert field.annotation is str
    text: Any = Annotated[str, Field(min_length=min_length, max_length=max_length)]
    return create_model("SolveBody", __base__=SolveBody, solution_text=(text, ...))


def content_answer_model(rule: dict[str, Any]) -> type[BaseModel]:
    """The model of a content task's answer ``{"content": str}`` under the ``rule`` it states
    (``{"minLength", "maxLength"}`` or ``{"enum"}``)."""
    field: Any
    if rule.get("enum"):
        field = Literal[tuple(rule["enum"])]
    else:
        field = Annotated[str, Field(min_length=rule.get("minLength", 0), max_length=rule.get("maxLength"))]
    return create_model("ContentAnswer", __base__=Record, content=(field, ...))


class SubmitInvalid(Exception):
    """A submission that fails its model: ``details`` is ``[{"field", "message"}]`` worded as the real
    platform's Zod validation words them (``Required``, ``String must contain at most 2000 character(s)``,
    ``Invalid enum value. Expected 'a' | 'b' | 'skip', received 'both'``)."""

    def __init__(self, details: list[dict[str, str]]) -> None:
        super().__init__("invalid submission")
        self.details = details


def json_type(value: Any) -> str:
    """Zod's name of a JSON value's type (``received ...``)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, list):
        return "array"
    return "object" if isinstance(value, dict) else "string"


def _zod_message(error: Any) -> str:
    """One pydantic error in the real platform's (Zod's) words."""
    kind, ctx, value = error["type"], error.get("ctx") or {}, error.get("input")
    if kind == "missing":
        return "Required"
    if kind in ("string_type", "model_type", "dict_type"):
        expected = "string" if kind == "string_type" else "object"
        return f"Expected {expected}, received {json_type(value)}"
    if kind == "string_too_short":
        return f"String must contain at least {ctx['min_length']} character(s)"
    if kind == "string_too_long":
        return f"String must contain at most {ctx['max_length']} character(s)"
    if kind == "literal_error":
        allowed = " | ".join(f"'{a}'" for a in re.findall(r"'([^']*)'", str(ctx.get("expected", ""))))
        received = f"'{value}'" if isinstance(value, str) else json_type(value)
        return f"Invalid enum value. Expected {allowed}, received {received}"
    return str(error["msg"])


def validate_body(model: type[BaseModel], body: Any) -> dict[str, Any]:
    """``body`` checked by ``model`` (every issue at once): the body as sent (unknown fields kept, as the
    platform's handlers read them); raises :class:`SubmitInvalid`."""
    try:
        model.model_validate(body)
    except ValidationError as exc:
        details = [
            {"field": ".".join(str(p) for p in e["loc"]) or "body", "message": _zod_message(e)}
            for e in exc.errors()
        ]
        raise SubmitInvalid(details) from None
    return dict(body)
