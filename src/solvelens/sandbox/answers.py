"""What every answer of the sandbox is built from, in every convention mode: the ``/api/v1`` prefix, orjson
responses (:class:`JSON`), the error a route raises (:class:`ApiError`, answered ``{"error": str}`` +
``details`` in the platform's shape, or in the mode's own) and the OpenAPI ``responses`` of a route."""

from __future__ import annotations

from typing import Any, Final

import orjson
from fastapi.responses import JSONResponse

__all__ = ["API", "JSON", "ApiError", "error_response", "responses"]

#: The path prefix of every platform route (``GET /health`` is at the root).
API: Final = "/api/v1"


class JSON(JSONResponse):
    """A JSON response rendered with orjson (fast for pages of a thousand records)."""

    def render(self, content: Any) -> bytes:
        return orjson.dumps(content)


class ApiError(Exception):
    """An error answered as ``{"error": message}`` (+ ``details`` when given) with ``status``."""

    def __init__(self, status: int, message: str, details: list[dict[str, Any]] | None = None) -> None:
        super().__init__(message)
        self.status, self.message, self.details = status, message, details


def error_response(status: int, message: str, details: list[dict[str, Any]] | None = None) -> JSON:
    """``{"error": message[, "details": [...]]}`` with ``status``."""
    body: dict[str, Any] = {"error": message}
    if details is not None:
        body["details"] = details
    return JSON(body, status_code=status)


def responses(*pairs: tuple[int, str, type[Any] | None]) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses`` of a route: (status, description, model or None for an empty body)."""
    out: dict[int | str, dict[str, Any]] = {}
    for status, description, model in pairs:
        out[status] = (
            {"description": description} if model is None else {"description": description, "model": model}
        )
    return out
