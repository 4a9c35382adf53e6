"""Tests of ``solvelens.client.errors``: the exception tree, messages from both error bodies, Retry-After."""

from __future__ import annotations

import pickle
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from typing import Any

import httpx
import pytest

from solvelens.client import errors
from solvelens.client.errors import (
    APIStatusError,
    AuthenticationError,
    BadRequestError,
    ConflictError,
    NotFoundError,
    PermissionDeniedError,
    PlatformError,
    QueryValidationError,
    RateLimitError,
    ServerError,
    ServiceUnavailableError,
    UnprocessableEntityError,
    parse_retry_after,
    status_error_from_response,
)

KEY = "os_key_" + "A" * 48


def _response(
    status: int, body: object = None, *, text: str | None = None, headers: dict | None = None
) -> httpx.Response:
    request = httpx.Request("GET", "http://127.0.0.1:9/api/v1/problems")
    if text is not None:
        return httpx.Response(status, text=text, headers=headers, request=request)
    return httpx.Response(status, json=body, headers=headers, request=request)


@pytest.mark.parametrize(
    ("status", "cls"),
    [
        (400, BadRequestError),
        (401, AuthenticationError),
        (403, PermissionDeniedError),
        (404, NotFoundError),
        (409, ConflictError),
        (422, UnprocessableEntityError),
        (429, RateLimitError),
        (500, ServerError),
        (502, ServerError),
        (503, ServiceUnavailableError),
    ],
)
def test_each_status_maps_to_its_class(status: int, cls: type[APIStatusError]) -> None:
    err = status_error_from_response(_response(status, {"error": "boom"}), method="GET", path="/problems")
    assert type(err) is cls
    assert isinstance(err, APIStatusError)
    assert isinstance(err, PlatformError)
    assert err.status_code == status
    assert err.method == "GET"
    assert err.path == "/problems"
    assert str(err) == f"GET /problems -> {status}: boom"


def test_other_4xx_is_a_plain_status_error() -> None:
    err = status_error_from_response(_response(418, {"error": "teapot"}), method="GET", path="/x")
    assert type(err) is APIStatusError
    assert err.status_code == 418


def test_simple_error_body_becomes_the_message() -> None:
    body = {"error": "Problem not found"}
    err = status_error_from_response(_response(404, body), method="GET", path="/problems/x")
    assert err.message == "Problem not found"
    assert err.body == body
    assert '"Problem not found"' in err.body_excerpt


def test_fastify_error_body_becomes_the_message() -> None:
    body = {
        "statusCode": 429,
        "error": "Too Many Requests",
        "message": "Rate limit exceeded, retry in 1 hour",
    }
    err = status_error_from_response(_response(429, body), method="GET", path="/leaderboard")
    assert err.message == "Too Many Requests: Rate limit exceeded, retry in 1 hour"


def test_validation_details_are_in_the_message() -> None:
    body = {
        "error": "Validation error",
        "code": "VALIDATION_ERROR",
        "statusCode": 400,
        "details": [{"field": "verdict", "message": "Invalid enum value"}],
    }
    err = status_error_from_response(_response(400, body), method="POST", path="/tasks/t1/submit")
    assert isinstance(err, BadRequestError)
    assert err.message == "Validation error (verdict: Invalid enum value)"


def test_real_platform_zod_500_is_a_query_validation_error() -> None:
    issues = (
        '[{"code":"too_big","maximum":50,"type":"number","inclusive":true,"exact":false,'
        '"message":"Number must be less than or equal to 50","path":["limit"]}]'
    )
    body = {"statusCode": 500, "error": "Internal Server Error", "message": issues}
    err = status_error_from_response(_response(500, body), method="GET", path="/problems")
    assert isinstance(err, QueryValidationError)
    assert isinstance(err, ServerError)
    assert err.fields == ["limit"]
    assert err.mentions("limit")
    assert "limit: Number must be less than or equal to 50" in err.message


def test_malformed_uuid_500_is_a_query_validation_error() -> None:
    body = {
        "statusCode": 500,
        "code": "22P02",
        "error": "Internal Server Error",
        "message": "invalid input syntax",
    }
    err = status_error_from_response(_response(500, body), method="GET", path="/problems/xyz")
    assert isinstance(err, QueryValidationError)


def test_plain_500_is_not_a_validation_error() -> None:
    body = {"statusCode": 500, "error": "Internal Server Error", "message": "connect ECONNREFUSED"}
    err = status_error_from_response(_response(500, body), method="GET", path="/stats")
    assert type(err) is ServerError


def test_html_error_body_hints_at_the_base_url() -> None:
    resp = _response(404, text="<html><body>Not Found</body></html>", headers={"content-type": "text/html"})
    err = status_error_from_response(resp, method="GET", path="/problems")
    assert "/api/v1" in err.message
    assert err.body_excerpt.startswith("<html>")


def test_body_excerpt_is_short() -> None:
    err = status_error_from_response(_response(500, text="x" * 5000), method="GET", path="/stats")
    assert len(err.body_excerpt) == errors.BODY_EXCERPT_CHARS


def test_key_like_tokens_are_redacted_everywhere() -> None:
    body = {"error": f"Invalid API key {KEY}"}
    err = status_error_from_response(_response(401, body), method="GET", path="/bot/me")
    assert KEY not in str(err)
    assert KEY not in repr(err)
    assert KEY not in err.body_excerpt
    assert "<redacted>" in err.message


def test_retry_after_seconds_and_http_date() -> None:
    assert parse_retry_after("7") == 7.0
    assert parse_retry_after("1.5") == 1.5
    assert parse_retry_after(None) is None
    assert parse_retry_after("soon") is None
    now = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)
    date = format_datetime(now + timedelta(seconds=30), usegmt=True)
    assert parse_retry_after(date, now=now) == pytest.approx(30.0)
    past = format_datetime(now - timedelta(seconds=30), usegmt=True)
    assert parse_retry_after(past, now=now) == 0.0


def test_retry_after_header_lands_on_the_error() -> None:
    err = status_error_from_response(
        _response(429, {"error": "slow down"}, headers={"Retry-After": "3"}), method="GET", path="/problems"
    )
    assert isinstance(err, RateLimitError)
    assert err.retry_after == 3.0


def test_status_errors_pickle() -> None:
    err = status_error_from_response(
        _response(409, {"error": "Task already completed"}), method="POST", path="/t"
    )
    clone = pickle.loads(pickle.dumps(err))
    assert type(clone) is ConflictError
    assert str(clone) == str(err)


# -- error shapes of other conventions ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "body", "message"),
    [
        (
            404,
            {
                "type": "https://x/probs/nf",
                "title": "Not Found",
                "status": 404,
                "detail": "Problem p9 does not exist",
            },
            "Not Found: Problem p9 does not exist",
        ),
        (429, {"type": "about:blank", "title": "Too Many Requests", "status": 429}, "Too Many Requests"),
        (
            400,
            {"error": {"code": "BadArgument", "message": "limit must be <= 50", "target": "limit"}},
            "BadArgument: limit must be <= 50 (target: limit)",
        ),
        (
            500,
            {
                "error": {
                    "code": 500,
                    "message": "backend failed",
                    "details": [{"field": "db", "message": "down"}],
                }
            },
            "500: backend failed (db: down)",
        ),
        (
            422,
            {
                "errors": [
                    {
                        "status": "422",
                        "title": "Invalid Attribute",
                        "detail": "title is too short",
                        "source": {"pointer": "/data/attributes/title"},
                    }
                ]
            },
            "Invalid Attribute: title is too short",
        ),
        (403, {"errors": [{"title": "Forbidden"}, {"detail": "bot suspended"}]}, "Forbidden; bot suspended"),
    ],
)
def test_other_conventions_error_bodies_become_the_message(
    status: int, body: dict[str, Any], message: str
) -> None:
    response = httpx.Response(status, json=body, request=httpx.Request("GET", "http://h/api/v1/x"))
    error = status_error_from_response(response, method="GET", path="/x")
    assert error.message == message
    assert error.status_code == status
