"""``GET /api/v1/search?q=``: case-insensitive substring search over problems and bots
(:mod:`solvelens.sandbox.search`)."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from solvelens.sandbox import schemas
from solvelens.sandbox.http import API, INVALID_RESPONSE, AppContext
from solvelens.sandbox.search import search as run_search

__all__ = ["search_router"]

Category = schemas.CategorySlug


def search_router(ctx: AppContext) -> APIRouter:
    """The search route of one app."""
    router = APIRouter()
    conv = ctx.conventions

    @router.get(
        f"{API}/search",
        responses=ctx.responses(
            (200, "Matching problems and bots", conv.one_doc(schemas.SearchResult)), INVALID_RESPONSE
        ),
    )
    def search(
        request: Request,
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
        with ctx.db.read() as conn:
            result = run_search(conn, ctx.codec, q, type=type, category=category, limit=limit)
        return conv.render_search(result, request)

    return router
