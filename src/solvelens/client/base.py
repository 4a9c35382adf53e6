"""What both clients share: base URL handling, authentication, response decoding, retry decisions.

:class:`BaseClient` holds everything but the sending of requests (``client.py`` adds that, sync and async,
like httpx's ``Client``/``AsyncClient``).

- **Base URL**: must be an http(s) URL ending in ``/api/v1`` (:func:`normalise_base_url`); ``/health`` lives
  at the root outside it.
- **Authentication**: the API key (argument, ``SOLVELENS_API_KEY`` or ``SOLVELENS_API_KEY_FILE``) is
  form-checked at construction, kept as a ``SecretStr`` and sent by :class:`BearerAuth` to the bot endpoints
  only; it never appears in a repr, log line or exception.
- **Retries** (stamina, :class:`RetryPolicy`): GETs retry 429/503 after ``Retry-After`` (capped), other 5xx,
  timeouts, connection errors and an undecodable 2xx body with capped exponential backoff and jitter; a 500
  whose body is a validation error fails at once. A submit is retried only when the request never reached
  the server or its answer was lost (and on 429/503 with Retry-After). Each scheduled retry is one log line
  (WARNING, logger ``solvelens.client``) naming method, path, status or error, attempt n/N and the next
  wait (:func:`log_retry`, a stamina retry hook).
"""

from __future__ import annotations

import contextlib
import functools
import logging
import ssl
from collections.abc import Callable, Generator, Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import stamina
import stamina.instrumentation
from pydantic import SecretStr

from solvelens.apikey import check_api_key
from solvelens.client.errors import (
    APIStatusError,
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
    redact,
    status_error_from_response,
)
from solvelens.client.models import SubmitResult, Task, parse_task
from solvelens.client.pagination import DEFAULT_MAX_PAGES, Paginator, get_path
from solvelens.client.profile import Profile, resolve_profile
from solvelens.client.records import RESOURCE_OF, stats_figures, unwrap_single
from solvelens.client.submission import SubmitBody, submission_body
from solvelens.client.walk import KNOWN_LIST_ENDPOINTS, EndpointMemory, PageWalk, endpoint_key, endpoint_name

try:  # orjson decodes large pages ~3x faster; it ships with Prefect, but stay correct without it.
    import orjson

    _loads: Callable[[bytes], Any] = orjson.loads
except ImportError:  # pragma: no cover - depends on the environment
    import json

    _loads = json.loads

__all__ = [
    "API_SUFFIX",
    "BaseClient",
    "BearerAuth",
    "RetryPolicy",
    "log_retry",
    "normalise_base_url",
    "retry_scope",
]

log = logging.getLogger("solvelens.client")

USER_AGENT = "solvelens-client/0.1"
#: How many handed-out tasks a client remembers for ``submit(task_id, ...)``.
_RECENT_TASKS = 64


@functools.cache
def ssl_context() -> ssl.SSLContext:
    """The verifying TLS context every client of this process shares (certifi's CA bundle, as httpx's
    default). Built once: letting httpx build one per client costs ~0.2 s each."""
    return httpx.create_ssl_context()


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


API_SUFFIX = "/api/v1"


def normalise_base_url(base_url: str) -> str:
    url = base_url.strip().rstrip("/")
    try:
        parsed = httpx.URL(url)
    except httpx.InvalidURL as exc:
        raise ConfigurationError(f"base URL {url!r} is not a valid URL: {exc}") from None
    if parsed.scheme not in ("http", "https") or not parsed.host:
        raise ConfigurationError(
            f"base URL {url!r} must be an http(s) URL ending in {API_SUFFIX}, e.g. https://api.opensolve.ai/api/v1"
        )
    if parsed.userinfo:
        raise ConfigurationError("the base URL must not carry credentials; pass the API key with --api-key")
    if not parsed.path.rstrip("/").endswith(API_SUFFIX):
        hint = url + API_SUFFIX if parsed.path in ("", "/") else f"{url} (ending in {API_SUFFIX})"
        raise ConfigurationError(
            f"base URL {url} does not end in {API_SUFFIX}: every endpoint lives under it; use {hint}"
        )
    return url


#: The request whose retries are running in this context: (method, path, attempts allowed).
_RETRY_SCOPE: ContextVar[tuple[str, str, int] | None] = ContextVar("solvelens_retry_scope", default=None)


@contextlib.contextmanager
def retry_scope(method: str, path: str, attempts: int) -> Iterator[None]:
    """Within this block, stamina's scheduled retries are logged as one line about ``method path``."""
    token = _RETRY_SCOPE.set((method, path, attempts))
    try:
        yield
    finally:
        _RETRY_SCOPE.reset(token)


def _outcome(exc: BaseException) -> str:
    if isinstance(exc, APIStatusError):
        return f"{exc.status_code} {exc.message[:80]}"
    if isinstance(exc, ResponseDecodeError):
        return f"{exc.status_code} with an undecodable body"
    if isinstance(exc, PlatformConnectionError):
        what = "timed out" if isinstance(exc, PlatformTimeoutError) else "no answer"
        return f"{type(exc.__cause__ or exc).__name__} ({what})"
    return type(exc).__name__


def log_retry(details: stamina.instrumentation.RetryDetails) -> None:
    """stamina retry hook: one WARNING line per scheduled retry of a client request, e.g.
    ``GET /tasks/next -> 500 Internal server error; attempt 2/5 failed, next in 1.3 s``. Retries outside
    a :func:`retry_scope` are left to stamina's own hooks."""
    scope = _RETRY_SCOPE.get()
    if scope is None:
        return
    method, path, attempts = scope
    log.warning(
        "%s %s -> %s; attempt %d/%d failed, next in %.1f s",
        method,
        path,
        _outcome(details.caused_by),
        details.retry_num,
        attempts,
        details.wait_for,
    )


class _ScopedRetryFilter(logging.Filter):
    """Drops stamina's bare ``stamina.retry_scheduled`` record for retries :func:`log_retry` describes."""

    def filter(self, record: logging.LogRecord) -> bool:
        return _RETRY_SCOPE.get() is None


_retry_logging_installed = False


def install_retry_logging() -> None:
    """Add :func:`log_retry` to stamina's retry hooks (keeping the others) once per process."""
    global _retry_logging_installed
    if _retry_logging_installed:
        return
    hooks = stamina.instrumentation.get_on_retry_hooks()
    if log_retry not in hooks:
        stamina.instrumentation.set_on_retry_hooks((*hooks, log_retry))
    logging.getLogger("stamina").addFilter(_ScopedRetryFilter())
    _retry_logging_installed = True


class BearerAuth(httpx.Auth):
    """Adds ``Authorization: Bearer <key>`` to bot-endpoint requests; its repr never shows the key."""

    def __init__(self, key: SecretStr) -> None:
        self._key = key

    def __repr__(self) -> str:
        return "BearerAuth(key=**********)"

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        request.headers["Authorization"] = f"Bearer {self._key.get_secret_value()}"
        yield request


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
        read_env: read missing ``base_url``/``api_key``/``profile`` from ``SOLVELENS_*`` settings.
        profile: a :class:`~solvelens.client.profile.Profile` or the path of a profile file (TOML, written
            by ``solvelens probe``); ``None``: the file named by ``SOLVELENS_PROFILE`` (when ``read_env``),
            else detection only. Every setting overrides detection for its endpoint. Raises
            :class:`~solvelens.client.profile.ProfileError` for an unreadable or unknown setting.
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
        profile: str | Path | Profile | None = None,
    ) -> None:
        settings = None
        if read_env and (base_url is None or api_key is None):
            from solvelens.config import Settings  # pydantic-settings only when the environment is read

            settings = Settings()
        if base_url is None:
            base_url = settings.base_url if settings is not None else None
            if not base_url:
                raise ConfigurationError(
                    "no base URL: pass base_url or set SOLVELENS_BASE_URL (ending in /api/v1)"
                )
        self.base_url = normalise_base_url(base_url)
        self.root_url = self.base_url[: -len(API_SUFFIX)]
        key: SecretStr | None
        given = api_key.get_secret_value() if isinstance(api_key, SecretStr) else api_key
        if given:
            key = check_api_key(given)
        elif settings is not None:
            key = settings.resolved_api_key()
        else:
            key = None
        self._auth = BearerAuth(key) if key is not None else None
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
        self.profile = resolve_profile(profile, read_env=read_env)
        #: What this client knows about each endpoint (detected or from the profile); handed to each walk.
        self.endpoints = EndpointMemory(self.profile)
        self._recent_tasks: dict[str, Task] = {}
        install_retry_logging()
        self._headers = {"User-Agent": USER_AGENT, "Accept": "application/json", **(headers or {})}

    def __repr__(self) -> str:
        key = "set" if self._auth is not None else None
        return f"{type(self).__name__}(base_url={self.base_url!r}, api_key={key})"

    @property
    def _rejected_page_sizes(self) -> set[str]:
        """Endpoints whose page size the server refused (kept for callers of the former attribute)."""
        return self.endpoints.rejected_page_sizes

    @property
    def has_api_key(self) -> bool:
        """Whether an API key is configured (the key itself is never exposed)."""
        return self._auth is not None

    # -- requests and responses ------------------------------------------------------------------------------

    def _url(self, path: str) -> str:
        if path.startswith(("http://", "https://")):
            return path
        return self.base_url + path

    def _bot_auth(self, path: str) -> BearerAuth:
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
                    f"ending in {API_SUFFIX} (e.g. https://api.opensolve.ai/api/v1)? Got: {excerpt[:60]!r}",
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
        """stamina's retry context with this client's policy; wrap its loop in :meth:`_retry_scope` so the
        retry lines name the request."""
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

    def _retry_scope(self, method: str, url: str) -> contextlib.AbstractContextManager[None]:
        """Name the request whose retries follow (one readable log line per retry, see :func:`log_retry`)."""
        return retry_scope(method, self._rel_path(url), self.retry.attempts)

    def _walk(
        self,
        name: str | None,
        path: str,
        params: Mapping[str, Any] | None,
        page_size: int | None,
        style: str | Paginator | None = None,
    ) -> PageWalk:
        template = endpoint_key(path)
        key = name or template  # a rejected page size or a learned style holds for all problems' solutions
        known = KNOWN_LIST_ENDPOINTS.get(name) if name else None
        state = self.endpoints[key]
        if style is None:
            style = self._styles.get(name or "") or self._styles.get(template) or self._styles.get(path)
        if page_size is None:
            page_size = self._page_sizes.get(name) if name else None
        return PageWalk(
            state,
            path,
            params,
            url=self._url(path),
            page_size=page_size,
            style=style,
            items_key=known.items_key if known else None,
            limit_param=self.limit_param,
            max_pages=self.max_pages,
            default_style=known.style if known else None,
        )

    def _single(self, name: str, body: Any) -> dict[str, Any]:
        """A single-resource answer (``problem``, ``bot``, ``bot_me``) in the canonical form: unwrapped from
        its envelope (or found at the profile's ``data_selector``), flattened, camelCase, id under ``id``.
        Identity on the real platform."""
        state = self.endpoints[name]
        if state.data_selector is not None:
            obj = get_path(body, state.data_selector)
            if obj is None:
                raise ConfigurationError(
                    f"{name}: the profile's [endpoints.{name}] data_selector = {state.data_selector!r} finds "
                    "nothing in the answer; fix or remove it"
                )
        else:
            obj = unwrap_single(body, RESOURCE_OF.get(name))
        if not isinstance(obj, dict):
            return {} if obj is None else obj
        result: dict[str, Any] = state.record_style(obj).normalise(obj)
        return result

    def _stats(self, body: Any) -> dict[str, Any]:
        """``/stats`` as one dict of figures (:func:`~solvelens.client.records.stats_figures`)."""
        selector = self.endpoints["stats"].data_selector
        return stats_figures(get_path(body, selector) if selector else body)

    def _search(self, body: Any) -> dict[str, Any]:
        """``/search`` with its ``problems`` and ``bots`` lists in the canonical form."""
        body = self._single("search", body) if isinstance(body, dict) else {}
        out = dict(body)
        for key in ("problems", "bots"):
            items = out.get(key)
            if isinstance(items, dict):  # a list envelope inside (e.g. {"problems": {"data": [...]}})
                items = next((v for v in items.values() if isinstance(v, list)), None)
            if isinstance(items, list) and items:
                state = self.endpoints[f"search_{key}"]
                out[key] = state.record_style(items[0]).normalise_all(items)
        return out

    @staticmethod
    def _path_id(template: str, value: Any) -> str:
        """``template`` with an id filled in; raises :class:`ConfigurationError` for a missing id (``None`` or
        empty) before anything is sent, so ``/problems/None/solutions`` can never be requested."""
        if value is None or (isinstance(value, str) and not value.strip()) or isinstance(value, dict | list):
            raise ConfigurationError(
                f"GET {template.format('{id}')}: no id to put in the path (got {value!r}); the listing's "
                "records carry no id the client could find: add to your profile the endpoint's id_field, "
                "e.g. "
                '[endpoints.problems] id_field = "<the field that holds the id>"'
            )
        return template.format(value)

    @staticmethod
    def _endpoint_name(endpoint: str) -> str | None:
        """Name of a known list endpoint (``problems``, ``solutions``, ...) for a path, or ``None``."""
        return endpoint_name(endpoint)

    def _submission(
        self, task: Task | str, result: SubmitBody, llm_model: str | None, llm_model_version: str | None
    ) -> tuple[str, dict[str, Any]]:
        """The task id and the JSON body to send (see :func:`~solvelens.client.submission.submission_body`).
        A task id handed out by this client's ``next_task`` is looked up, so its type still counts."""
        if isinstance(task, str):
            task_id = task
            known = self._recent_tasks.get(task)
        else:
            task_id, known = task.id, task
        if known is None:
            if isinstance(result, str):
                return task_id, {"content": result}
            if isinstance(result, Mapping):
                return task_id, dict(result)
            raise TypeError(f"a submission is a str or a dict, not {type(result).__name__}")
        return task_id, submission_body(
            known, result, llm_model=llm_model, llm_model_version=llm_model_version
        )

    def _remember(self, task: Task | None) -> Task | None:
        """Keep the last handed-out tasks (by id) so ``submit(task_id, text)`` knows their type."""
        if task is not None:
            self._recent_tasks[task.id] = task
            while len(self._recent_tasks) > _RECENT_TASKS:
                self._recent_tasks.pop(next(iter(self._recent_tasks)))
        return task

    @staticmethod
    def _problem_params(
        category: str | None, status: str | None, author_type: str | None, sort: str | None
    ) -> dict[str, Any]:
        return {"category": category, "status": status, "author_type": author_type, "sort": sort}

    def _task_or_none(self, body: Any) -> Task | None:
        """A ``/tasks/next`` answer as a canonical :class:`Task`, ``None`` for any "no task" form; raises
        :class:`~solvelens.client.errors.UnrecognizedResponseError` for anything else."""
        return self._remember(parse_task(body, selector=self.endpoints["tasks_next"].data_selector))

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
