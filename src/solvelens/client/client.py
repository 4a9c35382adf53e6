"""``PlatformClient`` (sync) and ``AsyncPlatformClient`` (async): one method per platform endpoint.

Both share :class:`BaseClient` (URL handling, authentication, response decoding, retry decisions, page walks)
and differ only in how they send a request, like httpx's ``Client``/``AsyncClient``.

Endpoints (paths relative to the base URL, which ends in ``/api/v1``):

| method                                     | endpoint                          | returns               |
|--------------------------------------------|-----------------------------------|-----------------------|
| ``list_problems``, ``problem_pages``         | ``GET /problems``                 | dicts / pages         |
| ``get_problem(id)``                          | ``GET /problems/{id}``            | ``Problem``           |
| ``list_solutions``, ``solution_pages``       | ``GET /problems/{id}/solutions``  | ranked dicts / pages  |
| ``list_categories()``                        | ``GET /categories``               | list of ``Category``  |
| ``list_leaderboard``, ``leaderboard_pages``  | ``GET /leaderboard``              | dicts in rank order   |
| ``get_bot(id)``                              | ``GET /bots/{id}``                | ``Bot``               |
| ``get_stats()``                              | ``GET /stats``                    | ``Stats``             |
| ``search(q)``                                | ``GET /search?q=``                | ``SearchResult``      |
| ``next_task(**params)``                      | ``GET /tasks/next`` (key)         | ``Task`` or ``None``  |
| ``submit(task_id, result)``                  | ``POST /tasks/{id}/submit`` (key) | ``SubmitResult``      |
| ``get_me()``                                 | ``GET /bot/me`` (key)             | ``Bot``               |
| ``health()``                                 | ``GET <root>/health``             | ``Health``            |

Retries (GET only, through stamina): 429 and 503 wait for ``Retry-After`` (seconds or HTTP date, capped at
``RetryPolicy.retry_after_cap``); other 5xx, timeouts, connection errors and a 2xx whose JSON does not decode
back off exponentially with jitter (``wait_initial`` doubling up to ``wait_max``); at most ``attempts`` tries.
A 500 whose body is a validation error (the real platform's Zod errors) fails at once. A submit is retried
only when the request was not sent or its response was lost (and on 429/503 with Retry-After); a 409 on such a
retry means the first submission counted.

The API key (argument, ``SOLVELENS_API_KEY`` or ``SOLVELENS_API_KEY_FILE``) is form-checked at construction,
kept as a ``SecretStr``, sent only to the bot endpoints, and never appears in a repr, log line or exception.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import AsyncIterator, Callable, Generator, Iterator, Mapping
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Self

import httpx
import stamina
from pydantic import SecretStr

from solvelens.client.errors import (
    APIStatusError,
    BadRequestError,
    ConfigurationError,
    ConflictError,
    NotFoundError,
    NotJSONError,
    PlatformConnectionError,
    PlatformTimeoutError,
    QueryValidationError,
    RateLimitError,
    ResponseDecodeError,
    ServerError,
    ServiceUnavailableError,
    UnprocessableEntityError,
    redact,
    status_error_from_response,
)
from solvelens.client.models import (
    Bot,
    Category,
    Health,
    Problem,
    SearchResult,
    Stats,
    SubmitResult,
    Task,
    is_task,
)
from solvelens.client.pagination import (
    DEFAULT_MAX_PAGES,
    Page,
    PageNumberPaginator,
    PageRequest,
    Paginator,
    detect_paginator,
    extract_items,
    make_paginator,
)
from solvelens.config import Settings, check_api_key

try:  # orjson decodes large pages ~3x faster; it ships with Prefect, but stay correct without it.
    import orjson

    _loads: Callable[[bytes], Any] = orjson.loads
except ImportError:  # pragma: no cover - depends on the environment
    import json

    _loads = json.loads

__all__ = [
    "KNOWN_LIST_ENDPOINTS",
    "AsyncPlatformClient",
    "BaseClient",
    "ListEndpoint",
    "PlatformClient",
    "RetryPolicy",
    "SubmitBody",
]

log = logging.getLogger("solvelens.client")

#: What a solver returns / what ``submit`` takes: a string (sent as ``{"content": ...}``) or a JSON body.
SubmitBody = str | Mapping[str, Any]

USER_AGENT = "solvelens-client/0.1"


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How GETs are retried (all times in seconds).

    ``attempts``: tries in total (1 = no retry). ``wait_initial``/``wait_max``/``wait_jitter``: exponential
    backoff ``wait_initial * 2**(n-1)`` plus up to ``wait_jitter`` random, capped at ``wait_max``.
    ``retry_after_cap``: longest wait taken from a ``Retry-After`` header.
    """

    attempts: int = 5
    wait_initial: float = 0.5
    wait_max: float = 30.0
    wait_jitter: float = 1.0
    retry_after_cap: float = 60.0

    def __post_init__(self) -> None:
        if self.attempts < 1:
            raise ConfigurationError("RetryPolicy.attempts must be at least 1")


@dataclass(frozen=True, slots=True)
class ListEndpoint:
    """A known list endpoint: path template, the envelope key of its list, the largest page size the real
    platform accepts, and its default pagination style (``None``: detect from the first answer)."""

    path: str
    items_key: str | None
    max_page_size: int | None
    style: str | None = None


#: The paginated endpoints of the platform, keyed by the name used in ``pagination=``/``page_sizes=`` options.
KNOWN_LIST_ENDPOINTS: dict[str, ListEndpoint] = {
    "problems": ListEndpoint("/problems", "problems", 50),
    "solutions": ListEndpoint("/problems/{problem_id}/solutions", "solutions", 100),
    "leaderboard": ListEndpoint("/leaderboard", "bots", 100),
    "categories": ListEndpoint("/categories", "categories", None, "single_page"),
}

_API_SUFFIX = "/api/v1"
_ID_SEGMENT = re.compile(r"^[0-9a-fA-F-]{8,}$|^\d+$")


def _normalise_base_url(base_url: str) -> str:
    url = base_url.strip().rstrip("/")
    try:
        parsed = httpx.URL(url)
    except httpx.InvalidURL as exc:
        raise ConfigurationError(f"base URL {url!r} is not a valid URL: {exc}") from None
    if parsed.scheme not in ("http", "https") or not parsed.host:
        raise ConfigurationError(
            f"base URL {url!r} must be an http(s) URL ending in {_API_SUFFIX}, e.g. https://api.opensolve.ai/api/v1"
        )
    if parsed.userinfo:
        raise ConfigurationError("the base URL must not carry credentials; pass the API key with --api-key")
    if not parsed.path.rstrip("/").endswith(_API_SUFFIX):
        hint = url + _API_SUFFIX if parsed.path in ("", "/") else f"{url} (ending in {_API_SUFFIX})"
        raise ConfigurationError(
            f"base URL {url} does not end in {_API_SUFFIX}: every endpoint lives under it; use {hint}"
        )
    return url


def _endpoint_key(path: str) -> str:
    """Template of a path for per-endpoint settings: ``/problems/abc-123/solutions`` ->
    ``/problems/{id}/solutions``."""
    return "/".join("{id}" if _ID_SEGMENT.match(seg) else seg for seg in path.split("/"))


class _BearerAuth(httpx.Auth):
    """Adds ``Authorization: Bearer <key>`` to bot-endpoint requests; its repr never shows the key."""

    def __init__(self, key: SecretStr) -> None:
        self._key = key

    def __repr__(self) -> str:
        return "_BearerAuth(key=**********)"

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        request.headers["Authorization"] = f"Bearer {self._key.get_secret_value()}"
        yield request


class _PageWalk:
    """State of one walk over a list endpoint: the next request, the paginator, the page-size fallback."""

    def __init__(
        self,
        client: BaseClient,
        path: str,
        params: Mapping[str, Any] | None,
        *,
        page_size: int | None,
        style: str | Paginator | None,
        items_key: str | None,
        key: str,
    ) -> None:
        self.client = client
        self.path = path
        self.key = key
        self.items_key = items_key
        self.limit_param = client.limit_param
        if key in client._rejected_page_sizes:
            page_size = None
        self.page_size = page_size
        self.request = PageRequest(params={k: v for k, v in (params or {}).items() if v is not None})
        self.paginator: Paginator | None
        if isinstance(style, Paginator):
            self.paginator = style
        elif style is not None:
            self.paginator = make_paginator(
                style, page_size=page_size, limit_param=self.limit_param, max_pages=client.max_pages
            )
        else:
            self.paginator = None
        if self.paginator is not None:
            self.paginator.init_request(self.request)
        elif page_size is not None:
            self.request.params[self.limit_param] = page_size
        self.number = 0
        self.offset = 0
        self.done = False

    def fall_back(self, exc: APIStatusError) -> bool:
        """On the first page, a rejected page size (400/422, or a validation 500 naming the limit parameter)
        is dropped so the server's default applies; returns True when the request should be sent again."""
        if self.number > 0 or self.limit_param not in self.request.params:
            return False
        if not isinstance(exc, BadRequestError | UnprocessableEntityError | QueryValidationError):
            return False
        if not exc.mentions(self.limit_param):
            return False
        log.warning(
            "%s rejected %s=%s (%s); using the server's default page size",
            self.path,
            self.limit_param,
            self.request.params[self.limit_param],
            exc.message[:120],
        )
        self.client._rejected_page_sizes.add(self.key)
        self.page_size = None
        if self.paginator is not None:
            self.paginator.drop_page_size(self.request)
        else:
            self.request.params.pop(self.limit_param, None)
        return True

    def accept(self, body: Any, headers: Mapping[str, str], url: httpx.URL) -> Page:
        """Read one answer; return its :class:`Page` and prepare the next request (or mark the walk done)."""
        items = extract_items(body, self.items_key)
        if self.paginator is None:
            self.paginator = detect_paginator(
                body,
                headers,
                page_size=self.page_size,
                limit_param=self.limit_param,
                max_pages=self.client.max_pages,
            )
            log.debug("%s: detected %s pagination", self.path, self.paginator.name)
        used = PageRequest(params=dict(self.request.params), url=self.request.url)
        self.paginator.update_state(items, body, headers)
        self.number += 1
        page = Page(
            items=items,
            total=self.paginator.total,
            number=self.number,
            offset=self.offset,
            request=used,
            body=body,
        )
        self.offset += len(items)
        if self.paginator.has_next:
            self.paginator.update_request(self.request)
            if self.request.url is not None:
                self.request.url = str(url.join(self.request.url))
        else:
            self.done = True
        return page


class BaseClient:
    """Logic shared by :class:`PlatformClient` and :class:`AsyncPlatformClient` (no I/O here).

    Args:
        base_url: the API base ending in ``/api/v1`` (``None``: ``SOLVELENS_BASE_URL``). Raises
            :class:`ConfigurationError` when it does not end in ``/api/v1``.
        api_key: bot API key (``str`` or ``SecretStr``); ``None``/empty: ``SOLVELENS_API_KEY`` or the file
            named by ``SOLVELENS_API_KEY_FILE`` (when ``read_env``). Raises ``InvalidApiKeyError`` for a
            malformed key.
        timeout: per-request timeout in seconds.
        max_attempts: tries per GET (shortcut for ``retry=RetryPolicy(attempts=...)``).
        retry: the full :class:`RetryPolicy` (wins over ``max_attempts``).
        pagination: a style for every list endpoint (``"page_number"``, ``"offset"``, ``"cursor"``,
            ``"next_link"``) or a mapping of endpoint name (``problems``, ``solutions``, ``leaderboard``) or
            path template (``/problems/{id}/solutions``) to a style; unset endpoints detect the style from the
            first answer.
        page_sizes: page size per endpoint name; defaults to the real platform's maxima (50/100/100).
        limit_param: query parameter of the page size (``limit``).
        max_pages: hard stop per walk (:class:`PaginationError` beyond it).
        headers: extra request headers (never put the key here: use ``api_key``).
        read_env: read missing ``base_url``/``api_key`` from ``SOLVELENS_*`` settings.
    """

    def __init__(
        self,
        base_url: str | None = None,
        *,
        api_key: str | SecretStr | None = None,
        timeout: float = 30.0,
        max_attempts: int = 5,
        retry: RetryPolicy | None = None,
        pagination: str | Mapping[str, str] | None = None,
        page_sizes: Mapping[str, int | None] | None = None,
        limit_param: str = "limit",
        max_pages: int = DEFAULT_MAX_PAGES,
        headers: Mapping[str, str] | None = None,
        read_env: bool = True,
    ) -> None:
        settings = Settings() if read_env and (base_url is None or api_key is None) else None
        if base_url is None:
            base_url = settings.base_url if settings is not None else None
            if not base_url:
                raise ConfigurationError(
                    "no base URL: pass base_url or set SOLVELENS_BASE_URL (ending in /api/v1)"
                )
        self.base_url = _normalise_base_url(base_url)
        self.root_url = self.base_url[: -len(_API_SUFFIX)]
        key: SecretStr | None
        given = api_key.get_secret_value() if isinstance(api_key, SecretStr) else api_key
        if given:
            key = check_api_key(given)
        elif settings is not None:
            key = settings.resolved_api_key()
        else:
            key = None
        self._auth = _BearerAuth(key) if key is not None else None
        self.timeout = timeout
        self.retry = retry or RetryPolicy(attempts=max_attempts)
        self.limit_param = limit_param
        self.max_pages = max_pages
        self._styles: dict[str, str] = {}
        if isinstance(pagination, str):
            self._styles = {name: pagination for name in ("problems", "solutions", "leaderboard")}
        elif pagination is not None:
            self._styles = dict(pagination)
        self._page_sizes: dict[str, int | None] = {
            name: ep.max_page_size for name, ep in KNOWN_LIST_ENDPOINTS.items()
        }
        self._page_sizes.update(page_sizes or {})
        self._rejected_page_sizes: set[str] = set()
        self._headers = {"User-Agent": USER_AGENT, "Accept": "application/json", **(headers or {})}

    def __repr__(self) -> str:
        key = "set" if self._auth is not None else None
        return f"{type(self).__name__}(base_url={self.base_url!r}, api_key={key})"

    @property
    def has_api_key(self) -> bool:
        """Whether an API key is configured (the key itself is never exposed)."""
        return self._auth is not None

    # -- requests and responses ------------------------------------------------------------------------------

    def _url(self, path: str) -> str:
        if path.startswith(("http://", "https://")):
            return path
        return self.base_url + path

    def _bot_auth(self, path: str) -> _BearerAuth:
        if self._auth is None:
            raise ConfigurationError(
                f"{path} is a bot endpoint and needs an API key: pass api_key=, --api-key, or set "
                "SOLVELENS_API_KEY / SOLVELENS_API_KEY_FILE"
            )
        return self._auth

    def _rel_path(self, url: httpx.URL | str) -> str:
        text = str(url).split("?", 1)[0]
        if text.startswith(self.base_url):
            return text[len(self.base_url) :] or "/"
        if text.startswith(self.root_url):
            return text[len(self.root_url) :] or "/"
        return text

    def _transport_error(self, exc: httpx.HTTPError, method: str, url: str) -> PlatformConnectionError:
        reason = redact(str(exc)) or type(exc).__name__
        if isinstance(exc, httpx.TimeoutException):
            err: PlatformConnectionError = PlatformTimeoutError(
                f"{method} {url} timed out after {self.timeout:g} s ({type(exc).__name__}): the server at "
                f"{self.base_url} is slow or unreachable; retry later or raise the timeout",
                url=url,
                method=method,
            )
        else:
            err = PlatformConnectionError(
                f"cannot reach {self.base_url} ({method} {self._rel_path(url)}: {reason}): "
                "check the URL and that the server is running",
                url=url,
                method=method,
            )
        # A connect failure never reached the server; anything later may have been processed.
        err.request_sent = not isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout | httpx.PoolTimeout)
        return err

    def _decode(self, response: httpx.Response, method: str) -> Any:
        """The decoded JSON of a 2xx ``response`` (``None`` for 204/empty); raises the typed error
        otherwise."""
        path = self._rel_path(response.request.url)
        if not response.is_success:
            raise status_error_from_response(response, method=method, path=path)
        content = response.content
        if response.status_code == 204 or not content.strip():
            return None
        try:
            return _loads(content)
        except ValueError:
            content_type = response.headers.get("content-type", "")
            excerpt = content[:200].decode("utf-8", "replace")
            if "html" in content_type or ("json" not in content_type and content.lstrip()[:1] == b"<"):
                raise NotJSONError(
                    f"{response.request.url} answered HTML, not JSON: is the base URL the API root "
                    f"ending in {_API_SUFFIX} (e.g. https://api.opensolve.ai/api/v1)? Got: {excerpt[:60]!r}",
                    method=method,
                    path=path,
                    status_code=response.status_code,
                    body_excerpt=excerpt,
                ) from None
            raise ResponseDecodeError(
                f"{method} {path} -> {response.status_code}: the body is not valid JSON "
                f"({len(content)} bytes, maybe truncated)",
                method=method,
                path=path,
                status_code=response.status_code,
                body_excerpt=excerpt,
            ) from None

    def _retry_after(self, exc: APIStatusError) -> float | bool:
        if exc.retry_after is None:
            return True
        return min(exc.retry_after, self.retry.retry_after_cap)

    def _get_retry_hook(self, exc: Exception) -> bool | float:
        """stamina hook for GETs: whether to retry ``exc``, or how many seconds to wait (Retry-After)."""
        if isinstance(exc, RateLimitError | ServiceUnavailableError):
            return self._retry_after(exc)
        if isinstance(exc, QueryValidationError):
            return False
        if isinstance(exc, ServerError):
            return True
        if isinstance(exc, APIStatusError):
            return exc.status_code == 408  # Request Timeout: the only other retryable status
        if isinstance(exc, NotJSONError):
            return False
        return isinstance(exc, PlatformConnectionError | ResponseDecodeError)

    def _submit_retry_hook(self, exc: Exception) -> bool | float:
        """stamina hook for submits: retry only when the request never arrived or its answer was lost, or when
        the server asked for it (429/503 with Retry-After)."""
        if isinstance(exc, RateLimitError | ServiceUnavailableError):
            return False if exc.retry_after is None else min(exc.retry_after, self.retry.retry_after_cap)
        return isinstance(exc, PlatformConnectionError)

    def _retrying(self, hook: Callable[[Exception], bool | float]) -> Any:
        policy = self.retry
        return stamina.retry_context(
            on=hook,
            attempts=policy.attempts,
            timeout=None,
            wait_initial=policy.wait_initial,
            wait_max=policy.wait_max,
            wait_jitter=policy.wait_jitter,
        )

    # -- endpoint helpers ------------------------------------------------------------------------------------

    def _walk(
        self,
        name: str | None,
        path: str,
        params: Mapping[str, Any] | None,
        page_size: int | None,
        style: str | Paginator | None = None,
    ) -> _PageWalk:
        template = _endpoint_key(path)
        key = name or template  # a rejected page size is remembered for all problems' solutions
        known = KNOWN_LIST_ENDPOINTS.get(name) if name else None
        if style is None:
            style = self._styles.get(name or "") or self._styles.get(template) or self._styles.get(path)
            if style is None and known is not None:
                style = known.style
        if page_size is None:
            page_size = self._page_sizes.get(name) if name else None
        return _PageWalk(
            self,
            path,
            params,
            page_size=page_size,
            style=style,
            items_key=known.items_key if known else None,
            key=key,
        )

    @staticmethod
    def _endpoint_name(endpoint: str) -> str | None:
        """Name of a known list endpoint (``problems``, ``solutions``, ...) for a path, or ``None``."""
        key = _endpoint_key(endpoint)
        for name, ep in KNOWN_LIST_ENDPOINTS.items():
            if _endpoint_key(ep.path.replace("{problem_id}", "{id}")) == key:
                return name
        return None

    @staticmethod
    def _problem_params(
        category: str | None, status: str | None, author_type: str | None, sort: str | None
    ) -> dict[str, Any]:
        return {"category": category, "status": status, "author_type": author_type, "sort": sort}

    @staticmethod
    def _submit_body(result: SubmitBody) -> dict[str, Any]:
        if isinstance(result, str):
            return {"content": result}
        if isinstance(result, Mapping):
            return dict(result)
        raise TypeError(f"a submission is a str or a dict, not {type(result).__name__}")

    @staticmethod
    def _task_or_none(body: Any) -> Task | None:
        return Task(body) if is_task(body) else None

    @staticmethod
    def _no_task_404(exc: NotFoundError) -> bool:
        """A 404 from /tasks/next means "no task" (legacy platform), unless it is an unknown-route 404."""
        text = f"{exc.message} {exc.body_excerpt}".lower()
        return not ("route" in text and "not found" in text) and "html" not in text

    def _submit_answer(self, response: httpx.Response, lost: bool) -> SubmitResult:
        try:
            data = self._decode(response, "POST")
        except ConflictError as exc:
            if lost:
                log.info("submit %s: 409 after a lost response: the first submission counted", exc.path)
                return SubmitResult(exc.body if isinstance(exc.body, dict) else {}, recovered=True)
            raise
        except ResponseDecodeError:
            return SubmitResult({})  # a 2xx: accepted, whatever the body says
        return SubmitResult(data if isinstance(data, dict) else {"result": data})


class PlatformClient(BaseClient):
    """Synchronous client (httpx.Client). Use as a context manager or call :meth:`close`.

    See :class:`BaseClient` for the arguments and the module docstring for the endpoints, retries and errors.
    ``transport`` (an ``httpx.BaseTransport``) is for tests.
    """

    def __init__(
        self, base_url: str | None = None, *, transport: httpx.BaseTransport | None = None, **kwargs: Any
    ) -> None:
        super().__init__(base_url, **kwargs)
        self._http = httpx.Client(headers=self._headers, timeout=self.timeout, transport=transport)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection pool."""
        self._http.close()

    def _send(self, method: str, url: str, *, params: Any = None, json: Any = None, auth: Any = None) -> Any:
        started = time.perf_counter()
        try:
            response = self._http.request(
                method, url, params=params, json=json, auth=auth or httpx.USE_CLIENT_DEFAULT
            )
        except httpx.HTTPError as exc:
            raise self._transport_error(exc, method, url) from exc
        log.debug(
            "%s %s -> %s in %.3f s",
            method,
            self._rel_path(url),
            response.status_code,
            time.perf_counter() - started,
        )
        return response

    def _get(self, path: str, *, params: Any = None, bot: bool = False) -> Any:
        """GET ``path`` (relative to the base URL, or absolute) with retries; returns the decoded JSON."""
        url = self._url(path)
        auth = self._bot_auth(path) if bot else None
        for attempt in self._retrying(self._get_retry_hook):
            with attempt:
                return self._decode(self._send("GET", url, params=params, auth=auth), "GET")
        raise AssertionError("unreachable")  # pragma: no cover

    # -- pagination ------------------------------------------------------------------------------------------

    def _pages(self, walk: _PageWalk) -> Iterator[Page]:
        while not walk.done:
            target = walk.request.url or self._url(walk.path)
            params = None if walk.request.url else walk.request.params
            try:
                response = self._get_response(target, params)
            except APIStatusError as exc:
                if walk.fall_back(exc):
                    continue
                raise
            body, headers, url = response
            yield walk.accept(body, headers, url)

    def _get_response(self, url: str, params: Any) -> tuple[Any, httpx.Headers, httpx.URL]:
        for attempt in self._retrying(self._get_retry_hook):
            with attempt:
                response = self._send("GET", url, params=params)
                return self._decode(response, "GET"), response.headers, response.request.url
        raise AssertionError("unreachable")  # pragma: no cover

    def iter_pages(
        self,
        endpoint: str,
        *,
        params: Mapping[str, Any] | None = None,
        page_size: int | None = None,
        style: str | Paginator | None = None,
    ) -> Iterator[Page]:
        """Every page of a list ``endpoint`` (a path relative to the base URL, e.g. ``/problems``), in order.

        ``style`` forces a paginator (registry name or instance); otherwise the client's ``pagination=``
        option for the endpoint, else detection from the first answer. Raises :class:`PaginationError` on a
        repeating page/cursor/link and the typed errors of ``errors.py``.
        """
        name = self._endpoint_name(endpoint)
        return self._pages(self._walk(name, endpoint, params, page_size, style))

    def problem_pages(
        self,
        *,
        category: str | None = None,
        status: str | None = None,
        author_type: str | None = None,
        sort: str | None = None,
        page_size: int | None = None,
    ) -> Iterator[Page]:
        """Pages of ``GET /problems`` (filters: category slug, status, author_type ``human|bot``, sort)."""
        params = self._problem_params(category, status, author_type, sort)
        return self._pages(self._walk("problems", "/problems", params, page_size))

    def list_problems(
        self,
        *,
        category: str | None = None,
        status: str | None = None,
        author_type: str | None = None,
        sort: str | None = None,
        page_size: int | None = None,
    ) -> Iterator[dict[str, Any]]:
        """Every problem of ``GET /problems`` as a plain dict (camelCase, as sent), paging to the end."""
        for page in self.problem_pages(
            category=category, status=status, author_type=author_type, sort=sort, page_size=page_size
        ):
            yield from page.items

    def solution_pages(self, problem_id: str, *, page_size: int | None = None) -> Iterator[Page]:
        """Pages of ``GET /problems/{id}/solutions`` (ranked by btScore desc; no total on the real
        platform)."""
        return self._pages(self._walk("solutions", f"/problems/{problem_id}/solutions", None, page_size))

    def list_solutions(self, problem_id: str, *, page_size: int | None = None) -> Iterator[dict[str, Any]]:
        """Every solution of a problem as a plain dict, in ranked order (first = best)."""
        for page in self.solution_pages(problem_id, page_size=page_size):
            yield from page.items

    def leaderboard_pages(self, *, sort: str | None = None, page_size: int | None = None) -> Iterator[Page]:
        """Pages of ``GET /leaderboard`` (sort: points|elo|solutions|votes|accuracy). Rank of an item =
        page.offset + its index + 1."""
        return self._pages(self._walk("leaderboard", "/leaderboard", {"sort": sort}, page_size))

    def list_leaderboard(
        self, *, sort: str | None = None, page_size: int | None = None
    ) -> Iterator[dict[str, Any]]:
        """Every leaderboard bot as a plain dict, in rank order (the platform sends no rank field)."""
        for page in self.leaderboard_pages(sort=sort, page_size=page_size):
            yield from page.items

    # -- single objects --------------------------------------------------------------------------------------

    def get_problem(self, problem_id: str) -> Problem:
        """``GET /problems/{id}``: the problem with ``author`` and ``topSolutions``. Raises
        :class:`NotFoundError`."""
        return Problem(self._get(f"/problems/{problem_id}"))

    def list_categories(self) -> list[Category]:
        """``GET /categories``: every category (a bare array on the real platform, or an envelope)."""
        return [Category(c) for c in extract_items(self._get("/categories"), "categories")]

    def get_bot(self, bot_id: str) -> Bot:
        """``GET /bots/{id}``: public profile with ``badges``, ``topSolutions``, ``recentActivity``."""
        return Bot(self._get(f"/bots/{bot_id}"))

    def get_stats(self) -> Stats:
        """``GET /stats``: platform-wide figures."""
        return Stats(self._get("/stats"))

    def search(
        self, q: str, *, type: str | None = None, category: str | None = None, limit: int | None = None
    ) -> SearchResult:
        """``GET /search?q=``: problems and bots matching ``q`` (type: problems|bots|all; limit <= 50)."""
        params = {
            k: v
            for k, v in {"q": q, "type": type, "category": category, "limit": limit}.items()
            if v is not None
        }
        return SearchResult(self._get("/search", params=params) or {})

    def health(self) -> Health:
        """``GET <root>/health`` (outside ``/api/v1``): ``{status, timestamp, uptime, database[, clock]}``."""
        return Health(self._get(self.root_url + "/health") or {})

    # -- bot endpoints ---------------------------------------------------------------------------------------

    def get_me(self) -> Bot:
        """``GET /bot/me`` (API key): the calling bot's profile, stats and status."""
        return Bot(self._get("/bot/me", bot=True))

    def next_task(self, **params: Any) -> Task | None:
        """``GET /tasks/next`` (API key): the next task, or ``None`` when there is nothing to do (204, 404,
        empty body, ``{}``, ``null``, or a task without id). ``params`` are query options, e.g.
        ``brief="true"``. Raises :class:`AuthenticationError` (401) / :class:`PermissionDeniedError` (403)."""
        try:
            body = self._get("/tasks/next", params=params or None, bot=True)
        except NotFoundError as exc:
            if self._no_task_404(exc):
                return None
            raise
        return self._task_or_none(body)

    def submit(self, task_id: str, result: SubmitBody) -> SubmitResult:
        """``POST /tasks/{id}/submit`` (API key): a string is sent as ``{"content": ...}``, a dict as the
        body.

        Never blindly retried: only when the request did not reach the server or its response was lost (then a
        409 on the retry returns ``SubmitResult(recovered=True)``), or on 429/503 with Retry-After. Raises
        :class:`ConflictError` (409, task already completed), :class:`BadRequestError` (400, rejected), ...
        """
        path = f"/tasks/{task_id}/submit"
        body = self._submit_body(result)
        auth = self._bot_auth(path)
        lost = False
        for attempt in self._retrying(self._submit_retry_hook):
            with attempt:
                try:
                    response = self._send("POST", self._url(path), json=body, auth=auth)
                except PlatformConnectionError as exc:
                    lost = lost or exc.request_sent
                    raise
                return self._submit_answer(response, lost)
        raise AssertionError("unreachable")  # pragma: no cover


class AsyncPlatformClient(BaseClient):
    """Asynchronous client (httpx.AsyncClient): ``async with AsyncPlatformClient(url) as client: ...``.

    Same methods as :class:`PlatformClient`; list methods are async iterators, the others coroutines.
    ``transport`` (an ``httpx.AsyncBaseTransport``) is for tests; ``max_connections`` bounds the pool.
    """

    def __init__(
        self,
        base_url: str | None = None,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        max_connections: int = 20,
        **kwargs: Any,
    ) -> None:
        super().__init__(base_url, **kwargs)
        self._http = httpx.AsyncClient(
            headers=self._headers,
            timeout=self.timeout,
            transport=transport,
            limits=httpx.Limits(max_connections=max_connections, max_keepalive_connections=max_connections),
        )

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the connection pool."""
        await self._http.aclose()

    async def _send(
        self, method: str, url: str, *, params: Any = None, json: Any = None, auth: Any = None
    ) -> Any:
        started = time.perf_counter()
        try:
            response = await self._http.request(
                method, url, params=params, json=json, auth=auth or httpx.USE_CLIENT_DEFAULT
            )
        except httpx.HTTPError as exc:
            raise self._transport_error(exc, method, url) from exc
        log.debug(
            "%s %s -> %s in %.3f s",
            method,
            self._rel_path(url),
            response.status_code,
            time.perf_counter() - started,
        )
        return response

    async def _get(self, path: str, *, params: Any = None, bot: bool = False) -> Any:
        """GET ``path`` with retries; returns the decoded JSON."""
        url = self._url(path)
        auth = self._bot_auth(path) if bot else None
        async for attempt in self._retrying(self._get_retry_hook):
            with attempt:
                return self._decode(await self._send("GET", url, params=params, auth=auth), "GET")
        raise AssertionError("unreachable")  # pragma: no cover

    async def _get_response(self, url: str, params: Any) -> tuple[Any, httpx.Headers, httpx.URL]:
        async for attempt in self._retrying(self._get_retry_hook):
            with attempt:
                response = await self._send("GET", url, params=params)
                return self._decode(response, "GET"), response.headers, response.request.url
        raise AssertionError("unreachable")  # pragma: no cover

    async def _pages(self, walk: _PageWalk, concurrency: int = 1) -> AsyncIterator[Page]:
        """Walk ``walk`` to its end. With ``concurrency > 1``, once the first answer of a page-number walk
        announces the page count, the remaining pages are fetched with up to ``concurrency`` requests in
        flight and fed to the paginator in page order (its stops and repeat guards still apply; pages beyond
        the announced count, e.g. when the list grew meanwhile, are walked one after another)."""
        while not walk.done:
            target = walk.request.url or self._url(walk.path)
            params = None if walk.request.url else walk.request.params
            try:
                body, headers, url = await self._get_response(target, params)
            except APIStatusError as exc:
                if walk.fall_back(exc):
                    continue
                raise
            yield walk.accept(body, headers, url)
            paginator = walk.paginator
            if concurrency > 1 and walk.number == 1 and isinstance(paginator, PageNumberPaginator):
                ahead = paginator.announced_requests(walk.request)
                if ahead:
                    async for page in self._fetch_ahead(walk, ahead, concurrency):
                        yield page

    async def _fetch_ahead(
        self, walk: _PageWalk, requests: list[PageRequest], concurrency: int
    ) -> AsyncIterator[Page]:
        gate = asyncio.Semaphore(concurrency)
        url = self._url(walk.path)

        async def fetch(request: PageRequest) -> tuple[Any, httpx.Headers, httpx.URL]:
            async with gate:
                return await self._get_response(url, request.params)

        # One task per page, started in page order; the semaphore bounds what is in flight. Pending
        # fetches are cancelled when the consumer stops early or a page fails.
        pending = [asyncio.ensure_future(fetch(r)) for r in requests]
        try:
            for future in pending:
                body, headers, got = await future
                if walk.done:  # the server's answers ended the walk earlier than announced
                    return
                yield walk.accept(body, headers, got)
        finally:
            for future in pending:
                future.cancel()
            await asyncio.gather(*pending, return_exceptions=True)

    def iter_pages(
        self,
        endpoint: str,
        *,
        params: Mapping[str, Any] | None = None,
        page_size: int | None = None,
        style: str | Paginator | None = None,
        concurrency: int = 1,
    ) -> AsyncIterator[Page]:
        """Every page of a list ``endpoint`` (path relative to the base URL); see
        :meth:`PlatformClient.iter_pages`. ``concurrency``: requests in flight once the first answer
        announces the page count (page-number walks only; pages still arrive in order)."""
        name = self._endpoint_name(endpoint)
        return self._pages(self._walk(name, endpoint, params, page_size, style), concurrency)

    def problem_pages(
        self,
        *,
        category: str | None = None,
        status: str | None = None,
        author_type: str | None = None,
        sort: str | None = None,
        page_size: int | None = None,
        concurrency: int = 1,
    ) -> AsyncIterator[Page]:
        """Pages of ``GET /problems`` (filters: category slug, status, author_type ``human|bot``, sort), in
        order. ``concurrency``: requests in flight once the first page announces the page count."""
        params = self._problem_params(category, status, author_type, sort)
        return self._pages(self._walk("problems", "/problems", params, page_size), concurrency)

    async def list_problems(
        self,
        *,
        category: str | None = None,
        status: str | None = None,
        author_type: str | None = None,
        sort: str | None = None,
        page_size: int | None = None,
    ) -> AsyncIterator[dict[str, Any]]:
        """Every problem of ``GET /problems`` as a plain dict, paging to the end."""
        async for page in self.problem_pages(
            category=category, status=status, author_type=author_type, sort=sort, page_size=page_size
        ):
            for item in page.items:
                yield item

    def solution_pages(self, problem_id: str, *, page_size: int | None = None) -> AsyncIterator[Page]:
        """Pages of ``GET /problems/{id}/solutions`` (ranked by btScore desc)."""
        return self._pages(self._walk("solutions", f"/problems/{problem_id}/solutions", None, page_size))

    async def list_solutions(
        self, problem_id: str, *, page_size: int | None = None
    ) -> AsyncIterator[dict[str, Any]]:
        """Every solution of a problem as a plain dict, in ranked order (first = best)."""
        async for page in self.solution_pages(problem_id, page_size=page_size):
            for item in page.items:
                yield item

    def leaderboard_pages(
        self, *, sort: str | None = None, page_size: int | None = None, concurrency: int = 1
    ) -> AsyncIterator[Page]:
        """Pages of ``GET /leaderboard`` in order; rank of an item = page.offset + its index + 1.
        ``concurrency``: requests in flight once the first page announces the page count."""
        walk = self._walk("leaderboard", "/leaderboard", {"sort": sort}, page_size)
        return self._pages(walk, concurrency)

    async def list_leaderboard(
        self, *, sort: str | None = None, page_size: int | None = None
    ) -> AsyncIterator[dict[str, Any]]:
        """Every leaderboard bot as a plain dict, in rank order."""
        async for page in self.leaderboard_pages(sort=sort, page_size=page_size):
            for item in page.items:
                yield item

    async def get_problem(self, problem_id: str) -> Problem:
        """``GET /problems/{id}``. Raises :class:`NotFoundError`."""
        return Problem(await self._get(f"/problems/{problem_id}"))

    async def list_categories(self) -> list[Category]:
        """``GET /categories``: every category."""
        return [Category(c) for c in extract_items(await self._get("/categories"), "categories")]

    async def get_bot(self, bot_id: str) -> Bot:
        """``GET /bots/{id}``: public bot profile."""
        return Bot(await self._get(f"/bots/{bot_id}"))

    async def get_stats(self) -> Stats:
        """``GET /stats``: platform-wide figures."""
        return Stats(await self._get("/stats"))

    async def search(
        self, q: str, *, type: str | None = None, category: str | None = None, limit: int | None = None
    ) -> SearchResult:
        """``GET /search?q=``: problems and bots matching ``q``."""
        params = {
            k: v
            for k, v in {"q": q, "type": type, "category": category, "limit": limit}.items()
            if v is not None
        }
        return SearchResult(await self._get("/search", params=params) or {})

    async def health(self) -> Health:
        """``GET <root>/health`` (outside ``/api/v1``)."""
        return Health(await self._get(self.root_url + "/health") or {})

    async def get_me(self) -> Bot:
        """``GET /bot/me`` (API key): the calling bot's profile, stats and status."""
        return Bot(await self._get("/bot/me", bot=True))

    async def next_task(self, **params: Any) -> Task | None:
        """``GET /tasks/next`` (API key): the next task or ``None``; see :meth:`PlatformClient.next_task`."""
        try:
            body = await self._get("/tasks/next", params=params or None, bot=True)
        except NotFoundError as exc:
            if self._no_task_404(exc):
                return None
            raise
        return self._task_or_none(body)

    async def submit(self, task_id: str, result: SubmitBody) -> SubmitResult:
        """``POST /tasks/{id}/submit`` (API key); see :meth:`PlatformClient.submit`."""
        path = f"/tasks/{task_id}/submit"
        body = self._submit_body(result)
        auth = self._bot_auth(path)
        lost = False
        async for attempt in self._retrying(self._submit_retry_hook):
            with attempt:
                try:
                    response = await self._send("POST", self._url(path), json=body, auth=auth)
                except PlatformConnectionError as exc:
                    lost = lost or exc.request_sent
                    raise
                return self._submit_answer(response, lost)
        raise AssertionError("unreachable")  # pragma: no cover
