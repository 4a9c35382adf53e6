"""The snapshot's one list of steps, and the plain (Prefect-free) run of it.

A snapshot is: stage what the last snapshot of the same platform held (read from the store once), run the
fetch steps of :data:`FETCH_STEPS` concurrently into a staging directory, write the staged run as one atomic
snapshot (:func:`solvelens.store.write_snapshot`), remove the staging directory. Two drivers run these same
functions:

- :func:`run_snapshot` (here): in-process, no Prefect -- what ``solvelens snapshot`` runs when no Prefect API
  is configured. Fetching runs in one event loop; the write runs after it in the calling thread, so Ctrl-C
  interrupts it at once (DuckDB rolls the transaction back).
- :func:`solvelens.flows.snapshot.snapshot_flow`: a Prefect flow whose task runs wrap the same fetch steps
  and the same write (scheduled deployments, ``--prefect``).

Every step takes the run's :class:`~solvelens.flows.plan.SnapshotPlan` and its staging directory (the
comparisons also what the others spent, the generic list step its resource: :meth:`FetchStep.call`) and
returns its typed :class:`~solvelens.store.reports.StepReport`. The API key is never a parameter: the
``bot_me`` step reads it from :class:`solvelens.config.Settings` (the environment).
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import time
import uuid
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from solvelens.client.ratelimit import INTERFACE, KindStats, shared_pacer
from solvelens.flows.budget import Spent, spent_by
from solvelens.flows.carryover import verify_carryover_step
from solvelens.flows.declaration import (
    fetch_platform_step,
    platform_time,
    refuse_older_platform_time,
)
from solvelens.flows.fetch import (
    fetch_bot_me_step,
    fetch_leaderboard_step,
    fetch_problems_step,
    fetch_reference_step,
)
from solvelens.flows.figures import KindFigures, PacingFigures
from solvelens.flows.gc_tuning import fewer_collections
from solvelens.flows.optional import (
    NOT_REQUESTED,
    OPTIONAL,
    OPTIONAL_RESOURCES,
    fetch_activity_step,
    fetch_comparisons_step,
    fetch_list_step,
)
from solvelens.flows.plan import SnapshotPlan
from solvelens.flows.preflight import normalise_taken_at, refuse_older_taken_at
from solvelens.flows.summary import SnapshotSummary
from solvelens.resources import RESOURCES
from solvelens.store import SnapshotResult, StagingArea, write_snapshot
from solvelens.store.readers import PriorState, prior_state
from solvelens.store.reports import StepReport

#: Runs one fetch step: ``(step, plan, staging_dir, spent) -> awaitable report`` (a plain call, or a Prefect
#: task run; both through :meth:`FetchStep.call`).
StepRunner = Callable[["FetchStep", SnapshotPlan, str, Spent], Coroutine[Any, Any, StepReport]]


@dataclass(frozen=True)
class FetchStep:
    """One fetch step: ``name`` (its report's ``step``), ``task_name`` (the Prefect task's name), ``fn`` (the
    plain async function: ``fn(plan, staging_dir) -> StepReport``), ``needs_api_key`` (runs only when the
    snapshot includes ``/bot/me``), ``resource`` (the optional resource it fetches: runs only when the plan
    wants it, :meth:`SnapshotPlan.wants`) and ``after`` (the steps whose staged output or reports it reads:
    it starts once those finished; a ``budgeted`` step also gets ``spent``, the requests they sent:
    :func:`solvelens.flows.budget.spent_by`); ``takes_resource``: a generic step, told which declared
    resource it fetches (:func:`solvelens.flows.optional.fetch_list_step`)."""

    name: str
    task_name: str
    fn: Callable[..., Awaitable[StepReport]]
    needs_api_key: bool = False
    resource: str | None = None
    after: tuple[str, ...] = ()
    budgeted: bool = False
    takes_resource: bool = False

    def call(
        self, fn: Callable[..., Awaitable[StepReport]], plan: SnapshotPlan, staging_dir: str, spent: Spent
    ) -> Awaitable[StepReport]:
        """``fn`` (the step's function, or its Prefect task) called with this step's arguments: the plan and
        the staging directory, plus ``resource`` for a generic step and ``spent`` for a budgeted one."""
        if self.takes_resource:
            return fn(plan, staging_dir, resource=self.resource)
        if self.budgeted:
            return fn(plan, staging_dir, spent=spent)
        return fn(plan, staging_dir)


#: The steps before the comparisons: the interface's, the platform's declaration and the optional ones.
_BEFORE_COMPARISONS: tuple[FetchStep, ...] = (
    FetchStep("problems", "fetch-problems-and-solutions", fetch_problems_step),
    FetchStep("leaderboard", "fetch-leaderboard-and-bots", fetch_leaderboard_step),
    FetchStep("reference", "fetch-categories-and-stats", fetch_reference_step),
    FetchStep("bot_me", "fetch-bot-me", fetch_bot_me_step, needs_api_key=True),
    FetchStep("platform", "read-platform-declaration", fetch_platform_step),
    # The optional resources (solvelens.flows.optional): absent ones are recorded "not offered".
    FetchStep("activity", "fetch-activity", fetch_activity_step, resource="activity"),
    # Every optional list declared in solvelens.resources: one generic step each.
    *(
        FetchStep(
            r.name,
            "fetch-" + r.name.replace("_", "-"),
            fetch_list_step,
            resource=r.name,
            takes_resource=True,
        )
        for r in RESOURCES
        if r.optional and r.write == "linked"
    ),
    # Carried solution lists checked against the bots' names served now (solvelens.flows.carryover).
    FetchStep("carryover", "verify-carried-lists", verify_carryover_step, after=("problems", "leaderboard")),
)
#: The fetch steps of a snapshot, all run concurrently (endpoints in :mod:`solvelens.flows.fetch`).
FETCH_STEPS: tuple[FetchStep, ...] = (
    *_BEFORE_COMPARISONS,
    # After every other step: it reads the problems step's staged solutions and spends what the budget
    # (and an announced quota) leaves after the requests the others sent (solvelens.flows.budget).
    FetchStep(
        "comparisons",
        "fetch-comparisons",
        fetch_comparisons_step,
        resource="comparisons",
        after=tuple(s.name for s in _BEFORE_COMPARISONS),  # the carry-over check included
        budgeted=True,
    ),
)


def _iso_now() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


def staging_dir_for(db_path: str) -> Path:
    """A fresh staging directory next to the store: ``<db dir>/.<db name>.staging/<uuid>``."""
    db = Path(db_path)
    return db.parent / f".{db.name}.staging" / uuid.uuid4().hex


def steps_of(plan: SnapshotPlan) -> list[FetchStep]:
    """The fetch steps ``plan`` runs (``bot_me`` only with ``use_api_key``; an optional resource's only
    when the plan :meth:`~SnapshotPlan.wants` it)."""
    return [
        s
        for s in FETCH_STEPS
        if (plan.use_api_key or not s.needs_api_key) and (s.resource is None or plan.wants(s.resource))
    ]


@dataclass
class StagedRun:
    """A staging area prepared for one run: its path, the run's ``taken_at`` and start (ISO UTC, and a
    ``perf_counter`` reading for the duration)."""

    area: StagingArea
    taken_at: str
    started_at: str
    t0: float = field(default_factory=time.perf_counter)

    @property
    def path(self) -> str:
        return str(self.area.path)


def prepare(plan: SnapshotPlan) -> StagedRun:
    """Create the run's staging directory and stage what the last complete snapshot of ``plan.base_url``
    held (one read-only open of the store, which also gives the order check its newest snapshot time:
    :func:`solvelens.store.readers.prior_state`; on a ``full`` run only the newest stored activity event, so
    gaps in the history are still found). Without ``plan.taken_at``, a platform declaring a simulated clock
    gives the snapshot its time (:func:`solvelens.flows.declaration.platform_time`, one ``GET /health``),
    else the machine's clock does.

    Raises :class:`solvelens.flows.preflight.PreflightError` (a ``ValueError``) for a malformed
    ``taken_at`` or one older than the store's newest snapshot of the platform (unless ``plan.backfill``),
    and :class:`solvelens.store.StoreError` when the store cannot be read.
    """
    t0 = time.perf_counter()
    clock = platform_time(plan.base_url) if plan.taken_at is None else None
    taken = normalise_taken_at(plan.taken_at if clock is None else clock)
    started = _iso_now()
    wanted = [r for r in OPTIONAL_RESOURCES if plan.wants(r)]
    # A full run refetches everything, but still tells the activity history's gaps.
    optional = [r for r in wanted if r == "activity"] if plan.full else wanted
    prior = PriorState(None, {})
    if not (plan.full and plan.backfill and not optional):  # the order check and the prior state: one open
        prior = prior_state(
            plan.db_path,
            plan.base_url,
            optional=optional,
            lists=not plan.full,
            platform_time=clock is not None,
        )
    if clock is not None and not plan.backfill:
        refuse_older_platform_time(plan.base_url, taken, prior.newest_taken_at)
    elif not plan.backfill:
        refuse_older_taken_at(plan.db_path, plan.base_url, taken, prior.newest_taken_at)
    previous = {k: v for k, v in prior.tables.items() if not plan.full or k == "previous_activity"}
    area = StagingArea(staging_dir_for(plan.db_path)).create(
        base_url=plan.base_url, taken_at=taken, started_at=started
    )
    for table, data in previous.items():
        if data.num_rows:
            area.write_table(table, data)
    if clock is not None:  # recorded in the snapshot's declaration (store.writer)
        area.write_report(StepReport("clock", taken_at="platform"))
    left_out = {r: NOT_REQUESTED for r in OPTIONAL_RESOURCES if r not in wanted}
    area.write_report(StepReport("resources", resources=left_out))
    return StagedRun(area=area, taken_at=taken, started_at=started, t0=t0)


async def fetch(plan: SnapshotPlan, run: StagedRun, run_step: StepRunner) -> list[StepReport]:
    """Run every fetch step of ``plan`` concurrently through ``run_step`` (a step with ``after`` starts once
    those steps finished) and record their reports in the staging area, with fewer garbage collections
    meanwhile (:mod:`solvelens.flows.gc_tuning`). Returns the reports; raises what the first failing step
    raised (the others are cancelled at once)."""
    tasks: dict[str, asyncio.Task[StepReport]] = {}

    optional = {s.name for s in FETCH_STEPS if s.resource is not None}
    pacer = shared_pacer(plan.base_url, plan.max_rps)  # the steps' shared pacer: what it held, by kind
    held_before, limited_before = pacer.kinds(), pacer.stats.rate_limited

    async def after(step: FetchStep) -> StepReport:
        done = [await tasks[name] for name in step.after if name in tasks]  # it reads what they staged
        return await run_step(step, plan, run.path, spent_by(done, optional))

    try:
        with fewer_collections():
            async with asyncio.TaskGroup() as group:
                for s in steps_of(plan):
                    tasks[s.name] = group.create_task(after(s))
    except BaseExceptionGroup as failed:
        raise failed.exceptions[0] from None
    reports = [t.result() for t in tasks.values()]
    reports.append(pacing_report(held_before, pacer.kinds(), pacer.stats.rate_limited - limited_before))
    for report in reports:
        run.area.write_report(report)
    return reports


def pacing_report(before: dict[str, KindStats], after: dict[str, KindStats], rate_limited: int) -> StepReport:
    """The pseudo-step ``pacing`` (its figures: :class:`~solvelens.flows.figures.PacingFigures`): what the
    steps' shared pacer did between ``before`` and ``after`` (copies of
    :meth:`~solvelens.client.ratelimit.Pacer.kinds`), per request kind (``interface``, ``optional``):
    requests, held (requests that waited for the platform's quota or a 429's ``Retry-After``) and waited_s
    (seconds summed), and ``rate_limited`` (429 answers the pacer read). Both kinds are present, 0 when
    none was sent."""

    def kind(name: str) -> KindFigures:
        done = after.get(name, KindStats()).since(before.get(name))
        return KindFigures(done.requests, done.held, round(done.waited_s, 3))

    figures = PacingFigures(rate_limited, interface=kind(INTERFACE), optional=kind(OPTIONAL))
    return StepReport("pacing", figures=figures)


def write(plan: SnapshotPlan, staging_dir: str) -> SnapshotResult:
    """Write the staged run as one atomic snapshot; returns what was written."""
    return write_snapshot(plan.db_path, staging_dir, lock_timeout_s=plan.lock_timeout_s)


def discard(run: StagedRun) -> None:
    """Remove the run's staging directory (and the staging parent when no other run uses it)."""
    shutil.rmtree(run.area.path, ignore_errors=True)
    with contextlib.suppress(OSError):
        run.area.path.parent.rmdir()


def summarise(
    run: StagedRun,
    result: SnapshotResult,
    reports: list[StepReport],
    mode: str,
    *,
    duration_s: float,
    alerts: dict[str, Any],
    flow_run: dict[str, str] | None = None,
) -> SnapshotSummary:
    """The run's :class:`~solvelens.flows.summary.SnapshotSummary`, built once, here, from the write's
    :class:`~solvelens.store.SnapshotResult`, the fetch steps' typed reports and the alert check's summary;
    ``mode`` ``plain`` or ``prefect``; ``duration_s`` (seconds, from the run's start to its write);
    ``flow_run``: ``{"id", "name"}`` of the Prefect run."""
    resources = dict.fromkeys(OPTIONAL_RESOURCES, NOT_REQUESTED)
    for r in reports:
        resources.update(r.resources)
    return SnapshotSummary(
        snapshot_id=result.snapshot_id,
        taken_at=result.taken_at,
        base_url=result.base_url,
        counts=result.counts,
        new_versions=result.new_versions,
        duration_s=duration_s,
        write_s=result.write_s,
        file_bytes=result.file_bytes,
        warnings=result.warnings,
        drift=result.drift,
        fetch={r.step: r.figures for r in reports},
        resources=resources,
        mode=mode,
        flow_run=flow_run or {},
        alerts=alerts,
        data_quality=result.data_quality,
        vote_coverage=result.vote_coverage,
    )


async def run_step_inline(step: FetchStep, plan: SnapshotPlan, staging_dir: str, spent: Spent) -> StepReport:
    """The plain :data:`StepRunner`: call the step's function in this event loop."""
    return await step.call(step.fn, plan, staging_dir, spent)


def run_snapshot(plan: SnapshotPlan) -> SnapshotSummary:
    """Take one complete snapshot in-process (no Prefect): :func:`prepare`, :func:`fetch` in one event
    loop, :func:`write` in this thread, :func:`discard`, then the alert rules
    (:func:`solvelens.flows.alerts.alerts_after_snapshot`: never failing the snapshot). Returns
    :func:`summarise`'s :class:`~solvelens.flows.summary.SnapshotSummary` (``mode`` ``plain``, with
    ``alerts``: fired alerts, warnings, and the write's ``data_quality`` rows and ``vote_coverage`` row;
    ``.as_dict()`` gives its JSON form).

    Raises what failed (a :class:`solvelens.client.PlatformError`, a
    :class:`solvelens.store.StoreError`, ``KeyboardInterrupt``); then no snapshot is visible and the staging
    directory is gone.
    """
    from solvelens.flows.alerts import alerts_after_snapshot, import_check_early

    run = prepare(plan)
    try:
        reports = asyncio.run(fetch(plan, run, run_step_inline))
        import_check_early(plan)  # overlaps the write when alert rules are set
        result = write(plan, run.path)
    finally:
        discard(run)
    duration_s = time.perf_counter() - run.t0
    alerts = alerts_after_snapshot(plan, result.snapshot_id).summary
    return summarise(run, result, reports, "plain", duration_s=duration_s, alerts=alerts)
