"""What a platform declares about itself (``X-Platform-Id``, ``X-Platform-Clock``), read at every snapshot and
recorded in ``snapshots.platform``: the sandbox declares a simulated clock and an identity that survives a
new port; a server that declares nothing on 127.0.0.1 is not simulated."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from solvelens.flows.declaration import fetch_platform_step
from solvelens.flows.steps import SnapshotPlan, run_snapshot
from solvelens.store import read_frame
from solvelens.store.reports import Declaration, StepReport
from tests.fixtures.sandbox import SandboxServer, free_port, start_sandbox


def _declared(base_url: str, tmp_path: Path) -> StepReport:
    plan = SnapshotPlan(base_url=base_url, db_path=str(tmp_path / "store.duckdb"))
    return asyncio.run(fetch_platform_step(plan, str(tmp_path)))


def test_the_sandbox_declares_a_simulated_clock_and_an_identity_that_survives_a_new_port(tmp_path: Path):
    db = tmp_path / "sandbox.sqlite"
    first = start_sandbox(db, scale="empty")
    try:
        report = _declared(first.base_url, tmp_path)
        answer = httpx.get(f"{first.base_url}/categories", timeout=10)
    finally:
        first.stop()
    declared = report.declared
    assert declared is not None
    assert declared.clock == "simulated" and declared.id is not None and len(declared.id) == 36, report
    assert report.warnings == ()
    # Every answer carries it, not only /health.
    assert answer.headers["x-platform-id"] == declared.id
    assert answer.headers["x-platform-clock"] == "simulated"
    second = start_sandbox(db, scale="empty")  # the same platform on another free port
    try:
        assert second.base_url != first.base_url
        again = _declared(second.base_url, tmp_path).declared
    finally:
        second.stop()
    assert again == declared


@pytest.fixture
def plain_server(tmp_path: Path):
    """A loopback HTTP server that declares nothing (Python's http.server: /health answers 404)."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1", "--directory", str(tmp_path)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/api/v1"
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            httpx.get(f"http://127.0.0.1:{port}/", timeout=1)
            break
        except httpx.TransportError:
            time.sleep(0.1)
    yield url
    proc.terminate()
    proc.wait(timeout=10)


def test_a_loopback_server_that_declares_nothing_is_recorded_as_declaring_nothing(
    plain_server: str, tmp_path: Path
):
    report = _declared(plain_server, tmp_path)
    assert report.declared == Declaration() and report.warnings == ()


def test_an_unreachable_platform_is_unknown_with_a_warning(tmp_path: Path):
    report = _declared(f"http://127.0.0.1:{free_port()}/api/v1", tmp_path)
    assert report.declared is None
    assert len(report.warnings) == 1 and "clock is unknown" in report.warnings[0]


def test_a_snapshot_records_the_declaration(quiet_sandbox: SandboxServer, tmp_path: Path):
    db = tmp_path / "store.duckdb"
    run_snapshot(SnapshotPlan(base_url=quiet_sandbox.base_url, db_path=str(db), use_api_key=False))
    platform = read_frame(db, "SELECT platform FROM snapshots")["platform"][0]
    declared = json.loads(platform)
    assert declared["clock"] == "simulated"
    assert declared["id"] == httpx.get(f"{quiet_sandbox.base_url}/stats", timeout=10).headers["x-platform-id"]
