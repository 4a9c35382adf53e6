"""``GET /api/v1/activity``: the newest events of the platform's activity log (no paging; the real
platform's feed, :mod:`solvelens.sandbox.activity`)."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response

from solvelens.sandbox import activity, schemas
from solvelens.sandbox.conventions import LIST_SPECS, Window
from solvelens.sandbox.http import API, INVALID_RESPONSE, AppContext, E

__all__ = ["activity_router"]


def activity_router(ctx: AppContext) -> APIRouter:
    """The activity feed route of one app."""
    router = APIRouter()
    conv, spec = ctx.conventions, LIST_SPECS["activity"]

    @router.get(
        f"{API}/activity",
        responses=ctx.responses(
            (
                200,
                "The newest events, newest first",
                conv.list_doc(spec, schemas.FeedEvent, schemas.ActivityFeed),
            ),
            (400, f"limit above {activity.MAX_LIMIT} (the error names it)", E),
            INVALID_RESPONSE,
        ),
    )
    def activity_feed(request: Request, w: Window = Depends(conv.window_dependency(spec))) -> Response:
        """The newest ``limit`` events (default 20, at most 50), newest first; ids are serial integers."""
        with ctx.db.read() as conn:
            items = activity.recent(conn, ctx.codec, w.limit)
        return conv.render_list(spec, items, Window(0, len(items)), len(items), request)

    return router
