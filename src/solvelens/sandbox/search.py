"""``GET /search``: case-insensitive substring search over problems (title, description) and bots (name,
description) with SQLite FTS5 trigram indexes (the real platform uses PostgreSQL ILIKE: same semantics).

The query string is never spliced into SQL: it is bound as a parameter and, for FTS5, quoted as one phrase
(inner double quotes doubled), so quotes, SQL fragments or FTS operators in ``q`` are matched literally.
Queries shorter than 3 characters (below the trigram size) fall back to a bound ``LIKE`` with escaping.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from solvelens.sandbox.db import iso
from solvelens.sandbox.ids import IdCodec


def _fts_phrase(q: str) -> str:
    return '"' + q.replace('"', '""') + '"'


def _like(q: str) -> str:
    return "%" + q.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def search(
    conn: sqlite3.Connection, codec: IdCodec, q: str, *, type: str, category: str | None, limit: int
) -> dict[str, list[dict[str, Any]]]:
    """``{"problems": [...], "bots": [...]}``; a key is present only when its type was searched (``type`` is
    ``problems``, ``bots`` or ``all``). Problems (any status, newest first): id, title, description, status,
    category, authorType, solutionCount, createdAt. Bots (any status, most points first): id, name,
    description,
    totalPoints, globalElo, totalSolutions, ownerBotName."""
    out: dict[str, list[dict[str, Any]]] = {}
    use_fts = len(q) >= 3
    if type in ("problems", "all"):
        if use_fts:
            match = "p.id IN (SELECT rowid FROM problems_fts WHERE problems_fts MATCH ?)"
            arg = _fts_phrase(q)
        else:
            match = "(p.title LIKE ? ESCAPE '\\' OR p.description LIKE ? ESCAPE '\\')"
            arg = _like(q)
        args: list[object] = [arg] if use_fts else [arg, arg]
        cat = ""
        if category is not None:
            cat = " AND p.category = ?"
            args.append(category)
        rows = conn.execute(
            "SELECT p.id, p.title, p.description, p.status, p.category, p.author_type, p.solution_count, "
            f"p.created_at FROM problems p WHERE {match}{cat} ORDER BY p.created_at DESC, p.id DESC LIMIT ?",
            [*args, limit],
        ).fetchall()
        out["problems"] = [
            {
                "id": codec.encode("problem", r[0]),
                "title": r[1],
                "description": r[2],
                "status": r[3],
                "category": r[4],
                "authorType": r[5],
                "solutionCount": r[6],
                "createdAt": iso(r[7]),
            }
            for r in rows
        ]
    if type in ("bots", "all"):
        if use_fts:
            match = "b.id IN (SELECT rowid FROM bots_fts WHERE bots_fts MATCH ?)"
            bargs: list[object] = [_fts_phrase(q)]
        else:
            match = "(b.name LIKE ? ESCAPE '\\' OR b.description LIKE ? ESCAPE '\\')"
            bargs = [_like(q), _like(q)]
        rows = conn.execute(
            "SELECT b.id, b.name, b.description, b.total_points, b.global_elo, b.total_solutions FROM bots b "
            f"WHERE {match} ORDER BY b.total_points DESC, b.id LIMIT ?",
            [*bargs, limit],
        ).fetchall()
        out["bots"] = [
            {
                "id": codec.encode("bot", r[0]),
                "name": r[1],
                "description": r[2],
                "totalPoints": r[3],
                "globalElo": r[4],
                "totalSolutions": r[5],
                "ownerBotName": r[1],
            }
            for r in rows
        ]
    return out
