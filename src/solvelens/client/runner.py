"""The bot runner: poll ``GET /tasks/next``, call the solver, ``POST /tasks/{id}/submit``, repeat.

Rules (the platform's bot guide, and the interface's reference loop):

- "No task" (204, 404, empty body, ``{}``, ``null``, an empty envelope) -> wait ``idle_wait`` seconds (30 by
  default) and poll again; with ``stop_when_idle`` the run ends instead. A 200 body that is neither a task
  nor "no task" (:class:`~solvelens.client.errors.UnrecognizedResponseError`) is never idle: after
  ``max_unrecognized`` (3) such polls in a row the run stops (exit code 1) with one line naming the body's
  keys and the profile setting that fixes it.
- The solver gets the task as the platform sent it (a :class:`~solvelens.client.models.Task`: a ``dict``, the
  envelope removed, nothing renamed or dropped) with its normalised view beside it (``task.view``:
  :class:`~solvelens.client.taskview.TaskView`) and returns a ``str`` or a ``dict``. The body's form comes
  from the task (:mod:`solvelens.client.submission`): the typed body of a task the platform types itself
  (the real platform's ``taskType`` + ``payload``; a string becomes it where that is unambiguous, else the
  answer is refused locally), ``{"content": <string>}`` for every other task (a string naming an offered
  choice becomes the choice's key), a dict as it is. The model declared with ``llm_model``
  (``--llm-model``) wins over the solver's own (its ``llm_model`` attribute or the ``llm_model`` of the dicts
  it returns); a disagreement is one warning line. A solver exception skips the submission and counts as an
  error (one line; its traceback with ``verbose``).
- Limits are learned, never assumed: an answer is checked against the rules the task states (its
  constraints, the bounds in its instruction or response format), the ones the platform's validation
  answers named earlier in the run (a 400/422 naming a field and its bound: one line when learned, applied
  to later tasks of the kind: one rejected task, not three) and the ones the solver declares (``limits``). A
  local refusal names the rule and where it was read.
- 401/403 (bad key, no bot profile, suspended, banned): stop at once with a clear message (exit code 1).
- A rejected answer (400/422 from the server, or refused locally) counts towards ``max_rejections`` (3): that
  many in a row stop the run (exit code 1), because the real platform fails each rejected task and counts a
  failed flag attempt against the problem (five reject a human's problem). 409 (already completed or failed)
  and 404 (expired): move on. A ``duplicate: true`` answer (solution already submitted, title already taken)
  is counted as a duplicate, not as submitted.
- Other errors (after the client's own bounded retries, each logged as one line): back off
  ``error_backoff`` seconds, doubling up to ``error_backoff_max``; after ``max_errors`` in a row the run
  stops (exit code 1). A platform whose every poll fails (5xx, connection error, timeout) for longer than
  ``max_outage`` seconds (120) stops the run (exit code 1) with one line dated from the first failed poll,
  also in the middle of a poll's retries (:func:`~solvelens.client.base.retry_limit`). A submit answered
  500 is never retried (its outcome is unknown: the real platform may have kept it); the next poll shows
  (the task re-served, or a new one). Lines say "retrying" only where a request is sent again; durations
  are rounded (``0.01 s``).
- The same task handed out again on the next poll although nothing was submitted for it (the solver failed,
  the answer was refused) is reported in one warning line: the platform re-serves a task the bot holds
  (the real platform keeps it assigned for 10 minutes, also to a new process of the bot). It is solved
  once more; when that answer is refused locally too, the run stops at once (``stopped_by`` ``held``, exit
  code 1) with one line naming the task: refusing it again would only loop until the platform expires it.
- SIGINT/SIGTERM: a poll in progress (its request or its retries' back-off) or a wait is cut at once and the
  run ends; a task in hand is finished (solved and submitted) first; a second signal aborts.
- ``GET /bot/me`` is recorded at start and end; one progress line per task (number, kind, id suffix, the
  problem's title (a create task's: the title its answer proposes), outcome, time) and a summary at exit
  (rich).
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
import traceback
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from types import FrameType
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from solvelens.client.base import retry_limit
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
    QueryValidationError,
    ServerError,
    UnprocessableEntityError,
    UnrecognizedResponseError,
)
from solvelens.client.models import Bot, SubmitResult, Task
from solvelens.client.rules import FieldRule, rules_from_declared, rules_from_error
from solvelens.client.solver import Solver, SolverLoadError, load_solver
from solvelens.client.submission import submission_body
from solvelens.client.taskview import strip_data

__all__ = ["BotRunner", "RunSummary", "Solver", "SolverLoadError", "describe_task", "load_solver"]

#: Characters of the problem title shown in a task's progress line.
TITLE_CHARS = 40
#: Characters of the task id shown (its end: sandbox and platform ids share long prefixes).
ID_SUFFIX_CHARS = 8


class StopRequested(BaseException):
    """Raised by the signal handler to cut a poll in progress (a BaseException, like KeyboardInterrupt, so no
    ``except Exception`` in the client swallows it)."""


@dataclass
class RunSummary:
    """What a run did. Counts are per task; times in seconds; ``me_start``/``me_end`` are ``/bot/me`` answers.

    ``submitted``: accepted as new work; ``duplicates``: accepted but ``duplicate: true`` (nothing created);
    ``rejected``: answered 400/422 by the server; ``refused``: not sent because the answer could not become
    the typed body (see :mod:`solvelens.client.submission`); ``expired``: 404 on submit; ``unrecognized``:
    polls answered with a body that is neither a task nor "no task"; ``reserved``: tasks handed out again
    while held. ``stopped_by``: ``max_tasks`` | ``idle`` | ``signal`` | ``auth`` | ``rejections`` |
    ``held`` (a re-served task's answer refused locally again) | ``errors`` | ``outage`` | ``unrecognized``
    | ``startup``. ``message``: the reason in one line when the run stopped on an error.
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
    unrecognized: int = 0
    reserved: int = 0
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
        failed = ("auth", "rejections", "held", "errors", "outage", "unrecognized", "startup")
        return 1 if self.stopped_by in failed else 0


def _attribute(solver: Solver, name: str) -> str | None:
    value = getattr(solver, name, None)
    return value if isinstance(value, str) and value else None


#: Kinds of task whose answer proposes a new problem (its title is the answer's, not the instruction's).
_CREATE_KINDS = ("create", "propose")


def _title(task: Task, body: Mapping[str, Any] | None) -> str:
    """The task's problem title: the problem it is about, else (a create task) the problem its answer
    proposes, else an untyped task's prompt's first line; never the platform's instruction text."""
    view = task.view
    if view.title:
        return view.title
    if body is not None and isinstance(body.get("problem_title"), str):
        return strip_data(body["problem_title"])
    if view.kind in _CREATE_KINDS:  # the title is the proposal's (its first line), never the instruction
        content = body.get("content") if body is not None else None
        return strip_data(content.strip().split("\n", 1)[0]) if isinstance(content, str) else ""
    if not view.typed and isinstance(task.get("prompt"), str):
        return strip_data(task["prompt"].strip().split("\n", 1)[0])
    return ""


def describe_task(task: Task, body: Mapping[str, Any] | None = None) -> str:
    """What tells a task apart in one progress line: ``solve  …9f3a1c2e "Leaky tap in a rented flat"`` (its
    kind, the id's last :data:`ID_SUFFIX_CHARS` characters, the problem's title cut to :data:`TITLE_CHARS`:
    the problem the task is about, or for a create task the one ``body`` proposes; an untyped task's prompt's
    first line; ``(new problem)`` / ``(no title)`` without one)."""
    text = _title(task, body)
    if len(text) > TITLE_CHARS:
        text = text[: TITLE_CHARS - 1].rstrip() + "…"
    ident = task.id if len(task.id) <= ID_SUFFIX_CHARS + 1 else "…" + task.id[-ID_SUFFIX_CHARS:]
    kind = task.kind or "task"
    if text:
        return f'{kind:<6} {ident:<9} "{text}"'
    return f"{kind:<6} {ident:<9} " + ("(new problem)" if kind in _CREATE_KINDS else "(no title)")


def seconds(value: float) -> str:
    """A duration for a line a person reads: ``0.01 s``, ``1.5 s``, ``12 s`` (never ``0.00947531 s``)."""
    if value >= 10:
        return f"{value:.0f} s"
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return ("under 0.01" if text == "0" and value > 0 else text) + " s"


def _is_outage(exc: PlatformError) -> bool:
    """A failure that says the platform is down: 5xx (not a validation 500), no connection, a timeout."""
    if isinstance(exc, QueryValidationError):
        return False
    return isinstance(exc, ServerError | PlatformConnectionError)


class BotRunner:
    """Runs one bot against the platform with a synchronous :class:`PlatformClient`.

    Args:
        client: a client with an API key.
        solver: ``Task -> str | dict`` (see :data:`Solver`; the task as sent, ``task.view`` beside it).
        idle_wait: seconds to wait after "no task" (default 30).
        max_tasks: stop after this many tasks (``None``: run until stopped).
        stop_when_idle: end the run at the first "no task" instead of waiting.
        error_backoff / error_backoff_max: first and longest wait after an error, seconds (doubles in
        between). max_errors: stop after this many errors in a row (polling, submitting, the solver).
        max_rejections: stop after this many rejected answers in a row (400/422, or refused locally).
        max_outage: stop when every poll has failed (5xx, connection error, timeout) for this many seconds
        (default 120; 0: never). max_unrecognized: stop after this many polls in a row answered with a body
        that is neither a task nor "no task" (default 3).
        llm_model / llm_model_version: the model the bot declares in solve bodies; when given they win over
        the solver's own (its attributes, or the fields of the dicts it returns), with one warning line per
        disagreement. task_params: query options for ``/tasks/next`` (e.g. ``{"brief": "true"}``).
        console: where progress lines and the summary go (rich); ``None``: stdout. verbose: print a failing
        solver's traceback (once per distinct error), not only its one-line summary. limits: rules the
        solver declares for its answers' fields (``{"content": {"max_length": 2000}}`` or ``{"content": (10,
        2000)}``; default: the solver's ``limits`` attribute), checked before sending like the platform's.
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
        max_outage: float = 120.0,
        max_unrecognized: int = 3,
        llm_model: str | None = None,
        llm_model_version: str | None = None,
        task_params: Mapping[str, str] | None = None,
        console: Console | None = None,
        verbose: bool = False,
        limits: Mapping[str, Any] | None = None,
    ) -> None:
        self.client = client
        self.solver = solver
        self.idle_wait = idle_wait
        self.max_tasks = max_tasks
        self.stop_when_idle = stop_when_idle
        self.error_backoff = error_backoff
        self.error_backoff_max = error_backoff_max
        if max_errors < 1 or max_rejections < 1 or max_unrecognized < 1:
            raise ValueError("max_errors, max_rejections and max_unrecognized must be at least 1")
        self.max_errors = max_errors
        self.max_rejections = max_rejections
        self.max_outage = max(0.0, max_outage)
        self.max_unrecognized = max_unrecognized
        self._declared = {"llm_model": llm_model, "llm_model_version": llm_model_version}
        self.llm_model = llm_model or _attribute(solver, "llm_model")
        self.llm_model_version = llm_model_version or _attribute(solver, "llm_model_version")
        self.task_params = dict(task_params or {})
        # soft_wrap: a task or stop line stays one line whatever the width (a pipe or a log file is 80 columns
        # to rich); the summary table still fits the width.
        self.console = console or Console(highlight=False, soft_wrap=True)
        self.verbose = verbose
        self.summary = RunSummary()
        self._stop = threading.Event()
        self._stop_reason = ""
        self._signalled = False
        self._signals_seen = 0
        self._deferred_lines: list[str] = []  # signal-handler lines printed later (a reentrant write)
        self._cuttable_now = False
        self._in_task: Task | None = None
        self._consecutive_errors = 0
        self._consecutive_rejections = 0
        self._unrecognized_in_row = 0
        self._outage_since: float | None = None
        self._outage_since_utc: datetime | None = None
        self._held: tuple[str, str] | None = None
        #: Tasks whose answer was refused locally in this run (a second refusal of one stops the run).
        self._refused_ids: set[str] = set()
        self._warned: set[tuple[str, str]] = set()
        self._reserved_warned: set[str] = set()
        self._tracebacks: set[str] = set()
        #: Rules learned from the platform's validation answers, by (task kind, field), for this run.
        self._learned: dict[tuple[str, str], FieldRule] = {}
        self._declared_rules = rules_from_declared(
            limits if limits is not None else getattr(solver, "limits", None)
        )
        self._body: Mapping[str, Any] | None = None

    # -- stopping ------------------------------------------------------------------------------------------

    def request_stop(self, reason: str = "signal") -> None:
        """Ask the run to end (thread-safe): waits end at once, a poll schedules no further retry, a task in
        hand is finished first."""
        if not self._stop_reason:
            self._stop_reason = reason
        self._stop.set()

    @property
    def stopping(self) -> bool:
        """Whether a stop was requested (by :meth:`request_stop` or a signal)."""
        return self._stop.is_set() or self._signalled

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        # No locks here (the main thread may hold them): a poll or wait in progress is cut by raising; a task
        # in hand sees the flag once it is finished.
        self._signals_seen += 1
        if self._signals_seen > 1:
            raise KeyboardInterrupt
        name = signal.Signals(signum).name
        if not self._stop_reason:
            self._stop_reason = "signal"
        self._signalled = True
        if self._cuttable_now:
            self._cuttable_now = False
            self._say_from_handler(f"[yellow]{name}: stopping now (no task in hand)[/]")
            raise StopRequested(name)
        if self._in_task is not None:
            what = escape(describe_task(self._in_task))
            self._say_from_handler(
                f"[yellow]{name}: finishing the current task ({what}), then exiting (again to abort)[/]"
            )
        else:
            self._say_from_handler(f"[yellow]{name}: stopping (again to abort)[/]")

    def _say_from_handler(self, line: str) -> None:
        """Print ``line`` from the signal handler. When the signal landed while the main thread was inside a
        write to the same stream (``RuntimeError: reentrant call``: CPython runs handlers between the raw
        writes of a buffered flush, with the buffer's lock held), the line goes straight to the stream's file
        descriptor, markup removed, so it shows now and not once the task in hand is done; a stream without
        a descriptor keeps it for :meth:`_flush_deferred`."""
        try:
            self.console.print(line)
        except RuntimeError:
            try:
                fd = self.console.file.fileno()
            except (AttributeError, OSError, ValueError):
                self._deferred_lines.append(line)
                return
            os.write(fd, (Text.from_markup(line).plain + "\n").encode())

    def _flush_deferred(self) -> None:
        """Print the lines the signal handler could not print at once (see :meth:`_say_from_handler`)."""
        while self._deferred_lines:
            self.console.print(self._deferred_lines.pop(0))

    @contextlib.contextmanager
    def _cuttable(self) -> Iterator[None]:
        """A block a signal cuts at once by raising :class:`StopRequested`: polls, ``/bot/me``, waits; never
        a task in hand."""
        if self._signalled:
            raise StopRequested("signal")
        self._cuttable_now = True
        try:
            yield
        finally:
            self._cuttable_now = False

    def _install_signal_handlers(self) -> dict[int, Any]:
        if threading.current_thread() is not threading.main_thread():
            return {}
        previous: dict[int, Any] = {}
        for sig in (signal.SIGINT, signal.SIGTERM):
            previous[sig] = signal.signal(sig, self._on_signal)
        return previous

    # -- the run -------------------------------------------------------------------------------------------

    def run(self, *, handle_signals: bool = True) -> RunSummary:
        """Poll, solve and submit until ``max_tasks``, a stop request, idle (``stop_when_idle``), an auth
        error, too many errors or rejections in a row, an outage longer than ``max_outage`` or
        ``max_unrecognized`` unrecognized polls. Prints one line per task and a summary; returns the
        :class:`RunSummary`."""
        previous = self._install_signal_handlers() if handle_signals else {}
        started = time.perf_counter()
        try:
            with retry_limit(stop=self._stop):
                if self._me("start"):
                    self._announce_declared_model()
                    self._loop()
                if self.summary.stopped_by not in ("auth", "startup", "outage"):
                    self._me("end")
        except KeyboardInterrupt:
            self._flush_deferred()
            held = self._in_task
            lost = f": task {escape(describe_task(held))} was not submitted" if held is not None else ""
            self.console.print(
                f"[bold red]aborted[/]{lost}" + ("; the platform holds it until it expires" if lost else "")
            )
            raise
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
            self.summary.duration_s = time.perf_counter() - started
        self._flush_deferred()
        self.print_summary()
        return self.summary

    def _me(self, when: str) -> bool:
        """Record ``/bot/me`` at ``start``/``end`` (a signal cuts it); returns False when the run must not
        start. After a stop request the end record is tried once, without retries (none while the platform
        is failing every poll)."""
        if when == "end" and self.stopping:
            if self._outage_since is not None:
                return False
            self._stop.set()  # from normal code, never the signal handler: no retries for this last call
            return self._record_me(when)  # a second signal aborts it
        try:
            with self._cuttable():
                return self._record_me(when)
        except StopRequested:
            self.summary.stopped_by = self.summary.stopped_by or "signal"
            return False

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

    # -- the declared model --------------------------------------------------------------------------------

    def _warn_model(self, field_name: str, own: str, declared: str, where: str) -> None:
        if (field_name, own) in self._warned:
            return
        self._warned.add((field_name, own))
        option = "--" + field_name.replace("_", "-")
        self.console.print(
            f"[yellow]warning: {option} {escape(declared)} wins over {escape(where)} {field_name} "
            f"{escape(own)!r}; {escape(declared)} is sent[/]"
        )

    def _announce_declared_model(self) -> None:
        for field_name, declared in self._declared.items():
            own = _attribute(self.solver, field_name)
            if declared and own and own != declared:
                self._warn_model(field_name, own, declared, "the solver's attribute")

    def _with_declared_model(self, result: Any) -> Any:
        """``result`` with the declared ``llm_model``/``llm_model_version`` in place of the solver's own."""
        if not isinstance(result, Mapping):
            return result
        changed = dict(result)
        for field_name, declared in self._declared.items():
            own = result.get(field_name)
            if declared and own is not None and own != declared:
                self._warn_model(field_name, str(own), declared, "the solver's answer's")
                changed[field_name] = declared
        return changed

    # -- the loop ------------------------------------------------------------------------------------------

    def _wait(self, seconds: float) -> None:
        """Wait ``seconds``; a stop request or a signal ends the wait at once."""
        try:
            with self._cuttable():
                self._stop.wait(max(0.0, seconds))
        except StopRequested:
            pass

    def _should_end(self) -> bool:
        if self.stopping:
            self.summary.stopped_by = self._stop_reason or "signal"
            return True
        if self.max_tasks is not None and self.summary.tasks >= self.max_tasks:
            self.summary.stopped_by = "max_tasks"
            return True
        return False

    def _loop(self) -> None:
        while not self._should_end():
            started = time.monotonic()
            started_utc = datetime.now(UTC)
            before = self.client.last_task
            try:
                with self._cuttable(), retry_limit(stop=self._stop, deadline=self._outage_deadline(started)):
                    task = self.client.next_task(**self.task_params)
            except StopRequested:
                task = self._handed_out_since(before)
                if task is None:
                    continue  # _should_end ends the run
            except (AuthenticationError, PermissionDeniedError) as exc:
                self._fail("auth", self._auth_message(exc))
                return
            except UnrecognizedResponseError as exc:
                if not self._unrecognized(exc):
                    return
                continue
            except PlatformError as exc:
                if not self._poll_failed(exc, started, started_utc):
                    return
                continue
            self._platform_up()
            if task is None:
                self.summary.idle_polls += 1
                if self.stop_when_idle:
                    self.summary.stopped_by = "idle"
                    return
                self._wait(self.idle_wait)
                continue
            if not self._handle(task):
                return

    def _handed_out_since(self, before: Task | None) -> Task | None:
        """The task the client handed out during a poll a signal cut (the answer had arrived), if any."""
        last = self.client.last_task
        return last if last is not None and last is not before else None

    def _outage_deadline(self, poll_started: float) -> float | None:
        """When retries of this poll must stop: ``max_outage`` after the outage (or this poll) began."""
        if not self.max_outage:
            return None
        return (self._outage_since or poll_started) + self.max_outage

    def _platform_up(self) -> None:
        self._outage_since = self._outage_since_utc = None
        self._unrecognized_in_row = 0

    def _poll_failed(self, exc: PlatformError, started: float, started_utc: datetime) -> bool:
        """Count a failed poll; returns False when the run must stop (outage too long, too many errors). The
        outage is dated from the first failed poll's start (both clocks read then, so the line's time and
        its duration agree)."""
        if not _is_outage(exc) or not self.max_outage:
            self._outage_since = self._outage_since_utc = None
            return self._backoff("polling GET /tasks/next", exc)
        if self._outage_since is None:
            self._outage_since = started
            self._outage_since_utc = started_utc
        down = time.monotonic() - self._outage_since
        if down >= self.max_outage:
            self.summary.errors += 1
            since = self._outage_since_utc.strftime("%H:%M:%S") if self._outage_since_utc else "?"
            self._fail(
                "outage",
                f"the platform failed every poll for {seconds(down)} since {since} UTC, its first failed "
                f"poll (--max-outage {self.max_outage:g} s); last: {exc}",
            )
            return False
        return self._backoff("polling GET /tasks/next", exc, cap=self.max_outage - down)

    def _unrecognized(self, exc: UnrecognizedResponseError) -> bool:
        """Count a poll answered with an unknown body (never idle); returns False at ``max_unrecognized``."""
        self._outage_since = self._outage_since_utc = None
        self.summary.unrecognized += 1
        self._unrecognized_in_row += 1
        count = self._unrecognized_in_row
        if count >= self.max_unrecognized:
            self._fail("unrecognized", f"{count} polls in a row: {exc}")
            return False
        keys = ", ".join(exc.keys) or "none"
        self.console.print(
            f"[yellow]GET /tasks/next: a body that is neither a task nor 'no task' (keys: {escape(keys)}); "
            f"polling again ({count}/{self.max_unrecognized})[/]"
        )
        self._wait(min(self.error_backoff, self.idle_wait))
        return True

    def _backoff(
        self,
        what: str,
        exc: BaseException | str,
        *,
        cap: float | None = None,
        quiet: bool = False,
        then: str = "retrying",
    ) -> bool:
        """Count an error and wait (at most ``cap`` seconds); returns False when the run must stop (too many
        in a row). ``quiet``: the caller's line already said what failed; ``then``: what follows the wait
        (``retrying`` only where the same request is sent again)."""
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
        if cap is not None:
            delay = max(0.0, min(delay, cap))
        if not quiet:
            self.console.print(
                f"[yellow]{escape(what)} failed: {escape(str(exc))}; {then} in {seconds(delay)}[/]"
            )
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

    # -- one task ------------------------------------------------------------------------------------------

    def _handle(self, task: Task) -> bool:
        """Solve and submit one task (a signal waits for it); returns False when the run must stop."""
        self._in_task = task
        going_on = self._solve_and_submit(task)
        self._in_task = None  # left set when an abort (second signal) cuts the task: run() names it
        return going_on

    def _note_reserved(self, task: Task) -> None:
        """Warn when the platform hands out again a task this bot holds (nothing submitted for it)."""
        if self._held is not None and self._held[0] == task.id:
            self.summary.reserved += 1
            if task.id not in self._reserved_warned:
                self._reserved_warned.add(task.id)
                what = escape(describe_task(task))
                self.console.print(
                    f"[yellow]warning: the platform re-serves task {what} (held by this bot, nothing "
                    f"submitted: {self._held[1]}); handling it again[/]"
                )
        self._held = None

    def _solve(self, number: int, task: Task, started: float) -> tuple[Any, Exception | None]:
        """The solver's answer and ``None``, or ``None`` and its error (one line; the traceback with
        verbose)."""
        try:
            result = self.solver(task)
            if not isinstance(result, str | Mapping):
                raise TypeError(f"the solver returned {type(result).__name__}; expected str or dict")
        except Exception as exc:
            self.summary.solver_errors += 1
            summary = f"{type(exc).__name__}: {exc}"
            hint = "" if self.verbose else " (-v shows the traceback)"
            self._line(number, task, f"[red]solver error[/]: {escape(summary[:200])}{hint}", started)
            if self.verbose:
                self._traceback(exc)
            self._held = (task.id, "the solver failed")
            return None, exc
        return result, None

    def _traceback(self, exc: BaseException) -> None:
        """Print the solver's traceback (without the runner's own frame), once per distinct error."""
        tb = exc.__traceback__.tb_next if exc.__traceback__ is not None else None
        text = "".join(traceback.format_exception(type(exc), exc, tb))
        key = "".join(traceback.format_exception_only(exc)) + str(
            traceback.extract_tb(exc.__traceback__)[-1:]
        )
        if key in self._tracebacks:
            self.console.print("  (same traceback as above)", markup=False)
            return
        self._tracebacks.add(key)
        self.console.print(text.rstrip(), markup=False, highlight=False)

    def _solve_and_submit(self, task: Task) -> bool:
        self._note_reserved(task)
        self._body = None
        self.summary.tasks += 1
        number = self.summary.tasks
        kind = task.type or "task"
        self.summary.by_type[kind] = self.summary.by_type.get(kind, 0) + 1
        started = time.perf_counter()
        result, error = self._solve(number, task, started)
        if error is not None:
            return self._backoff("the solver", f"{type(error).__name__}: {error}", quiet=True)
        result = self._with_declared_model(result)
        try:
            body = submission_body(
                task,
                result,
                llm_model=self.llm_model,
                llm_model_version=self.llm_model_version,
                rules=self._rules_for(task),
            )
        except InvalidSubmissionError as exc:
            self.summary.refused += 1
            self._held = (task.id, "the answer was refused locally")
            self._line(number, task, f"[red]refused, not sent[/]: {escape(str(exc))}", started)
            if not self._rejection(f"{kind} refused locally", str(exc)):
                return False
            return self._refused_once(task)
        self._body = body
        return self._submit(number, task, body, started)

    def _refused_once(self, task: Task) -> bool:
        """False (the run stops, one line) when this task's answer was refused locally before: the platform
        keeps a task assigned until it is submitted or expires and serves it again, so refusing it once more
        would loop until it expires."""
        if task.id not in self._refused_ids:
            self._refused_ids.add(task.id)
            return True
        self._fail(
            "held",
            f"task {describe_task(task)} stays assigned to this bot and is served again, and its answer was "
            "refused locally twice; the platform keeps it until it expires (the real platform: 10 minutes). "
            "Fix the solver's answers for this task, then run again",
        )
        return False

    def _rules_for(self, task: Task) -> tuple[FieldRule, ...]:
        """The rules learned from the platform's answers to earlier tasks of this kind, and the solver's."""
        learned = tuple(rule for (kind, _), rule in self._learned.items() if kind == (task.kind or ""))
        return (*learned, *self._declared_rules)

    def _learn(self, task: Task, exc: APIStatusError) -> None:
        """Remember the bounds a validation answer names (for this run, for tasks of this kind); one line
        per rule learned."""
        suffix = task.id if len(task.id) <= ID_SUFFIX_CHARS + 1 else "…" + task.id[-ID_SUFFIX_CHARS:]
        source = f"learned from the platform's {exc.status_code} answer to task {suffix}"
        for rule in rules_from_error(exc.body, message=exc.message, source=source):
            key = (task.kind or "", rule.field)
            if key in self._learned:
                continue
            self._learned[key] = rule
            what = f"{key[0] or 'task'} {rule.field} is {rule.describe()} ({source})"
            self.console.print(
                f"[yellow]learned: the platform's rule for {escape(what)}; answers that break it are not "
                "sent[/]"
            )

    def _submit(self, number: int, task: Task, body: dict[str, Any], started: float) -> bool:
        kind = task.type or "task"
        try:
            with retry_limit():  # a stop request does not cut a task in hand: its submit keeps its retries
                answer = self.client.submit(task.id, body)
        except (AuthenticationError, PermissionDeniedError) as exc:
            self._line(number, task, f"[red]{exc.status_code}[/]", started)
            self._fail("auth", self._auth_message(exc))
            return False
        except ConflictError as exc:
            self.summary.conflicts += 1
            self._line(number, task, f"[yellow]409 {escape(exc.message)}[/] (moving on)", started)
            self._consecutive_errors = 0
            return True
        except NotFoundError as exc:
            self.summary.expired += 1
            self._line(number, task, f"[yellow]404 {escape(exc.message)}[/] (moving on)", started)
            self._consecutive_errors = 0
            return True
        except (BadRequestError, UnprocessableEntityError) as exc:
            self.summary.rejected += 1
            reason = f"{exc.status_code} {exc.message}"
            self._line(number, task, f"[red]rejected[/] {escape(reason)}", started)
            self._learn(task, exc)
            return self._rejection(f"{kind} rejected by the server", reason)
        except PlatformError as exc:
            self._held = (task.id, "its submit failed")
            self._line(
                number,
                task,
                f"[red]submit failed[/]: {escape(str(exc))} (not retried: its outcome is unknown; the next "
                "poll shows whether the platform kept it)",
                started,
            )
            return self._backoff("submitting", exc, quiet=True)
        self._consecutive_errors = 0
        self._consecutive_rejections = 0
        self._accepted(number, task, answer, started)
        return True

    def _accepted(self, number: int, task: Task, answer: SubmitResult, started: float) -> None:
        if answer.get("duplicate") is True:
            self.summary.duplicates += 1
            message = str(answer.get("message") or "duplicate")
            self._line(number, task, f"[yellow]duplicate[/]: {escape(message)}", started)
            return
        self.summary.submitted += 1
        if answer.recovered:
            self.summary.recovered += 1
            self._line(number, task, "[green]submitted[/] (response lost; confirmed by 409)", started)
        else:
            self._line(number, task, "[green]submitted[/]", started)

    def _line(self, number: int, task: Task, outcome: str, started: float) -> None:
        elapsed = time.perf_counter() - started
        what = escape(describe_task(task, self._body))
        self.console.print(f"[{number}] {what} -> {outcome} ({seconds(elapsed)})")

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
        if s.unrecognized:
            table.add_row("unrecognized polls", str(s.unrecognized))
        if s.reserved:
            table.add_row("re-served tasks", str(s.reserved))
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
