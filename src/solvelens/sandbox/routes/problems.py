"""``GET /api/v1/problems`` (filters, paged), ``GET /api/v1/problems/{id}`` and
``GET /api/v1/problems/{id}/solutions`` (ranked, paged). Shapes and paging come from the app's convention."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import Response

from solvelens.sandbox import queries, schemas
from solvelens.sandbox.conventions import LIST_SPECS, Window
from solvelens.sandbox.http import API, INVALID_RESPONSE, ApiError, AppContext, E

__all__ = ["problems_router"]

#: A category slug query parameter (one of the 8).
Category = schemas.CategorySlug
STATUS_HELP = "pending|approved|rejected|active|mature; anything else (or `all`): every status but rejected."


def problems_router(ctx: AppContext) -> APIRouter:
    """The problem routes of one app."""
    router = APIRouter()
    db, codec, conv = ctx.db, ctx.codec, ctx.conventions
    shuffle = ctx.options.tie_order == "shuffle"
    nested = ctx.options.refs == "nested"
    spec, sol_spec = LIST_SPECS["problems"], LIST_SPECS["solutions"]

    @router.get(
        f"{API}/problems",
        responses=ctx.responses(
            (200, "A page of problems", conv.list_doc(spec, schemas.ProblemSummary, schemas.ProblemList)),
            INVALID_RESPONSE,
        ),
    )
    def problems(
        request: Request,
        category: Category | None = None,
        status: str | None = Query(None, max_length=200, description=STATUS_HELP),
        author_type: Literal["human", "bot"] | None = None,
        sort: Literal["newest", "oldest", "most_solutions", "most_votes"] = "newest",
        w: Window = Depends(conv.window_dependency(spec)),
    ) -> Response:
        """Problems (rejected excluded unless ``status=rejected``), paginated."""
        with db.read() as conn:
            items, total = queries.list_problems(
                conn,
                codec,
                category=category,
                status=status,
                author_type=author_type,
                sort=sort,
                offset=w.offset,
                limit=w.limit,
                shuffle_ties=shuffle,
                with_author=nested,
            )
        return conv.render_list(spec, items, w, total, request)

    @router.get(
        f"{API}/problems/{{problem_id}}",
        responses=ctx.responses(
            (200, "The problem", conv.one_doc(schemas.ProblemDetail)), (404, "No such problem", E)
        ),
    )
    def problem(problem_id: str, request: Request) -> Response:
        """One problem: full row + author + topSolutions (<= 3)."""
        pid = codec.decode("problem", problem_id)
        with db.read() as conn:
            record = queries.get_problem(conn, codec, pid, shuffle_ties=shuffle) if pid is not None else None
        if record is None:
            raise ApiError(404, "Problem not found")
        return conv.render_one("problem", record, request)

    @router.get(
        f"{API}/problems/{{problem_id}}/solutions",
        responses=ctx.responses(
            (
                200,
                "A page of ranked solutions",
                conv.list_doc(sol_spec, schemas.Solution, schemas.SolutionList),
            ),
            (404, "No such problem", E),
            INVALID_RESPONSE,
        ),
    )
    def solutions(
        problem_id: str, request: Request, w: Window = Depends(conv.window_dependency(sol_spec))
    ) -> Response:
        """Ranked solutions of a problem (``{"solutions": [...]}``, no total, in the platform's shape)."""
        pid = codec.decode("problem", problem_id)
        with db.read() as conn:
            count = queries.problem_exists(conn, pid) if pid is not None else None
            if count is None or pid is None:
                raise ApiError(404, "Problem not found")
            items = queries.list_solutions(
                conn, codec, pid, offset=w.offset, limit=w.limit, shuffle_ties=shuffle
            )
        return conv.render_list(sol_spec, items, w, count, request)

    return router
