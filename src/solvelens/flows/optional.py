"""Fetch steps of the optional resources: what the real platform publishes beyond the interface.

The optional resources are declared in :mod:`solvelens.resources` (names as in ``SnapshotPlan.resources``
and ``snapshot --resources``); each is fetched by a step (plain async functions, no Prefect, no store; the
same report shape as :mod:`solvelens.flows.fetch`):

- ``activity`` (:func:`fetch_activity_step`): ``GET /activity?limit=50``, the feed's newest events, staged
  whole; the writer keeps the ones not stored yet. When the feed no longer reaches the newest event stored
  before (staged ``previous_activity``), the gap is staged and reported (:mod:`solvelens.flows.activity_gap`).
- every optional list (:func:`fetch_list_step`, one step per declared list, e.g. the platform's model board):
  every page of its endpoint with its declared parameters; a ranked one's rank = position in the walk.
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
import heapq
import itertools
from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from typing import Any, Final

import orjson
import pyarrow as pa

from solvelens.client import APIStatusError, NotFoundError, Page, UnrecognizedResponseError
from solvelens.client.endpoints import ENDPOINTS
from solvelens.client.ratelimit import shared_pacer
from solvelens.client.walk import endpoint_key
from solvelens.flows.activity_gap import (
    StoredEvent,
    events_per_hour,
    find_gap,
    gap_sentence,
    page_span_s,
)
from solvelens.flows.backlog import reads_to_go
from solvelens.flows.budget import (
    Quota,
    Spent,
    VoteShare,
    quota_room,
    snapshots_to_go,
)
from solvelens.flows.fetch import (
    Tally,
    _unidentified,
    collect_pages,
    report_progress,
    run_together,
    step_client,
)
from solvelens.flows.figures import (
    ActivityFigures,
    ComparisonsFigures,
    OptionalFigures,
    QuotaFigures,
)
from solvelens.flows.plan import SnapshotPlan
from solvelens.resources import optional_names
from solvelens.resources import resource as stored_resource
from solvelens.store.reports import QualityRow, StepReport, VoteFetch
from solvelens.store.staging import StagingArea

__all__ = [
    "ACTIVITY_LIMIT",
    "COMPARISONS_CAP",
    "NOT_OFFERED",
    "NOT_REQUESTED",
    "OPTIONAL",
    "OPTIONAL_RESOURCES",
    "STORED",
    "UNCHANGED",
    "Cover",
    "Wanted",
    "audit_candidates",
    "fetch_activity_step",
    "fetch_comparisons_step",
    "fetch_list_step",
    "listed_now",
    "not_offered",
    "solutions_to_compare",
]

#: The optional resources, by the names ``--resources`` takes (declared in :mod:`solvelens.resources`).
OPTIONAL_RESOURCES: Final = optional_names()
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
#: The kind the shared pacer records the optional steps' requests under (``stats.kinds``).
OPTIONAL: Final = "optional"
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


def _absent(
    step: str, resource: str, exc: APIStatusError, figures: type[OptionalFigures] = OptionalFigures
) -> StepReport:
    """The report of a step whose resource the platform does not offer (``figures``: the step's kind)."""
    absent = f"HTTP {exc.status_code} on {exc.method} {endpoint_key(exc.path or '')}"
    return StepReport.of(
        step, {resource: 0}, resources={resource: NOT_OFFERED}, figures=figures(absent=absent)
    )


async def fetch_activity_step(plan: SnapshotPlan, staging_dir: str) -> StepReport:
    """Stage ``activity`` (``GET /activity?limit=50``: the feed's newest events, newest first) and, when the
    feed no longer reaches the newest event stored before (staged ``previous_activity``), ``activity_gap``
    (one row; a warning says which cadence would have caught the events). An event without ``id`` raises
    :class:`UnrecognizedResponseError` (nothing written). The report: ``resources``, figures ``fetched``
    (events in the page), ``events_per_hour`` (measured over the page, platform time; ``None`` when it cannot
    tell or the page spans less than ``MIN_RATE_SPAN``: too short to rate), ``span_s`` (the page's span,
    seconds), ``gap`` (the :class:`~solvelens.flows.activity_gap.ActivityGap` as a dict, or ``None``)."""
    area = StagingArea(staging_dir)
    async with step_client(plan, kind=OPTIONAL) as client:
        try:
            events = await client.activity(ACTIVITY_LIMIT)
        except APIStatusError as exc:
            if not_offered(exc):
                return _absent("activity", "activity", exc, ActivityFigures)
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
    return StepReport.of(
        "activity",
        {"activity": len(events)},
        warnings,
        resources={"activity": STORED},
        figures=ActivityFigures(
            fetched=len(events),
            events_per_hour=events_per_hour(events),
            span_s=page_span_s(events),
            gap=None if gap is None else gap.as_dict(),
        ),
    )


async def _pages_or_absent(pages: AsyncIterator[Page], seen: list[int]) -> AsyncIterator[Page]:
    """The pages of a walk, counting them in ``seen[0]`` (so a failure can be told apart: first page or
    later)."""
    async for page in pages:
        seen[0] += 1
        yield page


async def fetch_list_step(plan: SnapshotPlan, staging_dir: str, *, resource: str) -> StepReport:
    """Stage the optional list ``resource`` (its declaration: :func:`solvelens.resources.resource`): every
    page of its endpoint (the client's registry: path, paging, id field), sent with the declared ``params``
    (e.g. the model board's ``sort=avg_score``, so the order is the one the report names); a ranked resource
    gets its position in the walk (1 = first). A record without its id field raises
    :class:`UnrecognizedResponseError`; an error after the first page fails the step (the walk broke, the
    endpoint exists); an absent endpoint on the first request is ``not offered``. The report: ``resources``,
    ``announced`` (the total the platform announced, e.g. ``pagination.total``; ``None`` when none),
    ``request`` (``{"path", "params"}``: the request as sent) and ``data_quality`` (a total below the records
    served)."""
    declared = stored_resource(resource)
    assert declared.endpoint is not None, resource
    endpoint = ENDPOINTS[declared.endpoint]
    params = dict(declared.params)
    area = StagingArea(staging_dir)
    warnings: list[str] = []
    quality: list[QualityRow] = []
    tally = Tally()
    seen = [0]
    async with step_client(plan, kind=OPTIONAL) as client:
        try:
            records = await collect_pages(
                _pages_or_absent(client.iter_pages(endpoint.path, params=params or None), seen),
                resource,
                warnings,
                progress_step=resource,
                endpoint=endpoint.name,
                path=endpoint.path,
                quality=quality,
                tally=tally,
                id_field=endpoint.id_field,
            )
        except APIStatusError as exc:
            if seen[0] == 0 and not_offered(exc):
                return _absent(resource, resource, exc)
            raise
    rank = {"rank": list(range(1, len(records) + 1))} if declared.ranked else {}
    area.write_records(resource, records, **rank)
    return StepReport.of(
        resource,
        {resource: len(records)},
        warnings,
        resources={resource: STORED},
        announced=tally.announced,
        request={"path": endpoint.path, "params": params},
        data_quality=quality,
        figures=OptionalFigures(),
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


def audit_candidates(area: StagingArea, exclude: set[str]) -> list[Wanted]:
    """The solutions whose vote list is trusted by its count (staged ``audit_comparisons``: the count equals
    that of the last fetch), longest unread first, but those in ``exclude`` (wanted anyway)."""
    staged = area.read_table("audit_comparisons")
    rows = [] if staged is None else staged.to_pylist()
    return [
        Wanted(r["solution_id"], r["problem_id"], r["comparison_count"], r["comparison_count"])
        for r in rows
        if r["solution_id"] not in exclude
    ]


def listed_now(area: StagingArea, exclude: set[str]) -> list[Wanted]:
    """The solutions fetched this run (staged ``solutions``) but those in ``exclude``: what ``--budget
    all`` re-reads beyond :func:`audit_candidates`, which knows only the previous snapshot's solutions, so a
    solution new since then whose count is 0 (a deadlocked vote between two new solutions: no count moved)
    is read by this snapshot."""
    staged = area.read_table("solutions")
    out: list[Wanted] = []
    if staged is None:
        return out
    for pid, raw in zip(staged["problem_id"].to_pylist(), staged["raw"].to_pylist(), strict=True):
        record = orjson.loads(raw)
        sid, count = str(record.get("id")), _count(record.get("comparisonCount"))
        if sid not in exclude:
            exclude.add(sid)
            out.append(Wanted(sid, pid, count, count))
    return out


class Cover:
    """Votes known for each solution: those stored before (``stored_votes``: per solution, the stored votes
    naming it) and those seen this run in other solutions' lists (each vote names two solutions). A solution
    whose count is reached (and whose own list would not be capped at :data:`COMPARISONS_CAP`) needs no
    request of its own. Never skips what it cannot prove: a vote without both solution ids, an unknown count
    or a list longer than the cap: "ask"."""

    def __init__(self, stored: set[str], stored_votes: dict[str, int] | None = None) -> None:
        self.seen = stored
        self.stored_votes = stored_votes or {}
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
        """Votes of ``w`` not known yet (unknown count: a very large number)."""
        if w.count is None:
            return 1 << 62
        known = self.stored_votes.get(w.solution_id, 0) if self.stored_votes else (w.last or 0)
        return w.count - known - self.credit[w.solution_id]

    def covered(self, w: Wanted) -> bool:
        """Whether every vote of ``w`` is known (stored, or seen in another list this run)."""
        return w.count is not None and w.count <= COMPARISONS_CAP and self.uncovered(w) <= 0


class _Plan:
    """The vote lists of one snapshot, in the order they are asked: the audit share first (trusted lists,
    longest unread first), then the lists whose count moved, the most votes not known yet first (one per
    problem per batch: the votes of a problem are shared by its solutions), up to ``allowance`` requests.
    The lists wait in a max-heap on their votes not known yet; a vote seen lowers another list's figure, so
    a popped entry whose figure fell is pushed back with the new one (a lazy heap: each batch costs its
    size times log of the backlog, not the backlog)."""

    def __init__(
        self, audit: list[Wanted], wanted: list[Wanted], cover: Cover, allowance: int | None
    ) -> None:
        self.audit, self.cover, self.allowance = list(audit), cover, allowance
        self.audit_ids = {w.solution_id for w in audit}
        self._seq = itertools.count()
        # Ties on the votes not known are broken by solution id, not by the order the lists were staged in
        # (the concurrent fetch stages them as answers arrive): the same store and platform give the same
        # requests, the same coverage and the same prediction on every run.
        self._heap: list[tuple[int, int, Wanted]] = [
            (-cover.uncovered(w), next(self._seq), w) for w in sorted(wanted, key=lambda w: w.solution_id)
        ]
        heapq.heapify(self._heap)

    @property
    def wanted(self) -> list[Wanted]:
        """The lists whose count moved not asked yet (any order)."""
        return [w for _, _, w in self._heap]

    def room(self, sent: int) -> int | None:
        """Requests still allowed after ``sent`` (``None``: no bound)."""
        return None if self.allowance is None else max(0, self.allowance - sent)

    def _skippable(self, w: Wanted) -> bool:
        # --budget all reads every list whose count moved: a count can miss a vote its list holds.
        return self.allowance is not None and self.cover.covered(w)

    def _pop(
        self, skipped: list[Wanted], busy: set[str], aside: list[tuple[int, int, Wanted]]
    ) -> Wanted | None:
        """The wanted list with the most votes not known yet whose problem is not in ``busy``; those found
        covered on the way go to ``skipped``, those of a busy problem ``aside``."""
        while self._heap:
            key, seq, w = heapq.heappop(self._heap)
            if self._skippable(w):
                skipped.append(w)
                continue
            now = -self.cover.uncovered(w)
            if now != key:
                heapq.heappush(self._heap, (now, seq, w))
                continue
            if w.problem_id in busy:
                aside.append((key, seq, w))
                continue
            return w
        return None

    def covered(self) -> list[Wanted]:
        """Take out (and return) the wanted lists whose votes are all known by now (one pass over what is
        left; none without a bound)."""
        if self.allowance is None:
            return []
        done = [w for _, _, w in self._heap if self.cover.covered(w)]
        if done:
            self._heap = [e for e in self._heap if not self.cover.covered(e[2])]
            heapq.heapify(self._heap)
        return done

    def next_batch(self, size: int, sent: int, skipped: list[Wanted]) -> list[Wanted]:
        """The next requests (at most ``size`` and what the allowance leaves after ``sent``); the lists
        found covered on the way are appended to ``skipped``."""
        room = self.room(sent)
        room = size if room is None else min(size, room)
        batch = self.audit[:room]
        del self.audit[:room]
        busy: set[str] = set()
        aside: list[tuple[int, int, Wanted]] = []
        while len(batch) < room and (w := self._pop(skipped, busy, aside)) is not None:
            busy.add(w.problem_id)
            batch.append(w)
        for entry in aside:
            heapq.heappush(self._heap, entry)
        return batch

    def first(self) -> Wanted | None:
        """Pop the first list to ask (the probe): an audit, else the one with the most votes not known."""
        if self.room(0) == 0:
            return None
        if self.audit:
            return self.audit.pop(0)
        skipped: list[Wanted] = []
        w = self._pop(skipped, set(), [])
        for s in skipped:  # nothing is known yet beyond the store: put them back for the sink
            heapq.heappush(self._heap, (-self.cover.uncovered(s), next(self._seq), s))
        return w

    def backlog(self) -> list[tuple[str, int, bool]]:
        """The lists left, as :func:`solvelens.flows.backlog.reads_to_go` takes them."""
        return [
            (w.problem_id, max(0, self.cover.uncovered(w)), w.count is None or w.count > COMPARISONS_CAP)
            for _, _, w in self._heap
        ]


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
    client: Any, plan: _Plan
) -> tuple[Wanted | None, list[dict[str, Any]] | None, APIStatusError | None, int]:
    """Ask for the comparisons of the plan's first lists one at a time until one answers: returns it, its
    answer (``None, None``: none left, or every one was deleted meanwhile) or, when the platform does not
    offer the endpoint, the error saying so; and the requests sent. A 404 naming the solution (not the
    route) tries the next one; after :data:`_PROBES` of them the listing's ids are not the API's
    (:class:`UnrecognizedResponseError`)."""
    gone: list[str] = []
    while (w := plan.first()) is not None:
        try:
            return w, await client.comparisons(w.solution_id), None, len(gone) + 1
        except APIStatusError as exc:
            if isinstance(exc, NotFoundError) and not _route_missing(exc):
                gone.append(w.solution_id)
                if len(gone) >= _PROBES:
                    raise _gone(gone) from None
                continue
            if not_offered(exc):
                return None, None, exc, len(gone) + 1
            raise
    return None, None, None, len(gone)


class _Sink:
    """Stages what the comparisons step fetched (``comparisons``, ``comparison_fetches``) and counts it."""

    def __init__(self, rows: Any, fetches: Any, audit_ids: set[str]) -> None:
        self.rows, self.fetches, self.audit_ids = rows, fetches, audit_ids
        self.requested = self.fetched = self.capped = self.skipped = self.gone = self.audited = 0

    def keep(self, w: Wanted, votes: list[dict[str, Any]] | None) -> None:
        """One solution's answer (``None``: covered by other lists, not asked)."""
        if votes is None:
            self.skipped += 1
        else:
            self.requested += 1
            self.audited += w.solution_id in self.audit_ids
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

    def figures(self, budget: ComparisonsFigures) -> ComparisonsFigures:
        """The step's figures: the ``budget``'s and what was fetched."""
        return replace(
            budget,
            requested=self.requested,
            requests=self.requested + self.gone,
            skipped=self.skipped,
            audited=self.audited,
            fetched=self.fetched,
            capped=self.capped,
        )


def _stored_cover(area: StagingArea) -> Cover:
    stored = area.read_table("stored_comparisons")
    votes = area.read_table("stored_votes")
    return Cover(
        set() if stored is None else set(stored["comparison_id"].to_pylist()),
        None if votes is None else dict(zip(*votes.to_pydict().values(), strict=True)),
    )


def _quota(base_url: str, max_rps: float | None, spent: Spent) -> tuple[Quota | None, Quota | None]:
    """What the platform's announced quota leaves this snapshot's vote lists (from the last answer the
    snapshot's shared pacer read) and, for the prediction, a later snapshot starting in a fresh window
    (``None, None``: no quota announced)."""
    pacer = shared_pacer(base_url, max_rps)
    windows = pacer.headroom()
    now = quota_room(list(windows), spent, pacer.burst)
    fresh = [(limit - spent.steady, limit) for _, limit in windows]
    return now, quota_room(fresh, spent, pacer.burst) if fresh else None


def _budget_figures(
    share: VoteShare, reads: int, to_go: int | None, pending: int, budget: str
) -> ComparisonsFigures:
    """The budget's figures for the summary (``budget``, ``budget_spec``, ``pending``, ``reads_to_go``,
    ``snapshots_to_go``, ``audit_cycle``, ``quota``); what was fetched: :meth:`_Sink.figures`."""
    quota = share.quota
    return ComparisonsFigures(
        budget=share.allowance,
        budget_spec=budget,
        pending=pending,
        reads_to_go=reads,
        snapshots_to_go=to_go,
        audit_cycle=share.audit_cycle,
        quota=None if quota is None else QuotaFigures(quota.left, quota.reserve, quota.room),
    )


async def fetch_comparisons_step(plan: SnapshotPlan, staging_dir: str, *, spent: Spent) -> StepReport:
    """Stage ``comparisons`` (each fetched solution's comparisons, with its problem and solution id) and
    ``comparison_fetches`` (per solution: its listed ``comparisonCount`` and how many the endpoint returned,
    null when not asked) for :func:`solutions_to_compare`'s solutions and a share of :func:`audit_candidates`,
    within the budget (``plan.budget``: ``--budget`` parsed, :mod:`solvelens.flows.budget`; ``spent``: what
    the other steps sent, :func:`solvelens.flows.budget.spent_by`) and what an announced quota leaves without
    waiting. Runs after the other steps (it reads the problems step's staged solutions and their request
    counts). Requests go in batches (``plan.concurrency`` in flight, the first alone: the probe), highest
    value first; a solution whose votes are all known (stored, or seen in lists fetched before) is not asked
    (:class:`Cover`); lists the budget leaves are pending: the next snapshots fetch them. Nothing to fetch:
    :data:`UNCHANGED`, no request sent. A solution that answers 404 after the probe was deleted meanwhile (a
    warning). The report: ``resources``, ``votes`` (:class:`~solvelens.store.reports.VoteFetch`), figures
    ``requested`` (requests sent), ``skipped`` (covered by other lists), ``audited`` (trusted lists re-read),
    ``fetched`` (comparisons returned), ``capped`` (solutions with more votes than their list returned),
    ``pending`` (lists), ``reads_to_go`` (requests they are predicted to take:
    :mod:`solvelens.flows.backlog`), ``budget`` (requests allowed; ``None``: all), ``snapshots_to_go``,
    ``audit_cycle``, ``quota`` (``left``, ``reserve``, ``room`` in requests; ``None`` without a quota)."""
    area = StagingArea(staging_dir)
    wanted = solutions_to_compare(area)
    audits = audit_candidates(area, {w.solution_id for w in wanted})
    parsed, used, concurrency = plan.budget, spent, plan.concurrency
    if parsed.unbounded:  # every list at once: also those new since the last snapshot, whatever their count
        audits += listed_now(area, {w.solution_id for w in wanted} | {a.solution_id for a in audits})
    quota, fresh = _quota(plan.base_url, plan.max_rps, used)
    share = VoteShare.of(parsed, used, len(audits), quota=quota, pending=bool(wanted))
    todo = _Plan(audits[: share.audit], wanted, _stored_cover(area), share.allowance)
    if not wanted and not share.audit:
        info = _budget_figures(share, 0, 0, 0, plan.budget.spec)
        unchanged = {"comparisons": UNCHANGED}
        votes_of = VoteFetch(budget=share.allowance, snapshots_to_go=0, audit_cycle=share.audit_cycle)
        return StepReport.of(
            "comparisons", {"comparisons": 0}, resources=unchanged, votes=votes_of, figures=info
        )
    async with step_client(plan, kind=OPTIONAL) as client:
        first, votes, absent, sent = await _probe(client, todo)
        if absent is not None:
            return _absent("comparisons", "comparisons", absent, ComparisonsFigures)
        with area.writer("comparisons") as rows, area.writer("comparison_fetches") as fetches:
            sink = _Sink(rows, fetches, todo.audit_ids)
            sink.gone = max(0, sent - 1) if first is not None else sent
            if first is not None and votes is not None:
                sink.keep(first, votes)
                todo.cover.add(first.solution_id, votes)
            await _rounds(client, todo, sink, concurrency, len(wanted) + len(todo.audit_ids))
    warnings = []
    if sink.gone:
        warnings.append(
            f"comparisons: {sink.gone} solutions were deleted between the listing and this request"
        )
    left = len(todo.wanted)
    reads = reads_to_go(todo.backlog())
    to_go = snapshots_to_go(parsed, used, len(audits) + len(wanted) - left, left, reads, fresh)
    fetched = VoteFetch(
        requested=sink.requested,
        budget=share.allowance,
        pending=left,
        snapshots_to_go=to_go,
        audited=sink.audited,
        audit_cycle=share.audit_cycle,
    )
    return StepReport.of(
        "comparisons",
        {"comparisons": sink.fetched},
        warnings,
        resources={"comparisons": STORED},
        votes=fetched,
        requests=sink.requested + sink.gone,
        figures=sink.figures(_budget_figures(share, reads, to_go, left, plan.budget.spec)),
    )


async def _rounds(client: Any, plan: _Plan, sink: _Sink, concurrency: int, total: int) -> None:
    """Fetch what :meth:`_Plan.next_batch` hands out, batch after batch, until the plan or its allowance is
    exhausted; the lists found covered on the way (and, at the end, those left that are covered by now) are
    recorded as skipped (no request)."""
    semaphore = asyncio.Semaphore(concurrency)

    async def one(w: Wanted) -> None:
        async with semaphore:
            try:
                votes = await client.comparisons(w.solution_id)
            except NotFoundError:
                sink.gone += 1
                return
        sink.keep(w, votes)
        plan.cover.add(w.solution_id, votes)
        report_progress("comparisons", sink.requested + sink.skipped + sink.gone, total)

    while True:
        skipped: list[Wanted] = []
        batch = plan.next_batch(concurrency * 4, sink.requested + sink.gone, skipped)
        for w in skipped:
            sink.keep(w, None)
        if not batch:
            break
        await run_together(*(one(w) for w in batch))
    for w in plan.covered():
        sink.keep(w, None)
    report_progress("comparisons", total, total)
