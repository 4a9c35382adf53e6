"""``GET /api/v1/solutions/{id}`` (one solution, flat) and ``GET /api/v1/solutions/{id}/comparisons`` (the
50 most recent votes on it, no paging: ``page``/``limit`` are not read, as on the real platform). The two
routes are separate routers so that ``--without comparisons`` can leave the solution route served."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from solvelens.sandbox import queries, schemas
from solvelens.sandbox.conventions import LIST_SPECS, Window
from solvelens.sandbox.http import API, ApiError, AppContext, E

__all__ = ["comparisons_router", "solution_router"]


def solution_router(ctx: AppContext) -> APIRouter:
    """``GET /solutions/{id}`` of one app."""
    router = APIRouter()
    conv = ctx.conventions

    @router.get(
        f"{API}/solutions/{{solution_id}}",
        responses=ctx.responses(
            (200, "The solution", conv.one_doc(schemas.SolutionDetail)), (404, "No such solution", E)
        ),
    )
    def solution(solution_id: str, request: Request) -> Response:
        """One solution: the ranked-solution fields + llmModelVersion, problemId, problemTitle."""
        sid = ctx.codec.decode("solution", solution_id)
        with ctx.db.read() as conn:
            record = queries.get_solution(conn, ctx.codec, sid) if sid is not None else None
        if record is None:
            raise ApiError(404, "Solution not found")
        return conv.render_one("solution", record, request)

    return router


def comparisons_router(ctx: AppContext) -> APIRouter:
    """``GET /solutions/{id}/comparisons`` of one app."""
    router = APIRouter()
    conv, spec = ctx.conventions, LIST_SPECS["comparisons"]

    @router.get(
        f"{API}/solutions/{{solution_id}}/comparisons",
        responses=ctx.responses(
            (
                200,
                f"The {queries.COMPARISONS_SHOWN} most recent votes on the solution, newest first",
                conv.list_doc(spec, schemas.Comparison, schemas.ComparisonList),
            ),
            (404, "No such solution", E),
        ),
    )
    def comparisons(solution_id: str, request: Request) -> Response:
        """The most recent votes on a solution (at most 50, no paging)."""
        sid = ctx.codec.decode("solution", solution_id)
        with ctx.db.read() as conn:
            exists = (
                sid is not None and conn.execute("SELECT 1 FROM solutions WHERE id = ?", (sid,)).fetchone()
            )
            if sid is None or not exists:
                raise ApiError(404, "Solution not found")
            items = queries.solution_comparisons(conn, ctx.codec, sid)
        return conv.render_list(spec, items, Window(0, len(items)), len(items), request)

    return router
