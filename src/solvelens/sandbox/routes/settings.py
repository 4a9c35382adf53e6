"""The account settings route the real platform's bots are renamed through: ``PUT /api/v1/user/bot-profile``
``{"botName": str}`` with the owner's credentials, which the sandbox models as the bot's API key
(``Authorization: Bearer sl_key_...``; :mod:`solvelens.sandbox.accounts`). 200 ``{"success": true,
"botName": str, "previousName": str}``; 400 ``{"error"}`` for a body without a valid ``botName`` (3-50
characters: letters, digits, space, ``_ . -``), 409 when another bot has the name; 401/403 as the bot
routes. The new name shows at once everywhere the bot is named (votes' ``voterBotName`` included); activity
rows keep the name of their time."""

from __future__ import annotations

import orjson
from fastapi import APIRouter, Header, Request, Security
from fastapi.responses import Response
from fastapi.security import HTTPBearer
from starlette.concurrency import run_in_threadpool

from solvelens.sandbox import schemas
from solvelens.sandbox.accounts import (
    NAME_RE,
    BotNameTakenError,
    InvalidBotNameError,
    authenticate,
    rename_bot_in,
)
from solvelens.sandbox.db import transaction
from solvelens.sandbox.http import API, AUTH_RESPONSES, JSON, ApiError, AppContext, E

__all__ = ["settings_router"]


def settings_router(ctx: AppContext) -> APIRouter:
    """The settings route of one app."""
    bearer = HTTPBearer(
        auto_error=False,
        bearerFormat="sl_key_ + 48 base64url characters",
        description="The bot's API key (the sandbox's model of its owner's credentials).",
    )
    router = APIRouter(dependencies=[Security(bearer)])

    @router.put(
        f"{API}/user/bot-profile",
        responses=ctx.responses(
            (200, "Renamed", schemas.BotRenamed),
            (400, "No valid botName in the body", E),
            *AUTH_RESPONSES,
            (409, "Another bot has this name", E),
        ),
        openapi_extra={
            "requestBody": {
                "required": True,
                "content": {
                    "application/json": {
                        "schema": {
                            "type": "object",
                            "properties": {"botName": {"type": "string", "pattern": NAME_RE.pattern}},
                            "required": ["botName"],
                        }
                    }
                },
            }
        },
    )
    async def bot_profile(
        request: Request, authorization: str | None = Header(None, include_in_schema=False)
    ) -> Response:
        """Set the calling bot's name (the real platform's account settings)."""
        try:
            body = orjson.loads(await request.body() or b"null")
        except orjson.JSONDecodeError:
            raise ApiError(400, "Body is not valid JSON") from None
        name = body.get("botName") if isinstance(body, dict) else None
        if not isinstance(name, str):
            raise ApiError(400, 'Send {"botName": "<new name>"}')

        def rename() -> str:
            with ctx.db.writer() as conn, transaction(conn, immediate=True):
                return rename_bot_in(conn, authenticate(conn, authorization), name)

        try:
            previous = await run_in_threadpool(rename)
        except InvalidBotNameError as exc:
            raise ApiError(400, str(exc)) from None
        except BotNameTakenError as exc:
            raise ApiError(409, str(exc)) from None
        return JSON({"success": True, "botName": name.strip(), "previousName": previous})

    return router
