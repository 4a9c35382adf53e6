"""Plain async fetch steps of a snapshot (no Prefect here): platform HTTP -> staging directory.

Each step takes the run's :class:`~solvelens.flows.plan.SnapshotPlan` and the staging directory, opens its own
:class:`solvelens.client.AsyncPlatformClient` (:func:`step_client`: the plan's profile, when there is one;
all steps share one pacer per platform, which keeps to the quota the platform announces and to
``plan.max_rps``: :mod:`solvelens.client.ratelimit`), fetches one group of resources, writes them to a
:class:`solvelens.store.StagingArea` and returns its typed :class:`~solvelens.store.reports.StepReport`.

Steps (endpoints relative to the base URL ``.../api/v1``):

- :func:`fetch_problems_step`: every page of ``GET /problems`` (``sort=oldest`` so new problems land at the
  end and paging does not drift), deduplicated by id, then ``GET /problems/{id}/solutions`` of every listed
  problem with bounded concurrency -- except problems whose ``solutionCount`` and ``comparisonCount`` equal
  those of the last complete snapshot (their solution list carries over). A solution's rank is its
  competition rank over ``btScore`` within the problem (ties share a rank: :mod:`solvelens.flows.ranks`).
- :func:`fetch_leaderboard_step`: every page of ``GET /leaderboard`` (rank = position in the walk), then
  ``GET /bots/{id}`` for each leaderboard bot whose listing entry changed (the others' profiles carry over).
- :func:`fetch_reference_step`: ``GET /categories`` and ``GET /stats``.
- :func:`fetch_bot_me_step`: ``GET /bot/me`` with the configured API key (a rejected key fails the run).

The steps know only HTTP and the staging area: what the last snapshot held is staged beforehand by the
flow (``previous_problems``, ``previous_bots``; absent on a full run), never read from the store here.
Whether a list was read whole is the client's decision (it walks a short list again, once); a list still
shorter than its total fails the run (:class:`~solvelens.client.IncompleteListError`: the client could
read more), a count the platform's
rows disagree with is a data-quality row in the step's ``data_quality``
(:mod:`solvelens.flows.completeness`). Each report's ``requests`` counts the HTTP requests the step
sent (the optional resources' budget is measured against them). A record the snapshot cannot identify (no id,
or a 404 for an id the listing just gave) fails the step with one line naming the profile setting that
fixes it: nothing is written. The step list that runs them (in-process or
as Prefect task runs) is :mod:`solvelens.flows.steps`.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Coroutine
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, TypeVar

import pyarrow as pa
from pydantic import SecretStr

from solvelens.apikey import InvalidApiKeyError
from solvelens.client import (
    AsyncPlatformClient,
    AuthenticationError,
    IncompleteListError,
    NotFoundError,
    Page,
    PermissionDeniedError,
    UnrecognizedResponseError,
)
from solvelens.client.inflight import shared_inflight
from solvelens.client.ratelimit import INTERFACE, shared_pacer
from solvelens.flows.completeness import COUNT_DISAGREES, TOTAL_BELOW_ROWS, quality_row
from solvelens.flows.figures import BotMeFigures, LeaderboardFigures, ProblemsFigures
from solvelens.flows.plan import SnapshotPlan
from solvelens.flows.ranks import competition_ranks, unscored_warning
from solvelens.store.reports import QualityRow, StepReport
from solvelens.store.staging import StagingArea, dump_json, version_key

#: A progress callback: ``(step, done, total)``; ``total`` is ``None`` while unknown.
ProgressCallback = Callable[[str, int, int | None], None]
#: The progress callback of the current context (the CLI sets one to draw a progress display).
progress_callback: ContextVar[ProgressCallback | None] = ContextVar("solvelens_progress", default=None)

T = TypeVar("T")

#: The snapshot's big fan-outs that run at once (the solution lists and the bot profiles): the shared
#: in-flight limit's maximum is this many times ``--concurrency``, so a slow network keeps both fan-outs full
#: (as when each step had only its own ``--concurrency``).
FAN_OUTS_AT_ONCE = 2
#: Seconds a step client's pool keeps an idle connection (httpx's default: 5). httpcore checks every pooled
#: connection on each request (``has_expired``: a readability poll of each idle socket), so the connections
#: left idle when the in-flight limit shrinks are closed within a second: at medium on loopback 24,000
#: checks a snapshot instead of 43,000 (66,000 before the limit).
KEEPALIVE_EXPIRY_S = 1.0


def report_progress(step: str, done: int, total: int | None) -> None:
    """Tell the current progress callback (if any) that ``done`` of ``total`` units of ``step`` are done."""
    callback = progress_callback.get()
    if callback is not None:
        callback(step, done, total)


def step_client(
    plan: SnapshotPlan, api_key: SecretStr | None = None, kind: str = INTERFACE
) -> AsyncPlatformClient:
    """The client of one fetch step: ``plan.base_url``, ``plan.profile``, the pacer every step of the run
    shares (the announced quota and ``plan.max_rps``: :func:`solvelens.client.ratelimit.shared_pacer`), which
    records the requests by ``kind`` (``interface``, the optional steps' ``optional``), and the in-flight
    limit every step of the run shares (:func:`solvelens.client.inflight.shared_inflight`: at most
    :data:`FAN_OUTS_AT_ONCE` x ``plan.concurrency`` requests in flight over all steps, fewer while the
    round-trip time says they only queue). Each fan-out of a step keeps ``plan.concurrency`` requests in
    flight at most, so its pool holds at most ``plan.concurrency`` connections; it closes one idle for
    :data:`KEEPALIVE_EXPIRY_S`. ``read_env=False``: a public step never picks up a key (or a
    profile) from the environment; the plan says. Call it inside the run's event loop."""
    return AsyncPlatformClient(
        plan.base_url,
        api_key=api_key,
        read_env=False,
        max_connections=plan.concurrency,
        keepalive_expiry=KEEPALIVE_EXPIRY_S,
        inflight=shared_inflight(plan.base_url, plan.concurrency * FAN_OUTS_AT_ONCE),
        profile=plan.profile,
        pacer=shared_pacer(plan.base_url, plan.max_rps),
        quota_kind=kind,
    )


def _unidentified(endpoint: str, path: str, position: int, item: Any) -> UnrecognizedResponseError:
    fields = ", ".join(sorted(map(str, item))[:12]) if isinstance(item, dict) else type(item).__name__
    return UnrecognizedResponseError(
        f"GET {path}: record {position} has no id (fields seen: {fields}); the snapshot cannot identify it "
        f'and writes nothing: add to your profile: [endpoints.{endpoint}] id_field = "<the field that holds '
        'the id>"',
        endpoint=endpoint,
        keys=sorted(map(str, item)) if isinstance(item, dict) else [],
    )


def _gone(endpoint: str, path: str, ident: str, listing: str) -> UnrecognizedResponseError:
    return UnrecognizedResponseError(
        f"GET {path} -> 404 for the id {ident!r} that {listing} just listed: the listed ids are not the ids "
        "this API takes; the snapshot writes nothing: add to your profile the listing's id field, e.g. "
        f'[endpoints.{endpoint}] id_field = "<the field that holds the id>"',
        endpoint=endpoint,
        keys=[],
    )


async def run_together(*aws: Coroutine[Any, Any, T]) -> list[T]:
    """Await the coroutines ``aws`` concurrently in one task group and return their results in order.

    The first failure cancels the others and is raised as itself (not as an exception group), after every one
    has ended: none outlives the caller's client, unlike :func:`asyncio.gather`, whose siblings run on after a
    failure."""
    try:
        async with asyncio.TaskGroup() as group:
            tasks = [group.create_task(a) for a in aws]
    except BaseExceptionGroup as failed:
        raise failed.exceptions[0] from None
    return [t.result() for t in tasks]


@dataclass
class Tally:
    """HTTP requests a fetch step sent (pages and single records): what the optional resources' budget is
    measured against (:mod:`solvelens.flows.budget`)."""

    requests: int = 0
    #: The total the last walk announced (body or headers), ``None`` when it announced none.
    announced: int | None = None


async def _walk_once(
    pages: AsyncIterator[Page],
    endpoint: str | None,
    path: str | None,
    progress_step: str | None,
    tally: Tally | None,
    id_field: str = "id",
) -> tuple[list[dict[str, Any]], int, int | None, IncompleteListError | None]:
    """One paging walk: (unique records in walk order, repeated records skipped, last announced total, the
    client's :class:`IncompleteListError` when the walk ended short of its total after the client's own
    re-walk); counts its pages in ``tally``."""
    items: list[dict[str, Any]] = []
    box: list[Any] = [None, 0]
    short: IncompleteListError | None = None
    try:
        await _pages_into(pages, items, set(), endpoint, path, progress_step, tally, box, id_field)
    except IncompleteListError as exc:
        short = exc
    total: int | None = box[0]
    duplicates: int = box[1]
    return items, duplicates, total, short


async def _pages_into(
    pages: AsyncIterator[Page],
    items: list[dict[str, Any]],
    seen: set[Any],
    endpoint: str | None,
    path: str | None,
    progress_step: str | None,
    tally: Tally | None,
    box: list[Any],
    id_field: str = "id",
) -> None:
    """Collect the unique records of ``pages`` into ``items``; ``box``: [last announced total, repeats]."""
    duplicates = 0
    total: int | None = None
    async for page in pages:
        if tally is not None:
            tally.requests += 1
        if page.total is not None:
            total = page.total
        for item in page.items:
            key = item.get(id_field) if isinstance(item, dict) else None
            if key is None and endpoint is not None:
                raise _unidentified(endpoint, path or endpoint, len(items) + duplicates + 1, item)
            if key is not None and key in seen:
                duplicates += 1
                continue
            if key is not None:
                seen.add(key)
            items.append(item)
        if progress_step:
            report_progress(progress_step, len(items), total)
        box[0], box[1] = total, duplicates


async def collect_pages(
    pages: AsyncIterator[Page],
    resource: str,
    warnings: list[str],
    *,
    progress_step: str | None = None,
    endpoint: str | None = None,
    path: str | None = None,
    quality: list[QualityRow] | None = None,
    tally: Tally | None = None,
    counted: tuple[str, str, int] | None = None,
    id_field: str = "id",
) -> list[dict[str, Any]]:
    """All items of one paging walk of the client, deduplicated by ``id_field`` (first copy kept), in walk
    order.

    Whether the list was read whole is the client's decision, made once (:mod:`solvelens.client.walk`): it
    walks a list that ended short of its announced total again and raises
    :class:`~solvelens.client.IncompleteListError` when still short; nothing here walks it again. What this
    adds is what the snapshot knows beyond the walk: ``counted`` (resource, scope, count), the count the
    platform announced for this list elsewhere (a problem's ``solutionCount``): a short list whose total is
    that count is the platform's count disagreeing with its rows, a data-quality row in ``quality``, no
    error. A walk that still hands out fewer unique records than its total fails the same way
    (:class:`~solvelens.client.IncompleteListError`, named by ``path``); a total below the unique records is
    a data-quality row (resource ``resource``, scope ``''``), or a warning when no ``quality`` list is given;
    repeated records are a warning. With ``endpoint`` (the profile name, e.g. ``problems``) a record without
    its id raises :class:`UnrecognizedResponseError` naming ``path``, the fields seen and the profile setting
    that fixes it. Pages are counted in ``tally`` (with the last announced total)."""
    items, duplicates, total, short = await _walk_once(pages, endpoint, path, progress_step, tally, id_field)
    if short is not None:
        if quality is None or counted is None or short.announced != counted[2]:
            raise short
        # The list's total is the count the platform announced for it elsewhere (a problem's
        # solutionCount), and the client's two walks found the same rows: the count disagrees with the rows.
        quality.append(quality_row(counted[0], counted[1], short.announced, len(items), COUNT_DISAGREES))
        total = len(items)
    if tally is not None:
        tally.announced = total
    if duplicates:
        warnings.append(f"{resource}: {duplicates} repeated records skipped while paging (listing moved)")
    if total is not None and total > len(items):
        raise IncompleteListError(path or resource, announced=total, read=len(items))
    if total is not None and total < len(items):
        if quality is None:
            warnings.append(
                f"{resource}: the server reported total={total} but {len(items)} unique were listed"
            )
        else:
            quality.append(quality_row(resource, "", total, len(items), TOTAL_BELOW_ROWS))
    return items


def _previous(area: StagingArea, table: str) -> list[dict[str, Any]]:
    staged = area.read_table(table)
    return [] if staged is None else staged.to_pylist()


def _split_problems(
    problems: list[dict[str, Any]], previous: dict[str, tuple[int, int, int]]
) -> tuple[list[str], dict[str, int]]:
    """The problems whose solution list to fetch, and those carried over (id -> the manifest kept): a
    problem whose ``solutionCount`` and ``comparisonCount`` equal the last complete snapshot's."""
    to_fetch: list[str] = []
    carried: dict[str, int] = {}
    for p in problems:
        pid = str(p.get("id"))
        before = previous.get(pid)
        if before and (p.get("solutionCount"), p.get("comparisonCount")) == before[:2]:
            carried[pid] = before[2]
        else:
            to_fetch.append(pid)
    return to_fetch, carried


@dataclass
class _Lists:
    """What the solution-list fan-out of the problems step gathered."""

    warnings: list[str] = field(default_factory=list)
    quality: list[QualityRow] = field(default_factory=list)
    unscored: list[str] = field(default_factory=list)
    solutions: int = 0
    requests: int = 0
    done: int = 0


async def _solution_lists(
    client: Any, area: StagingArea, announced: dict[str, Any], to_fetch: list[str], concurrency: int
) -> _Lists:
    """Fetch and stage (``solutions``, ``solution_problems``) the solution lists of ``to_fetch``,
    ``concurrency`` at a time; a list whose length differs from its problem's ``solutionCount``
    (``announced``) is a data-quality row."""
    out = _Lists()
    semaphore = asyncio.Semaphore(concurrency)
    with area.writer("solutions") as sink, area.writer("solution_problems") as fetched:

        async def one(pid: str) -> None:
            async with semaphore:
                tally = Tally()
                try:
                    count = announced.get(pid)
                    solutions = await collect_pages(
                        client.solution_pages(pid),
                        f"solutions of {pid}",
                        out.warnings,
                        endpoint="solutions",
                        path=f"/problems/{pid}/solutions",
                        quality=out.quality,
                        tally=tally,
                        counted=("solutions", pid, count) if isinstance(count, int) else None,
                    )
                except NotFoundError:
                    raise _gone("problems", f"/problems/{pid}/solutions", pid, "/problems") from None
                finally:
                    out.done += 1
                    out.requests += tally.requests
                    report_progress("solutions", out.done, len(to_fetch))
            recorded = any(q.scope == pid for q in out.quality)
            if isinstance(count, int) and count != len(solutions) and not recorded:
                out.quality.append(quality_row("solutions", pid, count, len(solutions), COUNT_DISAGREES))
            ranks, by_score = competition_ranks(solutions)
            if not by_score:
                out.unscored.append(pid)
            sink.append(problem_id=[pid] * len(solutions), rank=ranks, raw=solutions)
            fetched.append(problem_id=[pid])
            out.solutions += len(solutions)

        report_progress("solutions", 0, len(to_fetch))
        await run_together(*(one(pid) for pid in to_fetch))
    return out


async def fetch_problems_step(plan: SnapshotPlan, staging_dir: str) -> StepReport:
    """Stage ``problems``, ``solutions``, ``solution_problems`` and ``solution_carryover``.

    ``GET /problems`` (``sort=oldest``; once the first page announces the page count, the remaining pages
    are fetched ``plan.concurrency`` at a time), then ``GET /problems/{id}/solutions`` of every listed
    problem, ``plan.concurrency`` problems at a time -- except problems whose ``solutionCount`` and
    ``comparisonCount`` equal those staged in ``previous_problems`` (the last complete snapshot; not staged
    on a full run): their stored solution list carries over. A listed problem without id, or one whose
    solutions answer 404 (the listing's ids are not the API's), raises :class:`UnrecognizedResponseError`
    naming the profile setting that fixes it; a list shorter than its announced total after a re-walk
    raises :class:`~solvelens.client.IncompleteListError`: the snapshot is never complete with records it
    cannot identify or could have read. Returns the step report: ``requests`` (HTTP requests sent),
    ``carried_lists`` (solution lists kept), ``data_quality`` (a solution list whose length differs from its
    problem's ``solutionCount``), figure ``refetched`` (problems whose list was read). Raises
    :class:`solvelens.client.PlatformError` when the platform keeps failing.
    """
    area = StagingArea(staging_dir)
    warnings: list[str] = []
    quality: list[QualityRow] = []
    tally = Tally()
    concurrency = plan.concurrency
    previous = {
        r["problem_id"]: (r["solution_count"], r["comparison_count"], r["manifest_id"])
        for r in _previous(area, "previous_problems")
    }
    async with step_client(plan) as client:
        problems = await collect_pages(
            client.problem_pages(sort="oldest", concurrency=concurrency),
            "problems",
            warnings,
            progress_step="problems",
            endpoint="problems",
            path="/problems",
            quality=quality,
            tally=tally,
        )
        to_fetch, carried = _split_problems(problems, previous)
        area.write_records("problems", problems)
        with area.writer("solution_carryover") as carry:
            carry.append(problem_id=list(carried), manifest_id=list(carried.values()))
        announced = {str(p.get("id")): p.get("solutionCount") for p in problems}
        lists = await _solution_lists(client, area, announced, to_fetch, concurrency)
    warnings += lists.warnings
    if lists.unscored:
        warnings.append(unscored_warning(sorted(lists.unscored)))
    return StepReport.of(
        "problems",
        {"problems": len(problems), "solutions_fetched": lists.solutions},
        warnings,
        carried_lists=len(carried),
        requests=tally.requests + lists.requests,
        steady_requests=tally.requests,
        announced=tally.announced,
        data_quality=quality + lists.quality,
        figures=ProblemsFigures(refetched=len(to_fetch), carried_over=len(carried)),
    )


def _split_bots(
    board: list[dict[str, Any]], previous: dict[str, tuple[int, int]]
) -> tuple[list[str], dict[str, int]]:
    """The leaderboard bots whose profile to fetch, and those carried over (id -> the profile version kept):
    an entry whose JSON is byte-identical to the last complete snapshot's."""
    to_fetch: list[str] = []
    carried: dict[str, int] = {}
    for entry in board:
        bot_id = str(entry.get("id"))
        before = previous.get(bot_id)
        if before is not None and version_key(dump_json(entry)) == before[0]:
            carried[bot_id] = before[1]
        else:
            to_fetch.append(bot_id)
    return to_fetch, carried


async def _profiles(client: Any, to_fetch: list[str], concurrency: int) -> list[dict[str, Any]]:
    """``GET /bots/{id}`` of each of ``to_fetch``, ``concurrency`` at a time, in order (a 404 for a listed
    bot: :class:`UnrecognizedResponseError`)."""
    semaphore = asyncio.Semaphore(concurrency)
    profiles: list[dict[str, Any] | None] = [None] * len(to_fetch)
    done = 0

    async def one(i: int, bot_id: str) -> None:
        nonlocal done
        async with semaphore:
            try:
                profiles[i] = dict(await client.get_bot(bot_id))
            except NotFoundError:
                raise _gone("leaderboard", f"/bots/{bot_id}", bot_id, "/leaderboard") from None
            finally:
                done += 1
                report_progress("bots", done, len(to_fetch))

    report_progress("bots", 0, len(to_fetch))
    await run_together(*(one(i, bot_id) for i, bot_id in enumerate(to_fetch)))
    return [p for p in profiles if p is not None]


async def fetch_leaderboard_step(plan: SnapshotPlan, staging_dir: str) -> StepReport:
    """Stage ``leaderboard``, ``bots`` and ``bot_carryover``.

    Every page of ``GET /leaderboard`` (rank 1 = top, by position in the walk; pages fetched ``concurrency``
    at a time once the page count is known), then ``GET /bots/{id}`` for each leaderboard bot whose listing
    entry changed since the last complete snapshot (staged ``previous_bots``): an entry whose JSON is
    byte-identical (same points, solutions, votes, accuracy, Elo, ``lastActiveAt``, status and name) keeps
    its stored profile (``bot_carryover``). Fields of a profile that can change while its listing entry does
    not (e.g. the scores of its top solutions, moved by other bots' votes) are as of the last refetch; a
    full run (``--full``) refetches every profile. A 404 for a listed bot fails the step (the listing's ids
    are not the API's: :class:`UnrecognizedResponseError` naming the profile setting), as does a leaderboard
    entry without id, or a leaderboard shorter than its announced total after a re-walk
    (:class:`~solvelens.client.IncompleteListError`).
    The report has ``requests``, ``carried_profiles`` (profiles kept), ``data_quality`` and the figures
    ``profiles_refetched``, ``profiles_carried_over``.
    """
    area = StagingArea(staging_dir)
    warnings: list[str] = []
    quality: list[QualityRow] = []
    tally = Tally()
    concurrency = plan.concurrency
    previous = {
        r["bot_id"]: (r["listing_version_id"], r["profile_version_id"])
        for r in _previous(area, "previous_bots")
    }
    async with step_client(plan) as client:
        board = await collect_pages(
            client.leaderboard_pages(concurrency=concurrency),
            "leaderboard",
            warnings,
            progress_step="leaderboard",
            endpoint="leaderboard",
            path="/leaderboard",
            quality=quality,
            tally=tally,
        )
        area.write_records("leaderboard", board, rank=list(range(1, len(board) + 1)))
        to_fetch, carried = _split_bots(board, previous)
        area.write_table(
            "bot_carryover",
            pa.table(
                {
                    "bot_id": pa.array(list(carried), pa.string()),
                    "version_id": pa.array(list(carried.values()), pa.uint64()),
                }
            ),
        )
        found = await _profiles(client, to_fetch, concurrency)
    area.write_records("bots", found)
    return StepReport.of(
        "leaderboard",
        {"leaderboard": len(board), "bots": len(found) + len(carried)},
        warnings,
        carried_profiles=len(carried),
        requests=tally.requests + len(to_fetch),
        steady_requests=tally.requests,
        announced=tally.announced,
        data_quality=quality,
        figures=LeaderboardFigures(profiles_refetched=len(found), profiles_carried_over=len(carried)),
    )


async def fetch_reference_step(plan: SnapshotPlan, staging_dir: str) -> StepReport:
    """Stage ``categories`` (``GET /categories``) and ``platform_stats`` (``GET /stats``, one record)."""
    area = StagingArea(staging_dir)
    async with step_client(plan) as client:
        both: list[Any] = await run_together(client.list_categories(), client.get_stats())
    categories, stats = both
    area.write_records("categories", [dict(c) for c in categories])
    area.write_records("platform_stats", [dict(stats)])
    report_progress("reference", 2, 2)
    return StepReport.of(
        "reference", {"categories": len(categories), "platform_stats_records": 1}, requests=2
    )


class ApiKeyRejectedError(RuntimeError):
    """The configured API key is unusable for ``GET /bot/me`` (malformed, unreadable, or rejected by the
    platform with 401/403); the message never contains the key and names the fix."""


async def fetch_bot_me_step(plan: SnapshotPlan, staging_dir: str) -> StepReport:
    """Stage ``bot_me`` (``GET /bot/me``) with the API key of :class:`solvelens.config.Settings`
    (``SOLVELENS_API_KEY`` or ``SOLVELENS_API_KEY_FILE``); the key is never a parameter, never logged.

    No key configured: nothing staged, the figures' ``skipped`` says why
    (:class:`~solvelens.flows.figures.BotMeFigures`). A malformed, unreadable or rejected key (401/403) raises
    :class:`ApiKeyRejectedError`, so the snapshot fails and writes nothing (a scheduled job never silently
    loses the bot's history); with ``allow_missing`` it is a warning instead and the public resources still
    make a complete snapshot (``plan.allow_missing_bot_me``).
    """
    allow_missing = plan.allow_missing_bot_me
    fix = "or pass --allow-missing-bot-me to snapshot without the bot's own profile"
    try:
        from solvelens.config import Settings  # pydantic-settings only when /bot/me is snapshotted

        key = Settings().resolved_api_key()
    except (InvalidApiKeyError, OSError) as exc:
        if not allow_missing:
            raise ApiKeyRejectedError(f"{exc}; {fix}") from None
        return StepReport.of(
            "bot_me", {"bot_me": 0}, [f"bot_me skipped: {exc}"], figures=BotMeFigures("invalid key")
        )
    if key is None:
        return StepReport.of("bot_me", {"bot_me": 0}, figures=BotMeFigures("no API key configured"))
    area = StagingArea(staging_dir)
    async with step_client(plan, api_key=key) as client:
        try:
            me = dict(await client.get_me())
        except (AuthenticationError, PermissionDeniedError) as exc:
            if not allow_missing:
                raise ApiKeyRejectedError(
                    f"the platform rejected the API key (HTTP {exc.status_code} on GET /bot/me); check "
                    f"SOLVELENS_API_KEY / --api-key, {fix}"
                ) from None
            skipped = BotMeFigures(f"HTTP {exc.status_code}")
            return StepReport.of("bot_me", {"bot_me": 0}, [f"bot_me skipped: {exc}"], figures=skipped)
    area.write_records("bot_me", [me])
    return StepReport.of("bot_me", {"bot_me": 1}, requests=1, figures=BotMeFigures())
