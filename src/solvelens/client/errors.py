"""The client's exception tree: every failure talking to the platform is a :class:`PlatformError`.

```
PlatformError
├── ConfigurationError          bad base URL (no /api/v1), unusable client options   (also a ValueError)
├── PlatformConnectionError     the server could not be reached (refused, DNS, reset)
│   └── PlatformTimeoutError    connect/read/write timed out
├── ResponseDecodeError         a 2xx whose body is not the JSON the endpoint must send (truncated, HTML)
│   └── NotJSONError            the server answered HTML/text: most likely a wrong base URL
├── PaginationError             a paginated list misbehaved (a page or cursor repeated, too many pages)
│   └── IncompleteListError     a walk ended with fewer records than the list's known total, after a re-walk
├── UnrecognizedResponseError   a 2xx answer the client cannot read as the endpoint's data (names the body's
│                               top-level keys and the profile setting that fixes it)
├── InvalidSubmissionError      a result that cannot become the body its task type requires (refused locally,
│                               nothing sent)                                        (also a ValueError)
└── APIStatusError              any non-2xx answer; ``status_code``, ``method``, ``path``, ``body_excerpt``
    ├── BadRequestError             400
    ├── AuthenticationError         401
    ├── PermissionDeniedError       403
    ├── NotFoundError               404
    ├── ConflictError               409 (e.g. "Task already completed")
    ├── UnprocessableEntityError    422
    ├── RateLimitError              429 (``retry_after`` in seconds when the server sent Retry-After)
    └── ServerError                 5xx
        ├── ServiceUnavailableError     503
        └── QueryValidationError        a 500 whose body is a validation error (the real platform's Zod
        errors)
```

Messages are built from the error body: both shapes of the real platform, ``{"error": "..."}`` (optionally
with ``details``) and Fastify's ``{"statusCode", "error", "message"}``; RFC 9457 problem details
(``{"type", "title", "status", "detail"}``); ``{"error": {"code", "message", "target"?, "details"?}}`` (OData,
Google, Microsoft); and JSON:API's ``{"errors": [{"status", "title", "detail", "source"}]}``. Anything that
looks like
an API key (``<prefix>_key_<random>``) is replaced by ``<redacted>`` in messages and body excerpts, and the
client never puts the key in a URL, so no exception, repr or traceback line carries it.
"""

from __future__ import annotations

import email.utils
import json
import re
from datetime import UTC, datetime
from typing import Any, ClassVar

import httpx

__all__ = [
    "APIStatusError",
    "AuthenticationError",
    "BadRequestError",
    "ConfigurationError",
    "ConflictError",
    "IncompleteListError",
    "InvalidSubmissionError",
    "NotFoundError",
    "NotJSONError",
    "PaginationError",
    "PermissionDeniedError",
    "PlatformConnectionError",
    "PlatformError",
    "PlatformTimeoutError",
    "QueryValidationError",
    "RateLimitError",
    "ResponseDecodeError",
    "ServerError",
    "ServiceUnavailableError",
    "UnprocessableEntityError",
    "UnrecognizedResponseError",
    "parse_retry_after",
    "redact",
    "status_error_from_response",
]

#: Longest body excerpt kept on an error (characters).
BODY_EXCERPT_CHARS = 300

_KEY_LIKE = re.compile(r"[A-Za-z0-9]+_key_[A-Za-z0-9_\-]{6,}")


def redact(text: str) -> str:
    """Return ``text`` with every API-key-like token (``<prefix>_key_<random>``) replaced by
    ``<redacted>``."""
    return _KEY_LIKE.sub("<redacted>", text)


class PlatformError(Exception):
    """Base class of every error raised by the solvelens client."""


class ConfigurationError(PlatformError, ValueError):
    """The client was given something unusable (a base URL without ``/api/v1``, a bad option)."""


class PlatformConnectionError(PlatformError):
    """The server could not be reached: connection refused, DNS failure, connection reset.

    ``url`` is the URL that was tried (never with credentials). ``request_sent`` is false when the request
    certainly never reached the server (the connection was not made), true when its answer may have been lost.
    """

    def __init__(self, message: str, *, url: str, method: str = "GET", request_sent: bool = True) -> None:
        super().__init__(redact(message))
        self.url = url
        self.method = method
        self.request_sent = request_sent


class PlatformTimeoutError(PlatformConnectionError):
    """Connecting, sending or reading timed out."""


class ResponseDecodeError(PlatformError):
    """A 2xx response whose body is not valid JSON (for example a truncated body); retried for GETs."""

    def __init__(self, message: str, *, method: str, path: str, status_code: int, body_excerpt: str) -> None:
        super().__init__(redact(message))
        self.method = method
        self.path = path
        self.status_code = status_code
        self.body_excerpt = redact(body_excerpt)


class NotJSONError(ResponseDecodeError):
    """The server answered HTML or plain text where JSON was expected: the base URL most likely points at a
    web page rather than the API (it must end in ``/api/v1``). Never retried."""


class PaginationError(PlatformError):
    """A paginated list misbehaved: a page, cursor or next link repeated, or the page limit was exceeded.

    Raised instead of looping forever.
    """


class IncompleteListError(PaginationError):
    """A list walked to its end held fewer distinct records than the total the platform announced for it (in
    the body or a header such as ``X-Total-Count``), and neither re-reads of its tie pages nor one re-walk
    found the rest.

    Attributes: ``endpoint`` (the path template, e.g. ``/leaderboard``), ``announced`` (the total),
    ``read`` (distinct records read, after the re-walk), ``rereads`` (pages read again first because a tie
    group served some records twice: :data:`~solvelens.client.walk.MAX_TIE_ROUNDS`), ``served`` (no total was
    announced: ``announced`` is the records the walk's pages served, a record served twice having taken the
    place of one never served). The message is one line naming the endpoint, both counts and the fix.
    """

    def __init__(
        self, endpoint: str, *, announced: int, read: int, rereads: int = 0, served: bool = False
    ) -> None:
        ties = f"{rereads} re-reads of the pages its ties span and " if rereads else ""
        known = (
            f"its pages served {announced} records (no total announced) but {read} distinct ones"
            if served
            else f"the platform announced {announced} records but {read}"
        )
        super().__init__(
            f"GET {endpoint}: {known} could be read, after {ties}one re-walk; the list is incomplete: retry "
            "later, or declare the endpoint's paging in a profile (solvelens probe writes one) if the walk "
            "pages wrongly"
        )
        self.endpoint = endpoint
        self.announced = announced
        self.read = read
        self.rereads = rereads
        self.served = served


class UnrecognizedResponseError(PlatformError):
    """A 2xx answer the client cannot read as the endpoint's data: a ``/tasks/next`` body that is neither a
    task nor "no task", a list record without an id, an id the listing gave that the API does not know. Never
    read as "nothing" (a task the client cannot see is held by the bot until it expires).

    Attributes: ``keys`` (the body's top-level keys, sorted; for a non-object body its JSON type),
    ``path`` (the endpoint path), ``endpoint`` (its profile name, e.g. ``tasks_next``). The message names them
    and the profile setting that fixes it.
    """

    def __init__(
        self,
        message: str | None = None,
        *,
        keys: tuple[str, ...] | list[str] = (),
        path: str = "/tasks/next",
        endpoint: str = "tasks_next",
    ) -> None:
        self.keys = tuple(keys)
        self.path = path
        self.endpoint = endpoint
        if message is None:
            message = (
                f"GET {path} answered 200 with a body that is neither a task nor 'no task' (top-level keys: "
                f"{', '.join(self.keys) or 'none'}); describe its task envelope under [endpoints.tasks_next] "
                "in a profile file (--profile; solvelens probe writes one)"
            )
        super().__init__(redact(message))


class InvalidSubmissionError(PlatformError, ValueError):
    """A solver result that cannot become the body its task's type requires; refused before any request.

    Attributes: ``task_type`` (``solve``/``vote``/``flag``/``create``) and ``expected`` (the body's field
    names). Submitting it anyway would be a 400 on the real platform, which then fails the task (and, for a
    flag, counts a failed attempt against someone's problem).
    """

    def __init__(self, message: str, *, task_type: str, expected: tuple[str, ...]) -> None:
        super().__init__(message)
        self.task_type = task_type
        self.expected = expected


class APIStatusError(PlatformError):
    """The server answered with a non-2xx status.

    Attributes: ``status_code`` (int), ``method`` ("GET"/"POST"), ``path`` (endpoint path relative to the base
    URL, e.g. ``/problems``), ``message`` (from the error body), ``body_excerpt`` (first 300 characters of the
    body), ``body`` (the decoded JSON body or ``None``), ``retry_after`` (seconds from a Retry-After header,
    or ``None``).
    """

    status: ClassVar[int | None] = None

    def __init__(
        self,
        message: str,
        *,
        status_code: int,
        method: str,
        path: str,
        body_excerpt: str = "",
        body: Any = None,
        retry_after: float | None = None,
    ) -> None:
        self.status_code = status_code
        self.method = method
        self.path = path
        self.message = redact(message)
        self.body_excerpt = redact(body_excerpt)
        self.body = body
        self.retry_after = retry_after
        super().__init__(f"{method} {path} -> {status_code}: {self.message}")

    def __reduce__(self) -> tuple[Any, ...]:
        # Keep errors picklable (Prefect and multiprocessing move exceptions between processes).
        return (
            _rebuild_status_error,
            (
                type(self),
                self.message,
                self.status_code,
                self.method,
                self.path,
                self.body_excerpt,
                self.retry_after,
            ),
        )

    def mentions(self, word: str) -> bool:
        """True when the error body names ``word`` (case-insensitive), e.g. a rejected query parameter."""
        return word.lower() in self.body_excerpt.lower() or word.lower() in self.message.lower()


def _rebuild_status_error(
    cls: type[APIStatusError],
    message: str,
    status_code: int,
    method: str,
    path: str,
    body_excerpt: str,
    retry_after: float | None,
) -> APIStatusError:
    return cls(
        message,
        status_code=status_code,
        method=method,
        path=path,
        body_excerpt=body_excerpt,
        retry_after=retry_after,
    )


class BadRequestError(APIStatusError):
    """400: the request (query or body) was rejected; on the real platform a failed submit validation."""

    status = 400


class AuthenticationError(APIStatusError):
    """401: the API key is missing, malformed or unknown."""

    status = 401


class PermissionDeniedError(APIStatusError):
    """403: the key is valid but the bot may not act (no bot profile, suspended, banned)."""

    status = 403


class NotFoundError(APIStatusError):
    """404: the resource (problem, bot, task, route) does not exist."""

    status = 404


class ConflictError(APIStatusError):
    """409: e.g. the task was already completed (or failed) and cannot be submitted again."""

    status = 409


class UnprocessableEntityError(APIStatusError):
    """422: the server's schema validation failed (field names, types, lengths)."""

    status = 422


class RateLimitError(APIStatusError):
    """429: too many requests; ``retry_after`` holds the server's wait in seconds when it sent one."""

    status = 429


class ServerError(APIStatusError):
    """5xx: the server failed; GETs are retried a bounded number of times."""


class ServiceUnavailableError(ServerError):
    """503: the server is temporarily unavailable; honours Retry-After."""

    status = 503


class QueryValidationError(ServerError):
    """A 500 whose body is a validation error (the real platform reports Zod query errors as 500).

    Never retried: the same request fails the same way. ``fields`` lists the rejected parameter names.
    """

    def __init__(self, message: str, *, fields: list[str] | None = None, **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.fields = fields or []

    def mentions(self, word: str) -> bool:
        """True when ``word`` is one of the rejected fields or appears in the body."""
        return word in self.fields or super().mentions(word)


_STATUS_CLASSES: dict[int, type[APIStatusError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    422: UnprocessableEntityError,
    429: RateLimitError,
    503: ServiceUnavailableError,
}


def parse_retry_after(value: str | None, *, now: datetime | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header: delta-seconds (``"5"``, ``"1.5"``) or an HTTP date.

    Returns ``None`` when the header is missing or unreadable, ``0.0`` for a date in the past.
    """
    if value is None:
        return None
    value = value.strip()
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        pass
    else:
        return max(0.0, seconds) if seconds == seconds else None  # NaN check
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    current = now or datetime.now(UTC)
    return max(0.0, (when - current).total_seconds())


def _details_text(details: Any) -> str:
    parts: list[str] = []
    if isinstance(details, list):
        for item in details[:5]:
            if isinstance(item, dict):
                field = item.get("field") or item.get("loc") or item.get("path")
                if isinstance(field, list):
                    field = ".".join(str(p) for p in field)
                msg = item.get("message") or item.get("msg") or ""
                parts.append(f"{field}: {msg}" if field and msg else str(field or msg))
            else:
                parts.append(str(item))
    elif details:
        parts.append(str(details))
    return "; ".join(p for p in parts if p)


def _zod_issues(message: str) -> list[dict[str, Any]] | None:
    """The issues of a Zod error whose JSON form is the message, or ``None``."""
    text = message.strip()
    if not text.startswith("["):
        return None
    try:
        issues = json.loads(text)
    except ValueError:
        return None
    if isinstance(issues, list) and issues and all(isinstance(i, dict) and "path" in i for i in issues):
        return issues
    return None


def _problem_text(problem: dict[str, Any]) -> str | None:
    """RFC 9457 problem details or one JSON:API error object: ``title: detail`` (either alone), else None."""
    title, detail = problem.get("title"), problem.get("detail")
    title = title if isinstance(title, str) and title else None
    detail = detail if isinstance(detail, str) and detail else None
    if title and detail and detail != title:
        return f"{title}: {detail}"
    return title or detail


def _error_object_text(error: dict[str, Any]) -> str | None:
    """``{"code", "message", "target"?, "details"?}`` (OData/Google/Microsoft): ``code: message
    (details)``."""
    message = error.get("message")
    if not isinstance(message, str) or not message:
        return None
    code = error.get("code")
    text = f"{code}: {message}" if isinstance(code, str | int) and str(code) not in message else message
    target = error.get("target")
    if isinstance(target, str) and target:
        text = f"{text} (target: {target})"
    details = _details_text(error.get("details"))
    return f"{text} ({details})" if details else text


def _message_from_body(body: Any, fallback: str) -> str:
    """Human message from any known error shape (see the module docstring), else ``fallback``."""
    if not isinstance(body, dict):
        return fallback
    error = body.get("error")
    message = body.get("message")
    details = _details_text(body.get("details"))
    errors = body.get("errors")
    if isinstance(errors, list) and errors and all(isinstance(e, dict) for e in errors):
        texts = [t for e in errors[:3] if (t := _problem_text(e) or _error_object_text(e))]
        if texts:
            return "; ".join(texts)
    if isinstance(message, str) and message:
        issues = _zod_issues(message)
        if issues is not None:
            message = "; ".join(
                f"{'.'.join(str(p) for p in i.get('path', [])) or '?'}: {i.get('message', i.get('code', ''))}"
                for i in issues[:5]
            )
        text = f"{error}: {message}" if isinstance(error, str) and error and error != message else message
    elif isinstance(error, str) and error:
        text = error
    elif isinstance(error, dict) and (error_text := _error_object_text(error)):
        return error_text
    elif "title" in body and (problem := _problem_text(body)):
        text = problem
    elif isinstance(body.get("detail"), str | list):
        text = body["detail"] if isinstance(body["detail"], str) else _details_text(body["detail"])
    else:
        text = fallback
    if details:
        text = f"{text} ({details})"
    return text


def _validation_fields(status_code: int, body: Any) -> list[str] | None:
    """For a 500 body that is really a validation error, the rejected field names (maybe empty); else None."""
    if status_code != 500 or not isinstance(body, dict):
        return None
    message = body.get("message")
    if isinstance(message, str):
        issues = _zod_issues(message)
        if issues is not None:
            return [str(i["path"][-1]) for i in issues if isinstance(i.get("path"), list) and i["path"]]
    code = body.get("code")
    # PostgreSQL class 22 "data exception" (22P02: invalid text representation, e.g. a malformed UUID).
    if isinstance(code, str) and len(code) == 5 and code.startswith("22"):
        return []
    if isinstance(message, str) and message.lower().startswith(("validation", "zoderror", "querystring/")):
        return []
    if isinstance(body.get("details"), list):
        return [str(d.get("field")) for d in body["details"] if isinstance(d, dict) and d.get("field")]
    return None


def status_error_from_response(response: httpx.Response, *, method: str, path: str) -> APIStatusError:
    """Build the typed error for a non-2xx ``response`` to ``method path`` (path relative to the base URL).

    The message comes from the JSON error body when there is one; HTML bodies get a hint about the base URL.
    """
    status = response.status_code
    text = response.text if response.content else ""
    excerpt = text[:BODY_EXCERPT_CHARS]
    body: Any = None
    try:
        body = response.json() if text else None
    except ValueError:
        body = None
    fallback = response.reason_phrase or "error"
    content_type = response.headers.get("content-type", "")
    if body is None and "html" in content_type:
        fallback = f"{fallback} (the server answered HTML: is the base URL the API's, ending in /api/v1?)"
    message = _message_from_body(body, fallback)
    retry_after = parse_retry_after(response.headers.get("retry-after"))
    common: dict[str, Any] = {
        "status_code": status,
        "method": method,
        "path": path,
        "body_excerpt": excerpt,
        "body": body,
        "retry_after": retry_after,
    }
    fields = _validation_fields(status, body)
    if fields is not None:
        return QueryValidationError(message, fields=fields, **common)
    cls = _STATUS_CLASSES.get(status)
    if cls is None:
        cls = ServerError if status >= 500 else APIStatusError
    return cls(message, **common)
