"""``solvelens snapshot`` and ``solvelens schedule``'s deployments."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from solvelens.cli import app
from solvelens.store import read_frame, store_lock
from tests.fixtures.sandbox import SandboxServer

runner = CliRunner()


@pytest.mark.usefixtures("prefect_harness")
def test_snapshot_command_exits_0_when_complete(quiet_sandbox: SandboxServer, store_path: Path):
    result = runner.invoke(
        app, ["snapshot", "--base-url", quiet_sandbox.base_url, "--db", str(store_path), "--no-bot-me"]
    )
    assert result.exit_code == 0, result.output
    assert "snapshot 1" in result.output and "solutions" in result.output
    assert read_frame(store_path, "SELECT count(*) AS n FROM snapshots")["n"][0] == 1


@pytest.mark.usefixtures("prefect_harness")
def test_snapshot_command_fails_in_one_line_when_the_store_is_locked(
    quiet_sandbox: SandboxServer, store_path: Path
):
    with store_lock(store_path, exclusive=True, timeout_s=1):
        result = runner.invoke(
            app,
            [
                "snapshot",
                "--base-url",
                quiet_sandbox.base_url,
                "--db",
                str(store_path),
                "--lock-timeout",
                "0.3",
            ],
        )
    assert result.exit_code == 1
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1, result.output
    assert lines[0].startswith("error: snapshot failed (StoreLockTimeout)")
    assert f"{store_path}.lock" in lines[0]
    assert (
        not store_path.exists() or read_frame(store_path, "SELECT count(*) AS n FROM snapshots")["n"][0] == 0
    )


def test_malformed_api_key_is_refused_before_any_request(store_path: Path):
    secret = "not-a-key-123456789012345"
    result = runner.invoke(
        app,
        ["snapshot", "--base-url", "http://127.0.0.1:9/api/v1", "--db", str(store_path), "--api-key", secret],
    )
    assert result.exit_code == 2
    assert "expected form" in result.output
    assert secret not in result.output
    assert not store_path.exists()


def test_snapshot_deployment_schedule_and_parameters():
    from solvelens.flows.deployments import snapshot_deployment

    deployment = snapshot_deployment("http://127.0.0.1:1/api/v1", "/data/s.duckdb", cron="15 * * * *")
    assert deployment.parameters == {
        "base_url": "http://127.0.0.1:1/api/v1",
        "db_path": "/data/s.duckdb",
        "full": False,
    }
    assert [s.schedule.cron for s in deployment.schedules] == ["15 * * * *"]
    assert deployment.flow_name == "solvelens-snapshot"


def test_report_deployment_is_daily():
    pytest.importorskip("solvelens.flows.report", reason="the report flow is written by another engineer")
    from solvelens.flows.deployments import build_deployments

    snap, report = build_deployments("http://127.0.0.1:1/api/v1", "/d/s.duckdb", "/d/r.html")
    assert report.parameters == {"db_path": "/d/s.duckdb", "out": "/d/r.html"}
    assert [s.schedule.cron for s in report.schedules] == ["30 6 * * *"]
    assert [s.schedule.cron for s in snap.schedules] == ["0 * * * *"]
