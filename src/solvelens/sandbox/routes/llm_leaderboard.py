"""``GET /api/v1/llm-leaderboard`` (offset-paged, the platform's own model ranking),
``GET /api/v1/llm-leaderboard/families`` and ``GET /api/v1/llm-leaderboard/{modelName}`` (one model; declared
after ``/families``, which therefore wins) (:mod:`solvelens.sandbox.llm_leaderboard`)."""

from __future__ import annotations

from typing import get_args

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import Response

from solvelens.sandbox import llm_leaderboard as board
from solvelens.sandbox import schemas
from solvelens.sandbox.conventions import LIST_SPECS, Window
from solvelens.sandbox.http import API, INVALID_RESPONSE, ApiError, AppContext, E

__all__ = ["llm_leaderboard_router"]

SORT_HELP = "Order (descending): " + ", ".join(get_args(board.Sort)) + "."


def llm_leaderboard_router(ctx: AppContext) -> APIRouter:
    """The model leaderboard routes of one app."""
    router = APIRouter()
    conv, spec, fam_spec = ctx.conventions, LIST_SPECS["llm_leaderboard"], LIST_SPECS["families"]
    lazy, shuffle = ctx.options.llm_board == "lazy", ctx.options.tie_order == "shuffle"

    @router.get(
        f"{API}/llm-leaderboard",
        responses=ctx.responses(
            (200, "A page of models", conv.list_doc(spec, schemas.LlmModel, schemas.LlmLeaderboard)),
            INVALID_RESPONSE,
        ),
    )
    def llm_leaderboard(
        request: Request,
        sort: board.Sort = Query("avg_score", description=SORT_HELP),
        family: str | None = Query(None, max_length=100, description="Only models of this family."),
        w: Window = Depends(conv.window_dependency(spec)),
    ) -> Response:
        """Models ranked by ``sort`` (offset paging; an offset past the end is an empty page)."""
        with ctx.db.read() as conn:
            items, total = board.leaderboard(
                conn,
                sort=sort,
                family=family,
                offset=w.offset,
                limit=w.limit,
                lazy=lazy,
                shuffle_ties=shuffle,
            )
        return conv.render_list(spec, items, w, total, request)

    @router.get(
        f"{API}/llm-leaderboard/families",
        responses=ctx.responses(
            (
                200,
                "Model families and their number of models",
                conv.list_doc(fam_spec, schemas.LlmFamily, schemas.LlmFamilies),
            )
        ),
    )
    def llm_families(request: Request) -> Response:
        """Every model family with its number of models (no paging)."""
        with ctx.db.read() as conn:
            items = board.families(conn)
        return conv.render_list(fam_spec, items, Window(0, len(items)), len(items), request)

    @router.get(
        f"{API}/llm-leaderboard/{{model_name}}",
        responses=ctx.responses(
            (200, "The model's entry", conv.one_doc(schemas.LlmModel)), (404, "No such model", E)
        ),
    )
    def llm_model(model_name: str, request: Request) -> Response:
        """One model's leaderboard entry by its ``modelName``."""
        with ctx.db.read() as conn:
            record = board.model(conn, model_name, lazy=lazy)
        if record is None:
            raise ApiError(404, "Model not found")
        return conv.render_one("model", record, request)

    return router
