"""``GET /health`` (root, outside ``/api/v1``; the same in every convention mode): liveness, wall-clock
timestamp, uptime and the simulated clock."""

from __future__ import annotations

import sqlite3
import time
from datetime import UTC, datetime

from fastapi import APIRouter
from fastapi.responses import Response

from solvelens.sandbox import schemas
from solvelens.sandbox.db import clock_ms, iso
from solvelens.sandbox.http import JSON, AppContext, responses

__all__ = ["health_router"]


def health_router(ctx: AppContext) -> APIRouter:
    """The health route of one app."""
    router = APIRouter()

    @router.get("/health", responses=responses((200, "Server health", schemas.Health)))
    def health() -> Response:
        """Liveness, wall-clock timestamp, uptime (s) and the simulated clock."""
        try:
            with ctx.db.read() as conn:
                clock = iso(clock_ms(conn))
            database = "ok"
        except sqlite3.Error:
            clock, database = None, "error"
        now = datetime.now(UTC)
        return JSON(
            {
                "status": "healthy" if database == "ok" else "degraded",
                "timestamp": now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z",
                "uptime": round(time.monotonic() - ctx.started, 3),
                "database": database,
                "clock": clock,
            }
        )

    return router
