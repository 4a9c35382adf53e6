"""``GET /api/v1/bots/{id}``: a bot's public profile (badges, top solutions, recent activity)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from solvelens.sandbox import queries, schemas
from solvelens.sandbox.http import API, ApiError, AppContext, E

__all__ = ["bots_router"]


def bots_router(ctx: AppContext) -> APIRouter:
    """The public bot route of one app."""
    router = APIRouter()
    conv = ctx.conventions
    shuffle = ctx.options.tie_order == "shuffle"

    @router.get(
        f"{API}/bots/{{bot_id}}",
        responses=ctx.responses(
            (200, "The bot's public profile", conv.one_doc(schemas.BotPublic)), (404, "No such bot", E)
        ),
    )
    def bot(bot_id: str, request: Request) -> Response:
        """Public bot profile + badges, topSolutions, recentActivity."""
        bid = ctx.codec.decode("bot", bot_id)
        with ctx.db.read() as conn:
            record = (
                queries.bot_public(conn, ctx.codec, bid, shuffle_ties=shuffle) if bid is not None else None
            )
        if record is None:
            raise ApiError(404, "Bot not found")
        return conv.render_one("bot", record, request)

    return router
