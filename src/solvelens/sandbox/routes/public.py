"""Public routes: ``GET /health`` (root) and the reads under ``/api/v1`` (problems, a problem, its solutions,
categories, leaderboard, a bot, stats, search). No authentication; serving never changes data."""

from __future__ import annotations

import sqlite3
import time
from datetime import UTC, datetime
from typing import Any, Literal

from fastapi import APIRouter, Query
from fastapi.responses import Response

from solvelens.sandbox import queries, schemas
from solvelens.sandbox.catalog import CATEGORY_SLUGS
from solvelens.sandbox.db import clock_ms, iso
from solvelens.sandbox.http import INVALID_RESPONSE, JSON, ApiError, AppContext, E, responses
from solvelens.sandbox.paging import (
    cursor_query,
    envelope,
    items_envelope,
    listing_model,
    offset_query,
    page_query,
    window,
)
from solvelens.sandbox.search import search as run_search

__all__ = ["API", "Category", "public_router"]

API = "/api/v1"
#: With ``--solutions-paging offset``, a page of solutions holds at most this many, whatever ``limit`` asks.
ITEMS_MAX_LIMIT = 10
#: A category slug query parameter (one of the 8).
Category = schemas.CategorySlug
assert set(Category.__args__) == set(CATEGORY_SLUGS)  # type: ignore[attr-defined]


def public_router(ctx: AppContext) -> APIRouter:
    """The health route and the public reads of one app (pagination style from ``ctx.options``)."""
    router = APIRouter()
    db, codec, style = ctx.db, ctx.codec, ctx.options.pagination
    items_solutions = ctx.options.solutions_paging == "offset"

    @router.get("/health", responses=responses((200, "Server health", schemas.Health)))
    def health() -> Response:
        """Liveness, wall-clock timestamp, uptime (s) and the simulated clock."""
        try:
            with db.read() as conn:
                clock = iso(clock_ms(conn))
            database = "ok"
        except sqlite3.Error:
            clock, database = None, "error"
        now = datetime.now(UTC)
        return JSON(
            {
                "status": "healthy" if database == "ok" else "degraded",
                "timestamp": now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z",
                "uptime": round(time.monotonic() - ctx.started, 3),
                "database": database,
                "clock": clock,
            }
        )

    @router.get(
        f"{API}/problems",
        responses=ctx.responses(
            (200, "A page of problems", listing_model(style, schemas.ProblemSummary, schemas.ProblemList)),
            INVALID_RESPONSE,
        ),
    )
    def problems(
        category: Category | None = None,
        status: str | None = Query(
            None,
            max_length=200,
            description="pending|approved|rejected|active|mature; anything else (or `all`): every status "
            "but rejected.",
        ),
        author_type: Literal["human", "bot"] | None = None,
        sort: Literal["newest", "oldest", "most_solutions", "most_votes"] = "newest",
        page: int | None = page_query(style),
        offset: int | None = offset_query(style),
        cursor: str | None = cursor_query(style),
        limit: int = Query(20, ge=1, le=50, description="Page size (1-50)."),
    ) -> Response:
        """Problems (rejected excluded unless ``status=rejected``), paginated."""
        w = window(style, page, offset, cursor, limit)
        with db.read() as conn:
            items, total = queries.list_problems(
                conn,
                codec,
                category=category,
                status=status,
                author_type=author_type,
                sort=sort,
                offset=w.offset,
                limit=limit,
            )
        return JSON(envelope(w, "problems", items, total, total))

    @router.get(
        f"{API}/problems/{{problem_id}}",
        responses=ctx.responses((200, "The problem", schemas.ProblemDetail), (404, "No such problem", E)),
    )
    def problem(problem_id: str) -> Response:
        """One problem: full row + author + topSolutions (<= 3)."""
        pid = codec.decode("problem", problem_id)
        with db.read() as conn:
            record = queries.get_problem(conn, codec, pid) if pid is not None else None
        if record is None:
            raise ApiError(404, "Problem not found")
        return JSON(record)

    solutions_model: type[Any] = (
        schemas.ItemsPage[schemas.Solution]  # type: ignore[misc]
        if items_solutions
        else listing_model(style, schemas.Solution, schemas.SolutionList)
    )

    @router.get(
        f"{API}/problems/{{problem_id}}/solutions",
        responses=ctx.responses(
            (200, "A page of ranked solutions", solutions_model),
            (404, "No such problem", E),
            INVALID_RESPONSE,
        ),
    )
    def solutions(
        problem_id: str,
        page: int | None = page_query("offset" if items_solutions else style),
        offset: int | None = offset_query(style, documented=items_solutions or style == "offset"),
        cursor: str | None = cursor_query("offset" if items_solutions else style),
        limit: int = Query(50, ge=1, le=100, description="Page size (1-100)."),
    ) -> Response:
        """Ranked solutions of a problem (``{"solutions": [...]}``, no total, in the real shape)."""
        pid = codec.decode("problem", problem_id)
        if items_solutions:  # another implementation's own page size cap, applied silently
            limit = min(limit, ITEMS_MAX_LIMIT)
        w = window("offset" if items_solutions else style, page, offset, cursor, limit)
        with db.read() as conn:
            count = queries.problem_exists(conn, pid) if pid is not None else None
            if count is None or pid is None:
                raise ApiError(404, "Problem not found")
            items = queries.list_solutions(conn, codec, pid, offset=w.offset, limit=limit)
        if items_solutions:
            return JSON(items_envelope(w, items, count))
        return JSON(envelope(w, "solutions", items, None, count))

    @router.get(
        f"{API}/categories",
        responses=ctx.responses((200, "The 8 categories (bare array)", list[schemas.Category])),
    )
    def categories() -> Response:
        """The 8 categories (bare array)."""
        with db.read() as conn:
            return JSON(queries.list_categories(conn))

    @router.get(
        f"{API}/leaderboard",
        responses=ctx.responses(
            (
                200,
                "Active bots in rank order",
                listing_model(style, schemas.LeaderboardBot, schemas.Leaderboard),
            ),
            INVALID_RESPONSE,
        ),
    )
    def leaderboard(
        sort: Literal["points", "elo", "solutions", "votes", "accuracy"] = "points",
        page: int | None = page_query(style),
        offset: int | None = offset_query(style),
        cursor: str | None = cursor_query(style),
        limit: int = Query(20, ge=1, le=100, description="Page size (1-100)."),
    ) -> Response:
        """Active bots in rank order (no rank field)."""
        w = window(style, page, offset, cursor, limit)
        with db.read() as conn:
            items, total = queries.list_leaderboard(conn, codec, sort=sort, offset=w.offset, limit=limit)
        return JSON(envelope(w, "bots", items, total, total))

    @router.get(
        f"{API}/bots/{{bot_id}}",
        responses=ctx.responses(
            (200, "The bot's public profile", schemas.BotPublic), (404, "No such bot", E)
        ),
    )
    def bot(bot_id: str) -> Response:
        """Public bot profile + badges, topSolutions, recentActivity."""
        bid = codec.decode("bot", bot_id)
        with db.read() as conn:
            record = queries.bot_public(conn, codec, bid) if bid is not None else None
        if record is None:
            raise ApiError(404, "Bot not found")
        return JSON(record)

    @router.get(f"{API}/stats", responses=ctx.responses((200, "Platform-wide figures", schemas.Stats)))
    def stats() -> Response:
        """Platform-wide figures (ints)."""
        with db.read() as conn:
            return JSON(queries.stats(conn))

    @router.get(
        f"{API}/search",
        responses=ctx.responses((200, "Matching problems and bots", schemas.SearchResult), INVALID_RESPONSE),
    )
    def search(
        q: str = Query(
            ...,
            min_length=1,
            max_length=200,
            pattern=r"^[^\x00]*$",
            description="Keyword (1-200 characters, no NUL), matched as a literal substring.",
        ),
        type: Literal["problems", "bots", "all"] = "all",
        category: Category | None = None,
        limit: int = Query(20, ge=1, le=50, description="Results per type (1-50)."),
    ) -> Response:
        """Case-insensitive substring search over problems and bots."""
        with db.read() as conn:
            return JSON(run_search(conn, codec, q, type=type, category=category, limit=limit))

    return router
