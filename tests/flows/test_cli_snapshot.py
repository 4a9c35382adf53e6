"""``solvelens snapshot`` (in-process and as a Prefect flow run, in-process with CliRunner and as a real
process) and ``solvelens schedule``'s deployments."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from solvelens.cli import app
from solvelens.flows.budget import DEFAULT_BUDGET
from solvelens.store import lock_path_for, read_frame, store_lock
from tests.fixtures.sandbox import SandboxServer, start_sandbox

runner = CliRunner()


def test_snapshot_command_runs_in_process_and_exits_0_when_complete(
    quiet_sandbox: SandboxServer, store_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    args = ["snapshot", "--base-url", quiet_sandbox.base_url + "/", "--db", str(store_path), "--no-bot-me"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "snapshot 1" in result.output and "solutions" in result.output
    assert "in-process" in result.output
    assert read_frame(store_path, "SELECT count(*) AS n FROM snapshots")["n"][0] == 1
    again = runner.invoke(app, args)
    assert again.exit_code == 0, again.output
    assert "carried over for" in again.output and "refetched for 0 problems" in again.output
    assert (
        read_frame(store_path, "SELECT base_url FROM snapshots")["base_url"].to_list()
        == [quiet_sandbox.base_url] * 2
    )  # the trailing slash was dropped: both snapshots belong to one platform


@pytest.mark.usefixtures("prefect_harness")
def test_snapshot_command_with_prefect_records_a_flow_run(quiet_sandbox: SandboxServer, store_path: Path):
    args = ["snapshot", "--base-url", quiet_sandbox.base_url, "--db", str(store_path), "--no-bot-me"]
    result = runner.invoke(app, [*args, "--prefect"])
    assert result.exit_code == 0, result.output
    assert "as Prefect flow run" in result.output
    # not a terminal: one plain line when the run starts, and when each step starts and ends
    lines = [line for line in result.output.splitlines() if line.startswith("snapshot: ")]
    assert lines[:2] == [
        "snapshot: checking that the platform answers (GET /categories)",
        "snapshot: starting the Prefect flow run (importing Prefect)",
    ], lines
    for label in ("problems (pages)", "solution lists", "leaderboard (pages)", "bot profiles"):
        assert f"snapshot: {label} ..." in lines and any(
            line.startswith(f"snapshot: {label} done (") for line in lines
        ), lines

    async def flow_runs() -> list[Any]:
        from prefect.client.orchestration import get_client

        async with get_client() as client:
            return await client.read_flow_runs()

    import asyncio

    run = next(r for r in asyncio.run(flow_runs()) if r.name in result.output)
    # the plan as the flow run's one parameter, every field in JSON (as a deployment passes it)
    plan = run.parameters["plan"]
    assert (plan["base_url"], plan["db_path"], plan["use_api_key"]) == (
        quiet_sandbox.base_url,
        str(store_path),
        False,
    ), plan
    assert plan["budget"] == DEFAULT_BUDGET and plan["full"] is False, plan


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
    assert str(lock_path_for(store_path)) in lines[0]
    assert (
        not store_path.exists() or read_frame(store_path, "SELECT count(*) AS n FROM snapshots")["n"][0] == 0
    )


def _one_line(output: str) -> str:
    lines = [line for line in output.splitlines() if line.strip()]
    assert len(lines) == 1, output
    return lines[0]


def test_a_snapshot_time_older_than_the_store_is_refused_unless_backfill(
    quiet_sandbox: SandboxServer, store_path: Path
):
    args = ["snapshot", "--base-url", quiet_sandbox.base_url, "--db", str(store_path), "--no-bot-me"]
    assert runner.invoke(app, [*args, "--taken-at", "2026-03-02T00:00:00Z"]).exit_code == 0
    old = runner.invoke(app, [*args, "--taken-at", "2020-01-01"])
    assert old.exit_code == 2
    assert _one_line(old.output) == (
        f"error: the snapshot time 2020-01-01T00:00:00Z is older than the newest snapshot of "
        f"{quiet_sandbox.base_url} in {store_path} (2026-03-02T00:00:00Z); pass --backfill to add an older "
        "snapshot on purpose, or fix --taken-at"
    )
    assert read_frame(store_path, "SELECT count(*) AS n FROM snapshots")["n"][0] == 1
    backfilled = runner.invoke(app, [*args, "--taken-at", "2026-03-01", "--backfill"])
    assert backfilled.exit_code == 0, backfilled.output
    times = read_frame(store_path, "SELECT taken_at FROM snapshots ORDER BY snapshot_id")["taken_at"]
    assert [f"{t:%Y-%m-%d}" for t in times] == ["2026-03-02", "2026-03-01"]
    # Another platform's snapshots do not count: the check is per base URL.
    other = runner.invoke(
        app,
        [
            *args[:2],
            quiet_sandbox.base_url.replace("127.0.0.1", "localhost"),
            *args[3:],
            "--taken-at",
            "2020-01-01",
        ],
    )
    assert other.exit_code == 0, other.output


def test_a_rejected_api_key_fails_the_snapshot_unless_allowed(quiet_sandbox: SandboxServer, store_path: Path):
    wrong = "sl_key_" + "x" * 32  # well-formed, unknown to the platform
    args = ["snapshot", "--base-url", quiet_sandbox.base_url, "--db", str(store_path), "--api-key", wrong]
    rejected = runner.invoke(app, args)
    assert rejected.exit_code == 1
    line = _one_line(rejected.output)
    assert line.startswith("error: snapshot failed (ApiKeyRejectedError): the platform rejected the API key")
    assert "HTTP 401 on GET /bot/me" in line and "--allow-missing-bot-me" in line
    assert line.endswith("no snapshot was written") and wrong not in rejected.output
    assert (
        not store_path.exists() or read_frame(store_path, "SELECT count(*) AS n FROM snapshots")["n"][0] == 0
    )

    allowed = runner.invoke(app, [*args, "--allow-missing-bot-me"], env={"COLUMNS": "200"})
    assert allowed.exit_code == 0, allowed.output
    assert "warning bot_me skipped" in allowed.output and wrong not in allowed.output
    assert read_frame(store_path, "SELECT count(*) AS n FROM bot_me")["n"][0] == 0
    assert read_frame(store_path, "SELECT count(*) AS n FROM snapshots")["n"][0] == 1


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
    from solvelens.flows.plan import SnapshotPlan

    # concurrency is a run's option: a deployment keeps only the fields a scheduled snapshot fixes
    plan = SnapshotPlan(base_url="http://127.0.0.1:1/api/v1", db_path="/data/s.duckdb", concurrency=3)
    deployment = snapshot_deployment(plan, cron="15 * * * *")
    assert deployment.parameters == {
        "plan": {
            "base_url": "http://127.0.0.1:1/api/v1",
            "db_path": "/data/s.duckdb",
            "full": False,
            "allow_missing_bot_me": False,
        }
    }
    assert deployment.name.startswith("snapshot-127.0.0.1-1-s-")
    assert [s.schedule.cron for s in deployment.schedules] == ["15 * * * *"]
    assert deployment.flow_name == "solvelens-snapshot"


def test_report_deployment_is_daily():
    pytest.importorskip("solvelens.flows.report", reason="the report flow is written by another engineer")
    from solvelens.flows.deployments import build_deployments
    from solvelens.flows.plan import SnapshotPlan

    plan = SnapshotPlan(base_url="http://127.0.0.1:1/api/v1", db_path="/d/s.duckdb")
    snap, report, compact = build_deployments(plan, "/d/r.html")
    assert report.parameters == {"db_path": "/d/s.duckdb", "out": "/d/r.html"}
    assert [s.schedule.cron for s in report.schedules] == ["30 6 * * *"]
    assert [s.schedule.cron for s in snap.schedules] == ["0 * * * *"]
    # The store is compacted weekly, on Sundays at 03:15 UTC (away from the hourly snapshot).
    assert compact.parameters == {"db_path": "/d/s.duckdb"}
    assert [s.schedule.cron for s in compact.schedules] == ["15 3 * * 0"]
    assert compact.flow_name == "solvelens-compact" and compact.name.startswith("compact-")


# -- as a real process: exit codes, one-line errors, Ctrl-C ------------------------------------------------


def _cli(*args: str, **kwargs: object) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SOLVELENS_", "PREFECT_API"))}
    return subprocess.Popen(
        [sys.executable, "-m", "solvelens", "snapshot", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        **kwargs,  # type: ignore[call-overload]
    )


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize(
    ("url", "code", "expected"),
    [
        ("http://127.0.0.1:{port}", 2, "does not end in /api/v1"),
        ("http://127.0.0.1:{port}/api/v1", 1, "cannot reach http://127.0.0.1:{port}/api/v1"),
        ("http://nonexistent.invalid/api/v1", 1, "nonexistent.invalid"),
    ],
)
def test_unusable_base_url_ends_in_one_line_and_writes_nothing(
    tmp_path: Path, url: str, code: int, expected: str
):
    port = _free_port()
    db = tmp_path / "store.duckdb"
    proc = _cli("--base-url", url.format(port=port), "--db", str(db))
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == code, err
    lines = [line for line in (out + err).splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), lines
    assert expected.format(port=port) in lines[0]
    assert not db.exists() and not list(tmp_path.iterdir())


def _interrupted_lines(out: str, base_url: str) -> list[str]:
    """The non-blank lines of an interrupted run, without the preflight's notice that the platform answers
    slowly (``GET /categories`` over :data:`~solvelens.flows.preflight.SLOW_ANSWER_S`): on a loaded machine
    the probe of a slow platform may cross it, and the notice is then the run's correct first line. At most
    one such notice, and only first, naming the platform."""
    lines = [line for line in out.splitlines() if line.strip()]
    notice = f"preflight: the platform at {base_url} answers slowly: GET /categories took "
    if lines and lines[0].startswith(notice):
        return lines[1:]
    return lines


def test_ctrl_c_stops_the_run_writes_nothing_and_exits_130(tmp_path: Path):
    """SIGINT while the solutions are being fetched from a slow platform (200 ms per request)."""
    server = start_sandbox(tmp_path / "slow.sqlite", latency_ms=200)
    db = tmp_path / "store.duckdb"
    try:
        proc = _cli("--base-url", server.base_url, "--db", str(db), "--concurrency", "2")
        staging = tmp_path / ".store.duckdb.staging"
        deadline = time.monotonic() + 120
        while not any(staging.glob("*/problems.parquet")) and time.monotonic() < deadline:
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.05)  # wait until the problems are staged and the solutions are being fetched
        assert any(staging.glob("*/problems.parquet")), "the problems were not staged within 120 s"
        assert proc.poll() is None, proc.communicate()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        server.stop()
    assert proc.returncode == 130, err
    lines = _interrupted_lines(out + err, server.base_url)
    assert lines == ["error: interrupted; no snapshot was written"], lines
    assert not db.exists()
    assert not any(staging.glob("*")) if staging.exists() else True


def test_ctrl_c_at_any_moment_of_a_busy_fetch_is_one_line(tmp_path: Path):
    """SIGINT at several moments while 8 requests are in flight at a time (5 ms each): the signal lands in
    task code, in the event loop or between steps. Each run exits 130 with the one line, writes nothing and
    does not hang (before the fix: a "Task exception was never retrieved" traceback, or a hang, about 1 run in
    15, when the signal landed inside a task)."""
    server = start_sandbox(tmp_path / "busy.sqlite", latency_ms=5)
    interrupted = 0
    try:
        for i, delay in enumerate((0.0, 0.03, 0.08, 0.15, 0.25, 0.4)):
            db = tmp_path / f"store{i}.duckdb"
            proc = _cli("--base-url", server.base_url, "--db", str(db), "--concurrency", "8")
            staging = tmp_path / f".store{i}.duckdb.staging"
            deadline = time.monotonic() + 60
            while not any(staging.glob("*/problems.parquet")) and time.monotonic() < deadline:
                time.sleep(0.01)
            time.sleep(delay)
            if proc.poll() is not None:  # finished before the signal: nothing to check at this delay
                proc.communicate()
                continue
            proc.send_signal(signal.SIGINT)
            out, err = proc.communicate(timeout=30)
            lines = _interrupted_lines(out + err, server.base_url)
            assert (proc.returncode, lines) == (130, ["error: interrupted; no snapshot was written"]), (
                delay,
                lines,
            )
            if db.exists():  # the signal came during the first write: the next run must start cleanly
                again = _cli("--base-url", server.base_url, "--db", str(db))
                assert again.wait(timeout=120) == 0, again.communicate()
                assert read_frame(db, "SELECT count(*) AS n FROM snapshots")["n"][0] == 1, delay
            interrupted += 1
    finally:
        server.stop()
    assert interrupted >= 4, f"only {interrupted} of 6 runs were still fetching when the signal came"


def test_ctrl_c_after_the_commit_keeps_the_snapshot_and_exits_0(tmp_path: Path):
    """SIGINT at the end of a run, once its transaction committed: while its alert is being delivered (a
    local webhook holds the request until the signal is sent). The snapshot is in the store, so the exit
    code says so: 0 and "snapshot N kept" (130 means nothing was written: a cron wrapper retrying on 130
    would take a duplicate)."""
    import http.server
    import sqlite3
    import threading

    hit = threading.Event()
    release = threading.Event()

    class Hook(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            hit.set()
            release.wait(20)
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    hook = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Hook)
    threading.Thread(target=hook.serve_forever, daemon=True).start()
    server = start_sandbox(tmp_path / "end.sqlite")
    db = tmp_path / "store.duckdb"
    try:
        first = _cli("--base-url", server.base_url, "--db", str(db), "--resources", "none")
        assert first.wait(timeout=120) == 0, first.communicate()
        server.create_bot("Latecomer")  # a new bot enters the leaderboard: "top 1000 entered" fires
        proc = _cli(
            "--base-url", server.base_url, "--db", str(db), "--resources", "none",
            "--alert", "top 1000 entered", "--notify", f"json://127.0.0.1:{hook.server_port}/hook",
        )  # fmt: skip
        assert hit.wait(120), proc.communicate()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        release.set()
        hook.shutdown()
        server.stop()
    lines = [line for line in (out + err).splitlines() if line.strip()]
    assert proc.returncode == 0, lines
    assert lines[-1] == "interrupted after the snapshot was written: snapshot 2 kept", lines
    with sqlite3.connect(server.db_path) as con:
        active = con.execute("SELECT count(*) FROM bots WHERE status = 'active'").fetchone()[0]
    stored = read_frame(db, "SELECT snapshot_id, count(*) AS n FROM leaderboard GROUP BY 1 ORDER BY 1")
    assert stored["snapshot_id"].to_list() == [1, 2] and stored["n"][1] == active


def test_a_platform_on_a_simulated_clock_gives_each_snapshot_its_time(tmp_path: Path):
    """The sandbox declares a simulated clock: a snapshot without --taken-at is taken at the platform's
    time (the truth: its database's clock), one simulated day is one day apart, and a store whose newest
    snapshot of that platform has the machine's time (as every one did before) does not refuse it."""
    import sqlite3
    from datetime import UTC, datetime, timedelta

    from solvelens.sandbox.simulate import advance

    def clock() -> datetime:
        with sqlite3.connect(server.db_path) as con:
            row = con.execute("SELECT value FROM meta WHERE key = 'clock_ms'").fetchone()
        ms = int(row[0]) if row else int(datetime(2026, 1, 1, tzinfo=UTC).timestamp() * 1000)
        return datetime.fromtimestamp(ms / 1000, UTC)

    server = start_sandbox(tmp_path / "clock.sqlite")
    db = tmp_path / "store.duckdb"
    args = ("--base-url", server.base_url, "--db", str(db), "--resources", "none")
    try:
        wall = datetime.now(UTC).isoformat()
        assert _cli(*args, "--taken-at", wall).wait(timeout=120) == 0
        first = _cli(*args)
        assert first.wait(timeout=120) == 0, first.communicate()
        at_first = clock()
        advance(server.db_path, days=1)
        second = _cli(*args)
        assert second.wait(timeout=120) == 0, second.communicate()
        at_second = clock()
    finally:
        server.stop()
    assert at_first < datetime.fromisoformat(wall)  # the simulated time is older than the machine's
    taken = read_frame(db, "SELECT taken_at FROM snapshots ORDER BY snapshot_id")["taken_at"].to_list()
    assert taken[1:] == [at_first, at_second], taken
    assert at_second - at_first == timedelta(days=1)


def test_a_flow_run_snapshot_says_what_it_does_within_2_s_when_not_on_a_terminal(
    quiet_sandbox: SandboxServer, tmp_path: Path
):
    """``snapshot --prefect`` with its output in a pipe (cron, a log): its first line (a plain line, no
    redraw) comes within 2 s of the process's start, before the preflight waits for the platform and before
    Prefect is imported. The process is stopped there: the flow run itself is the other tests' business."""
    db = tmp_path / "store.duckdb"
    started = time.monotonic()
    proc = _cli("--base-url", quiet_sandbox.base_url, "--db", str(db), "--no-bot-me", "--prefect")
    try:
        assert proc.stderr is not None
        first = proc.stderr.readline()
        elapsed = time.monotonic() - started
    finally:
        proc.kill()
        proc.communicate(timeout=30)
    assert first == "snapshot: checking that the platform answers (GET /categories)\n", first
    assert elapsed < 2.0, elapsed
