"""The sandbox's FastAPI routers: :mod:`~solvelens.sandbox.routes.public` (health and the public reads) and
:mod:`~solvelens.sandbox.routes.bots` (the bot endpoints: ``/bot/me``, ``/tasks/next``, submit). Each is
built for one app by a function taking its :class:`~solvelens.sandbox.http.AppContext`."""

from solvelens.sandbox.routes.bots import bot_router
from solvelens.sandbox.routes.public import public_router

__all__ = ["bot_router", "public_router"]
