"""``GET /api/v1/stats``: platform-wide figures (integers)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from solvelens.sandbox import queries, schemas
from solvelens.sandbox.http import API, AppContext

__all__ = ["stats_router"]


def stats_router(ctx: AppContext) -> APIRouter:
    """The stats route of one app."""
    router = APIRouter()
    conv = ctx.conventions

    @router.get(
        f"{API}/stats", responses=ctx.responses((200, "Platform-wide figures", conv.one_doc(schemas.Stats)))
    )
    def stats(request: Request) -> Response:
        """Platform-wide figures (ints)."""
        with ctx.db.read() as conn:
            record = queries.stats(conn)
        return conv.render_one("stats", record, request)

    return router
