"""What both clients share: every endpoint's request, base URL handling, authentication, response decoding.

:class:`BaseClient` builds each endpoint's request once, as a :class:`Call` (what to send, when to retry, how
to read the answer), like openai-python's ``BaseClient`` builds its ``FinalRequestOptions``; ``client.py``
only sends calls, sync and async (like httpx's ``Client``/``AsyncClient``), each in one ``_request`` method.

- **Base URL**: must be an http(s) URL ending in ``/api/v1`` (:func:`normalise_base_url`); ``/health`` lives
  at the root outside it.
- **Authentication**: the API key (argument, ``SOLVELENS_API_KEY`` or ``SOLVELENS_API_KEY_FILE``) is
  form-checked at construction, kept as a ``SecretStr`` and sent by :class:`BearerAuth` to the bot endpoints
  only; it never appears in a repr, log line or exception.
- **Endpoints**: paths, record resources and page sizes come from the registry
  (:mod:`solvelens.client.endpoints`); where the records are in an answer from :mod:`solvelens.client.locate`;
  the per-endpoint memory from :mod:`solvelens.client.memory`.
- **Retries**: which failures are retried and the lines that say so are :mod:`solvelens.client.retry`'s; each
  ``Call`` carries its decision (GET or submit).
- **Task memory**: the tasks this client handed out, so ``submit(task_id, text)`` knows their type, and the
  submit body (:mod:`solvelens.client.submission`).
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import ssl
import time
from collections.abc import Callable, Generator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import httpx

from solvelens import baseurl
from solvelens.apikey import check_api_key
from solvelens.client.detect import size_param
from solvelens.client.endpoints import ENDPOINTS, endpoint_key, endpoint_name, list_endpoints
from solvelens.client.errors import (
    APIStatusError,
    ConfigurationError,
    ConflictError,
    NotFoundError,
    NotJSONError,
    PlatformConnectionError,
    PlatformTimeoutError,
    ResponseDecodeError,
    redact,
    status_error_from_response,
)
from solvelens.client.locate import read_records, read_search, read_single, read_stats
from solvelens.client.memory import EndpointMemory
from solvelens.client.models import (
    Bot,
    Category,
    Health,
    Problem,
    SearchResult,
    Stats,
    SubmitResult,
    Task,
    parse_task,
)
from solvelens.client.pagination import DEFAULT_MAX_PAGES, PageRequest, Paginator
from solvelens.client.profile import Profile, resolve_profile
from solvelens.client.ratelimit import INTERFACE, Pacer
from solvelens.client.retry import (
    RetryPolicy,
    retry_get,
    retry_limit,
    retry_scope,
    retry_submit,
    retrying,
)
from solvelens.client.submission import SubmitBody, submission_body
from solvelens.client.walk import PageWalk

try:  # orjson decodes large pages ~3x faster; it ships with Prefect, but stay correct without it.
    import orjson

    _loads: Callable[[bytes], Any] = orjson.loads
except ImportError:  # pragma: no cover - depends on the environment
    import json

    _loads = json.loads

if TYPE_CHECKING:  # pydantic is imported when a key is given (solvelens.apikey), not with the client
    from pydantic import SecretStr

__all__ = [
    "API_SUFFIX",
    "BaseClient",
    "BearerAuth",
    "Call",
    "RetryPolicy",
    "normalise_base_url",
    "retry_limit",
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


@functools.cache
def _no_tls_context() -> ssl.SSLContext:
    return ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)  # verifies, with no CA: any https request would fail


def tls_context(base_url: str) -> ssl.SSLContext:
    """The TLS context for a client of ``base_url``: :func:`ssl_context` for an ``https`` URL; for a plain
    ``http`` one (the sandbox, a local platform), a verifying context with no CA loaded, so no request of
    that client can pass unverified, and the process skips loading certifi's bundle (~0.06 s at start)."""
    return ssl_context() if base_url.startswith("https:") else _no_tls_context()


API_SUFFIX = baseurl.API_SUFFIX


def normalise_base_url(base_url: str) -> str:
    """``base_url`` checked by the one base-URL rule (:func:`solvelens.baseurl.normalise_base_url`); raises
    :class:`ConfigurationError` naming the fix."""
    try:
        return baseurl.normalise_base_url(base_url)
    except baseurl.BaseUrlError as exc:
        raise ConfigurationError(str(exc)) from None


T = TypeVar("T")

#: What a page fetch hands to :meth:`PageWalk.accept`: the decoded body, the headers, the URL requested.
PageAnswer = tuple[Any, httpx.Headers, httpx.URL]


#: The environment variable naming the client's per-request timeout (``--read-timeout``), in seconds.
READ_TIMEOUT_ENV = "SOLVELENS_READ_TIMEOUT"
DEFAULT_TIMEOUT_S = 30.0


def default_timeout() -> float:
    """The per-request timeout in seconds: ``SOLVELENS_READ_TIMEOUT`` when set, else 30. Raises
    :class:`ConfigurationError` when the variable is not a number in (0, 3600]."""
    raw = os.environ.get(READ_TIMEOUT_ENV, "").strip()
    if not raw:
        return DEFAULT_TIMEOUT_S
    try:
        seconds = float(raw)
    except ValueError:
        seconds = -1.0
    if not 0 < seconds <= 3600:
        raise ConfigurationError(
            f"{READ_TIMEOUT_ENV}={raw!r} is not a number of seconds in (0, 3600]; give e.g. 30"
        )
    return seconds


@dataclass(frozen=True, slots=True)
class Call(Generic[T]):
    """One request to one endpoint, built once by :class:`BaseClient` for both clients.

    ``method``/``url`` (absolute)/``params``/``json``/``auth``: what is sent. ``retry_on``: the stamina hook
    deciding each failure (:func:`~solvelens.client.retry.retry_get` or ``retry_submit``).
    ``read(response, lost)``: the result
    from the answer (raises the typed error of a non-2xx answer inside the retry loop, so 5xx are retried);
    ``lost`` says an earlier attempt reached the server but its answer was lost (submits use it).
    ``recover``: for a status error left after the retries, a result instead (``/tasks/next``'s 404 "no
    task"), or the error re-raised.
    """

    method: str
    url: str
    read: Callable[[httpx.Response, bool], T]
    retry_on: Callable[[Exception], bool | float]
    params: Any = None
    json: Any = None
    auth: httpx.Auth | None = None
    recover: Callable[[APIStatusError], T] | None = None


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
    """Logic shared by :class:`PlatformClient` and :class:`AsyncPlatformClient` (no I/O here): every
    endpoint's request is built here once as a :class:`Call`; the clients only send it.

    Args:
        base_url: the API base ending in ``/api/v1`` (``None``: ``SOLVELENS_BASE_URL``). Raises
            :class:`ConfigurationError` when it does not end in ``/api/v1``.
        api_key: bot API key (``str`` or ``SecretStr``); ``None``/empty: ``SOLVELENS_API_KEY`` or the file
            named by ``SOLVELENS_API_KEY_FILE`` (when ``read_env``). Raises ``InvalidApiKeyError`` for a
            malformed key.
        timeout: per-request timeout in seconds (connect and read); ``None``: ``SOLVELENS_READ_TIMEOUT``
            when set (raises :class:`ConfigurationError` when it is not a positive number), else 30.
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
        max_rps: the user's cap in requests per second (``None``: none); requests are paced by the quota the
            platform announces in any case (:mod:`solvelens.client.ratelimit`).
        pacer: a :class:`~solvelens.client.ratelimit.Pacer` to share with other clients of the same platform
            (its ``max_rps`` applies; give ``max_rps`` only when equal); ``None``: this client's own.
        quota_kind: what this client's requests are for, as the pacer records them (``stats.kinds``;
            default ``interface``; a snapshot's optional steps: ``optional``).
    """

    _http: httpx.Client | httpx.AsyncClient

    def __init__(
        self,
        base_url: str | None = None,
        *,
        api_key: str | SecretStr | None = None,
        timeout: float | None = None,
        max_attempts: int = 5,
        retry: RetryPolicy | None = None,
        pagination: str | Mapping[str, str] | None = None,
        page_sizes: Mapping[str, int | None] | None = None,
        limit_param: str = "limit",
        max_pages: int = DEFAULT_MAX_PAGES,
        headers: Mapping[str, str] | None = None,
        read_env: bool = True,
        profile: str | Path | Profile | None = None,
        max_rps: float | None = None,
        pacer: Pacer | None = None,
        quota_kind: str = INTERFACE,
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
        given = api_key if api_key is None or isinstance(api_key, str) else api_key.get_secret_value()
        if given:
            key = check_api_key(given)
        elif settings is not None:
            key = settings.resolved_api_key()
        else:
            key = None
        self._auth = BearerAuth(key) if key is not None else None
        self.timeout = default_timeout() if timeout is None else timeout
        self.retry = retry or RetryPolicy(attempts=max_attempts)
        self.limit_param = limit_param
        self.max_pages = max_pages
        self._styles: dict[str, str] = {}
        if isinstance(pagination, str):
            self._styles = {name: pagination for name, ep in list_endpoints().items() if ep.paging is None}
        elif pagination is not None:
            self._styles = dict(pagination)
        self._page_sizes: dict[str, int | None] = {
            name: ep.max_page_size for name, ep in list_endpoints().items()
        }
        self._page_sizes.update(page_sizes or {})
        self.profile = resolve_profile(profile, read_env=read_env)
        #: What this client knows about each endpoint (detected or from the profile); handed to each walk.
        self.endpoints = EndpointMemory(self.profile)
        self._recent_tasks: dict[str, Task] = {}
        if pacer is not None and max_rps is not None and pacer.max_rps != max_rps:
            raise ConfigurationError(f"max_rps={max_rps:g} differs from the shared pacer's {pacer.max_rps}")
        #: Paces every request by the announced quota and ``max_rps`` (shared when ``pacer`` was given).
        self.pacer = pacer if pacer is not None else Pacer(max_rps)
        self.quota_kind = quota_kind
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

    def _get_retry_hook(self, exc: Exception) -> bool | float:
        """stamina hook for GETs (:func:`~solvelens.client.retry.retry_get` with this client's policy)."""
        return retry_get(exc, self.retry)

    def _submit_retry_hook(self, exc: Exception) -> bool | float:
        """stamina hook for submits (:func:`~solvelens.client.retry.retry_submit`)."""
        return retry_submit(exc, self.retry)

    def _retrying(self, hook: Callable[[Exception], bool | float]) -> Any:
        """stamina's retry context with this client's policy (:func:`~solvelens.client.retry.retrying`)."""
        return retrying(self.retry, hook)

    # -- endpoint helpers ------------------------------------------------------------------------------------

    def _retry_scope(self, call: Call[Any]) -> contextlib.AbstractContextManager[None]:
        """Name the request whose retries follow (:func:`~solvelens.client.retry.retry_scope`): each retry of
        a bot endpoint (``call.auth`` set) is a WARNING line, a read's retries are counted in its error."""
        return retry_scope(
            call.method, self._rel_path(call.url), self.retry.attempts, each=call.auth is not None
        )

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
        known = ENDPOINTS.get(name) if name else None
        state = self.endpoints[key]
        if style is None:
            style = self._styles.get(name or "") or self._styles.get(template) or self._styles.get(path)
        if page_size is None:
            page_size = self._page_sizes.get(name) if name else None
        default_style = None if known is None else known.paging
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
            default_style="single_page" if default_style == "feed" else default_style,
        )

    def _single(self, name: str, body: Any) -> dict[str, Any]:
        """A single-resource answer of endpoint ``name`` in the canonical form
        (:func:`~solvelens.client.locate.read_single`)."""
        return read_single(self.endpoints[name], body, ENDPOINTS[name].resource)

    def _stats(self, body: Any) -> dict[str, Any]:
        """``/stats`` as one dict of figures (:func:`~solvelens.client.locate.read_stats`)."""
        return read_stats(self.endpoints["stats"], body)

    def _search(self, body: Any) -> dict[str, Any]:
        """``/search`` with its ``problems`` and ``bots`` lists in the canonical form."""
        memory = self.endpoints
        return read_search(memory["search"], body, memory["search_problems"], memory["search_bots"])

    @staticmethod
    def _path_id(name: str, value: Any) -> str:
        """The path of endpoint ``name`` (its registry template) with an id filled in; raises
        :class:`ConfigurationError` for a missing id (``None`` or
        empty) before anything is sent, so ``/problems/None/solutions`` can never be requested."""
        template = ENDPOINTS[name].path
        if value is None or (isinstance(value, str) and not value.strip()) or isinstance(value, dict | list):
            raise ConfigurationError(
                f"GET {template}: no id to put in the path (got {value!r}); the listing's "
                "records carry no id the client could find: add to your profile the endpoint's id_field, "
                "e.g. "
                '[endpoints.problems] id_field = "<the field that holds the id>"'
            )
        return template.format(id=value)

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

    @property
    def last_task(self) -> Task | None:
        """The task this client's ``next_task`` handed out last (``None`` before any)."""
        return next(reversed(self._recent_tasks.values()), None)

    def _task_or_none(self, body: Any) -> Task | None:
        """A ``/tasks/next`` answer as a canonical :class:`Task`, ``None`` for any "no task" form; raises
        :class:`UnrecognizedResponseError` for anything else (:func:`~solvelens.client.models.parse_task`)."""
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

    # -- every endpoint's request, built once for both clients -----------------------------------------------

    def _build_request(self, call: Call[Any]) -> httpx.Request:
        """The ``httpx.Request`` of ``call`` (both clients send it as built here).

        A URL without a query gets ``call.params`` as its query when it is parsed (``httpx.URL(url,
        params=...)``: the same URL as httpx's own merge, which parses the URL a second time to add them;
        about 40 % of building a request, paid on every page of a snapshot)."""
        url: str | httpx.URL = call.url
        params = call.params
        if params and "?" not in call.url:
            url, params = httpx.URL(url, params=params), None
        return self._http.build_request(call.method, url, params=params, json=call.json)

    def _sent(self, call: Call[Any], response: httpx.Response, started: float) -> None:
        """Log one answered request at DEBUG (``GET /problems -> 200 in 0.012 s``)."""
        if not log.isEnabledFor(logging.DEBUG):  # the relative path is worked out only for a line shown
            return
        elapsed = time.perf_counter() - started
        log.debug(
            "%s %s -> %s in %.3f s", call.method, self._rel_path(call.url), response.status_code, elapsed
        )

    def _get_call(
        self, path: str, parse: Callable[[Any], T], *, params: Any = None, bot: bool = False
    ) -> Call[T]:
        """A retried GET of ``path`` (relative to the base URL, or absolute) whose decoded JSON becomes
        ``parse(body)``; ``bot``: an API-key endpoint."""
        auth = self._bot_auth(path) if bot else None

        def read(response: httpx.Response, lost: bool) -> T:
            return parse(self._decode(response, "GET"))

        return Call("GET", self._url(path), read, self._get_retry_hook, params=params, auth=auth)

    def _page_call(self, walk: PageWalk, request: PageRequest | None = None) -> Call[PageAnswer]:
        """The GET of the walk's next page (or of ``request``: a page announced ahead, or one read again)."""
        params: Any
        if request is not None and request.url is not None:
            url, params = request.url, None
        elif request is not None:
            url, params = self._url(walk.path), request.params
        else:
            url = walk.request.url or self._url(walk.path)
            params = None if walk.request.url else walk.request.params

        def read(response: httpx.Response, lost: bool) -> PageAnswer:
            return self._decode(response, "GET"), response.headers, response.request.url

        return Call("GET", url, read, self._get_retry_hook, params=params)

    def _endpoint_walk(
        self,
        endpoint: str,
        params: Mapping[str, Any] | None,
        page_size: int | None,
        style: str | Paginator | None,
    ) -> PageWalk:
        return self._walk(self._endpoint_name(endpoint), endpoint, params, page_size, style)

    def _problems_walk(
        self,
        category: str | None,
        status: str | None,
        author_type: str | None,
        sort: str | None,
        page_size: int | None,
    ) -> PageWalk:
        params = self._problem_params(category, status, author_type, sort)
        return self._walk("problems", ENDPOINTS["problems"].path, params, page_size)

    def _solutions_walk(self, problem_id: str, page_size: int | None) -> PageWalk:
        return self._walk("solutions", self._path_id("solutions", problem_id), None, page_size)

    def _leaderboard_walk(self, sort: str | None, page_size: int | None) -> PageWalk:
        return self._walk("leaderboard", ENDPOINTS["leaderboard"].path, {"sort": sort}, page_size)

    def _llm_leaderboard_walk(self, sort: str | None, family: str | None, page_size: int | None) -> PageWalk:
        path = ENDPOINTS["llm_leaderboard"].path
        return self._walk("llm_leaderboard", path, {"sort": sort, "family": family}, page_size)

    def _records_call(self, name: str, path: str, params: Any = None) -> Call[list[dict[str, Any]]]:
        """A GET of one unpaged list of endpoint ``name`` (``/activity``, ``/solutions/{id}/comparisons``,
        ``/categories``) at ``path``: its records in the canonical form (envelope and record style found once
        per endpoint, as for the paged lists)."""
        endpoint = ENDPOINTS[name]

        def parse(body: Any) -> list[dict[str, Any]]:
            return read_records(self.endpoints[name], body, endpoint.items_key, endpoint.path)

        return self._get_call(path, parse, params=params)

    def _activity_call(self, limit: int | None) -> Call[list[dict[str, Any]]]:
        """``/activity`` asking ``limit`` events under the feed's size parameter (``limit`` until an answer
        showed the platform's own, see :meth:`_feed_again`)."""
        state = self.endpoints["activity"]
        params = None if limit is None else {state.limit_param or self.limit_param: limit}
        endpoint = ENDPOINTS["activity"]

        def read(response: httpx.Response, lost: bool) -> list[dict[str, Any]]:
            body = self._decode(response, "GET")
            if state.limit_param is None:
                state.limit_param = size_param(body, response.headers) or self.limit_param
            records: list[dict[str, Any]] = read_records(state, body, endpoint.items_key, endpoint.path)
            return records

        return Call("GET", self._url(endpoint.path), read, self._get_retry_hook, params=params)

    def _feed_again(
        self, call: Call[list[dict[str, Any]]], records: list[dict[str, Any]], limit: int | None
    ) -> Call[list[dict[str, Any]]] | None:
        """The feed's request again under its own size parameter, when the answer showed one other than the
        parameter sent and held fewer records than asked (the platform ignored the size: e.g. JSON:API's
        ``page[size]``, OData's ``$top``, Relay's ``first``); else ``None``."""
        state = self.endpoints["activity"]
        if limit is None or len(records) >= limit or not call.params or state.limit_param in call.params:
            return None
        log.info("GET /activity: asking %s=%d (the feed's size parameter)", state.limit_param, limit)
        return self._activity_call(limit)

    def _solution_call(self, solution_id: str) -> Call[dict[str, Any]]:
        path = self._path_id("solution", solution_id)
        return self._get_call(path, lambda body: self._single("solution", body))

    def _comparisons_call(self, solution_id: str) -> Call[list[dict[str, Any]]]:
        path = self._path_id("comparisons", solution_id)
        return self._records_call("comparisons", path)

    def _problem_call(self, problem_id: str) -> Call[Problem]:
        path = self._path_id("problem", problem_id)
        return self._get_call(path, lambda body: Problem(self._single("problem", body)))

    def _categories_call(self) -> Call[list[Category]]:
        records = self._records_call("categories", ENDPOINTS["categories"].path)

        def read(response: httpx.Response, lost: bool) -> list[Category]:
            return [Category(c) for c in records.read(response, lost)]

        return Call(records.method, records.url, read, records.retry_on)

    def _bot_call(self, bot_id: str) -> Call[Bot]:
        path = self._path_id("bot", bot_id)
        return self._get_call(path, lambda body: Bot(self._single("bot", body)))

    def _stats_call(self) -> Call[Stats]:
        return self._get_call(ENDPOINTS["stats"].path, lambda body: Stats(self._stats(body)))

    def _search_call(
        self, q: str, type: str | None, category: str | None, limit: int | None
    ) -> Call[SearchResult]:
        given = {"q": q, "type": type, "category": category, "limit": limit}
        params = {k: v for k, v in given.items() if v is not None}
        parse = lambda body: SearchResult(self._search(body))  # noqa: E731
        return self._get_call(ENDPOINTS["search"].path, parse, params=params)

    def _health_call(self) -> Call[Health]:
        return self._get_call(self.root_url + "/health", lambda body: Health(body or {}))

    def _me_call(self) -> Call[Bot]:
        return self._get_call(
            ENDPOINTS["bot_me"].path, lambda body: Bot(self._single("bot_me", body)), bot=True
        )

    def _next_task_call(self, params: Mapping[str, Any]) -> Call[Task | None]:
        def no_task(exc: APIStatusError) -> Task | None:
            if isinstance(exc, NotFoundError) and self._no_task_404(exc):
                return None
            raise exc

        path = ENDPOINTS["tasks_next"].path
        call = self._get_call(path, self._task_or_none, params=dict(params) or None, bot=True)
        return replace(call, recover=no_task)

    def _submit_call(
        self, task: Task | str, result: SubmitBody, llm_model: str | None, llm_model_version: str | None
    ) -> Call[SubmitResult]:
        """The submit of ``result`` for ``task``; raises :class:`InvalidSubmissionError` (nothing sent)."""
        task_id, body = self._submission(task, result, llm_model, llm_model_version)
        path = f"/tasks/{task_id}/submit"
        auth = self._bot_auth(path)
        return Call(
            "POST", self._url(path), self._submit_answer, self._submit_retry_hook, json=body, auth=auth
        )
