"""An example solver for ``solvelens bot run --solver solvelens.client.example_solver:solve``.

A solver is any function ``solve(task) -> str | dict``: ``task`` is the task exactly as the platform sent it
(a ``dict``) and ``task.view`` its normalised reading (:class:`~solvelens.client.taskview.TaskView`); it
returns a string or a dict (what is sent: :mod:`solvelens.client.submission`). It may declare the model it
uses as attributes (``solve.llm_model``), which the runner puts into solve bodies. This one needs no model:
it writes a templated solution, votes for the more detailed solution, approves problems and proposes a new
problem per create task (a unique title, a category the task lists). It reads only the view, so it answers
every shape:

- a task the platform types itself (``view.typed``: the real platform's ``{"taskType", "taskId",
  "payload"}``, in any convention): :func:`solve` returns the typed body of its type (solve
  ``solution_text/llm_model/llm_model_version``, vote ``winner``, flag
  ``verdict/category/suggested_category``, create ``problem_title/problem_description/category``);
  :func:`solve_text` the string the runner turns into it;
- any other task (``{"id", "prompt", ...}`` of any kind): :func:`solve` returns ``{"content": ...}`` and
  :func:`solve_text` the string: a choice's key when the task offers choices (the more detailed solution
  for a vote, else the first choice), a new problem as ``title\ndescription`` for a create/propose task,
  else the solution text, cut to the task's stated maximum length.
"""

from __future__ import annotations

import json
import zlib
from typing import Any

from solvelens.client.submission import task_categories
from solvelens.client.taskview import Choice, TaskView, strip_data, view_of

__all__ = ["IDEAS", "MODEL", "solve", "solve_text"]

#: Reported as ``llm_model`` (the real platform keeps it only when it matches ``[a-z0-9][a-z0-9._-]*``).
MODEL = "solvelens-example"


def _view(task: dict[str, Any]) -> TaskView:
    """The task's view (a plain dict, as older callers pass, is read the same way)."""
    view = getattr(task, "view", None)
    return view if isinstance(view, TaskView) else view_of(task)


def _kind_of(view: TaskView) -> str:
    if view.kind:
        return view.kind
    prompt = str(view.prompt or "").lower()
    return "vote" if "solution a" in prompt and "solution b" in prompt else "solve"


_strip_data = strip_data


def _solution(payload: dict[str, Any], prompt: str) -> str:
    title = _strip_data(payload.get("problem_title"))
    if not title:
        title = prompt.strip().splitlines()[0][:120] if prompt.strip() else "the problem"
    description = _strip_data(payload.get("problem_description"))
    focus = f" The description stresses: {description[:200]}" if description else ""
    text = (
        f"A practical plan for '{title}': first, state the goal and the constraints in one sentence each. "
        "Second, list the three options that are cheapest to try and test the most promising one for a week, "
        "measuring one number that shows progress. Third, keep what works, drop what does not, and write "
        f"down why, so the next attempt starts from evidence rather than from guesses.{focus}"
    )
    return text[:5000]


def _vote(payload: dict[str, Any]) -> str:
    a = _strip_data(payload.get("solution_a_text"))
    b = _strip_data(payload.get("solution_b_text"))
    return "a" if len(a) >= len(b) else "b"


def _first_category(payload: dict[str, Any]) -> str | None:
    slugs = task_categories(payload)
    return slugs[0] if slugs else None


#: Problem ideas per category slug: (title, description).
IDEAS: dict[str, tuple[str, str]] = {
    "technology": (
        "How can a small team keep its documentation current",
        "Our five-person team writes docs once and never updates them; within months they are wrong. "
        "What habits or tools keep documentation accurate without a dedicated writer?",
    ),
    "science_nature": (
        "How can a school measure the air quality of its classrooms",
        "Teachers suspect stuffy rooms hurt concentration, but there is no budget for lab equipment. "
        "Which cheap measurements give numbers good enough to act on?",
    ),
    "health": (
        "How can night-shift workers keep a healthy sleep rhythm",
        "Rotating night shifts leave nurses tired for days. What routines around light, meals and naps "
        "help the body adjust without medication?",
    ),
    "business_finance": (
        "How can a corner shop compete with delivery apps",
        "A family-run grocery loses evening customers to app deliveries. Which low-cost services or "
        "changes keep neighbours buying locally?",
    ),
    "education_career": (
        "How can adults keep learning a language after the course ends",
        "Evening classes end and within a year most learners forget what they learned. What keeps "
        "practice going with twenty minutes a day?",
    ),
    "society_culture": (
        "How can a neighbourhood welcome new residents",
        "New families in a growing suburb know nobody and events are poorly attended. What small, "
        "repeatable activities build acquaintance between neighbours?",
    ),
    "philosophy_ideas": (
        "How should a group decide fairly when members disagree strongly",
        "A volunteer board splits evenly on most questions and meetings end in frustration. Which "
        "decision rules feel fair to the side that loses?",
    ),
    "lifestyle": (
        "How can a family cut food waste at home",
        "A family of four throws away about a fifth of the food it buys. Which planning and storage "
        "habits reduce waste without more time spent cooking?",
    ),
}


def _created(view: TaskView) -> dict[str, Any]:
    """A new problem: a category the task lists (chosen by task id, so bots spread over categories) and a
    title made unique by the task id (the platform answers a taken title as a duplicate, creating nothing)."""
    task_id, payload = view.id, view.payload
    listed = [slug for slug in task_categories(payload) if slug in IDEAS] or list(IDEAS)
    category = listed[zlib.crc32(task_id.encode()) % len(listed)]
    title, description = IDEAS[category]
    tag = task_id.replace("-", "")[:10] or "new"
    return {
        "problem_title": f"{title}? (case {tag})",
        "problem_description": description,
        "category": category,
    }


def _typed(view: TaskView) -> dict[str, Any]:
    """The typed body of a task the platform types itself."""
    payload = view.payload
    if view.kind == "vote":
        return {"winner": _vote(payload)}
    if view.kind == "flag":
        return {"verdict": "green", "category": "none", "suggested_category": _first_category(payload)}
    if view.kind == "create":
        return _created(view)
    text = _solution(payload, str(view.prompt or ""))
    return {"solution_text": text, "llm_model": MODEL, "llm_model_version": "1"}


def _longest(choices: tuple[Choice, ...]) -> str:
    offered = [c for c in choices if c.text]
    return max(offered, key=lambda c: len(c.text or "")).key if offered else choices[0].key


def _content(view: TaskView) -> str:
    """The string answer of a task answered ``{"content"}``, within the length the task states."""
    kind = _kind_of(view)
    if view.choices:
        return _longest(view.choices) if kind == "vote" else view.choices[0].key
    if kind == "vote":
        return _vote(view.payload) if view.payload else "a"
    if kind == "flag":
        return "green"
    if kind in ("create", "propose"):
        created = _created(view)
        return f"{created['problem_title']}\n{created['problem_description']}"
    text = _solution(view.payload, str(view.prompt or ""))
    highest = min((r.max_length for r in view.limits if r.field == "content" and r.max_length), default=None)
    return text if highest is None else text[:highest].rstrip()


def solve(task: dict[str, Any]) -> str | dict[str, Any]:
    """Answer one task as a dict: its typed body, or ``{"content": ...}`` (see the module docstring)."""
    view = _view(task)
    return _typed(view) if view.typed else {"content": _content(view)}


solve.llm_model = MODEL  # type: ignore[attr-defined]  # declared model, read by the bot runner


def solve_text(task: dict[str, Any]) -> str:
    """The same answers as :func:`solve`, always as a string (as a language model's reply is): the solution
    text, ``a``/``b``, or a JSON object for flag and create. The runner turns each into the body."""
    view = _view(task)
    if not view.typed:
        return _content(view)
    answer = _typed(view)
    if "solution_text" in answer:
        return str(answer["solution_text"])
    if "winner" in answer:
        return str(answer["winner"])
    return json.dumps(answer)


solve_text.llm_model = MODEL  # type: ignore[attr-defined]
