"""Guidance is never a rule: the real solve instruction's "Aim for 400-1200 characters" is advice to the
solver (``task.view.guidance``); the rule is what the platform validates (its "Respond with" bound, 10-2000).

The sandbox cannot serve the real instruction's wording yet, so a small FastAPI platform served by uvicorn on
127.0.0.1 (real HTTP) serves a recorded real solve task (its instruction verbatim, from the platform's shared
constants, real-platform-notes §15) and validates 10-2,000 characters as the real platform does."""

from __future__ import annotations

import io
import socket
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
from solvelens.client.runner import BotRunner
from solvelens.client.submission import submission_body
from solvelens.client.taskview import view_of

FAST = RetryPolicy(attempts=2, wait_initial=0.01, wait_max=0.02, wait_jitter=0.0)
KEY = "os_key_" + "g" * 48

#: The real platform's solve instruction, verbatim (its shared constants; real-platform-notes §15).
SOLVE_INSTRUCTION = """You are proposing a solution to a real-world problem on a competitive problem-solving platform.
Your solution will be evaluated BLIND against other AI-generated solutions in pairwise comparisons.

WRITE A SOLUTION THAT IS:

1. RELEVANT — Directly address the stated problem. Do not go off on tangents or solve a different problem.
2. FEASIBLE — Propose something that could realistically be implemented with current technology, resources, and constraints. Ground your ideas in reality.
3. SPECIFIC — Be concrete and actionable. Name specific methods, technologies, policies, or steps. Avoid vague statements like "we should improve things" or "stakeholders should collaborate."
4. DEEP — Consider root causes, not just symptoms. Address tradeoffs, potential obstacles, and second-order effects. Show that you've thought beyond the obvious.
5. ORIGINAL — Offer a fresh perspective or novel approach. What angle have others missed?

FORMAT GUIDELINES:
- Aim for 400-1200 characters. This is the sweet spot: long enough to be substantive, short enough to be focused.
- Under 200 characters is almost certainly too shallow to score well.
- Over 1500 characters risks losing focus. Every sentence should earn its place.
- Write in clear, direct prose. No bullet-point lists, no markdown headers, no numbered steps unless they genuinely help clarity.
- Do not include a title, preamble, or meta-commentary (e.g., "Here is my solution:" or "This is a complex problem."). Jump straight into the substance.
- Do not repeat or rephrase the problem statement. The evaluator already has it.

Your solution will be compared head-to-head with another solution by a separate AI evaluator using the five criteria above. The evaluator picks a winner based on overall quality. Write to win.

Respond with:
- solution_text: your proposed solution (10-2000 characters)
- llm_model: the AI model you used
- llm_model_version: the model version"""  # noqa: E501

#: The end of the real create instruction: guidance (title 10-100, description 100-800) then the rule.
CREATE_INSTRUCTION_TAIL = """FORMAT GUIDELINES:
- Title: 10-100 characters. A clear, specific headline that captures the core challenge.
- Description: 100-800 characters. Provide context, constraints, and scope.

Respond with:
- problem_title: a clear, specific problem title (5-200 characters)
- problem_description: context, constraints, and scope (20-1000 characters)
- category: the best-fitting category slug from the list above"""

#: The real brief create instruction (``?brief=true``): guidance only, no bound in its "Respond with".
CREATE_INSTRUCTION_BRIEF = (
    "Create a real-world problem: grounded, well-scoped, clear, challenging, diverse. Title 10-100 chars, "
    "description 100-800 chars.\nRespond with problem_title, problem_description, category."
)


def _solve_task(task_id: str) -> dict[str, Any]:
    payload = {
        "problem_id": "p1",
        "problem_title": "Leaky taps in rented flats",
        "problem_description": "---DATA---\nTenants wait weeks for a plumber.\n---/DATA---",
        "instruction": SOLVE_INSTRUCTION,
        "response_format": '{ "solution_text": "...", "llm_model": "your-model-name", "llm_model_version": '
        '"version" }',
    }
    return {"taskType": "solve", "taskId": task_id, "payload": payload}


def test_the_real_solve_instruction_states_guidance_beside_the_rule() -> None:
    view = view_of(_solve_task("t-1"))
    assert [(r.field, r.min_length, r.max_length) for r in view.limits] == [("solution_text", 10, 2000)]
    assert [(g.field, g.min_length, g.max_length) for g in view.guidance] == [("solution_text", 400, 1200)]
    assert "Aim for 400-1200 characters" in view.guidance[0].text
    for size in (32, 200, 300, 1400, 2000, 10):
        body = submission_body(Task(_solve_task("t-1")), "x" * size)
        assert len(body["solution_text"]) == size


def test_the_real_create_instruction_validates_its_respond_with_bounds_only() -> None:
    task = {"taskType": "create", "taskId": "t-2", "payload": {"instruction": CREATE_INSTRUCTION_TAIL}}
    view = view_of(task)
    assert sorted((r.field, r.min_length, r.max_length) for r in view.limits) == [
        ("problem_description", 20, 1000),
        ("problem_title", 5, 200),
    ]
    assert sorted((g.field, g.min_length, g.max_length) for g in view.guidance) == [
        ("problem_description", 100, 800),
        ("problem_title", 10, 100),
    ]
    brief = view_of(
        {"taskType": "create", "taskId": "t-3", "payload": {"instruction": CREATE_INSTRUCTION_BRIEF}}
    )
    assert brief.limits == ()
    assert sorted((g.field, g.min_length, g.max_length) for g in brief.guidance) == [
        ("problem_description", 100, 800),
        ("problem_title", 10, 100),
    ]
    body = {"problem_title": "Leaks", "problem_description": "d" * 40, "category": "technology"}
    assert submission_body(Task(task), body) == body  # 5 and 40 characters: valid, though under the guidance


def test_a_refusal_claims_nothing_the_platform_did_not_say() -> None:
    task = Task({"id": "t-4", "prompt": "Answer.", "constraints": {"content": {"maxLength": 20}}})
    with pytest.raises(Exception) as caught:
        submission_body(task, "x" * 30)
    message = str(caught.value)
    assert "would reject" not in message
    assert (
        "content has 30 characters; the platform's rule: at most 20 characters (the task's constraints)"
        in (message)
    )


@dataclass
class Recorded:
    """What the stand-in platform saw: every submit body and every task it served, by task id."""

    base_url: str = ""
    submits: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    served: list[str] = field(default_factory=list)
    constraints: dict[str, Any] | None = None  # served on every task when set (a stated rule)


def _app(rec: Recorded) -> FastAPI:
    app = FastAPI()
    state: dict[str, Any] = {"n": 0, "held": None}

    @app.get("/api/v1/bot/me")
    def me() -> dict[str, Any]:
        return {"id": "b1", "name": "guided", "status": "active", "totalPoints": 0}

    @app.get("/api/v1/tasks/next")
    def next_task() -> dict[str, Any]:
        if state["held"] is None:  # a task stays assigned until submitted, and is served again unchanged
            state["n"] += 1
            state["held"] = f"task-{state['n']:04d}"
        rec.served.append(state["held"])
        task = _solve_task(state["held"])
        if rec.constraints is not None:
            task["constraints"] = rec.constraints
        return task

    @app.post("/api/v1/tasks/{task_id}/submit")
    async def submit(task_id: str, request: Request) -> Response:
        body = await request.json()
        rec.submits.append((task_id, body))
        state["held"] = None
        text = body.get("solution_text", "")
        bound = "at least 10" if len(text) < 10 else "at most 2000" if len(text) > 2000 else None
        if bound is not None:
            details = [{"field": "solution_text", "message": f"String must contain {bound} character(s)"}]
            error = {"error": "Validation error", "code": "VALIDATION_ERROR", "statusCode": 400}
            return JSONResponse({**error, "details": details}, 400)
        return JSONResponse({"success": True, "result": {"solution_id": f"s-{task_id}"}})

    return app


@pytest.fixture
def recorded() -> Iterator[Recorded]:
    with closing(socket.socket()) as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    rec = Recorded(base_url=f"http://127.0.0.1:{port}/api/v1")
    server = uvicorn.Server(uvicorn.Config(_app(rec), host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.01)
    yield rec
    server.should_exit = True
    thread.join(10)


def _run(rec: Recorded, solver: Callable[[Any], Any], **kw: Any) -> tuple[Any, str]:
    out = io.StringIO()
    with PlatformClient(rec.base_url, api_key=KEY, retry=FAST, read_env=False) as client:
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


def test_the_runner_submits_answers_the_guidance_advises_against(recorded: Recorded) -> None:
    """1,400, 300, 200 and 32 characters: valid on the real platform (10-2000), advised against by its
    guidance (400-1200); the solver sees the guidance, the runner sends every answer."""
    sizes = iter([1400, 300, 200, 32])
    seen: list[tuple[int | None, int | None]] = []

    def solver(task: Any) -> str:
        seen.extend((g.min_length, g.max_length) for g in getattr(task.view, "guidance", ()))
        return "s" * next(sizes)

    summary, out = _run(recorded, solver, max_tasks=4)
    assert (summary.submitted, summary.refused, summary.rejected) == (4, 0, 0), out
    assert [len(body["solution_text"]) for _, body in recorded.submits] == [1400, 300, 200, 32]
    assert seen == [(400, 1200)] * 4
    assert "would reject" not in out


def test_a_held_task_refused_locally_is_not_refused_forever(recorded: Recorded) -> None:
    """A task whose answer breaks a stated rule is refused locally, stays assigned and is served again: the
    runner solves it once more, and when that answer is refused too it says so once and stops."""
    recorded.constraints = {"solution_text": {"maxLength": 100}}
    summary, out = _run(recorded, lambda task: "t" * 150, max_rejections=10, max_tasks=20)
    assert recorded.submits == [], out
    assert recorded.served == ["task-0001", "task-0001"], out
    assert summary.refused == 2 and summary.stopped_by == "held", out
    held = [line for line in out.splitlines() if line.startswith("stopped:")]
    assert len(held) == 1 and "task-0001" in held[0] and "stays assigned" in held[0], out
    assert out.count("re-serves task") == 1, out
