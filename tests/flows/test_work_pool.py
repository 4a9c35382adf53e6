"""``flows/prefect.yaml`` on a real Prefect server and a real process worker: ``prefect server start`` on
127.0.0.1 at a free port (own PREFECT_HOME), a process work pool, ``prefect worker start``, ``prefect deploy``
from the file, ``prefect deployment run`` with parameters, and one complete snapshot in the store -- with the
API key taken from the worker's environment only."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from solvelens.sandbox.process import free_port
from solvelens.store import read_frame
from tests.fixtures.prefect_api import api_get, api_post
from tests.fixtures.sandbox import SandboxServer

ROOT = Path(__file__).resolve().parents[2]
POOL = "solvelens"
PREFECT = [sys.executable, "-m", "prefect"]

pytestmark = pytest.mark.slow


def _wait(
    predicate: Callable[[], bool], timeout_s: float, what: str, proc: subprocess.Popen[bytes] | None = None
) -> None:
    deadline = time.monotonic() + timeout_s
    while not predicate():
        if proc is not None and proc.poll() is not None:
            raise AssertionError(f"{what}: the process exited with code {proc.returncode}")
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {timeout_s:.0f} s")
        time.sleep(0.5)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@pytest.fixture
def prefect_server(tmp_path: Path) -> Iterator[tuple[str, dict[str, str]]]:
    """A real ``prefect server start`` on 127.0.0.1 at a free port with its own PREFECT_HOME; yields the
    API URL and the environment every Prefect command of the test uses."""
    port = free_port()
    api = f"http://127.0.0.1:{port}/api"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SOLVELENS_", "PREFECT_"))}
    env |= {
        "PREFECT_HOME": str(tmp_path / "prefect-home"),
        "PREFECT_API_URL": api,
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "PREFECT_SERVER_UI_ENABLED": "false",
        # No scheduler: the hourly schedule must not add a run of its own while the test runs.
        "PREFECT_SERVER_SERVICES_SCHEDULER_ENABLED": "false",
        # The worker asks for runs every second (default 10 s): the run starts as soon as it is created.
        "PREFECT_WORKER_QUERY_SECONDS": "1",
    }
    log = (tmp_path / "server.log").open("wb")
    server = subprocess.Popen(
        [*PREFECT, "server", "start", "--host", "127.0.0.1", "--port", str(port)],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )

    def healthy() -> bool:
        try:
            return httpx.get(f"{api}/health", timeout=2.0).status_code == 200
        except httpx.TransportError:
            return False

    try:
        _wait(healthy, 180, "prefect server start", server)
        yield api, env
    finally:
        _stop(server)
        log.close()


def _prefect(env: dict[str, str], *args: str, **extra_env: str) -> str:
    result = subprocess.run(
        [*PREFECT, *args], env=env | extra_env, cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, f"prefect {' '.join(args)}:\n{result.stdout}\n{result.stderr}"
    return result.stdout


def test_prefect_yaml_deploys_to_a_process_pool_and_a_worker_takes_a_snapshot(
    prefect_server: tuple[str, dict[str, str]], sandbox: SandboxServer, tmp_path: Path
):
    api, env = prefect_server
    db = tmp_path / "store.duckdb"
    key = sandbox.create_bot("work-pool-bot")

    _prefect(env, "work-pool", "create", POOL, "--type", "process")
    deploy_env = {
        "SOLVELENS_BASE_URL": sandbox.base_url,
        "SOLVELENS_DB": str(db),
        "SOLVELENS_REPORT_OUT": str(tmp_path / "report.html"),
    }
    _prefect(env, "--no-prompt", "deploy", "--prefect-file", "flows/prefect.yaml", "--all", **deploy_env)
    deployments = api_post(f"{api}/deployments/filter", json={}).json()
    assert {d["name"] for d in deployments} == {"snapshot", "report"}
    snapshot = next(d for d in deployments if d["name"] == "snapshot")
    assert snapshot["entrypoint"] == "solvelens.flows.snapshot:snapshot_flow"
    assert snapshot["parameters"] == {"plan": {"base_url": sandbox.base_url, "db_path": str(db)}}
    assert snapshot["work_pool_name"] == POOL
    crons = {d["name"]: [s["schedule"]["cron"] for s in d["schedules"]] for d in deployments}
    assert crons == {"snapshot": ["0 * * * *"], "report": ["30 6 * * *"]}

    worker_log = (tmp_path / "worker.log").open("wb")
    worker = subprocess.Popen(
        [*PREFECT, "worker", "start", "--pool", POOL, "--limit", "1"],
        env=env | {"SOLVELENS_API_KEY": key},  # the key lives in the worker's environment only
        cwd=tmp_path,
        stdout=worker_log,
        stderr=subprocess.STDOUT,
    )
    try:
        out = _prefect(
            env,
            "deployment",
            "run",
            "solvelens-snapshot/snapshot",
            "--param",  # the one parameter, given whole (it replaces the deployment's)
            "plan="
            + json.dumps(
                {
                    "base_url": sandbox.base_url,
                    "db_path": str(db),
                    "taken_at": "2026-04-01T00:00:00Z",
                    "concurrency": 4,
                    "resources": [],  # no optional resource: this test is about the pool and the worker
                }
            ),
        )
        match = re.search(r"UUID:\s*([0-9a-f-]{36})", out)
        assert match, out
        run_url = f"{api}/flow_runs/{match.group(1)}"

        def finished() -> bool:
            state = api_get(run_url, timeout=5.0).json()["state"]["type"]
            return state in ("COMPLETED", "FAILED", "CRASHED", "CANCELLED")

        _wait(finished, 300, "the snapshot flow run", worker)
        run = api_get(run_url, timeout=5.0).json()
    finally:
        _stop(worker)
        worker_log.close()
    assert run["state"]["type"] == "COMPLETED", (tmp_path / "worker.log").read_text()[-3000:]
    assert key not in json.dumps(run)

    snaps = read_frame(db, "SELECT snapshot_id, taken_at, base_url, status FROM snapshots")
    assert snaps.height == 1
    assert snaps.row(0, named=True)["base_url"] == sandbox.base_url
    assert f"{snaps['taken_at'][0]:%Y-%m-%dT%H:%M:%S}" == "2026-04-01T00:00:00"
    assert read_frame(db, "SELECT count(*) AS n FROM solutions")["n"][0] > 0
    me = read_frame(db, "SELECT name FROM bot_me")
    assert me["name"].to_list() == ["work-pool-bot"]
