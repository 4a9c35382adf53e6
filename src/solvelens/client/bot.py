"""The bot runner: poll ``GET /tasks/next``, call the solver, ``POST /tasks/{id}/submit``, repeat.

Rules (the platform's bot guide, and the interface's reference loop):

- "No task" (204, 404, empty body, ``{}``, ``null``, a task without id) -> wait ``idle_wait`` seconds (30 by
  default) and poll again; with ``stop_when_idle`` the run ends instead.
- The solver gets the task dict as the server sent it and returns a ``str`` or a ``dict``. For a typed task
  (``taskType``) the runner sends the typed body of its type (:mod:`solvelens.client.submission`): a string
  becomes it where that is unambiguous (a solve's ``solution_text`` plus the model the bot declares with
  ``llm_model``, or the solver's ``llm_model`` attribute), otherwise the answer is refused locally and nothing
  is sent. Only an interface task (``{"id", "prompt"}``) gets ``{"content": <string>}``. A solver exception
  skips the submission and counts as an error.
- 401/403 (bad key, no bot profile, suspended, banned): stop at once with a clear message (exit code 1).
- A rejected answer (400/422 from the server, or refused locally) counts towards ``max_rejections`` (3): that
  many in a row stop the run (exit code 1), because the real platform fails each rejected task and counts a
  failed flag attempt against the problem (five reject a human's problem). 409 (already completed or failed)
  and 404 (expired): move on. A ``duplicate: true`` answer (solution already submitted, title already taken)
  is counted as a duplicate, not as submitted.
- Other errors (after the client's own bounded retries, each logged as one line): back off
  ``error_backoff`` seconds, doubling up to ``error_backoff_max``; after ``max_errors`` in a row (e.g. every
  poll answered 500) the run stops (exit code 1) with a summary saying why.
- SIGINT/SIGTERM: the current task is finished (solved and submitted), then the run ends; a second
  signal aborts.
- ``GET /bot/me`` is recorded at start and end; one progress line per task and a summary at exit (rich).
"""

from __future__ import annotations

import importlib
import importlib.util
import signal
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from solvelens.client.client import PlatformClient
from solvelens.client.errors import (
    APIStatusError,
    AuthenticationError,
    BadRequestError,
    ConfigurationError,
    ConflictError,
    InvalidSubmissionError,
    NotFoundError,
    NotJSONError,
    PermissionDeniedError,
    PlatformConnectionError,
    PlatformError,
    UnprocessableEntityError,
)
from solvelens.client.models import Bot, SubmitResult, Task
from solvelens.client.submission import submission_body

__all__ = ["BotRunner", "RunSummary", "Solver", "SolverLoadError", "load_solver"]

#: A solver: the task dict as sent -> a string or a dict (see :mod:`solvelens.client.submission` for what is
#: sent). A solver may declare its model as attributes ``llm_model`` / ``llm_model_version``.
Solver = Callable[[dict[str, Any]], str | Mapping[str, Any]]


class SolverLoadError(ValueError):
    """``MODULE:FUNCTION`` could not be imported or is not callable."""


def load_solver(spec: str) -> Solver:
    """Import a solver from ``"package.module:function"`` (or ``"path/to/file.py:function"``).

    Raises :class:`SolverLoadError` with a one-line reason when the module or function is missing.
    """
    module_name, sep, func_name = spec.rpartition(":")
    if not sep or not module_name or not func_name:
        raise SolverLoadError(
            f"--solver must be MODULE:FUNCTION (e.g. solvelens.client.example_solver:solve), got {spec!r}"
        )
    try:
        if module_name.endswith(".py"):
            path = Path(module_name)
            loader_spec = importlib.util.spec_from_file_location(path.stem, path)
            if loader_spec is None or loader_spec.loader is None or not path.is_file():
                raise SolverLoadError(f"solver file {module_name} not found")
            module = importlib.util.module_from_spec(loader_spec)
            loader_spec.loader.exec_module(module)
        else:
            module = importlib.import_module(module_name)
    except ImportError as exc:
        raise SolverLoadError(f"cannot import solver module {module_name!r}: {exc}") from exc
    func = getattr(module, func_name, None)
    if not callable(func):
        raise SolverLoadError(f"{module_name!r} has no callable {func_name!r}")
    return func  # type: ignore[no-any-return]


@dataclass
class RunSummary:
    """What a run did. Counts are per task; times in seconds; ``me_start``/``me_end`` are ``/bot/me`` answers.

    ``submitted``: accepted as new work; ``duplicates``: accepted but ``duplicate: true`` (nothing created);
    ``rejected``: answered 400/422 by the server; ``refused``: not sent because the answer could not become
    the typed body (see :mod:`solvelens.client.submission`); ``expired``: 404 on submit.
    ``stopped_by``: ``max_tasks`` | ``idle`` | ``signal`` | ``auth`` | ``rejections`` | ``errors`` |
    ``startup``. ``message``: the reason in one line when the run stopped on an error.
    """

    tasks: int = 0
    submitted: int = 0
    duplicates: int = 0
    recovered: int = 0
    conflicts: int = 0
    rejected: int = 0
    refused: int = 0
    expired: int = 0
    solver_errors: int = 0
    errors: int = 0
    idle_polls: int = 0
    by_type: dict[str, int] = field(default_factory=dict)
    stopped_by: str = ""
    message: str = ""
    started_at: float = field(default_factory=time.time)
    duration_s: float = 0.0
    me_start: Bot | None = None
    me_end: Bot | None = None

    @property
    def exit_code(self) -> int:
        """0 for a normal end (max tasks, idle, signal); 1 when the run stopped on an error."""
        return 1 if self.stopped_by in ("auth", "rejections", "errors", "startup") else 0


def _attribute(solver: Solver, name: str) -> str | None:
    value = getattr(solver, name, None)
    return value if isinstance(value, str) and value else None


class BotRunner:
    """Runs one bot against the platform with a synchronous :class:`PlatformClient`.

    Args:
        client: a client with an API key.
        solver: ``task dict -> str | dict`` (see :data:`Solver`).
        idle_wait: seconds to wait after "no task" (default 30).
        max_tasks: stop after this many tasks (``None``: run until stopped).
        stop_when_idle: end the run at the first "no task" instead of waiting.
        error_backoff / error_backoff_max: first and longest wait after an error, seconds (doubles in
        between). max_errors: stop after this many errors in a row (polling, submitting, the solver).
        max_rejections: stop after this many rejected answers in a row (400/422, or refused locally).
        llm_model / llm_model_version: the model the bot declares in solve bodies (default: the solver's
        ``llm_model`` / ``llm_model_version`` attributes). task_params: query options for ``/tasks/next``
        (e.g. ``{"brief": "true"}``). console: where progress lines and the summary go (rich); ``None``:
        stdout.
    """

    def __init__(
        self,
        client: PlatformClient,
        solver: Solver,
        *,
        idle_wait: float = 30.0,
        max_tasks: int | None = None,
        stop_when_idle: bool = False,
        error_backoff: float = 2.0,
        error_backoff_max: float = 60.0,
        max_errors: int = 5,
        max_rejections: int = 3,
        llm_model: str | None = None,
        llm_model_version: str | None = None,
        task_params: Mapping[str, str] | None = None,
        console: Console | None = None,
    ) -> None:
        self.client = client
        self.solver = solver
        self.idle_wait = idle_wait
        self.max_tasks = max_tasks
        self.stop_when_idle = stop_when_idle
        self.error_backoff = error_backoff
        self.error_backoff_max = error_backoff_max
        if max_errors < 1 or max_rejections < 1:
            raise ValueError("max_errors and max_rejections must be at least 1")
        self.max_errors = max_errors
        self.max_rejections = max_rejections
        self.llm_model = llm_model or _attribute(solver, "llm_model")
        self.llm_model_version = llm_model_version or _attribute(solver, "llm_model_version")
        self.task_params = dict(task_params or {})
        self.console = console or Console(highlight=False)
        self.summary = RunSummary()
        self._stop = threading.Event()
        self._stop_reason = ""
        self._consecutive_errors = 0
        self._consecutive_rejections = 0
        self._signals_seen = 0

    # -- stopping ------------------------------------------------------------------------------------------

    def request_stop(self, reason: str = "signal") -> None:
        """Ask the run to end after the current task (thread-safe; waits are interrupted at once)."""
        if not self._stop_reason:
            self._stop_reason = reason
        self._stop.set()

    @property
    def stopping(self) -> bool:
        """Whether a stop was requested."""
        return self._stop.is_set()

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        self._signals_seen += 1
        if self._signals_seen > 1:
            raise KeyboardInterrupt
        name = signal.Signals(signum).name
        self.console.print(f"[yellow]{name}: finishing the current task, then exiting (again to abort)[/]")
        self.request_stop("signal")

    def _install_signal_handlers(self) -> dict[int, Any]:
        if threading.current_thread() is not threading.main_thread():
            return {}
        previous: dict[int, Any] = {}
        for sig in (signal.SIGINT, signal.SIGTERM):
            previous[sig] = signal.signal(sig, self._on_signal)
        return previous

    # -- the loop ------------------------------------------------------------------------------------------

    def run(self, *, handle_signals: bool = True) -> RunSummary:
        """Poll, solve and submit until ``max_tasks``, a stop request, idle (``stop_when_idle``), an auth
        error or too many errors in a row. Prints one line per task and a summary; returns the
        :class:`RunSummary`."""
        previous = self._install_signal_handlers() if handle_signals else {}
        started = time.perf_counter()
        try:
            if self._record_me("start"):
                self._loop()
            if self.summary.stopped_by not in ("auth", "startup"):
                self._record_me("end")
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
            self.summary.duration_s = time.perf_counter() - started
        self.print_summary()
        return self.summary

    def _record_me(self, when: str) -> bool:
        try:
            me = self.client.get_me()
        except (AuthenticationError, PermissionDeniedError) as exc:
            self._fail("auth", self._auth_message(exc))
            return False
        except (ConfigurationError, PlatformConnectionError, NotJSONError, NotFoundError) as exc:
            if when == "start":
                self._fail("startup", str(exc))
                return False
            self.console.print(f"[yellow]/bot/me at {when} failed: {escape(str(exc))}[/]")
            return True
        except PlatformError as exc:
            self.console.print(f"[yellow]/bot/me at {when} failed: {escape(str(exc))}[/]")
            return True
        if when == "start":
            self.summary.me_start = me
            self.console.print(
                f"bot [bold]{escape(str(me.name))}[/] ({me.status}) on {self.client.base_url}: "
                f"{me.total_points} points, {me.total_solutions} solutions, {me.total_votes} votes"
            )
        else:
            self.summary.me_end = me
        return True

    def _fail(self, reason: str, message: str) -> None:
        self.summary.stopped_by = reason
        self.summary.message = message
        self.console.print(f"[bold red]stopped:[/] {escape(message)}")

    @staticmethod
    def _auth_message(exc: APIStatusError) -> str:
        if isinstance(exc, AuthenticationError):
            return (
                f"the platform rejected the API key ({exc.status_code} {exc.message}); check --api-key / "
                "SOLVELENS_API_KEY (copy the key exactly as the account settings showed it)"
            )
        return (
            f"the bot may not work ({exc.status_code} {exc.message}); set a bot name in the account settings "
            "or check that the bot is active"
        )

    def _wait(self, seconds: float) -> None:
        self._stop.wait(max(0.0, seconds))

    def _backoff(self, what: str, exc: BaseException | str) -> bool:
        """Count an error and wait; returns False when the run must stop (too many in a row)."""
        self.summary.errors += 1
        self._consecutive_errors += 1
        if self._consecutive_errors >= self.max_errors:
            self._fail(
                "errors",
                f"{self._consecutive_errors} errors in a row (--max-errors {self.max_errors}); last: "
                f"{what}: {exc}",
            )
            return False
        delay = min(self.error_backoff * 2 ** (self._consecutive_errors - 1), self.error_backoff_max)
        self.console.print(f"[yellow]{escape(what)} failed: {escape(str(exc))}; retrying in {delay:g} s[/]")
        self._wait(delay)
        return True

    def _rejection(self, kind: str, reason: str) -> bool:
        """Count a rejected answer; returns False when the run must stop (too many in a row)."""
        self._consecutive_errors = 0
        self._consecutive_rejections += 1
        if self._consecutive_rejections >= self.max_rejections:
            self._fail(
                "rejections",
                f"{self._consecutive_rejections} answers in a row were rejected (--max-rejections "
                f"{self.max_rejections}); last: {kind}: {reason}. The platform fails every rejected task "
                "(and counts failed flags against the problem): fix the solver's answers, then run again",
            )
            return False
        return True

    def _loop(self) -> None:
        while True:
            if self._stop.is_set():
                self.summary.stopped_by = self._stop_reason or "signal"
                return
            if self.max_tasks is not None and self.summary.tasks >= self.max_tasks:
                self.summary.stopped_by = "max_tasks"
                return
            try:
                task = self.client.next_task(**self.task_params)
            except (AuthenticationError, PermissionDeniedError) as exc:
                self._fail("auth", self._auth_message(exc))
                return
            except PlatformError as exc:
                if not self._backoff("polling GET /tasks/next", exc):
                    return
                continue
            if task is None:
                self.summary.idle_polls += 1
                if self.stop_when_idle:
                    self.summary.stopped_by = "idle"
                    return
                self._wait(self.idle_wait)
                continue
            if not self._handle(task):
                return

    def _handle(self, task: Task) -> bool:
        """Solve and submit one task; returns False when the run must stop."""
        self.summary.tasks += 1
        number = self.summary.tasks
        kind = task.type or "task"
        self.summary.by_type[kind] = self.summary.by_type.get(kind, 0) + 1
        started = time.perf_counter()
        try:
            result = self.solver(task.raw)
            if not isinstance(result, str | Mapping):
                raise TypeError(f"the solver returned {type(result).__name__}; expected str or dict")
        except Exception as exc:
            self.summary.solver_errors += 1
            self._line(number, kind, task.id, f"[red]solver error[/]: {escape(repr(exc))[:200]}", started)
            return self._backoff("the solver", exc)
        try:
            body = submission_body(
                task, result, llm_model=self.llm_model, llm_model_version=self.llm_model_version
            )
        except InvalidSubmissionError as exc:
            self.summary.refused += 1
            self._line(number, kind, task.id, f"[red]refused, not sent[/]: {escape(str(exc))}", started)
            return self._rejection(f"{kind} refused locally", str(exc))
        try:
            answer = self.client.submit(task.id, body)
        except (AuthenticationError, PermissionDeniedError) as exc:
            self._line(number, kind, task.id, f"[red]{exc.status_code}[/]", started)
            self._fail("auth", self._auth_message(exc))
            return False
        except ConflictError as exc:
            self.summary.conflicts += 1
            self._line(number, kind, task.id, f"[yellow]409 {escape(exc.message)}[/] (moving on)", started)
            self._consecutive_errors = 0
            return True
        except NotFoundError as exc:
            self.summary.expired += 1
            self._line(number, kind, task.id, f"[yellow]404 {escape(exc.message)}[/] (moving on)", started)
            self._consecutive_errors = 0
            return True
        except (BadRequestError, UnprocessableEntityError) as exc:
            self.summary.rejected += 1
            reason = f"{exc.status_code} {exc.message}"
            self._line(number, kind, task.id, f"[red]rejected[/] {escape(reason)}", started)
            return self._rejection(f"{kind} rejected by the server", reason)
        except PlatformError as exc:
            self._line(number, kind, task.id, f"[red]submit failed[/]: {escape(str(exc))}", started)
            return self._backoff("submitting", exc)
        self._consecutive_errors = 0
        self._consecutive_rejections = 0
        self._accepted(number, kind, task.id, answer, started)
        return True

    def _accepted(self, number: int, kind: str, task_id: str, answer: SubmitResult, started: float) -> None:
        if answer.get("duplicate") is True:
            self.summary.duplicates += 1
            message = str(answer.get("message") or "duplicate")
            self._line(number, kind, task_id, f"[yellow]duplicate[/]: {escape(message)}", started)
            return
        self.summary.submitted += 1
        if answer.recovered:
            self.summary.recovered += 1
            self._line(
                number, kind, task_id, "[green]submitted[/] (response lost; confirmed by 409)", started
            )
        else:
            self._line(number, kind, task_id, "[green]submitted[/]", started)

    def _line(self, number: int, kind: str, task_id: str, outcome: str, started: float) -> None:
        elapsed = time.perf_counter() - started
        self.console.print(f"[{number}] {kind:<6} {escape(task_id[:13]):<13} -> {outcome} ({elapsed:.2f} s)")

    # -- summary -------------------------------------------------------------------------------------------

    def print_summary(self) -> None:
        """Print the run's summary table (counts, duration, stop reason, /bot/me before -> after)."""
        s = self.summary
        table = Table(title="bot run summary", show_header=False, box=None, pad_edge=False)
        table.add_column(style="bold")
        table.add_column()
        kinds = ", ".join(f"{k} {v}" for k, v in sorted(s.by_type.items())) or "-"
        table.add_row("tasks", f"{s.tasks} ({kinds})")
        table.add_row(
            "submitted",
            f"{s.submitted}" + (f" ({s.recovered} confirmed after a lost response)" if s.recovered else ""),
        )
        table.add_row("duplicates", str(s.duplicates))
        table.add_row("conflicts (409)", str(s.conflicts))
        table.add_row("expired (404)", str(s.expired))
        table.add_row("rejected (400/422)", str(s.rejected))
        table.add_row("refused (not sent)", str(s.refused))
        table.add_row("solver errors", str(s.solver_errors))
        table.add_row("errors", str(s.errors))
        table.add_row("idle polls", str(s.idle_polls))
        table.add_row("duration", f"{s.duration_s:.1f} s")
        table.add_row("stopped by", s.stopped_by + (f": {escape(s.message)}" if s.message else ""))
        if s.me_start is not None and s.me_end is not None:
            for label, attr in (
                ("points", "total_points"),
                ("solutions", "total_solutions"),
                ("votes", "total_votes"),
            ):
                table.add_row(label, f"{getattr(s.me_start, attr)} -> {getattr(s.me_end, attr)}")
        self.console.print(table)
