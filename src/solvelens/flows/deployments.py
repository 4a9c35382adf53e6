"""Scheduled deployments: hourly snapshots and a daily report, served by one long-running process.

``serve_deployments(build_deployments(...))`` is what ``solvelens schedule`` runs: Prefect's ``serve``
polls the API for scheduled runs and executes them in this process. Without ``PREFECT_API_URL`` that API
is a temporary local server living as long as the process; point ``PREFECT_API_URL`` at a
``prefect server start`` (or Prefect Cloud) to see the runs in the UI and keep their history.
"""

from __future__ import annotations

from typing import Any

from solvelens.flows.snapshot import snapshot_flow

#: Default schedules (cron, UTC): a snapshot at the top of every hour, the report every day at 06:30.
SNAPSHOT_CRON = "0 * * * *"
REPORT_CRON = "30 6 * * *"
TAGS = ["solvelens"]


def snapshot_deployment(
    base_url: str,
    db_path: str,
    *,
    cron: str = SNAPSHOT_CRON,
    full: bool = False,
    name: str = "scheduled-snapshot",
) -> Any:
    """A ``RunnerDeployment`` of :func:`solvelens.flows.snapshot.snapshot_flow` on ``cron`` (UTC).

    Parameters carry only the base URL, the store path and ``full``: the API key comes from the serving
    process's environment (``SOLVELENS_API_KEY`` / ``SOLVELENS_API_KEY_FILE``), never from the deployment.
    """
    return snapshot_flow.to_deployment(
        name=name,
        cron=cron,
        parameters={"base_url": base_url, "db_path": db_path, "full": full},
        tags=TAGS,
        description="One complete snapshot of the platform into the DuckDB store.",
    )


def report_deployment(db_path: str, out: str, *, cron: str = REPORT_CRON, name: str = "daily-report") -> Any:
    """A ``RunnerDeployment`` of ``solvelens.flows.report:report_flow(db_path, out)`` on ``cron`` (UTC).

    Raises ``ImportError`` when the report flow is not available.
    """
    from solvelens.flows.report import report_flow

    return report_flow.to_deployment(
        name=name,
        cron=cron,
        parameters={"db_path": db_path, "out": out},
        tags=TAGS,
        description="The leaderboard history report (self-contained HTML).",
    )


def build_deployments(
    base_url: str,
    db_path: str,
    report_out: str,
    *,
    snapshot_cron: str = SNAPSHOT_CRON,
    report_cron: str = REPORT_CRON,
    full: bool = False,
) -> list[Any]:
    """The snapshot and the report deployments, ready for :func:`serve_deployments`."""
    return [
        snapshot_deployment(base_url, db_path, cron=snapshot_cron, full=full),
        report_deployment(db_path, report_out, cron=report_cron),
    ]


def serve_deployments(deployments: list[Any], *, limit: int | None = 1) -> None:
    """Serve ``deployments`` until interrupted (Ctrl-C); ``limit`` bounds concurrent runs (1: a snapshot
    and a report never run at once, so the report never waits on the store lock)."""
    from prefect import serve

    serve(*deployments, limit=limit)
