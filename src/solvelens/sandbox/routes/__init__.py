"""The sandbox's FastAPI routers, one per resource, each built for one app by a function taking its
:class:`~solvelens.sandbox.http.AppContext` (shapes come from ``ctx.conventions``):
:mod:`.health` (``/health``), :mod:`.problems` (problems, a problem, its solutions), :mod:`.categories`,
:mod:`.leaderboard`, :mod:`.bots` (a bot's public profile), :mod:`.stats`, :mod:`.search`, :mod:`.tasks`
(the bot endpoints: ``/bot/me``, ``/tasks/next``, submit) and :mod:`.settings` (a bot's rename), then the
optional endpoints of the real platform that the interface does not require (:data:`OPTIONAL`:
:mod:`.activity`, :mod:`.llm_leaderboard`, :mod:`.solutions`), each of which a server can leave out
(``sandbox serve --without NAME,...``: its routes then answer 404 like any unknown route). To add a
resource: a module with one ``<name>_router(ctx)`` function, listed in :data:`ROUTERS` or :data:`OPTIONAL`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from fastapi import APIRouter

from solvelens.sandbox.http import AppContext
from solvelens.sandbox.routes.activity import activity_router
from solvelens.sandbox.routes.bots import bots_router
from solvelens.sandbox.routes.categories import categories_router
from solvelens.sandbox.routes.health import health_router
from solvelens.sandbox.routes.leaderboard import leaderboard_router
from solvelens.sandbox.routes.llm_leaderboard import llm_leaderboard_router
from solvelens.sandbox.routes.problems import problems_router
from solvelens.sandbox.routes.search import search_router
from solvelens.sandbox.routes.settings import settings_router
from solvelens.sandbox.routes.solutions import comparisons_router, solution_router
from solvelens.sandbox.routes.stats import stats_router
from solvelens.sandbox.routes.tasks import tasks_router

__all__ = ["OPTIONAL", "ROUTERS", "routers"]

#: The routers of an app, in the order their routes appear in ``/openapi.json``.
ROUTERS: Final[tuple[Callable[[AppContext], APIRouter], ...]] = (
    health_router,
    problems_router,
    categories_router,
    leaderboard_router,
    bots_router,
    stats_router,
    search_router,
    tasks_router,
    settings_router,
)


#: The optional endpoints by the name ``--without`` takes: ``activity`` (``/activity``), ``llm-leaderboard``
#: (``/llm-leaderboard``, ``/llm-leaderboard/families``, ``/llm-leaderboard/{modelName}``), ``comparisons``
#: (``/solutions/{id}/comparisons``) and ``solution`` (``/solutions/{id}``).
OPTIONAL: Final[dict[str, Callable[[AppContext], APIRouter]]] = {
    "activity": activity_router,
    "llm-leaderboard": llm_leaderboard_router,
    "comparisons": comparisons_router,
    "solution": solution_router,
}


def routers(ctx: AppContext) -> list[APIRouter]:
    """Every router of one app: :data:`ROUTERS`, then the :data:`OPTIONAL` ones not in
    ``ctx.options.without``."""
    optional = [make for name, make in OPTIONAL.items() if name not in ctx.options.without]
    return [make(ctx) for make in (*ROUTERS, *optional)]
