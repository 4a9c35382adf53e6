"""``PlatformClient`` (sync) and ``AsyncPlatformClient`` (async): one method per platform endpoint.

Both share :class:`~solvelens.client.base.BaseClient` (URL handling, authentication, response decoding, retry
decisions) and :class:`~solvelens.client.walk.PageWalk` (the page walk), and differ only in how they send a
request, like httpx's ``Client``/``AsyncClient``.

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
| ``submit(task, result)``                     | ``POST /tasks/{id}/submit`` (key) | ``SubmitResult``      |
| ``get_me()``                                 | ``GET /bot/me`` (key)             | ``Bot``               |
| ``health()``                                 | ``GET <root>/health``             | ``Health``            |

Retries: see :mod:`solvelens.client.base`. Submissions: a ``Task`` (or the id of a task this client handed
out) gets the typed body its type requires (:mod:`solvelens.client.submission`); a result that cannot become
one raises :class:`InvalidSubmissionError` before any request.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Iterator, Mapping
from types import TracebackType
from typing import Any, Self

import httpx

from solvelens.client.base import BaseClient, RetryPolicy, ssl_context
from solvelens.client.errors import (
    APIStatusError,
    InvalidSubmissionError,
    NotFoundError,
    PlatformConnectionError,
)
from solvelens.client.models import Bot, Category, Health, Problem, SearchResult, Stats, SubmitResult, Task
from solvelens.client.pagination import Page, PageNumberPaginator, PageRequest, Paginator
from solvelens.client.submission import SubmitBody
from solvelens.client.walk import KNOWN_LIST_ENDPOINTS, ListEndpoint, PageWalk

__all__ = [
    "KNOWN_LIST_ENDPOINTS",
    "AsyncPlatformClient",
    "BaseClient",
    "InvalidSubmissionError",
    "ListEndpoint",
    "PlatformClient",
    "RetryPolicy",
    "SubmitBody",
]

log = logging.getLogger("solvelens.client")


class PlatformClient(BaseClient):
    """Synchronous client (httpx.Client). Use as a context manager or call :meth:`close`.

    See :class:`BaseClient` for the arguments and the module docstring for the endpoints, retries and errors.
    ``transport`` (an ``httpx.BaseTransport``) is for tests.
    """

    def __init__(
        self, base_url: str | None = None, *, transport: httpx.BaseTransport | None = None, **kwargs: Any
    ) -> None:
        super().__init__(base_url, **kwargs)
        self._http = httpx.Client(
            headers=self._headers, timeout=self.timeout, transport=transport, verify=ssl_context()
        )

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
        with self._retry_scope("GET", url):
            for attempt in self._retrying(self._get_retry_hook):
                with attempt:
                    return self._decode(self._send("GET", url, params=params, auth=auth), "GET")
        raise AssertionError("unreachable")  # pragma: no cover

    # -- pagination ------------------------------------------------------------------------------------------

    def _pages(self, walk: PageWalk) -> Iterator[Page]:
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
            page = walk.accept(body, headers, url)
            if page is not None:  # None: the page repeated and the walk switched its request style
                yield page

    def _get_response(self, url: str, params: Any) -> tuple[Any, httpx.Headers, httpx.URL]:
        with self._retry_scope("GET", url):
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
        path = self._path_id("/problems/{}/solutions", problem_id)
        return self._pages(self._walk("solutions", path, None, page_size))

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
        return Problem(self._single("problem", self._get(self._path_id("/problems/{}", problem_id))))

    def list_categories(self) -> list[Category]:
        """``GET /categories``: every category (a bare array on the real platform, or an envelope)."""
        return [
            Category(c)
            for page in self._pages(self._walk("categories", "/categories", None, None))
            for c in page
        ]

    def get_bot(self, bot_id: str) -> Bot:
        """``GET /bots/{id}``: public profile with ``badges``, ``topSolutions``, ``recentActivity``."""
        return Bot(self._single("bot", self._get(self._path_id("/bots/{}", bot_id))))

    def get_stats(self) -> Stats:
        """``GET /stats``: platform-wide figures."""
        return Stats(self._stats(self._get("/stats")))

    def search(
        self, q: str, *, type: str | None = None, category: str | None = None, limit: int | None = None
    ) -> SearchResult:
        """``GET /search?q=``: problems and bots matching ``q`` (type: problems|bots|all; limit <= 50)."""
        params = {
            k: v
            for k, v in {"q": q, "type": type, "category": category, "limit": limit}.items()
            if v is not None
        }
        return SearchResult(self._search(self._get("/search", params=params)))

    def health(self) -> Health:
        """``GET <root>/health`` (outside ``/api/v1``): ``{status, timestamp, uptime, database[, clock]}``."""
        return Health(self._get(self.root_url + "/health") or {})

    # -- bot endpoints ---------------------------------------------------------------------------------------

    def get_me(self) -> Bot:
        """``GET /bot/me`` (API key): the calling bot's profile, stats and status."""
        return Bot(self._single("bot_me", self._get("/bot/me", bot=True)))

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

    def submit(
        self,
        task: Task | str,
        result: SubmitBody,
        *,
        llm_model: str | None = None,
        llm_model_version: str | None = None,
    ) -> SubmitResult:
        """``POST /tasks/{id}/submit`` (API key): submit ``result`` for ``task`` (a :class:`Task`, or its id).

        A typed task (``taskType``; also the id of one this client handed out) gets its typed body: a string
        result becomes it where that is unambiguous, ``llm_model``/``llm_model_version`` complete a solve
        body (:func:`~solvelens.client.submission.submission_body`); an interface task (or an unknown id)
        gets ``{"content": result}`` for a string and the dict as it is.

        Never blindly retried: only when the request did not reach the server or its response was lost (then a
        409 on the retry returns ``SubmitResult(recovered=True)``), or on 429/503 with Retry-After. Raises
        :class:`InvalidSubmissionError` (nothing sent), :class:`ConflictError` (409, task already completed
        or failed), :class:`BadRequestError` (400, rejected: the task is failed), ...
        """
        task_id, body = self._submission(task, result, llm_model, llm_model_version)
        path = f"/tasks/{task_id}/submit"
        auth = self._bot_auth(path)
        lost = False
        with self._retry_scope("POST", path):
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
            verify=ssl_context(),
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
        with self._retry_scope("GET", url):
            async for attempt in self._retrying(self._get_retry_hook):
                with attempt:
                    return self._decode(await self._send("GET", url, params=params, auth=auth), "GET")
        raise AssertionError("unreachable")  # pragma: no cover

    async def _get_response(self, url: str, params: Any) -> tuple[Any, httpx.Headers, httpx.URL]:
        with self._retry_scope("GET", url):
            async for attempt in self._retrying(self._get_retry_hook):
                with attempt:
                    response = await self._send("GET", url, params=params)
                    return self._decode(response, "GET"), response.headers, response.request.url
        raise AssertionError("unreachable")  # pragma: no cover

    async def _pages(self, walk: PageWalk, concurrency: int = 1) -> AsyncIterator[Page]:
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
            page = walk.accept(body, headers, url)
            if page is None:  # the page repeated and the walk switched its request style: ask again
                continue
            yield page
            paginator = walk.paginator
            if concurrency > 1 and walk.number == 1 and isinstance(paginator, PageNumberPaginator):
                ahead = paginator.announced_requests(walk.request)
                if ahead:
                    async for page in self._fetch_ahead(walk, ahead, concurrency):
                        yield page

    async def _fetch_ahead(
        self, walk: PageWalk, requests: list[PageRequest], concurrency: int
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
                page = walk.accept(body, headers, got)
                if page is None:  # a repeated page: the walk switched style; the rest is walked in turn
                    return
                yield page
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
        path = self._path_id("/problems/{}/solutions", problem_id)
        return self._pages(self._walk("solutions", path, None, page_size))

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
        return Problem(self._single("problem", await self._get(self._path_id("/problems/{}", problem_id))))

    async def list_categories(self) -> list[Category]:
        """``GET /categories``: every category."""
        walk = self._walk("categories", "/categories", None, None)
        return [Category(c) async for page in self._pages(walk) for c in page.items]

    async def get_bot(self, bot_id: str) -> Bot:
        """``GET /bots/{id}``: public bot profile."""
        return Bot(self._single("bot", await self._get(self._path_id("/bots/{}", bot_id))))

    async def get_stats(self) -> Stats:
        """``GET /stats``: platform-wide figures."""
        return Stats(self._stats(await self._get("/stats")))

    async def search(
        self, q: str, *, type: str | None = None, category: str | None = None, limit: int | None = None
    ) -> SearchResult:
        """``GET /search?q=``: problems and bots matching ``q``."""
        params = {
            k: v
            for k, v in {"q": q, "type": type, "category": category, "limit": limit}.items()
            if v is not None
        }
        return SearchResult(self._search(await self._get("/search", params=params)))

    async def health(self) -> Health:
        """``GET <root>/health`` (outside ``/api/v1``)."""
        return Health(await self._get(self.root_url + "/health") or {})

    async def get_me(self) -> Bot:
        """``GET /bot/me`` (API key): the calling bot's profile, stats and status."""
        return Bot(self._single("bot_me", await self._get("/bot/me", bot=True)))

    async def next_task(self, **params: Any) -> Task | None:
        """``GET /tasks/next`` (API key): the next task or ``None``; see :meth:`PlatformClient.next_task`."""
        try:
            body = await self._get("/tasks/next", params=params or None, bot=True)
        except NotFoundError as exc:
            if self._no_task_404(exc):
                return None
            raise
        return self._task_or_none(body)

    async def submit(
        self,
        task: Task | str,
        result: SubmitBody,
        *,
        llm_model: str | None = None,
        llm_model_version: str | None = None,
    ) -> SubmitResult:
        """``POST /tasks/{id}/submit`` (API key); see :meth:`PlatformClient.submit`."""
        task_id, body = self._submission(task, result, llm_model, llm_model_version)
        path = f"/tasks/{task_id}/submit"
        auth = self._bot_auth(path)
        lost = False
        with self._retry_scope("POST", path):
            async for attempt in self._retrying(self._submit_retry_hook):
                with attempt:
                    try:
                        response = await self._send("POST", self._url(path), json=body, auth=auth)
                    except PlatformConnectionError as exc:
                        lost = lost or exc.request_sent
                        raise
                    return self._submit_answer(response, lost)
        raise AssertionError("unreachable")  # pragma: no cover
