"""The runner learns the platform's rules instead of assuming them, and its lines say what happened.

A small FastAPI platform served by uvicorn on 127.0.0.1 (real HTTP) stands in for a platform version whose
solve limit (10-2,000 characters) is stated only in its 400 answers; the strict sandbox is used where it
states or enforces the rule itself."""

from __future__ import annotations

import io
import re
import socket
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import closing
from dataclasses import dataclass, field
from typing import Any

import pytest
import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response
from rich.console import Console

from solvelens.client import PlatformClient, RetryPolicy
from solvelens.client.models import Task
from solvelens.client.runner import BotRunner, describe_task, seconds
from tests.fixtures.sandbox import SandboxServer

FAST = RetryPolicy(attempts=2, wait_initial=0.01, wait_max=0.02, wait_jitter=0.0)
KEY = "os_key_" + "k" * 48


@dataclass
class Platform:
    """What the stand-in platform saw: every submit body, by task id."""

    base_url: str = ""
    submits: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    submit_status: int = 0  # 0: validate (10-2000); else answer every submit with this status


def _app(platform: Platform) -> FastAPI:
    app = FastAPI()
    state = {"n": 0, "held": None}

    @app.get("/api/v1/bot/me")
    def me() -> dict[str, Any]:
        return {"id": "b1", "name": "limits", "status": "active", "totalPoints": 0}

    @app.get("/api/v1/tasks/next")
    def next_task() -> dict[str, Any]:
        if state["held"] is None:  # one task at a time, served again while held (as the real platform)
            state["n"] += 1
            state["held"] = f"task-{state['n']:04d}"
        payload = {"problem_id": "p1", "problem_title": f"Leaky tap {state['n']}", "response_format": "{}"}
        return {"taskType": "solve", "taskId": state["held"], "payload": payload}

    @app.post("/api/v1/tasks/{task_id}/submit")
    async def submit(task_id: str, request: Request) -> Response:
        body = await request.json()
        platform.submits.append((task_id, body))
        state["held"] = None
        if platform.submit_status:
            return JSONResponse({"error": "Internal server error"}, platform.submit_status)
        text = body.get("solution_text", "")
        bound = "at least 10" if len(text) < 10 else "at most 2000" if len(text) > 2000 else None
        if bound is not None:  # the real platform's answer: the task is failed
            details = [{"field": "solution_text", "message": f"String must contain {bound} character(s)"}]
            error = {"error": "Validation error", "code": "VALIDATION_ERROR", "statusCode": 400}
            return JSONResponse({**error, "details": details}, 400)
        return JSONResponse({"success": True, "result": {"solution_id": "s1"}})

    return app


@pytest.fixture
def platform() -> Iterator[Platform]:
    with closing(socket.socket()) as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    state = Platform(base_url=f"http://127.0.0.1:{port}/api/v1")
    server = uvicorn.Server(uvicorn.Config(_app(state), host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.01)
    yield state
    server.should_exit = True
    thread.join(10)


def _run(base_url: str, key: str, solver: Callable[[Any], Any], **kw: Any) -> tuple[Any, str]:
    out = io.StringIO()
    with PlatformClient(base_url, api_key=key, retry=FAST, read_env=False) as client:
        runner = BotRunner(
            client,
            solver,
            idle_wait=0.05,
            error_backoff=0.01,
            console=Console(file=out, width=200, soft_wrap=True),
            **kw,
        )
        summary = runner.run(handle_signals=False)
    return summary, out.getvalue()


def test_a_limit_stated_only_in_400_answers_costs_one_rejected_task(platform: Platform) -> None:
    summary, out = _run(platform.base_url, KEY, lambda task: "x" * 2500, max_tasks=10)
    assert len(platform.submits) == 1, out  # one task failed on the platform, not three
    assert (summary.rejected, summary.refused, summary.stopped_by) == (1, 2, "rejections")
    learned = [line for line in out.splitlines() if line.startswith("learned:")]
    assert len(learned) == 1, out
    assert "solve solution_text is at most 2000 characters" in learned[0]
    assert "learned from the platform's 400 answer to task task-0001" in learned[0]
    refused = [line for line in out.splitlines() if "refused, not sent" in line]
    assert len(refused) == 2 and all(
        "solution_text has 2500 characters; the platform's rule: at most 2000 characters (learned from "
        "the platform's 400 answer to task task-0001)" in line
        for line in refused
    ), out


def test_nothing_is_refused_on_a_rule_never_stated(platform: Platform) -> None:
    """10-49 characters: the old hard-coded 50-5,000 refused them; this platform accepts them."""
    summary, out = _run(platform.base_url, KEY, lambda task: "A short fix.", max_tasks=3)
    assert (summary.submitted, summary.refused, summary.rejected) == (3, 0, 0), out
    assert [len(body["solution_text"]) for _, body in platform.submits] == [12] * 3


def test_a_solver_may_declare_its_own_limits(platform: Platform) -> None:
    def solver(task: Any) -> str:
        return "y" * 300

    solver.limits = {"solution_text": {"max_length": 200}}  # type: ignore[attr-defined]
    summary, out = _run(platform.base_url, KEY, solver, max_tasks=5, max_rejections=2)
    assert platform.submits == [] and summary.refused == 2, out
    assert "at most 200 characters (the solver's declared limits)" in out


def test_a_500_on_submit_is_not_called_a_retry(platform: Platform) -> None:
    platform.submit_status = 500
    summary, out = _run(platform.base_url, KEY, lambda task: "A fix of the tap, in steps.", max_errors=2)
    assert summary.stopped_by == "errors", out
    assert len(platform.submits) == 2  # one POST per task: the client does not resend a 500
    failed = [line for line in out.splitlines() if "submit failed" in line]
    assert len(failed) == 2 and all("not retried" in line for line in failed), out
    assert "retrying" not in out


def test_durations_are_rounded_and_create_tasks_titled_by_their_problem() -> None:
    assert [seconds(x) for x in (0.00947531, 0.5, 2.0, 1.25, 12.4, 0.0001)] == [
        "0.01 s",
        "0.5 s",
        "2 s",
        "1.25 s",
        "12 s",
        "under 0.01 s",
    ]
    create = Task(
        {"taskType": "create", "taskId": "t-123456789", "payload": {"instruction": "Propose a new problem."}}
    )
    assert describe_task(create).endswith("(new problem)")
    proposed = {"problem_title": "How to keep a garden alive", "problem_description": "...", "category": "x"}
    assert describe_task(create, proposed).endswith('"How to keep a garden alive"')
    assert "Propose" not in describe_task(create)
    propose = Task(
        {"id": "t-9", "kind": "propose", "prompt": "Propose a new problem. First line: its title."}
    )
    assert describe_task(propose).endswith("(new problem)")
    assert describe_task(propose, {"content": "Garden pests\nSlugs eat everything."}).endswith(
        '"Garden pests"'
    )


def test_sandbox_instruct_none_one_rejection_then_local_refusals(
    make_sandbox: Callable[..., SandboxServer],
) -> None:
    """The strict sandbox with ``instruct=none`` states no solve bound: the first too-short answer is
    rejected (400 naming the bound), the next ones are refused locally; the database shows one failed task."""
    # the newer documentation's bounds: "Too short." (10 characters) is valid under the observed 10-2000
    server = make_sandbox(task_types="solve", solution_length="50-5000")
    key = server.create_bot("instruct-none")
    summary, out = _run(server.base_url, key, lambda task: "Too short.", task_params={"instruct": "none"})
    assert (summary.rejected, summary.refused, summary.stopped_by) == (1, 2, "rejections"), out
    with closing(sqlite3.connect(server.db_path)) as conn:
        statuses = [
            r[0]
            for r in conn.execute(
                "SELECT t.status FROM tasks t JOIN bots b ON b.id = t.bot_id WHERE b.name = ? ORDER BY t.id",
                ("instruct-none",),
            )
        ]
    assert statuses == ["failed", "assigned"]
    assert re.search(r"at least 50 characters \(learned from the platform's 400 answer to task …\w+\)", out)


def test_sandbox_content_rules_stated_in_the_task_are_never_sent_broken(
    make_sandbox: Callable[..., SandboxServer],
) -> None:
    server = make_sandbox(tasks="content", task_types="solve")
    key = server.create_bot("content-rules")
    summary, out = _run(server.base_url, key, lambda task: "x" * 2500)
    # the task stays assigned and is served again: refused twice, then the run stops (no loop)
    assert (summary.rejected, summary.refused, summary.stopped_by) == (0, 2, "held"), out
    assert (
        "content has 2500 characters; the platform's rule: 60-2000 characters (the task's constraints)" in out
    )
    with closing(sqlite3.connect(server.db_path)) as conn:
        failed = conn.execute(
            "SELECT count(*) FROM tasks t JOIN bots b ON b.id = t.bot_id WHERE b.name = ? AND t.status = "
            "'failed'",
            ("content-rules",),
        ).fetchone()[0]
    assert failed == 0
