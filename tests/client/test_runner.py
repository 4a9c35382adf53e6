"""Tests of ``solvelens.client.runner`` (the bot runner), ``example_solver`` and ``solvelens bot run``,
against the sandbox server over real HTTP on 127.0.0.1."""

from __future__ import annotations

import io
import json
import logging
import os
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import closing
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from solvelens.client import PlatformClient, RetryPolicy
from solvelens.client.example_solver import solve as example_solve
from solvelens.client.example_solver import solve_text
from solvelens.client.runner import BotRunner, SolverLoadError, load_solver
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
    runner = BotRunner(
        client, solver, console=Console(file=out, width=200, color_system=None, soft_wrap=True), **kw
    )
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
        {"content": "a"},
        {"content": "b"},
    )
    text = example_solve({"id": "t", "prompt": "How do I fix a leaky tap?"})
    assert isinstance(text, dict) and len(text["content"]) >= 50
    offered = {
        "id": "t",
        "kind": "vote",
        "prompt": "?",
        "choices": [{"key": "A", "text": "x"}, {"key": "B", "text": "yy"}],
    }
    assert example_solve(offered) == {"content": "B"} and solve_text(offered) == "B"
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
    # the sandbox re-serves the task the bot holds (nothing was submitted): counted each time, warned once
    assert summary.reserved == 2
    assert out.getvalue().count("re-serves task") == 1


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


def test_ambiguous_answers_are_refused_locally_and_stop_the_run(
    sandbox: SandboxServer, make_sandbox: Callable[..., SandboxServer]
) -> None:
    # Only typed tasks (flag, vote), whatever the session's platform was asked before: a solve task takes
    # prose as its answer, and the realistic sandbox keeps other tests' tasks assigned for 600 s, so the
    # pending problems' flag tasks can be spoken for and the next task would be a solve.
    typed = make_sandbox(db_path=sandbox.db_path, task_types="flag,vote")
    name, key = _bot(typed, "prose")
    with _client(typed, key) as client:
        runner, out = _runner(client, lambda task: "I think this one is fine.", max_tasks=20)
        summary = runner.run(handle_signals=False)
    # the one task stays assigned and is served again: its second refusal stops the run (no loop)
    assert (summary.stopped_by, summary.exit_code, summary.refused, summary.tasks) == ("held", 1, 2, 2), (
        out.getvalue()
    )
    assert "stays assigned" in summary.message and "Fix the solver" in summary.message
    refused = [line for line in out.getvalue().splitlines() if "refused, not sent" in line]
    # each refusal names the platform's rule and where it was read (the typed body's documented form, or
    # the bound the task's instruction states)
    assert len(refused) == 2, out.getvalue()
    assert all(
        "body is a JSON object with" in line or "(the task's instruction)" in line for line in refused
    ), out.getvalue()
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
    """Interface-shaped tasks get ``{"content"}`` as they are; the server refuses "both" for a vote (vote
    tasks only: a flag refused first would name its own field)."""
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
    module_sandbox: Callable[..., SandboxServer], caplog: pytest.LogCaptureFixture
) -> None:
    """The platform's task queue is down (every /tasks/next is a 500; reads and /bot/me work)."""
    caplog.set_level(logging.WARNING, logger="solvelens.client")
    server = module_sandbox(fault_rate=1.0, fault_kinds="500", fault_paths="/tasks/next")
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


def test_cli_stops_on_500_polls_with_readable_retry_lines(
    module_sandbox: Callable[..., SandboxServer],
) -> None:
    server = module_sandbox(fault_rate=1.0, fault_kinds="500", fault_paths="/tasks/next")
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
    assert result.returncode == 2  # bad input
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
    assert re.search(r"^solutions\s+\d+ -> \d+", stdout, re.M), stdout  # /bot/me recorded at the end


# -- stopping when asked and when the platform is down ------------------------------------------------------


class _Lines:
    """Reads a subprocess stream line by line in a thread; ``wait_for(text)`` blocks until a line has it."""

    def __init__(self, stream: Any) -> None:
        self.lines: list[str] = []
        self._changed = threading.Condition()
        self._thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self._thread.start()

    def _read(self, stream: Any) -> None:
        for line in stream:
            with self._changed:
                self.lines.append(line.rstrip("\n"))
                self._changed.notify_all()

    def wait_for(self, text: str, count: int = 1, timeout: float = 60) -> list[str]:
        deadline = time.monotonic() + timeout
        with self._changed:
            while len(hits := [line for line in self.lines if text in line]) < count:
                if not self._changed.wait(max(0.0, deadline - time.monotonic())):
                    raise AssertionError(f"no {count} lines with {text!r} in {timeout} s: {self.lines}")
            return hits

    def text(self) -> str:
        self._thread.join(10)
        return "\n".join(self.lines)


def _start_cli(*args: str, cwd: Path | None = None) -> tuple[subprocess.Popen[str], _Lines, _Lines]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "solvelens", "bot", "run", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=cwd,
        env=_env() | {"COLUMNS": "200"},
    )
    return proc, _Lines(proc.stdout), _Lines(proc.stderr)


def _time_to_exit(proc: subprocess.Popen[str], sig: int) -> float:
    sent = time.monotonic()
    proc.send_signal(sig)
    proc.wait(timeout=60)
    return time.monotonic() - sent


def test_cli_sigterm_during_retry_backoff_exits_at_once(module_sandbox: Callable[..., SandboxServer]) -> None:
    """Every poll answered 500: SIGTERM while the client sleeps before its 4th attempt (a 4-5 s back-off)
    ends the run at once (the issue measured 83 s), exit 0, no task lost."""
    server = module_sandbox(fault_rate=1.0, fault_kinds="500", fault_paths="/tasks/next")
    _, key = _bot(server)
    proc, out, err = _start_cli(
        "--base-url", server.base_url, "--api-key", key, "--solver", "solvelens.client.example_solver:solve",
        "--max-attempts", "8",
    )  # fmt: skip
    retry = err.wait_for("attempt 3/8 failed, next in ")[0]
    assert float(retry.rsplit("next in ", 1)[1].split()[0]) >= 2.0  # the wait the signal cuts
    elapsed = _time_to_exit(proc, signal.SIGTERM)
    stdout = out.text()
    assert proc.returncode == 0, stdout + err.text()
    assert elapsed < 2.0, f"exit took {elapsed:.2f} s"
    assert "SIGTERM: stopping now (no task in hand)" in stdout
    assert "signal" in stdout.split("stopped by", 1)[1]


def test_cli_sigint_during_the_runner_backoff_exits_at_once(
    module_sandbox: Callable[..., SandboxServer],
) -> None:
    """Polls fail after one attempt each; Ctrl-C during the runner's own 4 s back-off ends the run at once."""
    server = module_sandbox(fault_rate=1.0, fault_kinds="500", fault_paths="/tasks/next")
    _, key = _bot(server)
    proc, out, err = _start_cli(
        "--base-url", server.base_url, "--api-key", key, "--solver", "solvelens.client.example_solver:solve",
        "--max-attempts", "1", "--max-errors", "50",
    )  # fmt: skip
    out.wait_for("retrying in 4 s")
    elapsed = _time_to_exit(proc, signal.SIGINT)
    assert proc.returncode == 0, out.text() + err.text()
    assert elapsed < 2.0, f"exit took {elapsed:.2f} s"


def test_request_stop_from_another_thread_ends_a_poll_s_retries(
    module_sandbox: Callable[..., SandboxServer],
) -> None:
    """Without signals (a runner in a thread), request_stop() stops the poll's retries at the next failure."""
    server = module_sandbox(fault_rate=1.0, fault_kinds="500", fault_paths="/tasks/next")
    _, key = _bot(server)
    slow = RetryPolicy(attempts=100, wait_initial=0.2, wait_max=0.2, wait_jitter=0.0)
    with PlatformClient(server.base_url, api_key=key, retry=slow, read_env=False) as client:
        runner, out = _runner(client, max_outage=0)
        thread = threading.Thread(target=runner.run, kwargs={"handle_signals": False})
        thread.start()
        time.sleep(1.0)
        runner.request_stop()
        thread.join(10)
    assert not thread.is_alive()
    assert runner.summary.stopped_by == "signal", out.getvalue()
    assert runner.summary.errors == 1  # the one poll, cut after a few of its 100 attempts


def test_runner_stops_when_the_platform_is_down_longer_than_max_outage(
    make_sandbox: Callable[..., SandboxServer],
) -> None:
    server = make_sandbox(fault_rate=1.0, fault_kinds="500,502,503", fault_paths="/tasks/next")
    _, key = _bot(server)
    with _client(server, key) as client:
        runner, out = _runner(client, max_outage=1.0, max_errors=10_000, error_backoff=0.05)
        summary = runner.run(handle_signals=False)
    assert (summary.stopped_by, summary.exit_code, summary.tasks) == ("outage", 1, 0), out.getvalue()
    assert summary.errors >= 2
    assert summary.duration_s >= 1.0
    stopped = [line for line in out.getvalue().splitlines() if line.startswith("stopped:")]
    assert len(stopped) == 1
    assert "the platform failed every poll for" in stopped[0] and "(--max-outage 1 s)" in stopped[0]
    assert "GET /tasks/next" in stopped[0]
    assert summary.me_end is None  # no end record against a platform that is down


def test_max_outage_cuts_a_poll_s_retries(module_sandbox: Callable[..., SandboxServer]) -> None:
    """One poll would retry for ~60 s; --max-outage 1.5 ends the run after its deadline, not after them."""
    server = module_sandbox(fault_rate=1.0, fault_kinds="500", fault_paths="/tasks/next")
    _, key = _bot(server)
    slow = RetryPolicy(attempts=60, wait_initial=1.0, wait_max=1.0, wait_jitter=0.0)
    with PlatformClient(server.base_url, api_key=key, retry=slow, read_env=False) as client:
        runner, out = _runner(client, max_outage=1.5)
        summary = runner.run(handle_signals=False)
    assert summary.stopped_by == "outage", out.getvalue()
    assert 1.5 <= summary.duration_s < 20  # the deadline, plus at most one 1 s back-off and the request


def test_cli_max_outage_is_one_line_and_exit_1(module_sandbox: Callable[..., SandboxServer]) -> None:
    server = module_sandbox(fault_rate=1.0, fault_kinds="500", fault_paths="/tasks/next")
    _, key = _bot(server)
    result = _cli(
        "--base-url", server.base_url, "--api-key", key, "--solver", "solvelens.client.example_solver:solve",
        "--max-outage", "2",
    )  # fmt: skip
    assert result.returncode == 1, result.stdout + result.stderr
    stopped = [line for line in result.stdout.splitlines() if line.startswith("stopped:")]
    assert len(stopped) == 1 and "(--max-outage 2 s)" in stopped[0], result.stdout
    assert "outage" in result.stdout.split("stopped by", 1)[1]


# -- answers the runner does not understand ------------------------------------------------------------------

_ME = {"id": "bot-1", "name": "tiny", "status": "active", "totalPoints": 0, "totalSolutions": 0}


@pytest.fixture
def tiny_platform() -> Iterator[tuple[str, list[Any], list[str]]]:
    """A real HTTP server on 127.0.0.1 whose ``/tasks/next`` answers the bodies of a list in turn (the last
    one repeated; ``None`` = 204), ``/bot/me`` a bot, submits 200. Yields (base URL, bodies, requested
    paths)."""
    bodies: list[Any] = []
    paths: list[str] = []
    served = iter(range(1_000_000))

    class Handler(BaseHTTPRequestHandler):
        def _json(self, status: int, body: Any) -> None:
            data = b"" if body is None else json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            paths.append(self.path)
            if self.path.startswith("/api/v1/bot/me"):
                self._json(200, _ME)
            elif self.path.startswith("/api/v1/tasks/next"):
                body = bodies[min(next(served), len(bodies) - 1)]
                self._json(204 if body is None else 200, body)
            else:
                self._json(404, {"error": "Not found"})

        def do_POST(self) -> None:
            paths.append(self.path)
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            self._json(200, {"success": True})

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/api/v1", bodies, paths
    server.shutdown()
    server.server_close()


def test_cli_unknown_task_bodies_stop_the_run_after_3_polls(
    tiny_platform: tuple[str, list[Any], list[str]],
) -> None:
    url, bodies, paths = tiny_platform
    bodies.append({"job": {"ref": "j-1", "kind": "solve", "text": "Fix the tap"}, "ok": True})
    result = _cli(
        "--base-url", url, "--api-key", "sl_key_" + "a" * 43, "--solver",
        "solvelens.client.example_solver:solve", "--idle-wait", "0.1",
    )  # fmt: skip
    assert result.returncode == 1, result.stdout + result.stderr
    assert sum(p.startswith("/api/v1/tasks/next") for p in paths) == 3
    stopped = [line for line in result.stdout.splitlines() if line.startswith("stopped:")]
    assert len(stopped) == 1, result.stdout
    assert "3 polls in a row" in stopped[0] and "top-level keys: job, ok" in stopped[0]
    assert "[endpoints.tasks_next]" in stopped[0]
    assert re.search(r"^idle polls\s+0\s*$", result.stdout, re.M) and re.search(
        r"^unrecognized polls\s+3\s*$", result.stdout, re.M
    )


def test_unknown_bodies_must_come_in_a_row_and_a_task_resets_them(
    tiny_platform: tuple[str, list[Any], list[str]],
) -> None:
    url, bodies, _ = tiny_platform
    unknown = {"result": {"kind": "solve"}}
    task = {"taskType": "vote", "taskId": "task-0001", "payload": {"problem_title": "Tap"}}
    bodies.extend([unknown, unknown, None, unknown, unknown, task, unknown, unknown, unknown])
    with PlatformClient(url, api_key="sl_key_" + "a" * 43, retry=FAST, read_env=False) as client:
        runner, out = _runner(client, lambda t: "a")
        summary = runner.run(handle_signals=False)
    assert (summary.stopped_by, summary.unrecognized, summary.idle_polls) == ("unrecognized", 7, 1)
    assert summary.submitted == 1, out.getvalue()
    assert out.getvalue().count("polling again") == 6


def test_a_held_task_served_again_is_reported(tiny_platform: tuple[str, list[Any], list[str]]) -> None:
    url, bodies, _ = tiny_platform
    task = {"taskType": "vote", "taskId": "task-0001", "payload": {"problem_title": "Tap"}}
    bodies.extend([task, task, task, None])
    calls = 0

    def flaky(t: dict[str, Any]) -> str:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise RuntimeError("model offline")
        return "a"

    with PlatformClient(url, api_key="sl_key_" + "a" * 43, retry=FAST, read_env=False) as client:
        runner, out = _runner(client, flaky, stop_when_idle=True)
        summary = runner.run(handle_signals=False)
    warnings = [line for line in out.getvalue().splitlines() if "re-serves task" in line]
    assert len(warnings) == 1, out.getvalue()
    assert 'vote   task-0001 "Tap"' in warnings[0] and "the solver failed" in warnings[0]
    assert (summary.reserved, summary.submitted, summary.tasks) == (1, 2, 3)


# -- the declared model, solvers in the current folder, progress lines --------------------------------------


def _stored_models(server: SandboxServer, bot_name: str) -> list[str]:
    with closing(sqlite3.connect(server.db_path)) as conn:
        query = "SELECT s.llm_model FROM solutions s JOIN bots b ON b.id = s.bot_id WHERE b.name = ?"
        return [r[0] for r in conn.execute(query, (bot_name,))]


def test_cli_llm_model_wins_over_the_solver_s_own(make_sandbox: Callable[..., SandboxServer]) -> None:
    server = make_sandbox(task_types="solve")
    name, key = _bot(server, "declared")
    result = _cli(
        "--base-url", server.base_url, "--api-key", key, "--solver", "solvelens.client.example_solver:solve",
        "--max-tasks", "3", "--llm-model", "my-model-2",
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert _stored_models(server, name) == ["my-model-2"] * 3  # not the solver's "solvelens-example"
    warnings = [line for line in result.stdout.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1, result.stdout
    assert "--llm-model my-model-2 wins over" in warnings[0] and "'solvelens-example'" in warnings[0]


def test_solver_s_own_model_is_kept_without_llm_model(make_sandbox: Callable[..., SandboxServer]) -> None:
    server = make_sandbox(task_types="solve")
    name, key = _bot(server, "own-model")
    result = _cli(
        "--base-url", server.base_url, "--api-key", key, "--solver", "solvelens.client.example_solver:solve",
        "--max-tasks", "2",
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert _stored_models(server, name) == ["solvelens-example"] * 2
    assert "warning:" not in result.stdout


def test_cli_solver_module_in_the_current_folder(sandbox: SandboxServer, tmp_path: Path) -> None:
    _, key = _bot(sandbox)
    (tmp_path / "mysolver.py").write_text(
        "from solvelens.client.example_solver import solve as base\n\n\n"
        "def solve(task):\n    return base(task)\n"
    )
    args = ("--base-url", sandbox.base_url, "--api-key", key, "--max-tasks", "1")
    result = subprocess.run(
        [sys.executable, "-m", "solvelens", "bot", "run", *args, "--solver", "mysolver:solve"],
        capture_output=True, text=True, timeout=60, cwd=tmp_path, env=_env() | {"COLUMNS": "200"},
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count(" -> submitted") == 1
    elsewhere = _cli(*args, "--solver", "mysolver:solve", "--app-dir", str(tmp_path))
    assert elsewhere.returncode == 0, elsewhere.stdout + elsewhere.stderr


def test_cli_solver_that_cannot_be_imported_is_one_line(tmp_path: Path) -> None:
    url, key = "http://127.0.0.1:9/api/v1", "sl_key_" + "a" * 43
    missing = _cli(
        "--base-url", url, "--api-key", key, "--solver", "nosuchsolver:solve", "--app-dir", str(tmp_path)
    )
    assert missing.returncode == 2  # bad input, as every command's (issue 33)
    assert missing.stderr.count("\n") == 1, missing.stderr
    assert f"no nosuchsolver.py in {tmp_path.resolve()}" in missing.stderr and "--app-dir" in missing.stderr
    (tmp_path / "broken.py").write_text("import os\n\ndef solve(task):\n    return 1 +\n")
    broken = _cli("--base-url", url, "--api-key", key, "--solver", "broken:solve", "--app-dir", str(tmp_path))
    assert broken.returncode == 2
    assert broken.stderr.count("\n") == 1, broken.stderr
    assert "failed while importing: SyntaxError" in broken.stderr and "broken.py:4" in broken.stderr


def test_load_solver_from_an_app_dir(tmp_path: Path) -> None:
    (tmp_path / "appdir_solver_mod.py").write_text("def solve(task):\n    return 'x' * 60\n")
    assert load_solver("appdir_solver_mod:solve", app_dir=tmp_path)({}) == "x" * 60
    (tmp_path / "needs_dep.py").write_text(
        "import no_such_dependency_xyz\n\ndef solve(task):\n    return ''\n"
    )
    with pytest.raises(SolverLoadError, match="imports 'no_such_dependency_xyz', which is not installed"):
        load_solver("needs_dep:solve", app_dir=tmp_path)


def test_progress_lines_tell_tasks_apart(sandbox: SandboxServer) -> None:
    _, key = _bot(sandbox)
    seen: list[dict[str, Any]] = []

    def solver(task: dict[str, Any]) -> Any:
        seen.append(task)
        return example_solve(task)

    with _client(sandbox, key) as client:
        runner, out = _runner(client, solver, max_tasks=6)
        runner.run(handle_signals=False)
    lines = [line for line in out.getvalue().splitlines() if line.startswith("[")]
    assert len(lines) == len(seen) == 6
    for line, task in zip(lines, seen, strict=True):
        assert line.split()[1] == task["taskType"]
        assert "…" + task["taskId"][-8:] in line
        title = " ".join(str(task["payload"].get("problem_title", "")).replace("---DATA---", "").split())
        if title:
            assert f'"{title[:20]}' in line, line
        assert len(line) < 160, line


def test_solver_traceback_once_with_verbose_one_line_without(sandbox: SandboxServer) -> None:
    def broken(task: dict[str, Any]) -> Any:
        raise ValueError("no model configured")

    for verbose in (False, True):
        _, key = _bot(sandbox)
        with _client(sandbox, key) as client:
            runner, out = _runner(client, broken, max_errors=3, verbose=verbose)
            runner.run(handle_signals=False)
        text = out.getvalue()
        assert text.count("solver error: ValueError: no model configured") == 3, text
        if verbose:
            assert text.count("Traceback (most recent call last)") == 1, text
            assert "(same traceback as above)" in text and 'raise ValueError("no model configured")' in text
        else:
            assert "Traceback" not in text and "(-v shows the traceback)" in text


def test_cli_second_signal_aborts_and_names_the_task_in_hand(sandbox: SandboxServer, tmp_path: Path) -> None:
    _, key = _bot(sandbox)
    (tmp_path / "stuck_solver.py").write_text(
        "import sys, time\n\n\ndef solve(task):\n    print('solving', flush=True)\n    time.sleep(60)\n"
    )
    proc, out, err = _start_cli(
        "--base-url", sandbox.base_url, "--api-key", key, "--solver", "stuck_solver:solve", cwd=tmp_path
    )  # fmt: skip
    out.wait_for("solving")
    proc.send_signal(signal.SIGTERM)
    out.wait_for("SIGTERM: finishing the current task")
    elapsed = _time_to_exit(proc, signal.SIGTERM)
    stdout = out.text()
    assert proc.returncode == 130, stdout + err.text()
    assert elapsed < 5
    aborted = [line for line in stdout.splitlines() if line.startswith("aborted: task ")]
    assert len(aborted) == 1 and "was not submitted; the platform holds it until it expires" in aborted[0]
    assert "Traceback" not in err.text()


class _SignalledRaw(io.RawIOBase):
    """A file whose first raw write lets ``on_write`` run inside it, as CPython runs a signal handler between
    the raw writes of a buffered flush (the buffer's lock held: a write from the handler is a real
    ``RuntimeError: reentrant call``)."""

    def __init__(self, fd: int, on_write: Callable[[], None]) -> None:
        self.fd, self.on_write, self.armed = fd, on_write, True

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self.fd

    def write(self, data: Any) -> int:
        written = os.write(self.fd, bytes(data))
        if self.armed:
            self.armed = False
            self.on_write()
        return written


def test_a_signal_landing_inside_a_write_to_the_console_is_said_at_once(tmp_path: Path) -> None:
    """The solver is printing when SIGTERM lands: the runner's line reaches the terminal then, not once the
    task is done (the runner's console and the solver share stdout)."""
    path = tmp_path / "stdout"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT)
    with PlatformClient("http://127.0.0.1:9/api/v1", api_key="sl_key_" + "a" * 43, read_env=False) as client:
        holder: list[BotRunner] = []
        stream = io.TextIOWrapper(
            io.BufferedWriter(_SignalledRaw(fd, lambda: holder[0]._on_signal(signal.SIGTERM, None)))
        )
        runner = BotRunner(client, example_solve, console=Console(file=stream, width=200, color_system=None))
        holder.append(runner)
        stream.write("solving\n")  # what a solver's print does
        stream.flush()
    os.close(fd)
    assert path.read_text().splitlines() == ["solving", "SIGTERM: stopping (again to abort)"]
    assert runner.stopping


def test_max_outage_counts_timeouts(make_sandbox: Callable[..., SandboxServer]) -> None:
    """A platform that hangs (every poll slower than the client's timeout) is down too."""
    server = make_sandbox(fault_rate=1.0, fault_kinds="slow", slow_ms=3000, fault_paths="/tasks/next")
    _, key = _bot(server)
    with PlatformClient(server.base_url, api_key=key, retry=FAST, timeout=0.3, read_env=False) as client:
        runner, out = _runner(client, max_outage=1.0, max_errors=10_000)
        summary = runner.run(handle_signals=False)
    assert summary.stopped_by == "outage", out.getvalue()
    assert "timed out" in summary.message and "(--max-outage 1 s)" in summary.message


def test_max_outage_after_the_platform_went_away(make_sandbox: Callable[..., SandboxServer]) -> None:
    """The server stops while the bot idles: connection errors for --max-outage end the run (exit 1)."""
    server = make_sandbox(task_types="create")  # one task, then "no task"
    _, key = _bot(server)
    with _client(server, key) as client:
        runner, out = _runner(client, idle_wait=0.1, max_outage=1.0, max_errors=10_000)
        thread = threading.Thread(target=runner.run, kwargs={"handle_signals": False})
        thread.start()
        deadline = time.monotonic() + 20
        while runner.summary.idle_polls == 0 and time.monotonic() < deadline:
            time.sleep(0.02)
        server.stop()
        thread.join(30)
    assert not thread.is_alive()
    summary = runner.summary
    assert (summary.stopped_by, summary.exit_code, summary.submitted) == ("outage", 1, 1), out.getvalue()
    assert "cannot reach" in summary.message
