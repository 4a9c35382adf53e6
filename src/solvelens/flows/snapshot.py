"""The snapshot flow (Prefect 3): fetch every public resource, write one atomic snapshot, publish a summary.

``await snapshot_flow(base_url, db_path)`` runs four fetch tasks concurrently (problems + solutions,
leaderboard + bot profiles, categories + stats, ``/bot/me``), each writing to a staging directory next to the
store, then one write task that holds the DuckDB file for a single transaction (see
:mod:`solvelens.store.writer`), and finally publishes a markdown artifact (key ``solvelens-snapshot``). The
API key is read inside the ``/bot/me`` task from :class:`solvelens.config.Settings`; it is never a flow or
task parameter, so it never appears in Prefect's UI or logs.

Tasks take plain serialisable parameters, retry with delay lists and cache nothing (their inputs are paths
and URLs; their outputs small dicts).
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from prefect import flow, get_run_logger, task
from prefect.artifacts import acreate_markdown_artifact
from prefect.cache_policies import NO_CACHE

from solvelens.client import (
    AsyncPlatformClient,
    PaginationError,
    PlatformConnectionError,
    QueryValidationError,
    RateLimitError,
    ServerError,
)
from solvelens.flows.fetch import (
    DEFAULT_CONCURRENCY,
    fetch_bot_me_step,
    fetch_leaderboard_step,
    fetch_problems_step,
    fetch_reference_step,
)
from solvelens.store import StagingArea, write_snapshot

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


@task(name="fetch-problems-and-solutions", **_fetch_options)
async def fetch_problems_task(
    base_url: str, staging_dir: str, db_path: str, full: bool, concurrency: int
) -> dict[str, Any]:
    """Task wrapper of :func:`solvelens.flows.fetch.fetch_problems_step`."""
    return await fetch_problems_step(
        base_url, staging_dir, db_path=db_path, full=full, concurrency=concurrency
    )


@task(name="fetch-leaderboard-and-bots", **_fetch_options)
async def fetch_leaderboard_task(base_url: str, staging_dir: str, concurrency: int) -> dict[str, Any]:
    """Task wrapper of :func:`solvelens.flows.fetch.fetch_leaderboard_step`."""
    return await fetch_leaderboard_step(base_url, staging_dir, concurrency=concurrency)


@task(name="fetch-categories-and-stats", **_fetch_options)
async def fetch_reference_task(base_url: str, staging_dir: str) -> dict[str, Any]:
    """Task wrapper of :func:`solvelens.flows.fetch.fetch_reference_step`."""
    return await fetch_reference_step(base_url, staging_dir)


@task(name="fetch-bot-me", **_fetch_options)
async def fetch_bot_me_task(base_url: str, staging_dir: str) -> dict[str, Any]:
    """Task wrapper of :func:`solvelens.flows.fetch.fetch_bot_me_step` (reads the key from Settings)."""
    return await fetch_bot_me_step(base_url, staging_dir)


@task(name="write-snapshot", **_task_options)
async def write_snapshot_task(db_path: str, staging_dir: str, lock_timeout_s: float) -> dict[str, Any]:
    """Write the staged run as one atomic snapshot (in a worker thread).

    Returns ``SnapshotResult.as_dict()``.
    """
    result = await asyncio.to_thread(write_snapshot, db_path, staging_dir, lock_timeout_s=lock_timeout_s)
    return result.as_dict()


def _iso_now() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


def normalise_taken_at(taken_at: str | None) -> str:
    """``taken_at`` as ISO-8601 UTC with a ``Z`` (naive times are taken as UTC; ``None``: now).

    Raises ``ValueError`` for a string that is not an ISO-8601 time.
    """
    if taken_at is None:
        return _iso_now()
    try:
        ts = datetime.fromisoformat(taken_at.replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(
            f"taken_at must be an ISO-8601 time (e.g. 2026-01-01T00:00:00Z), got {taken_at!r}"
        ) from None
    if ts.tzinfo is None:
        ts = ts.replace(tzinfo=UTC)
    return ts.astimezone(UTC).isoformat().replace("+00:00", "Z")


def staging_dir_for(db_path: str) -> Path:
    """A fresh staging directory next to the store: ``<db dir>/.<db name>.staging/<uuid>``."""
    db = Path(db_path)
    return db.parent / f".{db.name}.staging" / uuid.uuid4().hex


def summary_markdown(summary: dict[str, Any]) -> str:
    """The run summary as markdown: counts, duration, fetch figures, changes, drift and warnings."""
    lines = [
        f"# Snapshot {summary['snapshot_id']}",
        "",
        f"- taken at: `{summary['taken_at']}`  ",
        f"- base URL: `{summary['base_url']}`  ",
        f"- duration: {summary['duration_s']:.2f} s (store held {summary['write_s']:.2f} s)  ",
        f"- store size: {summary['file_bytes'] / 1e6:.2f} MB",
        "",
        "| resource | rows | new versions |",
        "|---|---:|---:|",
    ]
    for name, n in summary["counts"].items():
        lines.append(f"| {name} | {n} | {summary['new_versions'].get(name, 0)} |")
    fetch = summary.get("fetch", {}).get("problems", {})
    if fetch:
        lines += [
            "",
            f"Solutions refetched for {fetch.get('refetched', 0)} problems, "
            f"carried over for {fetch.get('carried_over', 0)}.",
        ]
    changes = summary.get("changes") or {}
    lines += ["", "## Changes since the last snapshot", ""]
    if changes.get("previous_snapshot_id") is None:
        lines.append("First snapshot of this platform.")
    else:
        lines.append(f"Compared with snapshot {changes['previous_snapshot_id']}:")
        lines.append("")
        for name in ("problems", "solutions", "bots"):
            c = changes[name]
            lines.append(f"- {name}: +{c['added']} added, -{c['removed']} removed, {c['changed']} changed")
        lb = changes["leaderboard"]
        lines.append(f"- leaderboard: {lb['entered']} entered, {lb['left']} left, {lb['moved']} moved rank")
        for m in lb["top_movers"]:
            lines.append(f"  - {m['name']}: {m['from_rank']} -> {m['to_rank']}")
    lines += ["", "## Schema drift", ""]
    lines += [
        f"- {d['resource']}.{d['field']}: {d['change']}"
        + (f" ({d['type']})" if d.get("type") else "")
        + (f", before {', '.join(d['previous_types'])}" if d.get("previous_types") else "")
        for d in summary["drift"]
    ] or ["None."]
    lines += ["", "## Warnings", ""]
    lines += [f"- {w}" for w in summary["warnings"]] or ["None."]
    return "\n".join(lines) + "\n"


@flow(name="solvelens-snapshot", log_prints=False)
async def snapshot_flow(
    base_url: str,
    db_path: str,
    taken_at: str | None = None,
    full: bool = False,
    use_api_key: bool = True,
    concurrency: int = DEFAULT_CONCURRENCY,
    lock_timeout_s: float = 60.0,
) -> dict[str, Any]:
    """Take one complete snapshot of the platform at ``base_url`` (ending ``/api/v1``) into ``db_path``.

    ``taken_at``: the snapshot's time (ISO-8601, UTC; default now). ``full``: refetch every problem's
    solutions (default: only problems whose solution/comparison counts changed). ``use_api_key``: also
    snapshot ``/bot/me`` when an API key is configured (``SOLVELENS_API_KEY`` / ``SOLVELENS_API_KEY_FILE``).

    Returns ``{"snapshot_id", "taken_at", "base_url", "counts": {view: rows}, "new_versions": {resource: n},
    "duration_s", "write_s", "file_bytes", "warnings": [str], "drift": [entry], "changes": {...},
    "fetch": {step: info}}`` (seconds, bytes). Raises when a fetch keeps failing after its retries, or the
    store lock is not obtained within ``lock_timeout_s`` seconds; then no snapshot is visible.
    """
    logger = get_run_logger()
    t0 = time.perf_counter()
    started_at = _iso_now()
    taken = normalise_taken_at(taken_at)
    # Fail fast on a malformed base URL (ConfigurationError), before any task or retry.
    await AsyncPlatformClient(base_url, read_env=False).aclose()
    area = StagingArea(staging_dir_for(db_path)).create(
        base_url=base_url, taken_at=taken, started_at=started_at
    )
    staging = str(area.path)
    try:
        steps = [
            fetch_problems_task(base_url, staging, db_path, full, concurrency),
            fetch_leaderboard_task(base_url, staging, concurrency),
            fetch_reference_task(base_url, staging),
        ]
        if use_api_key:
            steps.append(fetch_bot_me_task(base_url, staging))
        reports = await asyncio.gather(*steps)
        for r in reports:
            area.write_part(r["step"], warnings=r["warnings"], info={**r["counts"], **r["info"]})
        result = await write_snapshot_task(db_path, staging, lock_timeout_s)
    finally:
        shutil.rmtree(area.path, ignore_errors=True)
        with contextlib.suppress(OSError):  # other runs' staging directories are still there
            area.path.parent.rmdir()
    summary = {
        **{k: result[k] for k in ("snapshot_id", "taken_at", "base_url", "counts", "new_versions")},
        "duration_s": time.perf_counter() - t0,
        "write_s": result["write_s"],
        "file_bytes": result["file_bytes"],
        "warnings": result["warnings"],
        "drift": result["drift"],
        "changes": result["changes"],
        "fetch": {r["step"]: r["info"] for r in reports},
    }
    await acreate_markdown_artifact(
        summary_markdown(summary), key=ARTIFACT_KEY, description=f"snapshot {summary['snapshot_id']}"
    )
    logger.info(
        "snapshot %s complete in %.2f s: %s; %d warnings, %d drift entries",
        summary["snapshot_id"],
        summary["duration_s"],
        summary["counts"],
        len(summary["warnings"]),
        len(summary["drift"]),
    )
    return summary
