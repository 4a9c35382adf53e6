"""Tests of ``solvelens.client.bot`` (the runner), ``example_solver`` and ``solvelens bot run``, against the
sandbox server over real HTTP on 127.0.0.1."""

from __future__ import annotations

import io
import logging
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from solvelens.client import PlatformClient, RetryPolicy
from solvelens.client.bot import BotRunner, SolverLoadError, load_solver
from solvelens.client.example_solver import solve as example_solve
from solvelens.client.example_solver import solve_text
from tests.fixtures.sandbox import SandboxServer

FAST = RetryPolicy(attempts=3, wait_initial=0.01, wait_max=0.05, wait_jitter=0.0, retry_after_cap=0.5)
_names = iter(range(1_000_000))


def _bot(server: SandboxServer, prefix: str = "runner") -> tuple[str, str]:
    name = f"{prefix}-{os.getpid()}-{next(_names)}"
    return name, server.create_bot(name)


def _client(server: SandboxServer, key: str) -> PlatformClient:
    return PlatformClient(server.base_url, api_key=key, retry=FAST, read_env=False)


def _runner(
    client: PlatformClient, solver: Callable[[dict[str, Any]], Any] = example_solve, **kw: Any
) -> tuple[BotRunner, io.StringIO]:
    out = io.StringIO()
    kw.setdefault("idle_wait", 0.05)
    kw.setdefault("error_backoff", 0.01)
    runner = BotRunner(client, solver, console=Console(file=out, width=200, color_system=None), **kw)
    return runner, out


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("SOLVELENS_")}


# -- the example solver and solver loading ------------------------------------------------------------------


def test_example_solver_answers_both_shapes() -> None:
    real_vote = {
        "taskType": "vote",
        "taskId": "t",
        "payload": {
            "solution_a_text": "---DATA---\nshort\n---/DATA---",
            "solution_b_text": "much longer text",
        },
    }
    assert example_solve(real_vote) == {"winner": "b"}
    real_solve = {"taskType": "solve", "taskId": "t", "payload": {"problem_title": "Leaky tap"}}
    answer = example_solve(real_solve)
    assert isinstance(answer, dict)
    assert "Leaky tap" in answer["solution_text"]
    assert 50 <= len(answer["solution_text"]) <= 5000
    assert answer["llm_model"] == "solvelens-example"
    assert example_solve({"id": "t", "prompt": "Compare Solution A and Solution B", "type": "vote"}) in (
        "a",
        "b",
    )
    text = example_solve({"id": "t", "prompt": "How do I fix a leaky tap?"})
    assert isinstance(text, str) and len(text) >= 50
    flag = example_solve(
        {"taskType": "flag", "taskId": "t", "payload": {"categories": ["health", "technology"]}}
    )
    assert flag == {"verdict": "green", "category": "none", "suggested_category": "health"}


def test_example_solver_creates_unique_titles_in_listed_categories() -> None:
    created = [
        example_solve({"taskType": "create", "taskId": f"task-{i}", "payload": {"categories": cats}})
        for i, cats in enumerate([["health", "lifestyle"]] * 6 + [[{"slug": "technology"}]])
    ]
    titles = [c["problem_title"] for c in created]
    assert len(set(titles)) == len(titles)
    assert {c["category"] for c in created[:6]} == {"health", "lifestyle"}  # spread over what the task lists
    assert created[6]["category"] == "technology"
    assert all(
        5 <= len(t) <= 200 and 20 <= len(c["problem_description"]) <= 1000
        for t, c in zip(titles, created, strict=True)
    )


def test_load_solver(tmp_path: Path) -> None:
    assert load_solver("solvelens.client.example_solver:solve") is example_solve
    path = tmp_path / "my_solver.py"
    path.write_text("def answer(task):\n    return 'x' * 60\n")
    assert load_solver(f"{path}:answer")({}) == "x" * 60
    with pytest.raises(SolverLoadError, match="MODULE:FUNCTION"):
        load_solver("no_colon")
    with pytest.raises(SolverLoadError, match="cannot import"):
        load_solver("no.such.module:solve")
    with pytest.raises(SolverLoadError, match="no callable"):
        load_solver("solvelens.client.example_solver:nope")


# -- the runner against the sandbox --------------------------------------------------------------------------


def test_runner_real_shape_submits_and_records_me(sandbox: SandboxServer) -> None:
    _, key = _bot(sandbox)
    with _client(sandbox, key) as client:
        runner, out = _runner(client, max_tasks=6)
        summary = runner.run(handle_signals=False)
    assert summary.stopped_by == "max_tasks"
    assert summary.tasks == 6
    assert summary.submitted == 6, out.getvalue()
    assert summary.rejected == summary.conflicts == summary.errors == 0
    assert summary.me_start is not None and summary.me_end is not None
    assert summary.me_end["totalTasksCompleted"] - summary.me_start["totalTasksCompleted"] == 6
    lines = [line for line in out.getvalue().splitlines() if line.startswith("[")]
    assert len(lines) == 6
    assert all("submitted" in line for line in lines)
    assert "bot run summary" in out.getvalue()
    assert key not in out.getvalue()


def test_runner_interface_shape(make_sandbox: Callable[..., SandboxServer]) -> None:
    server = make_sandbox(task_shape="interface")
    _, key = _bot(server)
    seen: list[dict[str, Any]] = []

    def solver(task: dict[str, Any]) -> Any:
        seen.append(task)
        return example_solve(task)

    with _client(server, key) as client:
        runner, out = _runner(client, solver, max_tasks=5)
        summary = runner.run(handle_signals=False)
    assert summary.submitted == 5, out.getvalue()
    assert all(set(t) >= {"id", "prompt"} and "taskId" not in t for t in seen)
    assert summary.me_end is not None and summary.me_end["totalTasksCompleted"] == 5


def test_runner_idles_and_stops_promptly(make_sandbox: Callable[..., SandboxServer]) -> None:
    server = make_sandbox(task_types="create")  # one create task per bot per simulated day, then nothing
    _, key = _bot(server)
    with _client(server, key) as client:
        runner, out = _runner(client, idle_wait=30.0)
        thread = threading.Thread(target=runner.run, kwargs={"handle_signals": False})
        thread.start()
        deadline = time.monotonic() + 20
        while runner.summary.idle_polls == 0 and time.monotonic() < deadline:
            time.sleep(0.02)
        started = time.monotonic()
        runner.request_stop()
        thread.join(10)
    assert not thread.is_alive()
    assert time.monotonic() - started < 3  # the 30 s idle wait is interrupted
    assert runner.summary.tasks == 1 and runner.summary.submitted == 1, out.getvalue()
    assert runner.summary.idle_polls >= 1
    assert runner.summary.stopped_by == "signal"


def test_runner_stop_when_idle(make_sandbox: Callable[..., SandboxServer]) -> None:
    server = make_sandbox(task_types="create")
    _, key = _bot(server)
    with _client(server, key) as client:
        summary = _runner(client, stop_when_idle=True)[0].run(handle_signals=False)
    assert (summary.tasks, summary.submitted, summary.idle_polls, summary.stopped_by) == (1, 1, 1, "idle")
    assert summary.exit_code == 0


def test_runner_stops_on_401(sandbox: SandboxServer) -> None:
    key = "sl_key_" + "Z" * 43
    with _client(sandbox, key) as client:
        runner, out = _runner(client)
        summary = runner.run(handle_signals=False)
    assert summary.stopped_by == "auth"
    assert summary.exit_code == 1
    assert "rejected the API key (401" in summary.message
    assert key not in out.getvalue()


def test_runner_stops_on_403_mid_run(sandbox: SandboxServer) -> None:
    from solvelens.sandbox.accounts import suspend_bot

    name, key = _bot(sandbox)
    calls = 0

    def solver(task: dict[str, Any]) -> Any:
        nonlocal calls
        calls += 1
        if calls == 2:
            suspend_bot(sandbox.db_path, name)
        return example_solve(task)

    with _client(sandbox, key) as client:
        runner, out = _runner(client, solver, max_tasks=10)
        summary = runner.run(handle_signals=False)
    assert summary.stopped_by == "auth", out.getvalue()
    assert summary.submitted == 1
    assert summary.tasks == 2
    assert "403" in summary.message and "suspended" in summary.message.lower()


def test_runner_moves_on_after_409(sandbox: SandboxServer) -> None:
    _, key = _bot(sandbox)
    other = _client(sandbox, key)
    calls = 0

    def solver(task: dict[str, Any]) -> Any:
        # The first task is submitted by another process of the same bot while we solve it.
        nonlocal calls
        calls += 1
        answer = example_solve(task)
        if calls == 1:
            other.submit(str(task.get("taskId", task.get("id"))), answer)
        return answer

    with other, _client(sandbox, key) as client:
        runner, out = _runner(client, solver, max_tasks=3)
        summary = runner.run(handle_signals=False)
    assert summary.conflicts == 1, out.getvalue()
    assert summary.submitted == 2
    assert summary.stopped_by == "max_tasks"
    assert "409" in out.getvalue()


def test_runner_counts_solver_errors_and_backs_off(sandbox: SandboxServer) -> None:
    _, key = _bot(sandbox)

    def broken(task: dict[str, Any]) -> Any:
        raise RuntimeError("model offline")

    with _client(sandbox, key) as client:
        runner, out = _runner(client, broken, max_errors=3)
        summary = runner.run(handle_signals=False)
    assert summary.solver_errors == 3
    assert summary.submitted == 0
    assert summary.stopped_by == "errors"
    assert summary.exit_code == 1
    assert "model offline" in out.getvalue()


def test_string_solver_against_the_strict_sandbox_sends_typed_bodies(
    make_sandbox: Callable[..., SandboxServer],
) -> None:
    """A solver returning only strings, on every task type of the default (strict) sandbox: every answer
    becomes the typed body of its task and is accepted; no task fails."""
    first = make_sandbox(seed=5, task_types="flag")
    names = []
    for kind in ("flag", "solve", "vote", "create"):
        server = first if kind == "flag" else make_sandbox(db_path=first.db_path, task_types=kind)
        name, key = _bot(server, f"strings-{kind}")
        names.append(name)
        with _client(server, key) as client:
            runner, out = _runner(client, solve_text, max_tasks=3, stop_when_idle=True)
            summary = runner.run(handle_signals=False)
        assert summary.exit_code == 0 and summary.by_type.get(kind, 0) >= 1, out.getvalue()
        assert summary.submitted == summary.tasks and summary.rejected == summary.refused == 0, out.getvalue()
    marks = ",".join("?" * len(names))
    with sqlite3.connect(first.db_path) as conn:
        models = {
            r[0]
            for r in conn.execute(
                "SELECT s.llm_model FROM solutions s JOIN bots b ON b.id = s.bot_id "
                f"WHERE b.name IN ({marks})",
                names,
            )
        }
        statuses = {
            r[0]
            for r in conn.execute(
                f"SELECT t.status FROM tasks t JOIN bots b ON b.id = t.bot_id WHERE b.name IN ({marks})",
                names,
            )
        }
    assert models == {"solvelens-example"}  # the model the solver declares
    assert statuses == {"completed"}  # no task failed


def test_ambiguous_answers_are_refused_locally_and_stop_the_run(sandbox: SandboxServer) -> None:
    name, key = _bot(sandbox, "prose")
    with _client(sandbox, key) as client:
        runner, out = _runner(client, lambda task: "I think this one is fine.", max_tasks=20)
        summary = runner.run(handle_signals=False)
    assert (summary.stopped_by, summary.exit_code, summary.refused, summary.tasks) == ("rejections", 1, 3, 3)
    assert "3 answers in a row were rejected" in summary.message and "fix the solver" in summary.message
    refused = [line for line in out.getvalue().splitlines() if "refused, not sent" in line]
    assert len(refused) == 3 and all("body is a JSON object with" in line for line in refused), out.getvalue()
    with sqlite3.connect(sandbox.db_path) as conn:
        statuses = [
            r[0]
            for r in conn.execute(
                "SELECT t.status FROM tasks t JOIN bots b ON b.id = t.bot_id WHERE b.name = ?", (name,)
            )
        ]
    assert statuses == ["assigned"]  # nothing was submitted: the one task is still the bot's, not failed


def test_server_rejections_stop_the_run_after_max_rejections(
    make_sandbox: Callable[..., SandboxServer],
) -> None:
    """Interface-shaped tasks get ``{"content"}`` as they are; the server refuses "both" for a vote."""
    server = make_sandbox(task_shape="interface", task_types="vote")
    _, key = _bot(server)
    with _client(server, key) as client:
        runner, out = _runner(client, lambda task: "both", max_rejections=2)
        summary = runner.run(handle_signals=False)
    assert (summary.stopped_by, summary.exit_code, summary.rejected, summary.submitted) == (
        "rejections",
        1,
        2,
        0,
    )
    assert "400 Validation error" in summary.message, summary.message
    assert "winner" in out.getvalue()


def test_duplicate_title_creates_are_counted_as_duplicates(
    make_sandbox: Callable[..., SandboxServer],
) -> None:
    server = make_sandbox(task_types="create")
    title = next(iter(PlatformClient(server.base_url, read_env=False).list_problems()))["title"]
    _, key = _bot(server)

    def copycat(task: dict[str, Any]) -> Any:
        return {"problem_title": title, "problem_description": "D" * 40, "category": "health"}

    with _client(server, key) as client:
        runner, out = _runner(client, copycat, stop_when_idle=True)
        summary = runner.run(handle_signals=False)
    assert (summary.tasks, summary.duplicates, summary.submitted, summary.exit_code) == (1, 1, 0, 0)
    assert "Duplicate title" in out.getvalue()


def test_polls_answered_500_stop_the_run_with_a_summary(
    make_sandbox: Callable[..., SandboxServer], caplog: pytest.LogCaptureFixture
) -> None:
    """The platform's task queue is down (every /tasks/next is a 500; reads and /bot/me work)."""
    caplog.set_level(logging.WARNING, logger="solvelens.client")
    server = make_sandbox(fault_rate=1.0, fault_kinds="500", fault_paths="/tasks/next")
    _, key = _bot(server)
    with _client(server, key) as client:
        runner, out = _runner(client, max_errors=3)
        summary = runner.run(handle_signals=False)
    assert (summary.stopped_by, summary.exit_code, summary.errors, summary.tasks) == ("errors", 1, 3, 0)
    assert "stopped:" in out.getvalue() and "bot run summary" in out.getvalue()
    assert "3 errors in a row (--max-errors 3)" in summary.message
    assert "/tasks/next" in summary.message and "500" in summary.message
    retries = [r.getMessage() for r in caplog.records if "attempt" in r.getMessage()]
    assert len(retries) == 3 * (FAST.attempts - 1)
    assert retries[0].startswith("GET /tasks/next -> 500 Internal server error; attempt 1/3 failed, next in ")
    assert summary.me_start is not None and summary.me_end is not None  # /bot/me was not affected


# -- the command line ---------------------------------------------------------------------------------------


def _cli(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "solvelens", "bot", "run", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=_env() | {"COLUMNS": "200"},
    )


def test_cli_runs_tasks(sandbox: SandboxServer) -> None:
    _, key = _bot(sandbox)
    solver = "solvelens.client.example_solver:solve"
    result = _cli("--base-url", sandbox.base_url, "--api-key", key, "--solver", solver, "--max-tasks", "3")
    assert result.returncode == 0, result.stderr
    assert result.stdout.count(" -> submitted") == 3
    assert "stopped by" in result.stdout and "max_tasks" in result.stdout
    assert key not in result.stdout + result.stderr


def test_cli_string_solver_and_declared_model(sandbox: SandboxServer) -> None:
    name, key = _bot(sandbox, "cli-strings")
    solver = "solvelens.client.example_solver:solve_text"
    result = _cli(
        "--base-url", sandbox.base_url, "--api-key", key, "--solver", solver, "--max-tasks", "4",
        "--llm-model", "my-model-1",
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count(" -> submitted") == 4
    with sqlite3.connect(sandbox.db_path) as conn:
        models = {
            r[0]
            for r in conn.execute(
                "SELECT s.llm_model FROM solutions s JOIN bots b ON b.id = s.bot_id WHERE b.name = ?", (name,)
            )
        }
    assert models <= {"my-model-1"}


def test_cli_stops_on_500_polls_with_readable_retry_lines(make_sandbox: Callable[..., SandboxServer]) -> None:
    server = make_sandbox(fault_rate=1.0, fault_kinds="500", fault_paths="/tasks/next")
    _, key = _bot(server)
    solver = "solvelens.client.example_solver:solve"
    result = _cli(
        "--base-url", server.base_url, "--api-key", key, "--solver", solver, "--max-errors", "2",
        "--max-attempts", "2",
    )  # fmt: skip
    assert result.returncode == 1
    retry_lines = [line for line in result.stderr.splitlines() if "attempt 1/2 failed" in line]
    assert len(retry_lines) == 2, result.stderr
    assert all("GET /tasks/next -> 500 Internal server error" in line for line in retry_lines)
    assert "stamina.retry_scheduled" not in result.stderr
    stopped = [line for line in result.stdout.splitlines() if line.startswith("stopped:")]
    assert len(stopped) == 1 and "2 errors in a row (--max-errors 2)" in stopped[0], result.stdout
    assert "errors" in result.stdout.split("stopped by", 1)[1]


def test_cli_base_url_without_api_v1(sandbox: SandboxServer) -> None:
    result = _cli("--base-url", sandbox.root_url, "--api-key", "sl_key_" + "a" * 43, "--solver", "x:y")
    assert result.returncode == 1
    message = result.stderr.strip()
    assert len(message.splitlines()) == 1
    assert f"{sandbox.root_url} does not end in /api/v1" in message
    assert f"{sandbox.root_url}/api/v1" in message


def test_cli_connection_refused_is_one_clear_line() -> None:
    from tests.fixtures.sandbox import free_port

    url = f"http://127.0.0.1:{free_port()}/api/v1"
    solver = "solvelens.client.example_solver:solve"
    result = _cli(
        "--base-url", url, "--api-key", "sl_key_" + "a" * 43, "--solver", solver, "--max-attempts", "1"
    )
    assert result.returncode == 1
    stopped = [line for line in result.stdout.splitlines() if line.startswith("stopped:")]
    assert len(stopped) == 1
    assert f"cannot reach {url}" in stopped[0]
    assert "check the URL and that the server is running" in stopped[0]


@pytest.fixture
def html_server() -> Iterator[str]:
    """A real HTTP server on 127.0.0.1 that answers every path with an HTML page (a website, not the API)."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = b"<!doctype html><html><body><h1>Welcome to OpenSolve</h1></body></html>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_cli_html_answering_url_is_one_clear_line(html_server: str) -> None:
    url = f"{html_server}/api/v1"
    solver = "solvelens.client.example_solver:solve"
    result = _cli("--base-url", url, "--api-key", "sl_key_" + "a" * 43, "--solver", solver)
    assert result.returncode == 1
    stopped = [line for line in result.stdout.splitlines() if line.startswith("stopped:")]
    assert len(stopped) == 1
    assert f"{url}/bot/me answered HTML, not JSON" in stopped[0]
    assert "ending in /api/v1" in stopped[0]


def test_cli_rejects_a_malformed_key_before_any_request() -> None:
    result = _cli("--base-url", "http://127.0.0.1:9/api/v1", "--api-key", "hunter2", "--solver", "x:y")
    assert result.returncode == 1
    assert "expected form" in result.stderr
    assert "hunter2" not in result.stderr + result.stdout


def test_cli_sigint_finishes_the_current_task(sandbox: SandboxServer, tmp_path: Path) -> None:
    _, key = _bot(sandbox)
    marker = tmp_path / "solving"
    solver_file = tmp_path / "slow_solver.py"
    solver_file.write_text(
        "import pathlib, time\n"
        "from solvelens.client.example_solver import solve as base\n"
        "def solve(task):\n"
        f"    p = pathlib.Path({str(marker)!r})\n"
        "    p.write_text(str(int(p.read_text() or 0) + 1) if p.exists() else '1')\n"
        "    time.sleep(1.0)\n"
        "    return base(task)\n"
    )
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "solvelens",
            "bot",
            "run",
            "--base-url",
            sandbox.base_url,
            "--solver",
            f"{solver_file}:solve",
            "--idle-wait",
            "0.1",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env() | {"COLUMNS": "200", "SOLVELENS_API_KEY": key},
    )
    deadline = time.monotonic() + 60
    while not (marker.exists() and marker.read_text() == "2") and time.monotonic() < deadline:
        time.sleep(0.02)
    proc.send_signal(signal.SIGINT)  # while task 2 is being solved
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 0, stderr
    assert "SIGINT: finishing the current task" in stdout
    progress = [line for line in stdout.splitlines() if line.startswith("[")]
    assert len(progress) == 2, stdout
    assert all("submitted" in line for line in progress)
    assert "signal" in stdout.split("stopped by", 1)[1]
