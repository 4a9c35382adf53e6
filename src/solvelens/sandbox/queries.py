"""Read queries behind the public endpoints: each returns the records exactly as the API serves them
(camelCase keys, UUID strings, ISO-8601 UTC timestamps with milliseconds), mirroring the real
platform's shapes.

Every function takes an open connection (the caller wraps it in one read transaction so a multi-statement read
sees one consistent state) and the platform's :class:`~solvelens.sandbox.ids.IdCodec`. Nothing here writes.
"""

from __future__ import annotations

import sqlite3
from typing import Any, Final

from solvelens.sandbox.db import HOUR_MS, clock_ms, iso
from solvelens.sandbox.ids import IdCodec

PROBLEM_SORTS: Final = {
    "newest": "p.created_at DESC, p.id DESC",
    "oldest": "p.created_at ASC, p.id ASC",
    "most_solutions": "p.solution_count DESC, p.created_at DESC, p.id DESC",
    "most_votes": "p.comparison_count DESC, p.created_at DESC, p.id DESC",
}
LEADERBOARD_SORTS: Final = {
    "points": "total_points DESC, id ASC",
    "elo": "global_elo DESC, id ASC",
    "solutions": "total_solutions DESC, id ASC",
    "votes": "total_votes DESC, id ASC",
    "accuracy": "vote_accuracy DESC, id ASC",
}
PROBLEM_STATUSES: Final = ("pending", "approved", "rejected", "active", "mature")

Record = dict[str, Any]


def _score(x: float) -> float:
    return round(x, 4)


def _by_score(shuffle_ties: bool, alias: str = "") -> str:
    """``ORDER BY`` terms of solutions by score, best first. Ties (equal scores as served, 4 decimals) are
    ordered by ``createdAt`` then id, or, with ``shuffle_ties``, at random on every query: the real platform
    orders equal scores differently on each call (real-platform-notes §13)."""
    a = f"{alias}." if alias else ""
    if shuffle_ties:
        return f"round({a}bt_score, 4) DESC, random()"
    return f"{a}bt_score DESC, {a}created_at, {a}id"


def _problem_filter(
    category: str | None, status: str | None, author_type: str | None
) -> tuple[str, list[object]]:
    where: list[str] = []
    args: list[object] = []
    if status in PROBLEM_STATUSES:
        where.append("p.status = ?")
        args.append(status)
    else:  # missing, "all" or unknown: no status filter, rejected excluded
        where.append("p.status != 'rejected'")
    if category is not None:
        where.append("p.category = ?")
        args.append(category)
    if author_type is not None:
        where.append("p.author_type = ?")
        args.append(author_type)
    return " AND ".join(where), args


def list_problems(
    conn: sqlite3.Connection,
    codec: IdCodec,
    *,
    category: str | None,
    status: str | None,
    author_type: str | None,
    sort: str,
    offset: int,
    limit: int,
    shuffle_ties: bool = False,
    with_author: bool = False,
) -> tuple[list[Record], int]:
    """``GET /problems`` items and the total matching count. Item keys: id, title, description, status,
    category, authorType, solutionCount, comparisonCount, greenFlags, redFlags, createdAt, topSolution
    (``{text, btScore, botName}`` or null: a best-scored solution, see :func:`_by_score` for ties);
    ``with_author`` adds ``author`` as :func:`get_problem` shows it (``{id, username}`` of a human, ``{id,
    name}`` of a bot; ``--refs nested``)."""
    where, args = _problem_filter(category, status, author_type)
    total = conn.execute(f"SELECT count(*) FROM problems p WHERE {where}", args).fetchone()[0]
    rows = conn.execute(
        "SELECT p.id, p.title, p.description, p.status, p.category, p.author_type, p.solution_count, "
        "p.comparison_count, p.green_flags, p.red_flags, p.created_at, s.text, s.bt_score, b.name, "
        "p.human_author_id, h.username, p.bot_author_id, ab.name "
        f"FROM (SELECT * FROM problems p WHERE {where} ORDER BY {PROBLEM_SORTS[sort]} LIMIT ? OFFSET ?) p "
        "LEFT JOIN solutions s ON s.id = (SELECT id FROM solutions WHERE problem_id = p.id "
        f"ORDER BY {_by_score(shuffle_ties)} LIMIT 1) "
        "LEFT JOIN bots b ON b.id = s.bot_id LEFT JOIN humans h ON h.id = p.human_author_id "
        f"LEFT JOIN bots ab ON ab.id = p.bot_author_id ORDER BY {PROBLEM_SORTS[sort]}",
        [*args, limit, offset],
    ).fetchall()
    items = [
        {
            "id": codec.encode("problem", r[0]),
            "title": r[1],
            "description": r[2],
            "status": r[3],
            "category": r[4],
            "authorType": r[5],
            "solutionCount": r[6],
            "comparisonCount": r[7],
            "greenFlags": r[8],
            "redFlags": r[9],
            "createdAt": iso(r[10]),
            "topSolution": None
            if r[11] is None
            else {"text": r[11], "btScore": _score(r[12]), "botName": r[13]},
        }
        for r in rows
    ]
    if with_author:
        for item, r in zip(items, rows, strict=True):
            item["author"] = _author_ref(codec, r[14], r[15], r[16], r[17])
    return items, total


def _author_ref(
    codec: IdCodec, human_id: int | None, username: str | None, bot_id: int | None, bot_name: str | None
) -> Record | None:
    """A problem's author reference: ``{id, username}`` (a human), ``{id, name}`` (a bot) or ``None``."""
    if human_id is not None:
        return {"id": codec.encode("human", human_id), "username": username}
    if bot_id is not None:
        return {"id": codec.encode("bot", bot_id), "name": bot_name}
    return None


_SOLUTION_COLS: Final = (
    "s.id, s.text, s.bt_score, s.comparison_count, s.win_count, s.loss_count, s.confidence_interval, "
    "s.llm_model, s.created_at, s.bot_id, b.name"
)


def _solution(codec: IdCodec, r: tuple[Any, ...]) -> Record:
    return {
        "id": codec.encode("solution", r[0]),
        "text": r[1],
        "btScore": _score(r[2]),
        "comparisonCount": r[3],
        "winCount": r[4],
        "lossCount": r[5],
        "confidenceInterval": _score(r[6]),
        "llmModel": r[7],
        "createdAt": iso(r[8]),
        "botId": codec.encode_opt("bot", r[9]),
        "botName": r[10],
        "ownerBotName": r[10],
    }


def problem_exists(conn: sqlite3.Connection, problem_id: int) -> int | None:
    """The problem's solution count, or ``None`` when there is no such problem."""
    row = conn.execute("SELECT solution_count FROM problems WHERE id = ?", (problem_id,)).fetchone()
    return None if row is None else int(row[0])


def list_solutions(
    conn: sqlite3.Connection,
    codec: IdCodec,
    problem_id: int,
    *,
    offset: int,
    limit: int,
    shuffle_ties: bool = False,
) -> list[Record]:
    """``GET /problems/{id}/solutions`` items ranked by btScore desc (ties: createdAt, then id, or at random
    with ``shuffle_ties``, :func:`_by_score`). Keys: id, text, btScore, comparisonCount, winCount, lossCount,
    confidenceInterval, llmModel, createdAt, botId, botName, ownerBotName."""
    rows = conn.execute(
        f"SELECT {_SOLUTION_COLS} FROM solutions s LEFT JOIN bots b ON b.id = s.bot_id WHERE "
        f"s.problem_id = ? "
        f"ORDER BY {_by_score(shuffle_ties, 's')} LIMIT ? OFFSET ?",
        (problem_id, limit, offset),
    ).fetchall()
    return [_solution(codec, r) for r in rows]


def get_problem(
    conn: sqlite3.Connection, codec: IdCodec, problem_id: int, *, shuffle_ties: bool = False
) -> Record | None:
    """``GET /problems/{id}``: the full problem row + ``author`` + ``topSolutions`` (<= 3, as
    :func:`list_solutions`), or ``None``."""
    r = conn.execute(
        "SELECT p.id, p.author_type, p.human_author_id, p.bot_author_id, p.title, p.description, p.status, "
        "p.category, p.category_assigned_by, p.category_confidence, p.green_flags, p.red_flags, "
        "p.solution_count, "
        "p.comparison_count, p.attention_score, p.last_bot_activity_at, p.created_at, p.updated_at, "
        "p.failed_flag_attempts, h.username, b.name FROM problems p LEFT JOIN humans h ON h.id = "
        "p.human_author_id "
        "LEFT JOIN bots b ON b.id = p.bot_author_id WHERE p.id = ?",
        (problem_id,),
    ).fetchone()
    if r is None:
        return None
    author: Record | None = None
    if r[2] is not None:
        author = {"id": codec.encode("human", r[2]), "username": r[19]}
    elif r[3] is not None:
        author = {"id": codec.encode("bot", r[3]), "name": r[20], "ownerBotName": r[20]}
    return {
        "id": codec.encode("problem", r[0]),
        "authorType": r[1],
        "humanAuthorId": codec.encode_opt("human", r[2]),
        "botAuthorId": codec.encode_opt("bot", r[3]),
        "title": r[4],
        "description": r[5],
        "status": r[6],
        "category": r[7],
        "categoryAssignedBy": r[8],
        "categoryConfidence": r[9],
        "greenFlags": r[10],
        "redFlags": r[11],
        "solutionCount": r[12],
        "comparisonCount": r[13],
        "attentionScore": r[14],
        "lastBotActivityAt": iso(r[15]),
        "createdAt": iso(r[16]),
        "updatedAt": iso(r[17]),
        "failedFlagAttempts": r[18],
        "author": author,
        "topSolutions": list_solutions(conn, codec, problem_id, offset=0, limit=3, shuffle_ties=shuffle_ties),
    }


def list_categories(conn: sqlite3.Connection) -> list[Record]:
    """``GET /categories``: the 8 categories in their fixed order; ``activeProblems`` counts all problems of
    the category whatever their status (as the real platform does)."""
    rows = conn.execute(
        "SELECT c.slug, c.display_name, c.icon, c.description, "
        "(SELECT count(*) FROM problems p WHERE p.category = c.slug) FROM categories c ORDER BY c.position"
    ).fetchall()
    return [
        {"slug": r[0], "displayName": r[1], "icon": r[2], "description": r[3], "activeProblems": r[4]}
        for r in rows
    ]


def list_leaderboard(
    conn: sqlite3.Connection,
    codec: IdCodec,
    *,
    sort: str,
    offset: int,
    limit: int,
    shuffle_ties: bool = False,
) -> tuple[list[Record], int]:
    """``GET /leaderboard``: active bots in rank order (no rank field) and their total count. Keys: id, name,
    status, totalPoints, totalSolutions, totalVotes, voteAccuracy, globalElo, lastActiveAt, ownerBotName.
    Bots equal on the sorted figure are ordered by id, or with ``shuffle_ties`` at random on every call (the
    real platform: a list position is no rank, and pages of a tie may overlap)."""
    total = conn.execute("SELECT count(*) FROM bots WHERE status = 'active'").fetchone()[0]
    order = LEADERBOARD_SORTS[sort]
    if shuffle_ties:
        order = order.replace("id ASC", "random()")
    rows = conn.execute(
        "SELECT id, name, status, total_points, total_solutions, total_votes, vote_accuracy, global_elo, "
        f"last_active_at FROM bots WHERE status = 'active' ORDER BY {order} LIMIT ? OFFSET ?",
        (limit, offset),
    ).fetchall()
    items = [
        {
            "id": codec.encode("bot", r[0]),
            "name": r[1],
            "status": r[2],
            "totalPoints": r[3],
            "totalSolutions": r[4],
            "totalVotes": r[5],
            "voteAccuracy": round(r[6], 4),
            "globalElo": r[7],
            "lastActiveAt": iso(r[8]),
            "ownerBotName": r[1],
        }
        for r in rows
    ]
    return items, total


def bot_profile(conn: sqlite3.Connection, codec: IdCodec, bot_id: int) -> Record | None:
    """The ``/bot/me`` keys of a bot (id, name, description, status, totalPoints, totalSolutions, totalVotes,
    totalFlags, totalProblemsCreated, voteAccuracy, globalElo, lastActiveAt, totalTasksCompleted, createdAt,
    ownerBotName, badges ``[{id, botId, badgeType, tier, earnedAt}]``), or ``None``."""
    r = conn.execute(
        "SELECT id, name, description, status, total_points, total_solutions, total_votes, total_flags, "
        "total_problems_created, vote_accuracy, global_elo, last_active_at, total_tasks_completed, "
        "created_at "
        "FROM bots WHERE id = ?",
        (bot_id,),
    ).fetchone()
    if r is None:
        return None
    bid = codec.encode("bot", r[0])
    badge_rows = conn.execute(
        "SELECT id, badge_type, tier, earned_at FROM badges WHERE bot_id = ? ORDER BY earned_at, id",
        (bot_id,),
    ).fetchall()
    return {
        "id": bid,
        "name": r[1],
        "description": r[2],
        "status": r[3],
        "totalPoints": r[4],
        "totalSolutions": r[5],
        "totalVotes": r[6],
        "totalFlags": r[7],
        "totalProblemsCreated": r[8],
        "voteAccuracy": round(r[9], 4),
        "globalElo": r[10],
        "lastActiveAt": iso(r[11]),
        "totalTasksCompleted": r[12],
        "createdAt": iso(r[13]),
        "ownerBotName": r[1],
        "badges": [
            {"id": b[0], "botId": bid, "badgeType": b[1], "tier": b[2], "earnedAt": iso(b[3])}
            for b in badge_rows
        ],
    }


_ACTIVITY_SQL: Final = """
SELECT * FROM (SELECT s.id * 8 + 1 AS aid, 'solution_submitted' AS action, s.problem_id, s.id AS sid,
    json_object('llm_model', s.llm_model) AS meta, s.created_at FROM solutions s WHERE s.bot_id = :b
    ORDER BY s.created_at DESC, s.id DESC LIMIT 20)
UNION ALL SELECT * FROM (SELECT c.id * 8 + 2, 'vote_cast', c.problem_id, NULL, json_object('winner',
c.winner),
    c.created_at FROM comparisons c WHERE c.voter_bot_id = :b ORDER BY c.created_at DESC, c.id DESC LIMIT 20)
UNION ALL SELECT * FROM (SELECT f.id * 8 + 3, 'flag_submitted', f.problem_id, NULL,
    json_object('verdict', f.verdict, 'category', f.category), f.created_at FROM flags f WHERE f.bot_id = :b
    ORDER BY f.created_at DESC, f.id DESC LIMIT 20)
UNION ALL SELECT * FROM (SELECT p.id * 8 + 4, 'problem_created', p.id, NULL, NULL, p.created_at FROM
problems p
    WHERE p.bot_author_id = :b ORDER BY p.created_at DESC, p.id DESC LIMIT 20)
UNION ALL SELECT * FROM (SELECT a.id * 8 + 5, a.action, a.problem_id, a.solution_id,
    json_object('points', a.points), a.created_at FROM awards a WHERE a.bot_id = :b
    ORDER BY a.created_at DESC, a.id DESC LIMIT 20)
"""


def bot_public(
    conn: sqlite3.Connection, codec: IdCodec, bot_id: int, *, shuffle_ties: bool = False
) -> Record | None:
    """``GET /bots/{id}``: :func:`bot_profile` + ``topSolutions`` (<= 5, ties as :func:`_by_score`: id,
    text, btScore, problemId, problemTitle, comparisonCount, winCount, createdAt) + ``recentActivity``
    (<= 20, newest first: id (int), action, problemId, problemTitle, solutionId, metadata (JSON string or
    null), createdAt); or ``None``."""
    profile = bot_profile(conn, codec, bot_id)
    if profile is None:
        return None
    top = conn.execute(
        "SELECT s.id, s.text, s.bt_score, s.problem_id, p.title, s.comparison_count, s.win_count, "
        "s.created_at "
        "FROM solutions s JOIN problems p ON p.id = s.problem_id WHERE s.bot_id = ? "
        f"ORDER BY {_by_score(shuffle_ties, 's')} LIMIT 5",
        (bot_id,),
    ).fetchall()
    profile["topSolutions"] = [
        {
            "id": codec.encode("solution", r[0]),
            "text": r[1],
            "btScore": _score(r[2]),
            "problemId": codec.encode("problem", r[3]),
            "problemTitle": r[4],
            "comparisonCount": r[5],
            "winCount": r[6],
            "createdAt": iso(r[7]),
        }
        for r in top
    ]
    acts = conn.execute(
        f"SELECT a.*, p.title FROM ({_ACTIVITY_SQL}) a LEFT JOIN problems p ON p.id = a.problem_id "
        "ORDER BY a.created_at DESC, a.aid DESC LIMIT 20",
        {"b": bot_id},
    ).fetchall()
    profile["recentActivity"] = [
        {
            "id": r[0],
            "action": r[1],
            "problemId": codec.encode_opt("problem", r[2]),
            "problemTitle": r[6],
            "solutionId": codec.encode_opt("solution", r[3]),
            "metadata": r[4],
            "createdAt": iso(r[5]),
        }
        for r in acts
    ]
    return profile


def stats(conn: sqlite3.Connection) -> Record:
    """``GET /stats`` (all ints): totalProblems (not rejected), humanProblems, botProblems, totalSolutions,
    totalComparisons (sum of problem comparison counts, skips included), totalBots (status active), activeBots
    (lastActiveAt within the last hour of the simulated clock), activeProblems, matureProblems."""
    now = clock_ms(conn)
    p = conn.execute(
        "SELECT count(*), coalesce(sum(author_type = 'human'), 0), coalesce(sum(author_type = 'bot'), 0), "
        "coalesce(sum(comparison_count), 0), coalesce(sum(status = 'active'), 0), "
        "coalesce(sum(status = 'mature'), 0) FROM problems WHERE status != 'rejected'"
    ).fetchone()
    b = conn.execute(
        "SELECT coalesce(sum(status = 'active'), 0), coalesce(sum(last_active_at > ? AND last_active_at "
        "<= ?), 0) "
        "FROM bots",
        (now - HOUR_MS, now),
    ).fetchone()
    solutions = conn.execute("SELECT count(*) FROM solutions").fetchone()[0]
    return {
        "totalProblems": int(p[0]),
        "humanProblems": int(p[1]),
        "botProblems": int(p[2]),
        "totalSolutions": int(solutions),
        "totalComparisons": int(p[3]),
        "totalBots": int(b[0]),
        "activeBots": int(b[1]),
        "activeProblems": int(p[4]),
        "matureProblems": int(p[5]),
    }


def get_solution(conn: sqlite3.Connection, codec: IdCodec, solution_id: int) -> Record | None:
    """``GET /solutions/{id}``: the ranked-solution fields (:func:`list_solutions`) + ``llmModelVersion``,
    ``problemId``, ``problemTitle``; or ``None``."""
    row = conn.execute(
        f"SELECT {_SOLUTION_COLS}, s.llm_model_version, s.problem_id, p.title FROM solutions s "
        "LEFT JOIN bots b ON b.id = s.bot_id JOIN problems p ON p.id = s.problem_id WHERE s.id = ?",
        (solution_id,),
    ).fetchone()
    if row is None:
        return None
    return {
        **_solution(codec, row[:11]),
        "llmModelVersion": row[11],
        "problemId": codec.encode("problem", row[12]),
        "problemTitle": row[13],
    }


#: ``GET /solutions/{id}/comparisons`` answers this many at most (the real platform's, no paging).
COMPARISONS_SHOWN: Final = 50


def solution_comparisons(conn: sqlite3.Connection, codec: IdCodec, solution_id: int) -> list[Record]:
    """The :data:`COMPARISONS_SHOWN` most recent votes on a solution, newest first: ``{id, solutionAId,
    solutionBId, winner ("a"|"b"|"skip"), voterBotId, voterBotName, createdAt}``."""
    rows = conn.execute(
        "SELECT c.id, c.solution_a, c.solution_b, c.winner, c.voter_bot_id, b.name, c.created_at FROM "
        "(SELECT * FROM comparisons WHERE solution_a = :s UNION ALL "
        " SELECT * FROM comparisons WHERE solution_b = :s) c LEFT JOIN bots b ON b.id = c.voter_bot_id "
        "ORDER BY c.created_at DESC, c.id DESC LIMIT :n",
        {"s": solution_id, "n": COMPARISONS_SHOWN},
    ).fetchall()
    return [
        {
            "id": codec.encode("comparison", r[0]),
            "solutionAId": codec.encode("solution", r[1]),
            "solutionBId": codec.encode("solution", r[2]),
            "winner": r[3],
            "voterBotId": codec.encode_opt("bot", r[4]),
            "voterBotName": r[5],
            "createdAt": iso(r[6]),
        }
        for r in rows
    ]
