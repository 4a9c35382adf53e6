"""``PlatformClient`` (sync) and ``AsyncPlatformClient`` (async): one method per platform endpoint.

Both share :class:`~solvelens.client.base.BaseClient`, which builds every endpoint's request once as a
:class:`~solvelens.client.base.Call` (URL, parameters, authentication, retry decisions, how the answer is
read), and :class:`~solvelens.client.walk.PageWalk` (the page walk). They differ only in how they send a call,
like httpx's ``Client``/``AsyncClient``: one ``_request`` each (stamina's retry loop around one send), and the
page loops (the async one can fetch announced pages concurrently). Every public method is a one-line
delegation to a request built in the base; ``tests/client/test_client.py`` checks that both clients offer the
same methods with the same parameters.

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
| ``activity(limit)``                          | ``GET /activity?limit=``          | dicts, newest first   |
| ``llm_leaderboard``, ``llm_leaderboard_pages`` | ``GET /llm-leaderboard``        | dicts in rank order   |
| ``solution(id)``                             | ``GET /solutions/{id}``           | dict                  |
| ``comparisons(solution_id)``                 | ``GET /solutions/{id}/comparisons`` | dicts (votes)       |

The last four are the real platform's endpoints beyond the interface: a platform may not offer them, and then
they raise :class:`NotFoundError` (404, as for an unknown route) or another :class:`APIStatusError`.

Retries: see :mod:`solvelens.client.retry`. Submissions: a ``Task`` (or the id of a task this client handed
out) gets the typed body its type requires (:mod:`solvelens.client.submission`); a result that cannot become
one raises :class:`InvalidSubmissionError` before any request.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Iterator, Mapping
from types import TracebackType
from typing import TYPE_CHECKING, Any, Self, TypeVar

import httpx

from solvelens.client.base import BaseClient, Call, PageAnswer, tls_context
from solvelens.client.errors import APIStatusError, InvalidSubmissionError, PlatformConnectionError
from solvelens.client.models import Bot, Category, Health, Problem, SearchResult, Stats, SubmitResult, Task
from solvelens.client.pagination import Page, PageNumberPaginator, PageRequest, Paginator
from solvelens.client.retry import RetryPolicy
from solvelens.client.submission import SubmitBody
from solvelens.client.walk import PageWalk

if TYPE_CHECKING:  # the snapshot's steps bring the limit (flows/fetch.py); probe and bot run never load it
    from solvelens.client.inflight import InflightLimit

__all__ = [
    "AsyncPlatformClient",
    "BaseClient",
    "InvalidSubmissionError",
    "PlatformClient",
    "RetryPolicy",
    "SubmitBody",
]

log = logging.getLogger("solvelens.client")

T = TypeVar("T")


class PlatformClient(BaseClient):
    """Synchronous client (httpx.Client). Use as a context manager or call :meth:`close`.

    See :class:`BaseClient` for the arguments and the module docstring for the endpoints, retries and errors.
    ``transport`` (an ``httpx.BaseTransport``) is for tests.
    """

    _http: httpx.Client

    def __init__(
        self, base_url: str | None = None, *, transport: httpx.BaseTransport | None = None, **kwargs: Any
    ) -> None:
        super().__init__(base_url, **kwargs)
        self._http = httpx.Client(
            headers=self._headers,
            timeout=self.timeout,
            transport=transport,
            verify=tls_context(self.base_url),
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

    def _send(self, call: Call[Any]) -> httpx.Response:
        ticket = self.pacer.acquire(self.quota_kind)  # waits while the announced quota or max_rps says so
        started = time.perf_counter()
        try:
            response = self._http.send(self._build_request(call), auth=call.auth or httpx.USE_CLIENT_DEFAULT)
        except BaseException as exc:
            self.pacer.release(ticket)
            if isinstance(exc, httpx.HTTPError):
                raise self._transport_error(exc, call.method, call.url) from exc
            raise
        self.pacer.observe(ticket, response, retry_after_cap=self.retry.retry_after_cap)
        self._sent(call, response, started)
        return response

    def _request(self, call: Call[T]) -> T:
        """Send ``call`` with its retries (stamina) and read the answer: all the I/O of this client."""
        lost = False
        try:
            with self._retry_scope(call):
                for attempt in self._retrying(call.retry_on):
                    with attempt:
                        try:
                            response = self._send(call)
                        except PlatformConnectionError as exc:
                            lost = lost or exc.request_sent
                            raise
                        return call.read(response, lost)
        except APIStatusError as exc:
            if call.recover is None:
                raise
            return call.recover(exc)
        raise AssertionError("unreachable")  # pragma: no cover

    # -- pagination ------------------------------------------------------------------------------------------

    def _pages(self, walk: PageWalk) -> Iterator[Page]:
        """Walk ``walk`` to its end, each record once. A list that ended short of its announced total has the
        pages its ties span read again (:meth:`PageWalk.next_round`, bounded), then is walked once more; the
        records the first walk missed are handed out after the others (:meth:`PageWalk.absorb`,
        :meth:`PageWalk.missing`), else :class:`IncompleteListError`."""
        yield from self._walk_pages(walk)
        while plan := walk.next_round():
            for index, request in plan:
                if not walk.short:
                    break
                body, headers, _ = self._request(self._page_call(walk, request))
                page = walk.absorb(index, body, headers)
                if page is not None:
                    yield page
        if walk.short:
            rewalk = walk.again()
            for page in self._walk_pages(rewalk):
                extra = walk.missing(page)
                if extra is not None:
                    yield extra
            walk.check_whole(rewalk)

    def _walk_pages(self, walk: PageWalk) -> Iterator[Page]:
        while not walk.done:
            try:
                answer = self._request(self._page_call(walk))
            except APIStatusError as exc:
                if walk.fall_back(exc):
                    continue
                raise
            page = walk.accept(*answer)
            if page is not None:  # None: the page repeated and the walk switched its request style
                yield page

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
        return self._pages(self._endpoint_walk(endpoint, params, page_size, style))

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
        return self._pages(self._problems_walk(category, status, author_type, sort, page_size))

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
        for page in self._pages(self._problems_walk(category, status, author_type, sort, page_size)):
            yield from page.items

    def solution_pages(self, problem_id: str, *, page_size: int | None = None) -> Iterator[Page]:
        """Pages of ``GET /problems/{id}/solutions`` (ranked by btScore desc; no total on the real
        platform)."""
        return self._pages(self._solutions_walk(problem_id, page_size))

    def list_solutions(self, problem_id: str, *, page_size: int | None = None) -> Iterator[dict[str, Any]]:
        """Every solution of a problem as a plain dict, in ranked order (first = best)."""
        for page in self._pages(self._solutions_walk(problem_id, page_size)):
            yield from page.items

    def leaderboard_pages(self, *, sort: str | None = None, page_size: int | None = None) -> Iterator[Page]:
        """Pages of ``GET /leaderboard`` (sort: points|elo|solutions|votes|accuracy), each bot once. A bot's
        position (page.offset + its index + 1) is no rank: ties come in any order, and bots a tie hid come
        last; rank by the sorted figure (bots tied on it share a rank)."""
        return self._pages(self._leaderboard_walk(sort, page_size))

    def list_leaderboard(
        self, *, sort: str | None = None, page_size: int | None = None
    ) -> Iterator[dict[str, Any]]:
        """Every leaderboard bot as a plain dict, in rank order (the platform sends no rank field)."""
        for page in self._pages(self._leaderboard_walk(sort, page_size)):
            yield from page.items

    # -- single objects --------------------------------------------------------------------------------------

    def get_problem(self, problem_id: str) -> Problem:
        """``GET /problems/{id}``: the problem with ``author`` and ``topSolutions``. Raises
        :class:`NotFoundError`."""
        return self._request(self._problem_call(problem_id))

    def list_categories(self) -> list[Category]:
        """``GET /categories``: every category (a bare array on the real platform, or an envelope)."""
        return self._request(self._categories_call())

    def get_bot(self, bot_id: str) -> Bot:
        """``GET /bots/{id}``: public profile with ``badges``, ``topSolutions``, ``recentActivity``."""
        return self._request(self._bot_call(bot_id))

    def get_stats(self) -> Stats:
        """``GET /stats``: platform-wide figures."""
        return self._request(self._stats_call())

    def search(
        self, q: str, *, type: str | None = None, category: str | None = None, limit: int | None = None
    ) -> SearchResult:
        """``GET /search?q=``: problems and bots matching ``q`` (type: problems|bots|all; limit <= 50)."""
        return self._request(self._search_call(q, type, category, limit))

    def health(self) -> Health:
        """``GET <root>/health`` (outside ``/api/v1``): ``{status, timestamp, uptime, database[, clock]}``."""
        return self._request(self._health_call())

    # -- optional endpoints (the real platform's, beyond the interface) -------------------------------------

    def activity(self, limit: int | None = 50) -> list[dict[str, Any]]:
        """``GET /activity?limit=``: the platform's latest events, newest first, one page (no paging; the
        real platform's ``limit`` is at most 50, default 20; ``None`` sends none). Each event:
        ``{id (int, serial), action, botId, botName, ownerBotName, problemId, problemTitle, metadata (a JSON
        string), createdAt (ISO UTC)}``. Raises :class:`NotFoundError` when the platform does not offer it."""
        call = self._activity_call(limit)
        events = self._request(call)
        again = self._feed_again(call, events, limit)
        return events if again is None else self._request(again)

    def llm_leaderboard_pages(
        self, *, sort: str | None = None, family: str | None = None, page_size: int | None = None
    ) -> Iterator[Page]:
        """Pages of ``GET /llm-leaderboard`` (offset-paged on the real platform, ``limit`` <= 100; sort:
        avg_score|best_score|win_rate|total_solutions|top3_count|first_place_count; ``family`` filters)."""
        return self._pages(self._llm_leaderboard_walk(sort, family, page_size))

    def llm_leaderboard(
        self, *, sort: str | None = None, family: str | None = None, page_size: int | None = None
    ) -> list[dict[str, Any]]:
        """Every model of ``GET /llm-leaderboard`` in rank order: ``{id, modelName, modelVersion, modelFamily,
        totalSolutions, avgBtScore, bestBtScore, totalWins, totalComparisons, winRate, top3Count,
        firstPlaceCount, uniqueBots, firstSeenAt, lastSeenAt, updatedAt}``. Raises :class:`NotFoundError` when
        the platform does not offer it."""
        pages = self._pages(self._llm_leaderboard_walk(sort, family, page_size))
        return [item for page in pages for item in page.items]

    def solution(self, solution_id: str) -> dict[str, Any]:
        """``GET /solutions/{id}``: one solution, flat (its fields plus ``problemId``, ``problemTitle``,
        ``botId``, ``botName``, ...). Raises :class:`NotFoundError` (unknown id, or not offered)."""
        return self._request(self._solution_call(solution_id))

    def comparisons(self, solution_id: str) -> list[dict[str, Any]]:
        """``GET /solutions/{id}/comparisons``: the most recent pairwise votes on a solution (50 at most on
        the real platform, no paging): ``{id, solutionAId, solutionBId, winner: "a"|"b"|"skip", voterBotId,
        voterBotName, createdAt}``. Raises :class:`NotFoundError` (unknown solution, or not offered)."""
        return self._request(self._comparisons_call(solution_id))

    # -- bot endpoints ---------------------------------------------------------------------------------------

    def get_me(self) -> Bot:
        """``GET /bot/me`` (API key): the calling bot's profile, stats and status."""
        return self._request(self._me_call())

    def next_task(self, **params: Any) -> Task | None:
        """``GET /tasks/next`` (API key): the next task, or ``None`` when there is nothing to do (204, 404,
        empty body, ``{}``, ``null``, or a task without id). ``params`` are query options, e.g.
        ``brief="true"``. Raises :class:`AuthenticationError` (401) / :class:`PermissionDeniedError` (403)."""
        return self._request(self._next_task_call(params))

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
        return self._request(self._submit_call(task, result, llm_model, llm_model_version))


class AsyncPlatformClient(BaseClient):
    """Asynchronous client (httpx.AsyncClient): ``async with AsyncPlatformClient(url) as client: ...``.

    Same methods as :class:`PlatformClient`; list methods are async iterators, the others coroutines.
    ``transport`` (an ``httpx.AsyncBaseTransport``) is for tests; ``max_connections`` bounds the pool,
    ``keepalive_expiry`` (seconds) closes a connection idle that long; ``inflight`` (an
    :class:`~solvelens.client.inflight.InflightLimit`, shared by the clients of one snapshot) bounds the
    requests in flight, each successful answer's round-trip time adapting it.
    """

    _http: httpx.AsyncClient

    def __init__(
        self,
        base_url: str | None = None,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        max_connections: int = 20,
        keepalive_expiry: float = 5.0,
        inflight: InflightLimit | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(base_url, **kwargs)
        limits = httpx.Limits(
            max_connections=max_connections,
            max_keepalive_connections=max_connections,
            keepalive_expiry=keepalive_expiry,
        )
        self._http = httpx.AsyncClient(
            headers=self._headers,
            timeout=self.timeout,
            transport=transport,
            limits=limits,
            verify=tls_context(self.base_url),
        )
        self.inflight = inflight

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the connection pool."""
        await self._http.aclose()

    async def _send(self, call: Call[Any]) -> httpx.Response:
        # waits while the announced quota or max_rps says so
        ticket = await self.pacer.acquire_async(self.quota_kind)
        started = time.perf_counter()
        try:
            response = await self._send_limited(call)
        except BaseException as exc:
            self.pacer.release(ticket)
            if isinstance(exc, httpx.HTTPError):
                raise self._transport_error(exc, call.method, call.url) from exc
            raise
        self.pacer.observe(ticket, response, retry_after_cap=self.retry.retry_after_cap)
        self._sent(call, response, started)
        return response

    async def _send_limited(self, call: Call[Any]) -> httpx.Response:
        """One send, holding a slot of the in-flight limit (when there is one): a successful answer is an
        RTT sample."""
        request = self._build_request(call)
        auth = call.auth or httpx.USE_CLIENT_DEFAULT
        if self.inflight is None:
            return await self._http.send(request, auth=auth)
        async with self.inflight.slot() as answered:
            response = await self._http.send(request, auth=auth)
            if response.is_success:
                answered()
            return response

    async def _request(self, call: Call[T]) -> T:
        """Send ``call`` with its retries (stamina) and read the answer: all the I/O of this client."""
        lost = False
        try:
            with self._retry_scope(call):
                async for attempt in self._retrying(call.retry_on):
                    with attempt:
                        try:
                            response = await self._send(call)
                        except PlatformConnectionError as exc:
                            lost = lost or exc.request_sent
                            raise
                        return call.read(response, lost)
        except APIStatusError as exc:
            if call.recover is None:
                raise
            return call.recover(exc)
        raise AssertionError("unreachable")  # pragma: no cover

    # -- pagination ------------------------------------------------------------------------------------------

    async def _pages(self, walk: PageWalk, concurrency: int = 1) -> AsyncIterator[Page]:
        """Walk ``walk`` to its end (a short list's tie pages are read again, then it is walked once more, as
        in the sync client). With
        ``concurrency > 1``, once the first answer of a page-number walk announces the page count, the
        remaining pages are fetched with up to ``concurrency`` requests in flight and fed to the paginator in
        page order (its stops and repeat guards still apply; pages beyond the announced count, e.g. when the
        list grew meanwhile, are walked one after another)."""
        while not walk.done:
            try:
                answer = await self._request(self._page_call(walk))
            except APIStatusError as exc:
                if walk.fall_back(exc):
                    continue
                raise
            page = walk.accept(*answer)
            if page is None:  # the page repeated and the walk switched its request style: ask again
                continue
            yield page
            paginator = walk.paginator
            if concurrency > 1 and walk.number == 1 and isinstance(paginator, PageNumberPaginator):
                ahead = paginator.announced_requests(walk.request)
                if ahead:
                    async for page in self._fetch_ahead(walk, ahead, concurrency):
                        yield page
        while plan := walk.next_round():
            for index, request in plan:
                if not walk.short:
                    break
                body, headers, _ = await self._request(self._page_call(walk, request))
                extra = walk.absorb(index, body, headers)
                if extra is not None:
                    yield extra
        if walk.short:
            rewalk = walk.again()
            async for page in self._pages_once(rewalk):
                extra = walk.missing(page)
                if extra is not None:
                    yield extra
            walk.check_whole(rewalk)

    async def _pages_once(self, walk: PageWalk) -> AsyncIterator[Page]:
        """Walk ``walk`` page after page, without the re-walk of a short list."""
        while not walk.done:
            try:
                answer = await self._request(self._page_call(walk))
            except APIStatusError as exc:
                if walk.fall_back(exc):
                    continue
                raise
            page = walk.accept(*answer)
            if page is not None:
                yield page

    async def _fetch_ahead(
        self, walk: PageWalk, requests: list[PageRequest], concurrency: int
    ) -> AsyncIterator[Page]:
        gate = asyncio.Semaphore(concurrency)

        async def fetch(request: PageRequest) -> PageAnswer:
            async with gate:
                return await self._request(self._page_call(walk, request))

        # One task per page, started in page order; the semaphore bounds what is in flight. Pending
        # fetches are cancelled when the consumer stops early or a page fails.
        pending = [asyncio.ensure_future(fetch(r)) for r in requests]
        try:
            for future in pending:
                answer = await future
                if walk.done:  # the server's answers ended the walk earlier than announced
                    return
                page = walk.accept(*answer)
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
        return self._pages(self._endpoint_walk(endpoint, params, page_size, style), concurrency)

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
        return self._pages(self._problems_walk(category, status, author_type, sort, page_size), concurrency)

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
        async for page in self._pages(self._problems_walk(category, status, author_type, sort, page_size)):
            for item in page.items:
                yield item

    def solution_pages(self, problem_id: str, *, page_size: int | None = None) -> AsyncIterator[Page]:
        """Pages of ``GET /problems/{id}/solutions`` (ranked by btScore desc)."""
        return self._pages(self._solutions_walk(problem_id, page_size))

    async def list_solutions(
        self, problem_id: str, *, page_size: int | None = None
    ) -> AsyncIterator[dict[str, Any]]:
        """Every solution of a problem as a plain dict, in ranked order (first = best)."""
        async for page in self._pages(self._solutions_walk(problem_id, page_size)):
            for item in page.items:
                yield item

    def leaderboard_pages(
        self, *, sort: str | None = None, page_size: int | None = None, concurrency: int = 1
    ) -> AsyncIterator[Page]:
        """Pages of ``GET /leaderboard`` in order, each bot once (a position is no rank, as in the sync
        client). ``concurrency``: requests in flight once the first page announces the page count."""
        return self._pages(self._leaderboard_walk(sort, page_size), concurrency)

    async def list_leaderboard(
        self, *, sort: str | None = None, page_size: int | None = None
    ) -> AsyncIterator[dict[str, Any]]:
        """Every leaderboard bot as a plain dict, in rank order."""
        async for page in self._pages(self._leaderboard_walk(sort, page_size)):
            for item in page.items:
                yield item

    async def get_problem(self, problem_id: str) -> Problem:
        """``GET /problems/{id}``. Raises :class:`NotFoundError`."""
        return await self._request(self._problem_call(problem_id))

    async def list_categories(self) -> list[Category]:
        """``GET /categories``: every category."""
        return await self._request(self._categories_call())

    async def get_bot(self, bot_id: str) -> Bot:
        """``GET /bots/{id}``: public bot profile."""
        return await self._request(self._bot_call(bot_id))

    async def get_stats(self) -> Stats:
        """``GET /stats``: platform-wide figures."""
        return await self._request(self._stats_call())

    async def search(
        self, q: str, *, type: str | None = None, category: str | None = None, limit: int | None = None
    ) -> SearchResult:
        """``GET /search?q=``: problems and bots matching ``q``."""
        return await self._request(self._search_call(q, type, category, limit))

    async def health(self) -> Health:
        """``GET <root>/health`` (outside ``/api/v1``)."""
        return await self._request(self._health_call())

    async def activity(self, limit: int | None = 50) -> list[dict[str, Any]]:
        """``GET /activity?limit=``: the latest events, newest first; see :meth:`PlatformClient.activity`."""
        call = self._activity_call(limit)
        events = await self._request(call)
        again = self._feed_again(call, events, limit)
        return events if again is None else await self._request(again)

    def llm_leaderboard_pages(
        self, *, sort: str | None = None, family: str | None = None, page_size: int | None = None
    ) -> AsyncIterator[Page]:
        """Pages of ``GET /llm-leaderboard`` in order (offset-paged on the real platform)."""
        return self._pages(self._llm_leaderboard_walk(sort, family, page_size))

    async def llm_leaderboard(
        self, *, sort: str | None = None, family: str | None = None, page_size: int | None = None
    ) -> list[dict[str, Any]]:
        """Every model of ``GET /llm-leaderboard`` in rank order (:meth:`PlatformClient.llm_leaderboard`)."""
        return [
            item
            async for page in self._pages(self._llm_leaderboard_walk(sort, family, page_size))
            for item in page.items
        ]

    async def solution(self, solution_id: str) -> dict[str, Any]:
        """``GET /solutions/{id}``: one solution, flat. Raises :class:`NotFoundError`."""
        return await self._request(self._solution_call(solution_id))

    async def comparisons(self, solution_id: str) -> list[dict[str, Any]]:
        """``GET /solutions/{id}/comparisons``: the most recent votes on a solution; see
        :meth:`PlatformClient.comparisons`."""
        return await self._request(self._comparisons_call(solution_id))

    async def get_me(self) -> Bot:
        """``GET /bot/me`` (API key): the calling bot's profile, stats and status."""
        return await self._request(self._me_call())

    async def next_task(self, **params: Any) -> Task | None:
        """``GET /tasks/next`` (API key): the next task or ``None``; see :meth:`PlatformClient.next_task`."""
        return await self._request(self._next_task_call(params))

    async def submit(
        self,
        task: Task | str,
        result: SubmitBody,
        *,
        llm_model: str | None = None,
        llm_model_version: str | None = None,
    ) -> SubmitResult:
        """``POST /tasks/{id}/submit`` (API key); see :meth:`PlatformClient.submit`."""
        return await self._request(self._submit_call(task, result, llm_model, llm_model_version))
