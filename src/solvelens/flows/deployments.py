"""Scheduled deployments: hourly snapshots and a daily report, served by one long-running process.

``serve_deployments(build_deployments(...))`` is what ``solvelens schedule`` runs: Prefect's ``serve``
polls the API for scheduled runs and executes them in this process. Schedules need a Prefect server whose
scheduler service runs; Prefect's temporary in-process server runs none (scheduled runs would never be
created). So with no ``PREFECT_API_URL`` configured, :func:`prefect_api` starts a dedicated local
``prefect server start`` child process (127.0.0.1, a free port, its UI included) for as long as the
deployments are served. Point ``PREFECT_API_URL`` at your own server (or Prefect Cloud) to keep history.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx

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


@contextmanager
def prefect_api(*, start_timeout_s: float = 120.0) -> Iterator[str]:
    """The Prefect API to serve against, as a URL: the configured ``PREFECT_API_URL``, or else a local
    ``prefect server start`` child process (stopped when the block ends) made current for the block.

    Raises ``RuntimeError`` when the local server does not answer ``/api/health`` within
    ``start_timeout_s`` seconds.
    """
    from prefect.settings import PREFECT_API_URL, get_current_settings, temporary_settings

    configured = get_current_settings().api.url
    if configured:
        yield str(configured)
        return
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    url = f"http://127.0.0.1:{port}/api"
    env = {**os.environ, "PREFECT_SERVER_ANALYTICS_ENABLED": "false"}
    cmd = [sys.executable, "-m", "prefect", "server", "start", "--host", "127.0.0.1", "--port", str(port)]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + start_timeout_s
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"`prefect server start` exited with code {proc.returncode}")
            try:
                if httpx.get(f"{url}/health", timeout=2.0).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"the local Prefect server did not answer within {start_timeout_s:.0f} s")
            time.sleep(0.5)
        with temporary_settings(updates={PREFECT_API_URL: url}):
            yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def serve_deployments(deployments: list[Any], *, limit: int | None = 1) -> None:
    """Serve ``deployments`` until interrupted (Ctrl-C) against :func:`prefect_api`; ``limit`` bounds
    concurrent runs (1: a snapshot and a report never run at once, so neither waits on the store lock)."""
    from prefect import serve

    with prefect_api() as url:
        print(f"Prefect API and UI: {url.removesuffix('/api')}", flush=True)
        serve(*deployments, limit=limit)
