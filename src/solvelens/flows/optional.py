"""Fetch steps of the optional resources: what the real platform publishes beyond the interface.

Three resources (names as in ``SnapshotPlan.resources`` and ``snapshot --resources``), each its own step
(plain async functions, no Prefect, no store; the same report shape as :mod:`solvelens.flows.fetch`):

- ``activity`` (:func:`fetch_activity_step`): ``GET /activity?limit=50``, the feed's newest events, staged
  whole; the writer keeps the ones not stored yet. When the feed no longer reaches the newest event stored
  before (staged ``previous_activity``), the gap is staged and reported (:mod:`solvelens.flows.activity_gap`).
- ``llm_leaderboard`` (:func:`fetch_llm_leaderboard_step`): every page of ``GET /llm-leaderboard`` (offset
  paging on the real platform), rank = position in the walk.
- ``comparisons`` (:func:`fetch_comparisons_step`, after the problems step): ``GET
  /solutions/{id}/comparisons`` only for the solutions whose ``comparisonCount`` moved since their
  comparisons were last fetched (staged ``comparison_state``; ``pending_comparisons`` for problems whose
  solution list carried over): an unchanged re-snapshot sends no comparisons request. A vote names two
  solutions: one whose new votes all appeared in the lists fetched before it is not asked (:class:`Cover`).

Discovery, once per snapshot and at no extra cost: each resource's first request is the probe. An answer of
404 (405, 410, 501, or 401/403: not for a public snapshot) means the platform does not offer the resource: it
is recorded as ``not offered`` and the snapshot goes on. Any other failure fails the step as the interface's
resources do (a platform that errors is not a platform without the endpoint). Each step reports what became
of its resource in ``info.resources`` (:data:`STORED`, :data:`NOT_OFFERED`, :data:`UNCHANGED`); a resource the
plan leaves out is :data:`NOT_REQUESTED`. The writer records them in ``snapshots.resources``.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any, Final

import orjson
import pyarrow as pa

from solvelens.analysis.model_rankings import PLATFORM_SORT
from solvelens.client import APIStatusError, NotFoundError, Page, UnrecognizedResponseError
from solvelens.client.walk import endpoint_key
from solvelens.flows.activity_gap import StoredEvent, events_per_hour, find_gap, gap_sentence
from solvelens.flows.fetch import (
    DEFAULT_CONCURRENCY,
    _client,
    _report,
    _unidentified,
    collect_pages,
    report_progress,
    run_together,
)
from solvelens.store.staging import StagingArea

__all__ = [
    "ACTIVITY_LIMIT",
    "COMPARISONS_CAP",
    "NOT_OFFERED",
    "NOT_REQUESTED",
    "OPTIONAL_RESOURCES",
    "STORED",
    "UNCHANGED",
    "Cover",
    "Wanted",
    "fetch_activity_step",
    "fetch_comparisons_step",
    "fetch_llm_leaderboard_step",
    "not_offered",
    "solutions_to_compare",
]

#: The optional resources, by the names ``--resources`` takes.
OPTIONAL_RESOURCES: Final = ("activity", "comparisons", "llm_leaderboard")
#: What became of an optional resource in a snapshot (``snapshots.resources``).
STORED: Final = "stored"
NOT_OFFERED: Final = "not offered"
NOT_REQUESTED: Final = "not requested"
#: Comparisons only: no solution's comparison count moved since the last fetch, so nothing was asked.
UNCHANGED: Final = "unchanged"
#: Events asked of ``/activity`` (the real platform's maximum).
ACTIVITY_LIMIT: Final = 50
#: The most votes ``/solutions/{id}/comparisons`` returns (the real platform's: the newest 50).
COMPARISONS_CAP: Final = 50
#: Statuses meaning "this platform does not offer the endpoint (to a public client)".
_ABSENT: Final = frozenset({401, 403, 404, 405, 410, 501})
#: Solutions tried before a 404 naming the solution (not the route) counts as a broken listing.
_PROBES: Final = 3


def not_offered(exc: APIStatusError) -> bool:
    """Whether an error answer means the platform does not offer the endpoint (see the module docstring)."""
    return exc.status_code in _ABSENT


def _route_missing(exc: APIStatusError) -> bool:
    """A 404 for an unknown route (Fastify's ``Route GET:/x not found``, or a body that does not name the
    solution), as opposed to ``{"error": "Solution not found"}`` for a solution that is gone."""
    text = f"{exc.message} {exc.body_excerpt}".lower()
    return "route" in text or "solution" not in text


def _absent(step: str, resource: str, exc: APIStatusError) -> dict[str, Any]:
    return _report(
        step,
        {resource: 0},
        [],
        resources={resource: NOT_OFFERED},
        absent=f"HTTP {exc.status_code} on {exc.method} {endpoint_key(exc.path or '')}",
    )


async def fetch_activity_step(
    base_url: str, staging_dir: str, *, profile: str | None = None, max_rps: float | None = None
) -> dict[str, Any]:
    """Stage ``activity`` (``GET /activity?limit=50``: the feed's newest events, newest first) and, when the
    feed no longer reaches the newest event stored before (staged ``previous_activity``), ``activity_gap``
    (one row; a warning says which cadence would have caught the events). An event without ``id`` raises
    :class:`UnrecognizedResponseError` (nothing written). ``info``: ``resources``, ``fetched`` (events in
    the page), ``events_per_hour`` (measured over the page, platform time; ``None`` when it cannot tell),
    ``gap`` (the :class:`~solvelens.flows.activity_gap.ActivityGap` as a dict, or ``None``)."""
    area = StagingArea(staging_dir)
    async with _client(base_url, profile=profile, max_rps=max_rps) as client:
        try:
            events = await client.activity(ACTIVITY_LIMIT)
        except APIStatusError as exc:
            if not_offered(exc):
                return _absent("activity", "activity", exc)
            raise
    for position, event in enumerate(events, start=1):
        if not isinstance(event, dict) or event.get("id") is None:
            raise _unidentified("activity", "/activity", position, event)
    area.write_records("activity", events)
    warnings: list[str] = []
    previous = area.read_table("previous_activity")
    newest = StoredEvent(**previous.to_pylist()[0]) if previous is not None and previous.num_rows else None
    gap = find_gap(events, newest)
    if gap is not None:
        area.write_table("activity_gap", pa.Table.from_pylist([gap.as_dict()]))
        warnings.append(gap_sentence(gap))
    elif newest is not None and events and not any(str(e["id"]) == newest.event_id for e in events):
        warnings.append(
            f"activity: the feed no longer holds event {newest.event_id} (the newest stored) although it "
            "reaches back beyond it: the platform deleted it or reset its feed"
        )
    report_progress("activity", 1, 1)
    return _report(
        "activity",
        {"activity": len(events)},
        warnings,
        resources={"activity": STORED},
        fetched=len(events),
        events_per_hour=events_per_hour(events),
        gap=None if gap is None else gap.as_dict(),
    )


async def _pages_or_absent(pages: AsyncIterator[Page], seen: list[int]) -> AsyncIterator[Page]:
    """The pages of a walk, counting them in ``seen[0]`` (so a failure can be told apart: first page or
    later)."""
    async for page in pages:
        seen[0] += 1
        yield page


async def fetch_llm_leaderboard_step(
    base_url: str, staging_dir: str, *, profile: str | None = None, max_rps: float | None = None
) -> dict[str, Any]:
    """Stage ``llm_leaderboard``: every page of ``GET /llm-leaderboard?sort=avg_score``
    (:data:`solvelens.analysis.model_rankings.PLATFORM_SORT`, sent so the order is the one the report names;
    rank 1 = first in the walk). A model without ``id`` raises :class:`UnrecognizedResponseError`; an error
    after the first page fails the step (the walk broke, the endpoint exists). ``info``: ``resources``."""
    area = StagingArea(staging_dir)
    warnings: list[str] = []
    seen = [0]
    async with _client(base_url, profile=profile, max_rps=max_rps) as client:
        try:
            models = await collect_pages(
                _pages_or_absent(client.llm_leaderboard_pages(sort=PLATFORM_SORT), seen),
                "llm_leaderboard",
                warnings,
                progress_step="llm_leaderboard",
                endpoint="llm_leaderboard",
                path="/llm-leaderboard",
            )
        except APIStatusError as exc:
            if seen[0] == 0 and not_offered(exc):
                return _absent("llm_leaderboard", "llm_leaderboard", exc)
            raise
    area.write_records("llm_leaderboard", models, rank=list(range(1, len(models) + 1)))
    return _report(
        "llm_leaderboard", {"llm_leaderboard": len(models)}, warnings, resources={"llm_leaderboard": STORED}
    )


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


@dataclass(frozen=True)
class Wanted:
    """A solution whose comparisons may be needed: its ``comparisonCount`` as listed now and at its last
    fetch (``None``: unknown / never fetched)."""

    solution_id: str
    problem_id: str
    count: int | None
    last: int | None

    @property
    def delta(self) -> int | None:
        """Votes since its last fetch (``None``: unknown)."""
        return None if self.count is None else self.count - (self.last or 0)


def solutions_to_compare(area: StagingArea) -> list[Wanted]:
    """Every solution whose comparisons to fetch, from the staging area after the problems step: the
    solutions fetched this run whose count moved since their last fetch (``comparison_state``; a count of 0
    has nothing to fetch; an unknown count is always fetched), and the ``pending_comparisons`` of problems
    whose solution list carried over."""
    state_table = area.read_table("comparison_state")
    state = {} if state_table is None else dict(zip(*state_table.to_pydict().values(), strict=True))
    wanted: list[Wanted] = []
    staged = area.read_table("solutions")
    if staged is not None:
        for pid, raw in zip(staged["problem_id"].to_pylist(), staged["raw"].to_pylist(), strict=True):
            record = orjson.loads(raw)
            sid, count = str(record.get("id")), _count(record.get("comparisonCount"))
            if count == 0 or (count is not None and state.get(sid) == count):
                continue
            wanted.append(Wanted(sid, pid, count, state.get(sid)))
    carried_table = area.read_table("solution_carryover")
    carried = set() if carried_table is None else set(carried_table["problem_id"].to_pylist())
    pending = area.read_table("pending_comparisons")
    for row in [] if pending is None else pending.to_pylist():
        if row["problem_id"] in carried:
            wanted.append(
                Wanted(row["solution_id"], row["problem_id"], row["comparison_count"], row["last_count"])
            )
    return wanted


class Cover:
    """Votes seen this run that the store did not hold, credited to the other solution of each: a solution
    whose new votes were all seen in the other solutions' lists (and whose own list would not be capped at
    :data:`COMPARISONS_CAP`) needs no request of its own. Never skips what it cannot prove: a vote stored
    before, a vote without both solution ids, an unknown count or a list longer than the cap: "ask"."""

    def __init__(self, stored: set[str]) -> None:
        self.seen = stored
        self.credit: Counter[str] = Counter()

    def add(self, solution_id: str, votes: list[dict[str, Any]]) -> None:
        """Credit the new votes of ``solution_id``'s list to their other solutions."""
        for vote in votes:
            ident = str(vote.get("id"))
            if ident in self.seen:
                continue
            self.seen.add(ident)
            for side in (vote.get("solutionAId"), vote.get("solutionBId")):
                if side is not None and str(side) != solution_id:
                    self.credit[str(side)] += 1

    def uncovered(self, w: Wanted) -> int:
        """Votes of ``w`` since its last fetch not seen in another list yet (unknown: a very large number)."""
        delta = w.delta
        return 1 << 62 if delta is None else delta - self.credit[w.solution_id]

    def covered(self, w: Wanted) -> bool:
        """Whether every vote of ``w`` since its last fetch was seen in another list this run."""
        delta = w.delta
        return (
            delta is not None
            and w.count is not None
            and w.count <= COMPARISONS_CAP
            and (self.credit[w.solution_id] >= delta)
        )


def _queues(wanted: list[Wanted]) -> list[list[Wanted]]:
    """Per problem, its solutions to fetch, most votes to catch up on first (unknown counts first)."""
    by_problem: dict[str, list[Wanted]] = {}
    for w in wanted:
        by_problem.setdefault(w.problem_id, []).append(w)
    big = 1 << 62
    return [sorted(q, key=lambda w: -(big if w.delta is None else w.delta)) for q in by_problem.values()]


def _next_batch(queues: list[list[Wanted]], cover: Cover, size: int) -> tuple[list[Wanted], list[Wanted]]:
    """The next requests (per pass, one per problem: the solution with the most votes not yet seen in a list
    fetched before; up to ``size``) and the solutions found covered on the way (no request needed)."""
    batch: list[Wanted] = []
    skipped: list[Wanted] = []
    while len(batch) < size and any(queues):
        for queue in queues:
            skipped.extend(w for w in queue if cover.covered(w))
            queue[:] = [w for w in queue if not cover.covered(w)]
            if queue and len(batch) < size:
                best = max(range(len(queue)), key=lambda i: cover.uncovered(queue[i]))
                batch.append(queue.pop(best))
    return batch, skipped


def _gone(ids: list[str]) -> UnrecognizedResponseError:
    return UnrecognizedResponseError(
        f"GET /solutions/{{id}}/comparisons -> 404 'not found' for {len(ids)} solutions the listing just "
        f"gave ({', '.join(ids[:3])}): the listed ids are not the ids this API takes; the snapshot writes "
        "nothing: "
        'add to your profile the listing\'s id field, e.g. [endpoints.solutions] id_field = "<the field>"',
        endpoint="comparisons",
        keys=[],
    )


async def _probe(
    client: Any, queue: list[Wanted]
) -> tuple[Wanted | None, list[dict[str, Any]] | None, APIStatusError | None]:
    """Ask for the comparisons of ``queue``'s first solutions (popped) one at a time until one answers:
    returns it and its answer (``None, None``: every one was deleted meanwhile) or, when the platform does
    not offer the endpoint, the error saying so. A 404 naming the solution (not the route) tries the next
    one; after :data:`_PROBES` of them the listing's ids are not the API's
    (:class:`UnrecognizedResponseError`)."""
    gone: list[str] = []
    while queue:
        w = queue.pop(0)
        try:
            return w, await client.comparisons(w.solution_id), None
        except APIStatusError as exc:
            if isinstance(exc, NotFoundError) and not _route_missing(exc):
                gone.append(w.solution_id)
                if len(gone) >= _PROBES:
                    raise _gone(gone) from None
                continue
            if not_offered(exc):
                return None, None, exc
            raise
    return None, None, None


class _Sink:
    """Stages what the comparisons step fetched (``comparisons``, ``comparison_fetches``) and counts it."""

    def __init__(self, rows: Any, fetches: Any) -> None:
        self.rows, self.fetches = rows, fetches
        self.requested = self.fetched = self.capped = self.skipped = self.gone = 0

    def keep(self, w: Wanted, votes: list[dict[str, Any]] | None) -> None:
        """One solution's answer (``None``: covered by other lists, not asked)."""
        if votes is None:
            self.skipped += 1
        else:
            self.requested += 1
            self.fetched += len(votes)
            self.capped += w.count is not None and w.count > len(votes)
            n = len(votes)
            self.rows.append(problem_id=[w.problem_id] * n, solution_id=[w.solution_id] * n, raw=votes)
        self.fetches.append(
            solution_id=[w.solution_id],
            problem_id=[w.problem_id],
            comparison_count=[w.count],
            returned=[None if votes is None else len(votes)],
        )


async def fetch_comparisons_step(
    base_url: str,
    staging_dir: str,
    *,
    concurrency: int = DEFAULT_CONCURRENCY,
    profile: str | None = None,
    max_rps: float | None = None,
) -> dict[str, Any]:
    """Stage ``comparisons`` (each fetched solution's comparisons, with its problem and solution id) and
    ``comparison_fetches`` (per solution: its listed ``comparisonCount`` and how many the endpoint returned,
    null when not asked) for :func:`solutions_to_compare`'s solutions. Runs after the problems step (it
    reads that step's staged solutions). Requests go in rounds (one solution per problem per round,
    ``concurrency`` in flight, the first alone: the probe); a solution whose new votes all appeared in
    lists fetched before is not asked (:class:`Cover`: each vote names two solutions). Nothing to fetch:
    :data:`UNCHANGED`, no request sent. A solution that answers 404 after the probe was deleted meanwhile (a
    warning). ``info``: ``resources``, ``requested`` (requests sent), ``skipped`` (covered by other lists),
    ``fetched`` (comparisons returned), ``capped`` (solutions with more votes than their list returned)."""
    area = StagingArea(staging_dir)
    wanted = solutions_to_compare(area)
    if not wanted:
        return _report(
            "comparisons", {"comparisons": 0}, [], resources={"comparisons": UNCHANGED}, requested=0
        )
    stored = area.read_table("stored_comparisons")
    cover = Cover(set() if stored is None else set(stored["comparison_id"].to_pylist()))
    queues = _queues(wanted)
    async with _client(base_url, concurrency=concurrency, profile=profile, max_rps=max_rps) as client:
        first, votes, absent = await _probe(client, queues[0])
        if absent is not None:
            return _absent("comparisons", "comparisons", absent)
        with area.writer("comparisons") as rows, area.writer("comparison_fetches") as fetches:
            sink = _Sink(rows, fetches)
            if first is not None and votes is not None:
                sink.keep(first, votes)
                cover.add(first.solution_id, votes)
            await _rounds(client, queues, cover, sink, concurrency, len(wanted))
    warnings = []
    if sink.gone:
        warnings.append(
            f"comparisons: {sink.gone} solutions were deleted between the listing and this request"
        )
    return _report(
        "comparisons",
        {"comparisons": sink.fetched},
        warnings,
        resources={"comparisons": STORED},
        requested=sink.requested,
        skipped=sink.skipped,
        fetched=sink.fetched,
        capped=sink.capped,
    )


async def _rounds(
    client: Any, queues: list[list[Wanted]], cover: Cover, sink: _Sink, concurrency: int, total: int
) -> None:
    """Fetch what :func:`_next_batch` hands out, round after round, until every queue is empty."""
    semaphore = asyncio.Semaphore(concurrency)

    async def one(w: Wanted) -> None:
        async with semaphore:
            try:
                votes = await client.comparisons(w.solution_id)
            except NotFoundError:
                sink.gone += 1
                return
        sink.keep(w, votes)
        cover.add(w.solution_id, votes)
        report_progress("comparisons", sink.requested + sink.skipped + sink.gone, total)

    while any(queues):
        batch, skipped = _next_batch(queues, cover, max(concurrency, sum(1 for q in queues if q)))
        for w in skipped:
            sink.keep(w, None)
        await run_together(*(one(w) for w in batch))
    report_progress("comparisons", total, total)
