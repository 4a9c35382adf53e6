"""Scheduled deployments: hourly snapshots, a daily report and a weekly compaction of the store, served by
one long-running process.

``serve_deployments(build_deployments(...))`` is what ``solvelens schedule`` runs: a Prefect ``Runner``
polls the API for scheduled runs of its deployments and executes each in a subprocess. Deployment names are
derived from the platform and the store (:func:`deployment_suffix`), so two stores or two platforms never
share one; runs an earlier process scheduled with other parameters are cancelled at start; SIGINT/SIGTERM
cancel a run in progress and stop within a few seconds with one line. Schedules need a Prefect server whose
scheduler service runs; Prefect's temporary in-process server runs none (scheduled runs would never be
created). So with no ``PREFECT_API_URL`` configured, :func:`prefect_api` starts a dedicated local
``prefect server start`` child process (127.0.0.1, a free port, its UI included) for as long as the
deployments are served. Point ``PREFECT_API_URL`` at your own server (or Prefect Cloud) to keep history.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx

from solvelens.flows.alerts import StaleWatch
from solvelens.flows.plan import SnapshotPlan
from solvelens.flows.snapshot import snapshot_flow

#: Default schedules (cron, UTC): a snapshot at the top of every hour, the report every day at 06:30, the
#: store's compaction every Sunday at 03:15 (away from the hourly snapshot; :mod:`solvelens.flows.compact`).
SNAPSHOT_CRON = "0 * * * *"
REPORT_CRON = "30 6 * * *"
COMPACT_CRON = "15 3 * * 0"
TAGS = ["solvelens"]


def deployment_suffix(db_path: str, *, base_url: str | None = None, out: str | None = None) -> str:
    """A name suffix that tells deployments apart by what they read and write: the platform's host and
    port, the store's (and report's) file name and a short hash of the base URL and the absolute paths, e.g.
    ``127.0.0.1-8765-solvelens-3f9a1c2e``. Two stores or two platforms never share a deployment name."""
    paths = [str(Path(p).resolve()) for p in (db_path, out) if p is not None]
    label = [urlsplit(base_url).netloc] if base_url else []
    label += [Path(p).stem for p in paths]
    digest = hashlib.sha256("\n".join([base_url or "", *paths]).encode()).hexdigest()[:8]
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", "-".join([*label, digest]))


#: The plan fields a scheduled snapshot fixes (``profile``, ``alerts`` and ``alerts_file`` too, when given;
#: the deployment's parameter keeps only these).
_PLAN_FIELDS = {"base_url", "db_path", "full", "allow_missing_bot_me"}
_OPTIONAL_FIELDS = ("profile", "alerts", "alerts_file")


def snapshot_deployment(plan: SnapshotPlan, *, cron: str = SNAPSHOT_CRON, name: str | None = None) -> Any:
    """A ``RunnerDeployment`` of :func:`solvelens.flows.snapshot.snapshot_flow` on ``cron`` (UTC), named
    ``snapshot-<deployment_suffix(plan.db_path, base_url=plan.base_url)>`` unless ``name`` is given.

    Its one parameter is ``plan``, of which it keeps only the fields a scheduled snapshot fixes: the base
    URL, the store path, ``full``, ``allow_missing_bot_me``, and the profile and alert rules when given (the
    rest keep their defaults; ``taken_at``: each run's start). The API key comes from the serving process's
    environment (``SOLVELENS_API_KEY`` / ``SOLVELENS_API_KEY_FILE``), never from the deployment; notification
    URLs never are parameters (each run reads ``SOLVELENS_NOTIFY`` and the rules file).
    """
    fields = _PLAN_FIELDS | {f for f in _OPTIONAL_FIELDS if getattr(plan, f)}
    return snapshot_flow.to_deployment(
        name=name or f"snapshot-{deployment_suffix(plan.db_path, base_url=plan.base_url)}",
        cron=cron,
        parameters={"plan": plan.model_dump(include=fields)},
        tags=TAGS,
        description=f"One complete snapshot of {plan.base_url} into {plan.db_path}.",
    )


def report_deployment(db_path: str, out: str, *, cron: str = REPORT_CRON, name: str | None = None) -> Any:
    """A ``RunnerDeployment`` of ``solvelens.flows.report:report_flow(db_path, out)`` on ``cron`` (UTC), named
    ``report-<deployment_suffix(db_path, out=out)>`` unless ``name`` is given.

    Raises ``ImportError`` when the report flow is not available.
    """
    from solvelens.flows.report import report_flow

    return report_flow.to_deployment(
        name=name or f"report-{deployment_suffix(db_path, out=out)}",
        cron=cron,
        parameters={"db_path": db_path, "out": out},
        tags=TAGS,
        description=f"The leaderboard history report of {db_path} (self-contained HTML at {out}).",
    )


def compact_deployment(db_path: str, *, cron: str = COMPACT_CRON, name: str | None = None) -> Any:
    """A ``RunnerDeployment`` of ``solvelens.flows.compact:compact_flow(db_path)`` on ``cron`` (UTC), named
    ``compact-<deployment_suffix(db_path)>`` unless ``name`` is given."""
    from solvelens.flows.compact import compact_flow

    return compact_flow.to_deployment(
        name=name or f"compact-{deployment_suffix(db_path)}",
        cron=cron,
        parameters={"db_path": db_path},
        tags=TAGS,
        description=f"Compact the snapshot store {db_path} (solvelens db compact).",
    )


def build_deployments(
    plan: SnapshotPlan,
    report_out: str,
    *,
    snapshot_cron: str = SNAPSHOT_CRON,
    report_cron: str = REPORT_CRON,
    compact_cron: str = COMPACT_CRON,
) -> list[Any]:
    """The snapshot deployment of ``plan`` (:func:`snapshot_deployment`), and the report (to
    ``report_out``) and compaction deployments of its store, ready for :func:`serve_deployments`."""
    return [
        snapshot_deployment(plan, cron=snapshot_cron),
        report_deployment(plan.db_path, report_out, cron=report_cron),
        compact_deployment(plan.db_path, cron=compact_cron),
    ]


def _free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago (for the local Prefect server)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class ServeStopped(Exception):
    """SIGINT or SIGTERM arrived while the Prefect API was being prepared (nothing was served)."""


def _wait_for_health(
    proc: subprocess.Popen[bytes], url: str, start_timeout_s: float, stop: threading.Event | None
) -> None:
    """Poll ``{url}/health`` every 0.5 s with one client (a client per poll builds an SSL context each
    time) until it answers 200. Raises :class:`ServeStopped` when ``stop`` is set, ``RuntimeError`` when the
    process exits or nothing answers within ``start_timeout_s`` seconds."""
    deadline = time.monotonic() + start_timeout_s
    with httpx.Client(timeout=2.0) as client:
        while True:
            if stop is not None and stop.is_set():
                raise ServeStopped
            if proc.poll() is not None:
                raise RuntimeError(f"`prefect server start` exited with code {proc.returncode}")
            try:
                if client.get(f"{url}/health").status_code == 200:
                    return
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"the local Prefect server did not answer within {start_timeout_s:.0f} s")
            time.sleep(0.5)


@contextmanager
def stop_signals() -> Iterator[threading.Event]:
    """While the block runs, SIGINT and SIGTERM only set the yielded event (no ``KeyboardInterrupt``, no
    traceback); the previous handlers come back afterwards."""
    stop = threading.Event()

    def on_signal(signum: int, frame: Any) -> None:
        stop.set()

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield stop
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


@contextmanager
def local_prefect_server(
    *,
    env: dict[str, str] | None = None,
    start_timeout_s: float = 120.0,
    stop: threading.Event | None = None,
    stop_timeout_s: float = 0.5,
) -> Iterator[str]:
    """A ``prefect server start`` child process on 127.0.0.1 at a free port, for the block; yields its API URL
    (``http://127.0.0.1:PORT/api``). ``env``: the child's environment (default: this process's), telemetry
    off either way. The child runs in its own session, so a Ctrl-C in the terminal reaches only this process;
    it is terminated when the block ends and killed after ``stop_timeout_s`` seconds (its graceful stop takes
    1.5-2 s on a loaded host; it holds only Prefect's own run history, in SQLite, whose commits survive a
    kill).

    Raises ``RuntimeError`` when the server does not answer ``/api/health`` within ``start_timeout_s``
    seconds, :class:`ServeStopped` when ``stop`` is set meanwhile.
    """
    port = _free_port()
    url = f"http://127.0.0.1:{port}/api"
    child_env = {**(os.environ if env is None else env), "PREFECT_SERVER_ANALYTICS_ENABLED": "false"}
    cmd = [sys.executable, "-m", "prefect", "server", "start", "--host", "127.0.0.1", "--port", str(port)]
    proc = subprocess.Popen(
        cmd, env=child_env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    try:
        _wait_for_health(proc, url, start_timeout_s, stop)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=stop_timeout_s)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@contextmanager
def prefect_api(*, start_timeout_s: float = 120.0, stop: threading.Event | None = None) -> Iterator[str]:
    """The Prefect API to serve against, as a URL: the configured ``PREFECT_API_URL``, or else a
    :func:`local_prefect_server` made current for the block.

    Raises ``RuntimeError`` when the local server does not answer ``/api/health`` within
    ``start_timeout_s`` seconds, :class:`ServeStopped` when ``stop`` is set meanwhile.
    """
    from prefect.settings import PREFECT_API_URL, get_current_settings, temporary_settings

    configured = get_current_settings().api.url
    if configured:
        yield str(configured)
        return
    with (
        local_prefect_server(start_timeout_s=start_timeout_s, stop=stop) as url,
        temporary_settings(updates={PREFECT_API_URL: url}),
    ):
        yield url


#: Flow run states a served deployment may still pick up (``cancel_stale_runs`` cancels these).
PENDING_STATES = ("SCHEDULED", "PENDING", "PAUSED")


async def cancel_stale_runs(client: Any, deployment_id: Any, parameters: dict[str, Any]) -> int:
    """Cancel the runs of ``deployment_id`` not yet started whose parameters differ from ``parameters``
    (left over from an earlier process with other options). Returns how many were cancelled."""
    from prefect.states import Cancelled

    runs = await _runs(client, [deployment_id], list(PENDING_STATES))
    stale = [r for r in runs if r.parameters != parameters]
    for run in stale:
        await client.set_flow_run_state(
            run.id, Cancelled(message="scheduled by an earlier process with other parameters"), force=True
        )
    return len(stale)


async def _runs(client: Any, deployment_ids: list[Any], states: list[str]) -> list[Any]:
    """Flow runs of ``deployment_ids`` in one of ``states`` (Prefect state types, e.g. ``RUNNING``)."""
    from prefect.client.schemas.filters import (
        DeploymentFilter,
        DeploymentFilterId,
        FlowRunFilter,
        FlowRunFilterState,
        FlowRunFilterStateType,
    )
    from prefect.client.schemas.objects import StateType

    runs: list[Any] = await client.read_flow_runs(
        deployment_filter=DeploymentFilter(id=DeploymentFilterId(any_=deployment_ids)),
        flow_run_filter=FlowRunFilter(
            state=FlowRunFilterState(type=FlowRunFilterStateType(any_=[StateType(s) for s in states]))
        ),
    )
    return runs


#: Terminal states of a run reported by the serving process, one line each.
_FINAL_STATES = ["COMPLETED", "FAILED", "CRASHED", "CANCELLED"]
#: Seconds between two looks at finished runs.
_REPORT_EVERY_S = 5.0


async def _report_finished(client: Any, ids: list[Any], names: dict[Any, str], seen: set[Any]) -> None:
    """Print one line per run of ``ids`` that finished since the last call (the runs' own logs are in
    the Prefect UI; their console output is off so a stop prints no traceback)."""
    for run in await _runs(client, ids, _FINAL_STATES):
        if run.id in seen:
            continue
        seen.add(run.id)
        message = (run.state.message or "").strip().splitlines()
        detail = f": {message[0][:200]}" if message and run.state.type.value != "COMPLETED" else ""
        print(f"run {run.name} of {names.get(run.deployment_id, '?')}: {run.state.name}{detail}", flush=True)


async def _serve(
    deployments: list[Any], limit: int | None, stop: threading.Event, watch: StaleWatch | None = None
) -> str:
    """Serve until ``stop`` is set; returns the line saying how it stopped."""
    from prefect.client.orchestration import get_client
    from prefect.runner import Runner
    from prefect.states import Cancelled

    # The flow runs' subprocesses inherit this: their logs go to the Prefect API only.
    os.environ["PREFECT_LOGGING_HANDLERS_CONSOLE_LEVEL"] = "CRITICAL"
    logging.getLogger("prefect.runner").setLevel(logging.WARNING)
    _quiet_console()
    runner = Runner(limit=limit, pause_on_shutdown=True)
    ids = [await runner.aadd_deployment(d) for d in deployments]
    names = {i: d.name for i, d in zip(ids, deployments, strict=True)}
    async with get_client() as client:
        cancelled = sum(
            [await cancel_stale_runs(client, i, d.parameters) for i, d in zip(ids, deployments, strict=True)]
        )
        seen = {r.id for r in await _runs(client, ids, _FINAL_STATES)}
        # Runs an earlier process left in RUNNING (killed without a final state) are not ours to report.
        earlier = {r.id for r in await _runs(client, ids, ["RUNNING"])}
    if cancelled:
        print(f"cancelled {cancelled} runs scheduled by an earlier process with other parameters", flush=True)

    # Runner.start installs a SIGTERM handler of its own (it exits the process): ours instead. Its first
    # import (FastAPI, ~1-2 s on a loaded host) is done here, so a stop never waits on it.
    def on_sigterm(signum: int, frame: Any) -> None:
        stop.set()

    runner.handle_sigterm = on_sigterm  # type: ignore[method-assign]
    import prefect.runner.server  # noqa: F401

    task = asyncio.create_task(runner.start())
    while not runner.started and not task.done() and not stop.is_set():
        await asyncio.sleep(0.05)
    signal.signal(signal.SIGTERM, lambda signum, frame: stop.set())
    if stop.is_set() and not runner.started:  # stopped while the runner was starting: nothing ran
        task.cancel()
        await asyncio.wait({task}, timeout=_STOP_WAIT_S)
        return "stopped; no run was in progress"
    print(f"serving {', '.join(names.values())}; Ctrl-C or SIGTERM stops", flush=True)
    async with get_client() as client:
        next_report = time.monotonic() + _REPORT_EVERY_S
        next_watch = time.monotonic() + (watch.every_s if watch else 0.0)
        while not stop.is_set() and not task.done():
            await asyncio.sleep(0.1)
            if time.monotonic() >= next_report:
                await _report_finished(client, ids, names, seen)
                next_report = time.monotonic() + _REPORT_EVERY_S
            if watch and time.monotonic() >= next_watch:
                await asyncio.to_thread(watch.tick)
                next_watch = time.monotonic() + watch.every_s
        if task.done():
            task.result()  # the runner ended by itself: raise what it raised
            return "stopped: the runner ended"
        # A run claimed a moment ago (PENDING: its process is starting) is in progress too.
        in_flight = [r for r in await _runs(client, ids, ["RUNNING", "PENDING"]) if r.id not in earlier]
        await _stop_runner(runner, task)
        # The killed run's process may not have reported its end: record it as cancelled.
        still = {r.id for r in await _runs(client, ids, ["RUNNING", "PENDING"])}
        for run in in_flight:
            if run.id in still:
                await client.set_flow_run_state(
                    run.id, Cancelled(message="stopped by `solvelens schedule` (SIGINT/SIGTERM)"), force=True
                )
    in_flight_names = [r.name for r in in_flight]
    if in_flight_names:
        return f"stopped; cancelled the run in progress ({', '.join(in_flight_names)})"
    return "stopped; no run was in progress"


#: Seconds a stopped run's process has to end after SIGTERM before it is killed (SIGKILL).
_RUN_GRACE_S = 1.0
#: Seconds the runner has, once its runs' processes are gone, to pause its schedules and close.
_STOP_WAIT_S = 1.0


def _run_processes(runner: Any) -> list[Any]:
    """The handles of the runner's flow-run processes (Prefect 3.8's ``ProcessManager``; none if absent)."""
    manager = getattr(runner, "_process_manager", None)
    if manager is None:
        return []
    return [h for h in (manager.get(i) for i in manager.flow_run_ids()) if h is not None]


async def _stop_runner(runner: Any, task: asyncio.Task[Any]) -> None:
    """Stop the runner: its ``astop`` sends SIGTERM to each run's process but then looks every 3 s whether
    it ended (Prefect's 30 s grace / 10), so this looks every 0.05 s itself, kills a process still alive
    after :data:`_RUN_GRACE_S` seconds, and gives the runner :data:`_STOP_WAIT_S` seconds to close."""
    processes = _run_processes(runner)
    for process in processes:  # at once: astop reads each run from the API before it signals the process
        with contextlib.suppress(ProcessLookupError):
            process.graceful_kill()
    stopping = asyncio.create_task(runner.astop())
    deadline = time.monotonic() + _RUN_GRACE_S
    while not stopping.done() and any(p.is_alive() for p in processes) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    for process in processes:
        if process.is_alive():
            process.hard_kill()
    await asyncio.wait({stopping, task}, timeout=_STOP_WAIT_S)
    for pending in (stopping, task):
        if not pending.done():
            pending.cancel()
    await asyncio.wait({stopping, task}, timeout=0.5)
    for process in _run_processes(runner):  # a run whose process started while the runner stopped
        if process.is_alive():
            process.hard_kill()


def _quiet_console() -> None:
    """This process's Prefect console handlers print nothing below CRITICAL (the runner's per-run lines,
    e.g. "Downloading flow code", would land on the terminal as a run starts); the runs' logs still go to
    the Prefect API. The environment variable above only reaches processes started after it is set."""
    from prefect.logging.handlers import APILogHandler

    for name in ("prefect", "prefect.flow_runs", "prefect.task_runs", ""):
        for handler in logging.getLogger(name).handlers:
            if not isinstance(handler, APILogHandler):
                handler.setLevel(logging.CRITICAL)


def _drain_api_logs(timeout_s: float = 1.0) -> None:
    """Send the log lines still queued for the Prefect API while it is up (a local server stops next; at
    exit Prefect would try again and print "Error logging to API" on stderr)."""
    from prefect.logging.handlers import APILogWorker

    APILogWorker.drain_all(timeout=timeout_s, at_exit=False)


def serve_deployments(
    deployments: list[Any], *, limit: int | None = 1, watch: StaleWatch | None = None
) -> str:
    """Serve ``deployments`` against :func:`prefect_api` until SIGINT (Ctrl-C) or SIGTERM, then cancel a
    run in progress (nothing of it is written unless its write had already committed) and return one line
    saying so; no traceback. ``limit`` bounds concurrent runs (1: a snapshot and a report never run at once,
    so neither waits on the store lock). At start, runs of these deployments scheduled by an earlier process
    with other parameters are cancelled. ``watch``: the ``stale > H hours`` alert rules, checked every
    ``watch.every_s`` seconds meanwhile (:class:`solvelens.flows.alerts.StaleWatch`).

    Raises ``RuntimeError`` when a local Prefect server does not start.
    """
    with stop_signals() as stop:
        try:
            with prefect_api(stop=stop) as url:
                print(f"Prefect API and UI: {url.removesuffix('/api')}", flush=True)
                try:
                    return asyncio.run(_serve(deployments, limit, stop, watch))
                finally:
                    _drain_api_logs()
        except ServeStopped:
            return "stopped before serving"
