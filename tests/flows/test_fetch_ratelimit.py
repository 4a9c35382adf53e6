"""A snapshot under a quota the platform announces (``sandbox serve --rate-limit``), over real HTTP: the fetch
steps share one pacer and finish with no 429 (counted by the server, ``/_sandbox/rate-limit``), while the same
run with the quota headers unread meets 429s; ``snapshot --max-rps`` caps the measured rate."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

import solvelens.client.ratelimit as ratelimit
from solvelens.cli import app
from solvelens.flows.steps import SnapshotPlan, run_snapshot
from solvelens.store import read_frame
from tests.fixtures.sandbox import SandboxServer

QUOTA = "40/2 seconds"  # a small snapshot of the interface's resources: ~140 requests, over three windows'
# worth (the optional resources are left out to keep the tests short: they add ~700 comparisons requests)


def counts(server: SandboxServer) -> dict[str, int]:
    return httpx.get(f"{server.root_url}/_sandbox/rate-limit").json()


def test_a_snapshot_under_a_smaller_quota_finishes_without_a_429(make_sandbox, tmp_path: Path) -> None:
    server = make_sandbox(rate_limit=QUOTA)
    plan = SnapshotPlan(
        base_url=server.base_url, db_path=str(tmp_path / "s.duckdb"), use_api_key=False, resources=[]
    )
    run_snapshot(plan)
    seen = counts(server)
    assert seen["requests"] > 3 * 40  # the quota was smaller than the snapshot
    assert seen["limited"] == 0
    assert read_frame(tmp_path / "s.duckdb", "SELECT status FROM snapshots")["status"].to_list() == [
        "complete"
    ]


@pytest.mark.usefixtures("prefect_harness")
def test_the_prefect_flow_under_the_quota_finishes_without_a_429(make_sandbox, tmp_path: Path) -> None:
    from solvelens.flows.snapshot import snapshot_flow  # task runs: the steps' clients share one pacer

    server = make_sandbox(rate_limit=QUOTA)
    plan = SnapshotPlan(
        base_url=server.base_url, db_path=str(tmp_path / "s.duckdb"), use_api_key=False, resources=[]
    )
    asyncio.run(snapshot_flow(plan))
    seen = counts(server)
    assert seen["requests"] > 3 * 40 and seen["limited"] == 0
    assert read_frame(tmp_path / "s.duckdb", "SELECT status FROM snapshots")["status"].to_list() == [
        "complete"
    ]


def test_the_same_snapshot_without_the_pacer_meets_429s(make_sandbox, tmp_path: Path, monkeypatch) -> None:
    server = make_sandbox(rate_limit=QUOTA)
    monkeypatch.setattr(ratelimit, "read_quota", lambda *args, **kwargs: None)  # the headers unread
    plan = SnapshotPlan(
        base_url=server.base_url, db_path=str(tmp_path / "s.duckdb"), use_api_key=False, resources=[]
    )
    with contextlib.suppress(Exception):  # retried after Retry-After by stamina; it may still give up
        run_snapshot(plan)
    assert counts(server)["limited"] > 0


def test_snapshot_max_rps_caps_the_measured_rate(make_sandbox, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    server = make_sandbox(rate_limit="100000/hour")  # never reached: only counts
    args = ["snapshot", "--base-url", server.base_url, "--db", str(tmp_path / "s.duckdb"), "--no-bot-me"]
    args += ["--resources", "none"]
    result = CliRunner().invoke(app, [*args, "--max-rps", "20"])
    assert result.exit_code == 0, result.output
    seen = counts(server)
    assert seen["requests"] > 100
    # the preflight probe (GET /categories, not paced) came first: measure from the second request on
    assert (seen["requests"] - 2) / (seen["lastAt"] - seen["firstAt"]) <= 20 * 1.02  # uncapped: ~100/s


@pytest.mark.parametrize("value", ["0", "-3", "lots"])
def test_snapshot_max_rps_bad_input_is_exit_2(value: str, tmp_path: Path) -> None:
    args = ["snapshot", "--base-url", "http://127.0.0.1:9/api/v1", "--db", str(tmp_path / "s.duckdb")]
    result = CliRunner().invoke(app, [*args, "--max-rps", value])
    assert result.exit_code == 2 and "--max-rps" in result.output
    assert not (tmp_path / "s.duckdb").exists()
