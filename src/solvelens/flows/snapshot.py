"""The snapshot flow (Prefect 3): the steps of :mod:`solvelens.flows.steps` as task runs, plus a summary.

``await snapshot_flow(SnapshotPlan(base_url=..., db_path=...))`` runs the same functions as the plain path
(:func:`solvelens.flows.steps.run_snapshot`): it stages the last snapshot's state, runs one Prefect task per
fetch step of :data:`solvelens.flows.steps.FETCH_STEPS` concurrently (problems + solutions, leaderboard + bot
profiles, categories + stats, ``/bot/me``), then one write task that holds the DuckDB file for a single
transaction (see :mod:`solvelens.store.writer`), then evaluates the alert rules
(:mod:`solvelens.flows.alerts`: state, notifications, one Prefect event per alert) and finally publishes a
markdown artifact (key ``solvelens-snapshot``: the run (:class:`~solvelens.flows.summary.SnapshotSummary`),
what changed since the previous snapshot (:func:`solvelens.analysis.diff`, the one definition), the
alerts). The API key is read inside the ``/bot/me`` step from :class:`solvelens.config.Settings`; it is
never a flow or task parameter, so it never appears in Prefect's UI or logs.

Use this path where Prefect pays: scheduled deployments (``solvelens schedule``, ``flows/prefect.yaml``) and
one-off runs against a configured Prefect API (``PREFECT_API_URL``). Tasks take plain serialisable
parameters (the plan, the staging directory), retry transient failures with a delay list and cache nothing.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine
from typing import Any

from prefect import Flow, get_run_logger, task
from prefect.artifacts import acreate_markdown_artifact
from prefect.cache_policies import NO_CACHE
from prefect.context import FlowRunContext

from solvelens.client import (
    PaginationError,
    PlatformConnectionError,
    QueryValidationError,
    RateLimitError,
    ServerError,
)
from solvelens.flows.alerts import alerts_after_snapshot, alerts_markdown, import_check_early
from solvelens.flows.budget import Spent
from solvelens.flows.steps import (
    FETCH_STEPS,
    FetchStep,
    SnapshotPlan,
    discard,
    fetch,
    normalise_taken_at,
    prepare,
    staging_dir_for,
    summarise,
    write,
)
from solvelens.flows.summary import SnapshotSummary
from solvelens.flows.termination import redeliver_swallowed_termination
from solvelens.store import SnapshotResult
from solvelens.store.reports import StepReport
from solvelens.store.units import mib

__all__ = [
    "ARTIFACT_KEY",
    "FETCH_RETRY_DELAYS",
    "FETCH_TASKS",
    "PlanFlow",
    "SnapshotPlan",
    "normalise_taken_at",
    "snapshot_flow",
    "staging_dir_for",
    "summary_markdown",
    "transient_failure",
]

#: Retry delays (seconds) of the fetch tasks: two retries, after 2 s and 10 s.
FETCH_RETRY_DELAYS: list[float] = [2.0, 10.0]
ARTIFACT_KEY = "solvelens-snapshot"

_task_options: dict[str, Any] = {"cache_policy": NO_CACHE, "persist_result": False}


def transient_failure(task: Any, task_run: Any, state: Any) -> bool:
    """Prefect ``retry_condition_fn``: retry a fetch task only when it failed in a way a retry can mend
    (connection/timeouts, 5xx other than query validation, 429, a paging walk that broke mid-way); never
    on 4xx, configuration or programming errors."""
    exc = state.data if isinstance(state.data, BaseException) else None
    if exc is None:
        return True
    if isinstance(exc, QueryValidationError):
        return False
    return isinstance(exc, PlatformConnectionError | ServerError | RateLimitError | PaginationError)


_fetch_options: dict[str, Any] = {
    **_task_options,
    "retries": 2,
    "retry_delay_seconds": FETCH_RETRY_DELAYS,
    "retry_condition_fn": transient_failure,
}

#: One Prefect task per fetch step, named as the step's ``task_name`` (e.g. ``fetch-problems-and-solutions``).
FETCH_TASKS: dict[str, Any] = {s.name: task(name=s.task_name, **_fetch_options)(s.fn) for s in FETCH_STEPS}


async def _run_task(step: FetchStep, plan: SnapshotPlan, staging_dir: str, spent: Spent) -> StepReport:
    """The flow's :data:`~solvelens.flows.steps.StepRunner`: the step's Prefect task run, same arguments."""
    result: StepReport = await step.call(FETCH_TASKS[step.name], plan, staging_dir, spent)
    return result


@task(name="write-snapshot", **_task_options)
async def write_snapshot_task(plan: SnapshotPlan, staging_dir: str) -> SnapshotResult:
    """Write the staged run as one atomic snapshot (in a worker thread); returns what was written."""
    return await asyncio.to_thread(write, plan, staging_dir)


def _seconds(value: float | None) -> str:
    return "unknown" if value is None else f"{value:.2f} s"


def summary_markdown(summary: SnapshotSummary) -> str:
    """The run summary as markdown: counts, duration, fetch figures, drift and warnings (what changed since
    the previous snapshot follows it: :func:`solvelens.flows.alerts.alerts_markdown`, from
    :func:`solvelens.analysis.diff`)."""
    lines = [
        f"# Snapshot {summary.snapshot_id}",
        "",
        f"- taken at: `{summary.taken_at}`  ",
        f"- base URL: `{summary.base_url}`  ",
        f"- duration: {_seconds(summary.duration_s)} (store held {_seconds(summary.write_s)})  ",
        f"- store size: {'unknown' if summary.file_bytes is None else mib(summary.file_bytes, 2)}",
        "",
        "| resource | rows | new versions |",
        "|---|---:|---:|",
    ]
    for name, n in summary.totals().items():
        lines.append(f"| {name} | {n} | {summary.new_versions.get(name, 0)} |")
    if summary.new_line():
        lines += ["", summary.new_line()]
    lines += ["", summary.carryover_line(), "", summary.optional_line()]
    lines += ["", "## Data quality", "", *(f"- {line}" for line in summary.quality_lines())]
    lines += ["", "## Schema drift", ""]
    lines += [
        f"- {d['resource']}.{d['field']}: {d['change']}"
        + (f" ({d['type']})" if d.get("type") else "")
        + (f", before {', '.join(d['previous_types'])}" if d.get("previous_types") else "")
        for d in summary.drift
    ] or ["None."]
    lines += ["", "## Warnings", ""]
    lines += [f"- {w}" for w in summary.warnings] or ["None."]
    return "\n".join(lines) + "\n"


def _log_alerts(logger: Any, alerts: dict[str, Any], from_deployment: bool) -> None:
    """Log each fired alert and warning; a deployment's run (``from_deployment``) also prints them (the
    serving terminal shows a run's output; ``solvelens snapshot`` prints them itself)."""
    lines = [f"alert [{a['rule']}] {a['message']}" for a in alerts["fired"]]
    for line in lines:
        logger.info(line)
    for warning in alerts["warnings"]:
        logger.warning(warning)
    if from_deployment:
        for line in [*lines, *(f"warning: {w}" for w in alerts["warnings"])]:
            print(line, flush=True)


def _this_flow_run() -> Any:
    """The flow run in progress (``prefect.client.schemas.objects.FlowRun``: ``id``, ``name``,
    ``deployment_id``), from the run's context: no API request."""
    context = FlowRunContext.get()
    if context is None or context.flow_run is None:
        raise RuntimeError("not inside a flow run")
    return context.flow_run


_SnapshotFn = Callable[[SnapshotPlan], Coroutine[Any, Any, SnapshotSummary]]


class PlanFlow(Flow[[SnapshotPlan], Coroutine[Any, Any, SnapshotSummary]]):
    """A Prefect ``Flow`` whose :class:`~solvelens.flows.plan.SnapshotPlan` parameters are recorded as
    ``plan.model_dump(mode="json", by_alias=True)``: the JSON object FastAPI's ``jsonable_encoder`` (what
    ``Flow.serialize_parameters`` uses) makes of a pydantic model, without importing FastAPI (0.15-0.3 s of
    CPU in every flow-run process, before the flow run is created). Any other parameter value goes through
    Prefect's own ``serialize_parameters``."""

    def serialize_parameters(self, parameters: dict[str, Any]) -> dict[str, Any]:
        """The flow run's parameters as JSON values (Prefect records them with the run); ``parameters``: the
        call's bound arguments by name."""
        others = {k: v for k, v in parameters.items() if not isinstance(v, SnapshotPlan)}
        encoded = super().serialize_parameters(others) if others else {}
        return {
            k: v.model_dump(mode="json", by_alias=True) if isinstance(v, SnapshotPlan) else encoded[k]
            for k, v in parameters.items()
            if isinstance(v, SnapshotPlan) or k in encoded
        }


def _plan_flow(fn: _SnapshotFn) -> PlanFlow:
    return PlanFlow(fn, name="solvelens-snapshot", log_prints=False, persist_result=False)


@_plan_flow
async def snapshot_flow(plan: SnapshotPlan) -> SnapshotSummary:
    """Take one complete snapshot of the platform at ``plan.base_url`` into ``plan.db_path`` (the fields:
    :class:`solvelens.flows.plan.SnapshotPlan`; a deployment passes them as the ``plan`` parameter, e.g.
    ``{"plan": {"base_url": ..., "db_path": ...}}``).

    The API key is read from the environment (``SOLVELENS_API_KEY`` / ``SOLVELENS_API_KEY_FILE``) by the
    ``/bot/me`` step, never from a parameter; a key the platform rejects fails the run (nothing written)
    unless ``plan.allow_missing_bot_me``.

    Returns :func:`solvelens.flows.steps.summarise`'s :class:`~solvelens.flows.summary.SnapshotSummary`
    (``mode`` ``prefect``; ``.as_dict()`` gives its JSON form). The flow does not persist its result
    (``persist_result=False``: nothing reads it back from Prefect's result storage), so the dataclass is
    returned as is. Raises when a fetch keeps
    failing after its retries, ``taken_at`` is older than the store's newest snapshot of the platform (unless
    ``plan.backfill``), or the store lock is not obtained within ``plan.lock_timeout_s`` seconds; then no
    snapshot is visible.
    """
    redeliver_swallowed_termination()
    logger = get_run_logger()
    # Fail fast on a malformed taken_at (ValueError), before any task (the plan checked its base URL).
    normalise_taken_at(plan.taken_at)
    run = await asyncio.to_thread(prepare, plan)
    try:
        reports = await fetch(plan, run, _run_task)
        import_check_early(plan, want_diff=True)  # overlaps the write (the artifact reads the diff)
        result = await write_snapshot_task(plan, run.path)
    finally:
        discard(run)
    duration_s = time.perf_counter() - run.t0
    # The run as the engine holds it (prefect.runtime.deployment.id would read it back from the API).
    run_record = _this_flow_run()
    flow_run = {"id": str(run_record.id), "name": str(run_record.name)}
    after = await asyncio.to_thread(alerts_after_snapshot, plan, result.snapshot_id, want_diff=True)
    summary = summarise(
        run, result, reports, "prefect", duration_s=duration_s, alerts=after.summary, flow_run=flow_run
    )
    _log_alerts(logger, after.summary, from_deployment=run_record.deployment_id is not None)
    await acreate_markdown_artifact(
        summary_markdown(summary) + alerts_markdown(after),
        key=ARTIFACT_KEY,
        description=f"snapshot {summary.snapshot_id}",
    )
    logger.info(
        "snapshot %s complete in %.2f s: %s; %d warnings, %d drift entries",
        summary.snapshot_id,
        summary.duration_s,
        summary.counts,
        len(summary.warnings),
        len(summary.drift),
    )
    return summary
