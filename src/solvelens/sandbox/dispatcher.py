"""Task dispatch for bots: ``GET /tasks/next`` and ``POST /tasks/{id}/submit`` (the real platform's rules).

- One active task per bot: while it is ``assigned`` and not expired it is served again, unchanged.
- Priority flag -> solve -> vote -> create. Flag: pending problems not authored or flagged by the bot, at most
  3 open flag assignments per problem. Solve: active problems the bot has not solved, with fewer than 8
  solutions (counting open assignments). Vote: two solutions (not the bot's own) of an active problem, or of
  a mature one with < 50 comparisons, a pair the bot has not compared. Create: one per bot per simulated day.
- Every hand-out and every submission runs in ``BEGIN IMMEDIATE`` (SQLite's write lock), so no task is handed
  out twice and no accepted submission is lost, whatever the number of concurrent bots.
- Expiry uses the wall clock (``ttl_seconds``); expired tasks are swept on every call.
- Submissions are validated as the real platform validates them (real-platform-notes §2, §11, §12), by the
  pydantic models of :mod:`solvelens.sandbox.schemas` (the ones ``/openapi.json`` documents; their errors
  worded as the platform's Zod words them): the typed body of the task's type (flag
  ``verdict/category/suggested_category``, sloppy categories normalised first; solve ``solution_text``
  10-2000 (``--solution-length 50-5000``: as the newer documentation says; the bounds the solve
  instruction states after "Respond with:", beside the advice "Aim for 400-1200 characters",
  :class:`TaskRules`) + optional ``llm_model`` <= 100 / ``llm_model_version`` <= 50; vote ``winner``
  a|b|skip; create
  ``problem_title`` 5-200, ``problem_description`` 20-1000, ``category`` slug). Anything else is 400
  ``{"error": "Validation error", "code": "VALIDATION_ERROR", "statusCode": 400, "details": [{"field",
  "message"}]}`` (every issue, Zod's messages) and the task is marked failed (a
  resubmit is 409); a failed flag counts a failed flag attempt against the problem, and the fifth fails a
  human's pending problem (status ``rejected``). A failed task does not keep its problem from being handed
  to the same bot again, as on the real platform. A create whose title exists answers 200 ``{"success":
  true, "message": "Duplicate title ...", "duplicate": true}`` and creates nothing.
- Only with ``accept_content`` (the sandbox's ``--task-shape interface``) is the interface's ``{"content":
  "..."}`` translated into the typed body (solve: the text; vote: ``a``/``b``/``skip``; flag:
  ``green``/``red``; create: a JSON object string, or ``title\\ndescription``).
- ``--tasks content`` (:func:`content_task`, any convention): tasks ``{id, kind, prompt, choices?,
  constraints}`` of the kinds ``answer`` (solve), ``vote``, ``review`` (flag), ``propose`` (create), answered
  ``{"content": str}`` under the rule each states (:data:`CONTENT_RULES`: 60-2000 characters; the choice keys
  ``A``/``B``; ``approve``/``reject``; 30-1200 characters, the first line the title), enforced by the model
  built from the same rule; the answer is then applied as the typed body it stands for. Scoring reuses
  :class:`~solvelens.sandbox.world.World`, the same code the generator and simulator run.
"""

from __future__ import annotations

import json
import random
import re
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from solvelens.sandbox import ranking, schemas
from solvelens.sandbox.accounts import authenticate
from solvelens.sandbox.activity import log_event
from solvelens.sandbox.catalog import CATEGORIES, CATEGORY_SLUGS, FLAG_CATEGORIES
from solvelens.sandbox.db import DAY_MS, clock_ms, transaction
from solvelens.sandbox.ids import IdCodec
from solvelens.sandbox.options import TASK_TYPES, SandboxOptions
from solvelens.sandbox.world import World

#: Failed flag attempts after which a human's pending problem is rejected.
MAX_FAILED_FLAG_ATTEMPTS: Final = 5
_MODEL_RE: Final = re.compile(r"^[a-z0-9][a-z0-9._\-/:+]{0,98}[a-z0-9]$")
_RNG = random.SystemRandom()

INSTRUCTIONS: Final = {
    "flag": (
        "Review the problem below for policy violations and pick the best category. Answer with a "
        "verdict (green "
        "= acceptable, red = violates policy), a violation category (none if green) and a suggested "
        "category slug.",
        "Moderate: green or red, violation category, best category slug.",
    ),
    "vote": (
        "Compare Solution A and Solution B on: relevance, feasibility, specificity, depth, originality. "
        'Respond with "a", "b", or "skip".',
        "Compare Solution A and Solution B on: relevance, feasibility, specificity, depth, originality.\n"
        'Respond with "a", "b", or "skip".',
    ),
    "create": (
        "Propose a new real-world problem people could use help with: a title (5-200 characters), a "
        "description (20-1000 characters) and one category slug.",
        "Create a problem: title 5-200, description 20-1000, category slug.",
    ),
}
#: The real platform's advice on a solution's length: guidance, not the rule it validates.
SOLVE_GUIDANCE: Final = (
    "Aim for 400-1200 characters. This is the sweet spot between depth and readability: long enough to be "
    "specific, short enough to be read and compared."
)


@dataclass(frozen=True)
class TaskRules:
    """What the server's switches change in tasks and submissions: the wording of the solve instruction
    (``guidance``: the real platform's advice beside the rule; ``rule``: the rule alone), the solution text
    bounds validated and stated (``(min, max)`` characters) and the share of vote submits answered 500
    ``deadlock detected`` after the vote row is written (``vote_deadlocks``, 0-1)."""

    solve_instructions: str = "guidance"
    solution_bounds: tuple[int, int] = (10, 2000)
    vote_deadlocks: float = 0.0

    @classmethod
    def of(cls, opts: SandboxOptions) -> TaskRules:
        """The rules of a server's options."""
        return cls(opts.solve_instructions, opts.solution_bounds, opts.vote_deadlocks)

    def solve_instruction(self, brief: bool) -> str:
        """The solve task's instruction, full or brief (``?brief=true``)."""
        lo, hi = self.solution_bounds
        if self.solve_instructions == "rule":
            if brief:
                return f"Solve the problem. {lo}-{hi} chars. Be specific and practical."
            return (
                "Read the problem below and write a practical, specific, well-reasoned solution "
                f"({lo}-{hi} characters). Report the model you used."
            )
        if brief:
            return (
                "Solve the problem: specific and practical. Aim for 400-1200 chars. "
                f"solution_text: {lo}-{hi} chars."
            )
        return (
            "Read the problem below and propose a practical, specific solution someone could act on.\n\n"
            "Guidelines:\n- Address the problem as stated; be concrete (steps, examples, trade-offs).\n"
            f"- {SOLVE_GUIDANCE}\n- Report the model you used.\n\n"
            f"Respond with:\n- solution_text: your proposed solution ({lo}-{hi} characters)\n"
            "- llm_model: the model you used (e.g. claude-sonnet-4)\n- llm_model_version: its version"
        )


RESPONSE_FORMATS: Final = {
    "flag": '{ "verdict": "green"|"red", "category": "none"|"sexual"|...|"spam", '
    '"suggested_category": "<category_slug>"|null }',
    "solve": '{ "solution_text": "...", "llm_model": "your-model-name", "llm_model_version": "version" }',
    "create": '{ "problem_title": "...", "problem_description": "...", "category": "category_slug" }',
}


@dataclass(frozen=True)
class Task:
    """A handed-out task: public id, type and payload (snake_case keys, as the real platform sends)."""

    id: str
    type: str
    payload: dict[str, Any]


@dataclass(frozen=True)
class TaskContext:
    """One assigned task being submitted, as the submit's ``_apply_*`` step sees it: the connection (inside
    the submit's ``BEGIN IMMEDIATE`` transaction), the id codec, the submitting bot's row id, the task's row
    id and type, its problem and (vote) solution row ids, and the simulated time of the submission (ms,
    UTC)."""

    conn: sqlite3.Connection
    codec: IdCodec
    bot_id: int
    task_pk: int
    task_type: str
    problem_id: int | None
    sol_a: int | None
    sol_b: int | None
    now: int
    rules: TaskRules = TaskRules()

    def problem(self) -> int:
        """The task's problem row id (flag, solve and vote tasks always have one)."""
        assert self.problem_id is not None, f"a {self.task_type} task without a problem"
        return self.problem_id


class VoteDeadlocked(Exception):
    """A vote submit lost to the database deadlock the real platform meets under concurrent votes
    (:attr:`TaskRules.vote_deadlocks`)."""


#: The answer to a deadlocked vote submit: fastify's body of an unhandled PostgreSQL error.
DEADLOCK_BODY: Final = {"statusCode": 500, "error": "Internal Server Error", "message": "deadlock detected"}


@dataclass(frozen=True)
class SubmitResult:
    """HTTP status and JSON body of a submission."""

    status: int
    body: dict[str, Any]


def _wrap(text: str) -> str:
    return f"---DATA---\n{text}\n---/DATA---"


def _categories(slim: bool) -> list[Any]:
    if slim:
        return list(CATEGORY_SLUGS)
    return [{"slug": c[0], "name": c[1], "description": c[3]} for c in CATEGORIES]


def _instruction(payload: dict[str, Any], task_type: str, mode: str, rules: TaskRules) -> None:
    if mode != "none" and task_type == "solve":
        payload["instruction"] = rules.solve_instruction(mode == "brief")
    elif mode != "none":
        payload["instruction"] = INSTRUCTIONS[task_type][1 if mode == "brief" else 0]
    if task_type in RESPONSE_FORMATS:
        payload["response_format"] = RESPONSE_FORMATS[task_type]


def next_task(
    conn: sqlite3.Connection,
    codec: IdCodec,
    authorization: str | None,
    *,
    ttl_seconds: float,
    mode: str = "full",
    slim_categories: bool = False,
    task_types: tuple[str, ...] = TASK_TYPES,
    rules: TaskRules = TaskRules(),
    wall: Callable[[], float] = time.time,
) -> Task | None:
    """The calling bot's active task (served again unchanged: same id, same payload), else a newly
    assigned one (its solve instruction worded by ``rules``), else ``None`` (204). ``wall``: the wall clock
    (seconds since the epoch) expiry is measured on (:class:`~solvelens.sandbox.wallclock.WallClock`).

    Raises :class:`~solvelens.sandbox.accounts.AuthError` (401/403)."""
    with transaction(conn, immediate=True):
        bot_id = authenticate(conn, authorization)
        now_wall = wall()
        conn.execute(
            "UPDATE tasks SET status = 'expired' WHERE status = 'assigned' AND expires_wall <= ?", (now_wall,)
        )
        row = conn.execute(
            "SELECT id, task_type, payload FROM tasks WHERE bot_id = ? AND status = 'assigned' ORDER BY "
            "id LIMIT 1",
            (bot_id,),
        ).fetchone()
        if row is not None:
            return Task(codec.encode("task", row[0]), row[1], json.loads(row[2]))
        for task_type in TASK_TYPES:
            if task_type not in task_types:
                continue
            found = _FINDERS[task_type](conn, bot_id)
            if found is None:
                continue
            problem_id, sol_a, sol_b = found
            payload = _payload(conn, codec, task_type, problem_id, sol_a, sol_b, mode, slim_categories, rules)
            cur = conn.execute(
                "INSERT INTO tasks (bot_id, task_type, problem_id, solution_a, solution_b, status, payload, "
                "assigned_wall, expires_wall, created_day) VALUES (?, ?, ?, ?, ?, 'assigned', ?, ?, ?, ?)",
                (
                    bot_id,
                    task_type,
                    problem_id,
                    sol_a,
                    sol_b,
                    json.dumps(payload, separators=(",", ":")),
                    now_wall,
                    now_wall + ttl_seconds,
                    clock_ms(conn) // DAY_MS,
                ),
            )
            return Task(codec.encode("task", int(cur.lastrowid or 0)), task_type, payload)
        return None


_Found = tuple[int | None, int | None, int | None] | None


def _find_flag(conn: sqlite3.Connection, bot_id: int) -> _Found:
    row = conn.execute(
        "SELECT p.id FROM problems p WHERE p.status = 'pending' AND coalesce(p.bot_author_id, 0) != :b "
        "AND NOT EXISTS (SELECT 1 FROM flags f WHERE f.problem_id = p.id AND f.bot_id = :b) "
        "AND NOT EXISTS (SELECT 1 FROM tasks t WHERE t.problem_id = p.id AND t.bot_id = :b AND "
        "t.task_type = 'flag' AND t.status IN ('assigned', 'completed')) "
        "AND p.green_flags + p.red_flags + (SELECT count(*) FROM tasks t WHERE t.problem_id = p.id "
        "AND t.task_type = 'flag' AND t.status = 'assigned') < 3 "
        "ORDER BY p.created_at, p.id LIMIT 1",
        {"b": bot_id},
    ).fetchone()
    return None if row is None else (row[0], None, None)


def _find_solve(conn: sqlite3.Connection, bot_id: int) -> _Found:
    row = conn.execute(
        "SELECT p.id FROM problems p WHERE p.status = 'active' AND coalesce(p.bot_author_id, 0) != :b "
        "AND p.solution_count < :target "
        "AND NOT EXISTS (SELECT 1 FROM solutions s WHERE s.problem_id = p.id AND s.bot_id = :b) "
        "AND NOT EXISTS (SELECT 1 FROM tasks t WHERE t.problem_id = p.id AND t.bot_id = :b "
        "AND t.task_type = 'solve' AND t.status = 'assigned') "
        "AND p.solution_count + (SELECT count(*) FROM tasks t WHERE t.problem_id = p.id AND t.task_type "
        "= 'solve' "
        "AND t.status = 'assigned') < :target ORDER BY p.solution_count, p.created_at, p.id LIMIT 1",
        {"b": bot_id, "target": ranking.TARGET_SOLUTIONS_PER_PROBLEM},
    ).fetchone()
    return None if row is None else (row[0], None, None)


def _find_vote(conn: sqlite3.Connection, bot_id: int) -> _Found:
    candidates = conn.execute(
        "SELECT p.id FROM problems p WHERE (p.status = 'active' OR (p.status = 'mature' AND "
        "p.comparison_count < ?)) "
        "AND p.solution_count >= 2 ORDER BY (p.comparison_count * 1.0 / p.solution_count), p.id LIMIT 24",
        (ranking.MAX_COMPARISONS_MATURE,),
    ).fetchall()
    _RNG.shuffle(candidates)
    for (pid,) in candidates:
        sols = conn.execute(
            "SELECT id FROM solutions WHERE problem_id = ? AND coalesce(bot_id, 0) != ? "
            "ORDER BY comparison_count, id LIMIT 12",
            (pid, bot_id),
        ).fetchall()
        ids = [s[0] for s in sols]
        if len(ids) < 2:
            continue
        pairs = [(ids[0], other) for other in ids[1:]]
        _RNG.shuffle(pairs)
        for a, b in pairs[:6]:
            seen = conn.execute(
                "SELECT 1 FROM comparisons WHERE voter_bot_id = ? AND ((solution_a = ? AND solution_b = "
                "?) OR "
                "(solution_a = ? AND solution_b = ?)) UNION ALL SELECT 1 FROM tasks WHERE bot_id = ? "
                "AND task_type = 'vote' AND status = 'assigned' AND ((solution_a = ? AND solution_b = ?) OR "
                "(solution_a = ? AND solution_b = ?)) LIMIT 1",
                (bot_id, a, b, b, a, bot_id, a, b, b, a),
            ).fetchone()
            if seen is None:
                return (pid, a, b) if _RNG.random() < 0.5 else (pid, b, a)
    return None


def _find_create(conn: sqlite3.Connection, bot_id: int) -> _Found:
    today = clock_ms(conn) // DAY_MS
    row = conn.execute(
        "SELECT 1 FROM tasks WHERE bot_id = ? AND task_type = 'create' AND created_day = ? "
        "AND status IN ('assigned', 'completed') LIMIT 1",
        (bot_id, today),
    ).fetchone()
    return (None, None, None) if row is None else None


_FINDERS: Final = {"flag": _find_flag, "solve": _find_solve, "vote": _find_vote, "create": _find_create}


def _payload(
    conn: sqlite3.Connection,
    codec: IdCodec,
    task_type: str,
    problem_id: int | None,
    sol_a: int | None,
    sol_b: int | None,
    mode: str,
    slim: bool,
    rules: TaskRules,
) -> dict[str, Any]:
    payload: dict[str, Any] = {}
    if problem_id is not None:
        title, desc = conn.execute(
            "SELECT title, description FROM problems WHERE id = ?", (problem_id,)
        ).fetchone()
        payload["problem_id"] = codec.encode("problem", problem_id)
        payload["problem_title"] = title
        if task_type in ("flag", "solve"):
            payload["problem_description"] = _wrap(desc)
    if task_type == "vote":
        assert sol_a is not None and sol_b is not None
        for key, sid in (("a", sol_a), ("b", sol_b)):
            payload[f"solution_{key}_id"] = codec.encode("solution", sid)
            text = conn.execute("SELECT text FROM solutions WHERE id = ?", (sid,)).fetchone()[0]
            payload[f"solution_{key}_text"] = _wrap(text)
    if task_type in ("flag", "create"):
        payload["categories"] = _categories(slim)
    _instruction(payload, task_type, mode, rules)
    return payload


def shape(task: Task, style: str, tasks: str = "typed") -> dict[str, Any]:
    """The JSON of a task: ``real`` -> ``{"taskType","taskId","payload"}``; ``interface`` ->
    ``{"id","prompt","type","payload"}`` where ``prompt`` is the task as one text; with ``tasks="content"``
    the content task (:func:`content_task`) whatever the style."""
    if tasks == "content":
        return content_task(task)
    if style == "interface":
        return {"id": task.id, "prompt": _prompt(task), "type": task.type, "payload": task.payload}
    return {"taskType": task.type, "taskId": task.id, "payload": task.payload}


def _prompt(task: Task) -> str:
    p = task.payload
    parts = [p["instruction"]] if "instruction" in p else []
    if "problem_title" in p:
        parts.append(f"Problem: {p['problem_title']}")
    if "problem_description" in p:
        parts.append(p["problem_description"])
    if task.type == "vote":
        parts += [f"Solution A:\n{p['solution_a_text']}", f"Solution B:\n{p['solution_b_text']}"]
        parts.append('Answer with "a", "b" or "skip".')
    if "response_format" in p:
        parts.append(f"Response format: {p['response_format']}")
    return "\n\n".join(parts)


# ------------------------------------------------------------------------------------- --tasks content
#: ``--tasks content``: the name a content task gives each task type.
CONTENT_KINDS: Final = {"flag": "review", "solve": "answer", "vote": "vote", "create": "propose"}
#: The rule each content kind states for its answer's ``content`` (in the task, enforced on submit).
CONTENT_RULES: Final[dict[str, dict[str, Any]]] = {
    "answer": {"minLength": 60, "maxLength": 2000},
    "vote": {"enum": ["A", "B"]},
    "review": {"enum": ["approve", "reject"]},
    "propose": {"minLength": 30, "maxLength": 1200},
}
_REVIEW_CHOICES: Final = (
    {"key": "approve", "text": "A fair problem people could use help with: publish it"},
    {"key": "reject", "text": "Spam, abuse or nonsense: reject it"},
)


def _unwrap(text: Any) -> str:
    return str(text or "").replace("---DATA---\n", "").replace("\n---/DATA---", "").strip()


def content_task(task: Task) -> dict[str, Any]:
    """A task as ``--tasks content`` serves it: ``{id, kind, prompt, choices?, constraints}`` (the
    interface's ``{id, prompt}``; ``kind`` from :data:`CONTENT_KINDS`; its answer is ``{"content": str}``
    meeting ``constraints.content``, :data:`CONTENT_RULES`)."""
    p = task.payload
    kind = CONTENT_KINDS[task.type]
    rule = CONTENT_RULES[kind]
    title, description = p.get("problem_title", ""), _unwrap(p.get("problem_description"))
    choices: list[dict[str, str]] | None = None
    if kind == "answer":
        prompt = (
            f"{title}\n\n{description}\n\nAnswer with a practical solution of {rule['minLength']}-"
            f"{rule['maxLength']} characters."
        )
    elif kind == "vote":
        choices = [
            {"key": "A", "text": _unwrap(p.get("solution_a_text"))},
            {"key": "B", "text": _unwrap(p.get("solution_b_text"))},
        ]
        prompt = f"{title}\n\nWhich of the two solutions is better? Answer with its key: A or B."
    elif kind == "review":
        choices = [dict(c) for c in _REVIEW_CHOICES]
        prompt = f"{title}\n\n{description}\n\nShould this problem be published? Answer approve or reject."
    else:
        prompt = (
            "Propose a new real-world problem people could use help with. First line: its title (5-200 "
            "characters); the lines after it: its description (20-1000 characters)."
        )
    out: dict[str, Any] = {"id": task.id, "kind": kind, "prompt": prompt}
    if choices is not None:
        out["choices"] = choices
    out["constraints"] = {"content": dict(rule)}
    return out


_CONTENT_MODELS: Final = {kind: schemas.content_answer_model(rule) for kind, rule in CONTENT_RULES.items()}
_CONTENT_PARTS: Final = {
    "problem_title": "the first line (the title)",
    "problem_description": "the lines after the first (the description)",
}


def _from_content_answer(task_type: str, body: Any) -> dict[str, Any]:
    """The typed body a content task's answer stands for, after checking it against the rule the task
    states (:func:`~solvelens.sandbox.schemas.content_answer_model`); raises
    :class:`~solvelens.sandbox.schemas.SubmitInvalid`."""
    kind = CONTENT_KINDS[task_type]
    content = schemas.validate_body(_CONTENT_MODELS[kind], body)["content"]
    if kind == "answer":
        return {"solution_text": content}
    if kind == "vote":
        return {"winner": content.lower()}
    if kind == "review":
        approved = content == "approve"
        return {"verdict": "green" if approved else "red", "category": "none" if approved else "spam"}
    title, _, description = content.strip().partition("\n")
    typed = {"problem_title": title.strip(), "problem_description": description.strip()}
    typed["category"] = _category_named(content)
    try:
        return schemas.validate_body(schemas.CreateBody, typed)
    except schemas.SubmitInvalid as exc:
        raise schemas.SubmitInvalid(
            [
                {
                    "field": "content",
                    "message": f"{_CONTENT_PARTS.get(d['field'], d['field'])}: {d['message']}",
                }
                for d in exc.details
            ]
        ) from None


def _category_named(text: str) -> str:
    """The category a text names (its slug or name), else the catch-all (lifestyle)."""
    lowered = text.lower()
    named = (c[0] for c in CATEGORIES if c[0] in lowered or c[1].lower() in lowered)
    return next(named, CATEGORY_SLUGS[-1])


# ---------------------------------------------------------------------------------------------- submissions
def _bad(field: str, message: str) -> schemas.SubmitInvalid:
    return schemas.SubmitInvalid([{"field": field, "message": message}])


def _from_content(task_type: str, body: dict[str, Any]) -> dict[str, Any]:
    """Translate ``{"content": str}`` into the typed body of ``task_type`` (``--task-shape interface``)."""
    content = body["content"]
    if not isinstance(content, str):
        raise _bad("content", f"Expected string, received {schemas.json_type(content)}")
    if task_type == "solve":
        return {"solution_text": content, **{k: v for k, v in body.items() if k != "content"}}
    if task_type == "vote":
        return {"winner": content.strip().strip('"').lower()}
    stripped = content.strip()
    if stripped.startswith("{"):
        try:
            parsed = json.loads(stripped)
        except ValueError:
            raise _bad("content", "content is not a valid JSON object") from None
        if isinstance(parsed, dict):
            return parsed
    if task_type == "flag":
        return {"verdict": stripped.lower()}
    title, _, desc = stripped.partition("\n")
    return {
        "problem_title": title.strip(),
        "problem_description": desc.strip(),
        "category": _category_named(stripped),
    }


def _fail_task(tc: TaskContext) -> None:
    """Mark a task failed; a failed flag counts against its problem (the fifth rejects a human's problem)."""
    conn, now, problem_id = tc.conn, tc.now, tc.problem_id
    conn.execute("UPDATE tasks SET status = 'failed', completed_at = ? WHERE id = ?", (now, tc.task_pk))
    if tc.task_type != "flag" or problem_id is None:
        return
    conn.execute(
        "UPDATE problems SET failed_flag_attempts = failed_flag_attempts + 1, updated_at = ? WHERE id = ?",
        (now, problem_id),
    )
    rejected = conn.execute(
        "UPDATE problems SET status = 'rejected', updated_at = ? WHERE id = ? AND author_type = 'human' "
        "AND status = 'pending' AND failed_flag_attempts >= ?",
        (now, problem_id, MAX_FAILED_FLAG_ATTEMPTS),
    ).rowcount
    if rejected:
        log_event(
            conn, "problem_status_changed", None, problem_id, now, **{"from": "pending", "to": "rejected"}
        )


def submit(
    conn: sqlite3.Connection,
    codec: IdCodec,
    authorization: str | None,
    task_id: str,
    body: Any,
    *,
    accept_content: bool = False,
    tasks: str = "typed",
    rules: TaskRules = TaskRules(),
    wall: Callable[[], float] = time.time,
) -> SubmitResult:
    """Apply a submission. Statuses: 200 ``{"success": true, "result": {...}}`` (or ``duplicate: true``),
    404 ``Task not found or expired`` (unknown id or another bot's task), 409 ``Task already completed`` (not
    assigned any more: completed, expired or failed), 400 ``{"error": "Validation error", "code":
    "VALIDATION_ERROR", "statusCode": 400, "details": [...]}`` (the task is then marked failed; see the
    module docstring), 500 :data:`DEADLOCK_BODY` for a share of votes (``rules.vote_deadlocks``: the vote
    row is written, no count moves, the task is failed). ``accept_content``: translate the interface's
    ``{"content": ...}`` first;
    ``tasks="content"``: the body is a content task's answer (:func:`content_task`), checked against the rule
    the task states, then applied as the typed body it stands for. ``wall``: the clock expiry is measured
    on. Raises
    :class:`~solvelens.sandbox.accounts.AuthError` (401/403)."""
    with transaction(conn, immediate=True):
        bot_id = authenticate(conn, authorization)
        conn.execute(
            "UPDATE tasks SET status = 'expired' WHERE status = 'assigned' AND expires_wall <= ?",
            (wall(),),
        )
        tid = codec.decode("task", task_id)
        row = None
        if tid is not None:
            row = conn.execute(
                "SELECT id, task_type, problem_id, solution_a, solution_b, status FROM tasks WHERE id = "
                "? AND bot_id = ?",
                (tid, bot_id),
            ).fetchone()
        if row is None:
            return SubmitResult(404, {"error": "Task not found or expired"})
        pk, task_type, problem_id, sol_a, sol_b, status = row
        if status != "assigned":
            return SubmitResult(409, {"error": "Task already completed"})
        tc = TaskContext(conn, codec, bot_id, pk, task_type, problem_id, sol_a, sol_b, clock_ms(conn), rules)
        try:
            typed = (
                _from_content_answer(task_type, body)
                if tasks == "content"
                else _typed_body(task_type, body, accept_content)
            )
            result = _APPLY[task_type](tc, typed)
        except VoteDeadlocked:
            _fail_task(tc)  # the vote row stays: written before the failing count update
            return SubmitResult(500, dict(DEADLOCK_BODY))
        except schemas.SubmitInvalid as exc:
            _fail_task(tc)
            return SubmitResult(
                400,
                {
                    "error": "Validation error",
                    "code": "VALIDATION_ERROR",
                    "statusCode": 400,
                    "details": exc.details,
                },
            )
        conn.execute("UPDATE tasks SET status = 'completed', completed_at = ? WHERE id = ?", (tc.now, pk))
        return SubmitResult(200, result)


def _typed_body(task_type: str, body: Any, accept_content: bool) -> dict[str, Any]:
    """The typed body of a submission (``{"content"}`` translated when ``accept_content``); raises
    :class:`~solvelens.sandbox.schemas.SubmitInvalid` when the body is not a JSON object."""
    if not isinstance(body, dict):
        raise _bad("body", f"Expected object, received {schemas.json_type(body)}")
    typed_keys = ("solution_text", "winner", "verdict", "problem_title")
    if accept_content and "content" in body and not any(k in body for k in typed_keys):
        return _from_content(task_type, body)
    return body


def _world(conn: sqlite3.Connection, problem_id: int | None, bot_ids: list[int]) -> World:
    return World.load(
        conn, random.Random(0), problem_ids=[] if problem_id is None else [problem_id], bot_ids=bot_ids
    )


def _apply_solve(tc: TaskContext, body: dict[str, Any]) -> dict[str, Any]:
    """A solve: a new solution of the task's problem (a second one by the same bot is a duplicate)."""
    body = schemas.validate_body(schemas.solve_body_model(*tc.rules.solution_bounds), body)
    text, model_raw, version = body["solution_text"], body.get("llm_model"), body.get("llm_model_version")
    model = model_raw.lower() if model_raw and _MODEL_RE.match(model_raw.lower()) else None
    bot_id, problem_id = tc.bot_id, tc.problem()
    world = _world(tc.conn, problem_id, [bot_id])
    prob = world.problems[problem_id]
    if bot_id in prob.solvers:
        return {
            "success": True,
            "message": "Solution already submitted for this problem. Task completed.",
            "duplicate": True,
        }
    assert text is not None
    sol = world.solve(
        prob, world.bots[bot_id], tc.now, text, llm_model=model, llm_model_version=version, external=True
    )
    world.flush(tc.conn, in_transaction=True)
    return {"success": True, "result": {"solution_id": tc.codec.encode("solution", sol.id)}}


def _apply_vote(tc: TaskContext, body: dict[str, Any]) -> dict[str, Any]:
    """A vote between the task's two solutions (a repeated pair of the same voter changes nothing)."""
    winner = schemas.validate_body(schemas.VoteBody, body)["winner"]
    conn, bot_id, problem_id, sol_a, sol_b = tc.conn, tc.bot_id, tc.problem(), tc.sol_a, tc.sol_b
    assert sol_a is not None and sol_b is not None, "a vote task without its two solutions"
    owners = [
        r[0] for r in conn.execute("SELECT bot_id FROM solutions WHERE id IN (?, ?)", (sol_a, sol_b)) if r[0]
    ]
    world = _world(conn, problem_id, [bot_id, *owners])
    prob = world.problems[problem_id]
    by_id = {s.id: s for s in prob.sols}
    a, b = by_id[sol_a], by_id[sol_b]
    dup = conn.execute(
        "SELECT 1 FROM comparisons WHERE voter_bot_id = ? AND ((solution_a = ? AND solution_b = ?) OR "
        "(solution_a = ? AND solution_b = ?)) LIMIT 1",
        (bot_id, sol_a, sol_b, sol_b, sol_a),
    ).fetchone()
    if dup is None and tc.rules.vote_deadlocks and _RNG.random() < tc.rules.vote_deadlocks:
        world.vote_deadlocked(prob, world.bots[bot_id], a, b, str(winner), tc.now)
        world.flush(conn, in_transaction=True)
        raise VoteDeadlocked
    if dup is None:
        world.vote(prob, world.bots[bot_id], a, b, str(winner), tc.now)
        world.flush(conn, in_transaction=True)
    return {
        "success": True,
        "result": {
            "solutionA": {"newScore": round(a.score, 4)},
            "solutionB": {"newScore": round(b.score, 4)},
        },
    }


_FLAG_ALIASES: Final = {"gibberish": "spam", "nsfw": "sexual", "violence": "weapons", "hate": "hate_speech"}


def _apply_flag(tc: TaskContext, body: dict[str, Any]) -> dict[str, Any]:
    """A moderation verdict on the task's pending problem (sloppy categories normalised first)."""
    verdict = schemas.validate_body(schemas.FlagBody, body)["verdict"]
    category = str(body.get("category") or "none").strip().lower()
    category = _FLAG_ALIASES.get(category, category)
    if category not in FLAG_CATEGORIES:
        category = "none"
    if verdict == "red" and category == "none":
        category = "spam"
    suggested = body.get("suggested_category")
    if suggested not in CATEGORY_SLUGS:
        suggested = None
    problem_id = tc.problem()
    world = _world(tc.conn, problem_id, [tc.bot_id])
    prob = world.problems[problem_id]
    if prob.status == "pending":
        world.flag(prob, world.bots[tc.bot_id], verdict, tc.now, category=category, suggested=suggested)
        world.flush(tc.conn, in_transaction=True)
    result = {
        "verdict": verdict,
        "category": category,
        "suggested_category": suggested,
        "problem_new_status": prob.status,
    }
    return {"success": True, "result": result}


def _apply_create(tc: TaskContext, body: dict[str, Any]) -> dict[str, Any]:
    """A new problem by the bot (a title that exists, case-insensitively, is a duplicate creating nothing)."""
    body = schemas.validate_body(schemas.CreateBody, body)
    title, desc, category = body["problem_title"], body["problem_description"], body["category"]
    if tc.conn.execute("SELECT 1 FROM problems WHERE lower(title) = lower(?) LIMIT 1", (title,)).fetchone():
        return {
            "success": True,
            "message": "Duplicate title — problem already exists. Task completed.",
            "duplicate": True,
        }
    world = _world(tc.conn, None, [tc.bot_id])
    prob = world.create_problem(
        title=title, description=desc, category=str(category), t=tc.now, bot=world.bots[tc.bot_id]
    )
    world.flush(tc.conn, in_transaction=True)
    return {"success": True, "result": {"problem_id": tc.codec.encode("problem", prob.id)}}


_APPLY: Final[dict[str, Callable[[TaskContext, dict[str, Any]], dict[str, Any]]]] = {
    "solve": _apply_solve,
    "vote": _apply_vote,
    "flag": _apply_flag,
    "create": _apply_create,
}
