"""The sandbox server's options (:class:`SandboxOptions`): every switch of ``solvelens sandbox serve``,
``create_app`` and ``start_sandbox``, declared once as a field carrying its flag, choices, default and help
(:mod:`solvelens.sandbox.switches` derives the rest). The defaults are the real platform's behaviour;
the fault switches are the fields of :class:`~solvelens.sandbox.faults.FaultConfig`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final, Literal

from solvelens.sandbox.faults import FaultConfig
from solvelens.sandbox.switches import switch

__all__ = [
    "SOLUTION_LENGTHS",
    "TASK_TYPES",
    "VOTE_DEADLOCKS",
    "ListPaging",
    "LlmBoard",
    "PaginationStyle",
    "Refs",
    "SandboxOptions",
    "SolutionsPaging",
    "SolveInstructions",
    "TaskMode",
    "TaskShape",
    "TieOrder",
]

#: The task kinds, in the dispatcher's priority order.
TASK_TYPES: Final = ("flag", "solve", "vote", "create")
PaginationStyle = Literal["page", "offset", "cursor"]
SolutionsPaging = Literal["default", "offset"]
TieOrder = Literal["stable", "shuffle"]
TaskShape = Literal["real", "interface"]
#: ``--tasks``: ``typed`` (the real platform's typed tasks) or ``content`` (``{id, kind, prompt, choices,
#: constraints}`` answered ``{"content"}``).
TaskMode = Literal["typed", "content"]
ListPaging = Literal["default", "zero"]
Refs = Literal["flat", "nested"]
SolveInstructions = Literal["guidance", "rule"]
LlmBoard = Literal["lazy", "live"]
#: The real platform's share of vote submits lost to a database deadlock (63 of 1,662 with 8 bots voting).
VOTE_DEADLOCKS: Final = 0.04
#: ``--solution-length`` -> (min, max) characters of ``solution_text``.
SOLUTION_LENGTHS: Final = {"10-2000": (10, 2000), "50-5000": (50, 5000)}


@dataclass(frozen=True)
class SandboxOptions:
    """Server switches; the defaults mirror the real platform (each field's ``help`` says what it does).

    ``without`` names optional endpoints (:data:`solvelens.sandbox.routes.OPTIONAL`); ``conventions`` is
    checked by :func:`solvelens.sandbox.conventions.make_convention`; ``rate_limit`` by
    :func:`solvelens.sandbox.ratelimit.parse_rate_limit`."""

    task_ttl_seconds: float = switch(
        600.0,
        flag="--task-ttl",
        help="Task lifetime (seconds): a task handed out and not submitted stays assigned this long and is "
        "served again unchanged (same taskId, same payload), to any process of the bot; 600 as the real "
        "server was seen to keep it (its current skill says 3 minutes: 180).",
    )
    task_shape: TaskShape = switch(
        "real",
        flag="--task-shape",
        choices=("real", "interface"),
        help="real ({taskType,taskId,payload}; typed submit bodies only, as the real platform) or interface "
        "({id,prompt} tasks; {'content': ...} submissions accepted too).",
    )
    pagination: PaginationStyle = switch(
        "page", flag="--pagination", choices=("page", "offset", "cursor"), help="List envelope style."
    )
    solutions_paging: SolutionsPaging = switch(
        "default",
        flag="--solutions-paging",
        choices=("default", "offset"),
        help="A problem's solutions: default (as --pagination) or offset (another implementation: "
        'offset/limit, answered {"items": [...], "has_more": ..., "total": N}; page ignored; at most 10 a '
        "page).",
    )
    task_types: tuple[str, ...] = switch(
        TASK_TYPES, flag="--task-types", help="Comma-separated task kinds handed out."
    )
    faults: FaultConfig = field(default_factory=FaultConfig)
    rate_limit: str = switch(
        "",
        flag="--rate-limit",
        help="Announce and enforce a quota per client address on every /api/v1 route, like the real "
        "platform (5000/hour): N/hour, N/minute or N/second (also N/10 seconds). Answers carry "
        "X-RateLimit-Limit/-Remaining/-Reset, RateLimit-Policy and RateLimit; over quota: 429 with "
        "Retry-After. A bare N means N per --rate-window seconds. Empty or 0: no quota.",
    )
    rate_window: float = switch(
        60.0, flag="--rate-window", help="Window in seconds of a bare --rate-limit N."
    )
    conventions: str = switch(
        "platform",
        flag="--conventions",
        help="Wire convention: platform (the real platform's shapes), jsonapi (JSON:API, page[number]/"
        "page[size]), hal (HAL, page_token cursors, X-Total-Count, problem details), odata (value/"
        "@odata.nextLink, $top/$skip, the server's own page size, PascalCase) or relay (edges/pageInfo, "
        "first/after). Each reads only its own paging parameters; see /openapi.json.",
    )
    without: tuple[str, ...] = switch(
        (),
        flag="--without",
        help="Optional endpoints to leave out, comma-separated: activity, llm-leaderboard, comparisons "
        "(/solutions/{id}/comparisons), solution (/solutions/{id}). Their routes answer 404 like unknown "
        "routes: a platform without them.",
    )
    tie_order: TieOrder = switch(
        "shuffle",
        flag="--tie-order",
        choices=("stable", "shuffle"),
        help="Order of equal values (solutions with equal scores, bots on the leaderboard with equal points, "
        "models on /llm-leaderboard with equal figures): shuffle (at random on every call, as the real "
        "platform does: a position is no rank) or stable (solutions by createdAt then id, bots by id, "
        "models by name; for tests comparing listing order between calls).",
    )
    tasks: TaskMode = switch(
        "typed",
        flag="--tasks",
        choices=("typed", "content"),
        help="typed (the real platform's typed tasks and bodies) or content ({id, kind, prompt, choices, "
        "constraints} tasks of the kinds answer/vote/review/propose, answered {'content': ...} under the "
        "length and enum rules each states; in every --conventions mode).",
    )
    paging: ListPaging = switch(
        "default",
        flag="--paging",
        choices=("default", "zero"),
        help="List paging of problems, solutions and the leaderboard: default (the real platform's) or zero "
        "(another implementation's: pages numbered from 0, at most 15 a page whatever limit asks, the total "
        "only in X-Total-Count). --conventions platform only.",
    )
    refs: Refs = switch(
        "flat",
        flag="--refs",
        choices=("flat", "nested"),
        help="List entries: flat (the real platform's ids and names) or nested (references as objects: "
        'leaderboard {"position", "botRef": {"id", "displayName"}, ...}, solutions bot: {id, name}, problems '
        "author: {id, ...}). --conventions platform only.",
    )
    solve_instructions: SolveInstructions = switch(
        "guidance",
        flag="--solve-instructions",
        choices=("guidance", "rule"),
        help="Wording of a solve task's instruction: guidance (the real platform's: advice such as 'Aim for "
        "400-1200 characters. This is the sweet spot ...' beside the rule it validates, 'Respond with: - "
        "solution_text: your proposed solution (10-2000 characters)') or rule (the rule alone).",
    )
    solution_length: str = switch(
        "10-2000",
        flag="--solution-length",
        choices=tuple(SOLUTION_LENGTHS),
        help="The solution_text bounds a solve submit is validated against (a 400 VALIDATION_ERROR naming "
        "the bound), as the instruction states them: 10-2000 (what the real server was seen to validate) "
        "or 50-5000 (what its newer documentation says).",
    )

    llm_board: LlmBoard = switch(
        "lazy",
        flag="--llm-board",
        choices=("lazy", "live"),
        help="/llm-leaderboard figures: lazy (the real platform's: score figures recalculated only when a "
        "vote brings one of the model's solutions to a multiple of 10 comparisons; a model never "
        "recalculated sits at win rate 0 / average score 1500) or live (computed on every request).",
    )
    vote_deadlocks: float = switch(
        VOTE_DEADLOCKS,
        flag="--vote-deadlocks",
        help="Share of vote submits answered 500 'deadlock detected' after the vote row is written, as on "
        "the real platform under concurrent votes (3.8 % there): neither solution's comparisonCount, wins or "
        "losses move, the task fails (a resubmit is 409). 0 = none.",
    )

    @property
    def solution_bounds(self) -> tuple[int, int]:
        """``(min, max)`` characters of a solution text (``solution_length``)."""
        return SOLUTION_LENGTHS[self.solution_length]
