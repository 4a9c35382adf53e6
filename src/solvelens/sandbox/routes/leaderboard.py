"""``GET /api/v1/leaderboard``: active bots in rank order (no rank field: the rank is the position)."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response

from solvelens.sandbox import queries, schemas
from solvelens.sandbox.conventions import LIST_SPECS, Window
from solvelens.sandbox.http import API, INVALID_RESPONSE, AppContext

__all__ = ["leaderboard_router"]


def leaderboard_router(ctx: AppContext) -> APIRouter:
    """The leaderboard route of one app."""
    router = APIRouter()
    conv, spec = ctx.conventions, LIST_SPECS["leaderboard"]

    @router.get(
        f"{API}/leaderboard",
        responses=ctx.responses(
            (
                200,
                "Active bots in rank order",
                conv.list_doc(spec, schemas.LeaderboardBot, schemas.Leaderboard),
            ),
            INVALID_RESPONSE,
        ),
    )
    def leaderboard(
        request: Request,
        sort: Literal["points", "elo", "solutions", "votes", "accuracy"] = "points",
        w: Window = Depends(conv.window_dependency(spec)),
    ) -> Response:
        """Active bots in rank order (no rank field)."""
        with ctx.db.read() as conn:
            items, total = queries.list_leaderboard(
                conn,
                ctx.codec,
                sort=sort,
                offset=w.offset,
                limit=w.limit,
                shuffle_ties=ctx.options.tie_order == "shuffle",
            )
        return conv.render_list(spec, items, w, total, request)

    return router
