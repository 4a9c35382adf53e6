"""``GET /api/v1/categories``: the 8 categories with their problem counts (one page in every convention;
a bare array in the platform's)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from solvelens.sandbox import queries, schemas
from solvelens.sandbox.conventions import LIST_SPECS, Window
from solvelens.sandbox.http import API, AppContext

__all__ = ["categories_router"]


def categories_router(ctx: AppContext) -> APIRouter:
    """The categories route of one app."""
    router = APIRouter()
    conv, spec = ctx.conventions, LIST_SPECS["categories"]

    @router.get(
        f"{API}/categories",
        responses=ctx.responses(
            (
                200,
                "The 8 categories (bare array)",
                conv.list_doc(spec, schemas.Category, list[schemas.Category]),
            )
        ),
    )
    def categories(request: Request) -> Response:
        """The 8 categories (bare array in the platform's shape)."""
        with ctx.db.read() as conn:
            items = queries.list_categories(conn)
        return conv.render_list(spec, items, Window(0, len(items)), len(items), request)

    return router
