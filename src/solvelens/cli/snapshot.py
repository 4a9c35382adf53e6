"""``solvelens snapshot`` (one snapshot: in-process, or a Prefect flow run when a Prefect API is configured)
and ``solvelens schedule`` (served deployments: scheduled snapshots and a daily report).

Prefect, DuckDB, pyarrow and polars are imported inside the commands, after the inputs are checked and the
platform probed, so a mistake is reported within seconds and ``solvelens --help`` stays fast.
"""

from __future__ import annotations

import asyncio
import gc
import os
import sys
import warnings
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from solvelens.cli.common import (
    DEFAULT_DB,
    DEFAULT_REPORT,
    AllowMissingBotMe,
    ApiKey,
    BadInputError,
    BaseUrl,
    CommandFailedError,
    DbPath,
    Full,
    MaxRps,
    ProfileFile,
    on_failure,
)
from solvelens.cli.snapshot_options import (
    AlertExitCode,
    AlertRules,
    AlertsFile,
    Backfill,
    BotMe,
    BudgetOption,
    CompactCron,
    Concurrency,
    Cron,
    JsonOutput,
    LockTimeout,
    Notify,
    Quiet,
    ReadTimeout,
    ReportCron,
    ReportOut,
    Resources,
    TakenAt,
    UsePrefect,
    Verbose,
)
from solvelens.flows.budget import DEFAULT_BUDGET
from solvelens.resources import RESOURCES, wanted_resources

if TYPE_CHECKING:
    from solvelens.flows.budget import Budget
    from solvelens.flows.plan import SnapshotPlan
    from solvelens.flows.summary import SnapshotSummary

#: The progress display's label of each step's progress (a declared resource's ``label``; the reference
#: step fetches two small resources at once).
_STEP_LABELS = {r.name: r.label for r in RESOURCES} | {"reference": "categories + stats"}


@contextmanager
def _env(values: dict[str, str]) -> Any:
    """Set environment variables for the block only."""
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _quiet_prefect(verbose: bool) -> None:
    """Prefect logs at WARNING unless verbose (must run before prefect is imported); no telemetry: neither
    the server's (``PREFECT_SERVER_ANALYTICS_ENABLED``) nor the SDK's (``DO_NOT_TRACK``: in a terminal, a
    new user's first flow run, deployment or schedule would otherwise send an event to Prefect's analytics
    service over the internet, unless the Prefect server reports its analytics off)."""
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    os.environ.setdefault("DO_NOT_TRACK", "1")
    os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "120")
    if not verbose:
        os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")


@contextmanager
def _prefect_console(verbose: bool) -> Any:
    """Unless verbose, silence Prefect's console log handlers for the block (its API log handlers stay, so
    the runs' logs still reach Prefect); failures are reported by the command in one line instead."""
    import logging

    from prefect.logging.handlers import PrefectConsoleHandler

    handlers = []
    if not verbose:
        loggers = [
            logging.getLogger(),
            *(logging.getLogger(n) for n in list(logging.root.manager.loggerDict)),
        ]
        handlers = [h for lg in loggers for h in lg.handlers if isinstance(h, PrefectConsoleHandler)]
    levels = [h.level for h in handlers]
    for h in handlers:
        h.setLevel(logging.CRITICAL + 1)
    try:
        yield
    finally:
        for h, level in zip(handlers, levels, strict=True):
            h.setLevel(level)


@contextmanager
def _progress(first_label: str, *, lines: bool = False) -> Any:
    """A transient rich progress display fed by the fetch steps' progress callback; yields nothing. When the
    output is not a terminal (cron, a pipe): nothing (rich would draw nothing there, but its refresh thread
    would still wake ten times a second and every list fetched would update it), or with ``lines`` one
    plain line when a step starts and one when it ends (:func:`_step_lines`)."""
    from rich.console import Console

    console = Console()
    if not console.is_terminal:  # nothing drawn: rich's progress display is not even imported
        if lines:
            with _step_lines(first_label):
                yield
        else:
            yield
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn

    from solvelens.flows.fetch import progress_callback

    with Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        console=console,
        transient=True,
    ) as progress:
        tasks: dict[str, Any] = {}
        start = progress.add_task(first_label, total=None)

        def on_progress(step: str, done: int, total: int | None) -> None:
            if step not in tasks:
                progress.update(start, visible=False)
                tasks[step] = progress.add_task(_STEP_LABELS.get(step, step), total=total)
            progress.update(tasks[step], completed=done, total=total)

        token = progress_callback.set(on_progress)
        try:
            yield
        finally:
            progress_callback.reset(token)


@contextmanager
def _step_lines(first_label: str) -> Any:
    """Progress for an output that is not a terminal: ``snapshot: <first_label>`` at once, then per step
    ``snapshot: <label> ...`` when its first progress arrives and ``snapshot: <label> done (N)`` when it
    reaches its total, each a plain line on stderr, flushed (a log keeps every line; nothing is redrawn)."""
    import sys
    import threading

    from solvelens.flows.fetch import progress_callback

    lock = threading.Lock()
    started: set[str] = set()
    finished: set[str] = set()

    def say(text: str) -> None:
        print(f"snapshot: {text}", file=sys.stderr, flush=True)

    def on_progress(step: str, done: int, total: int | None) -> None:
        label = _STEP_LABELS.get(step, step)
        with lock:
            if step not in started:
                started.add(step)
                say(f"{label} ...")
            if total is not None and done >= total and step not in finished:
                finished.add(step)
                say(f"{label} done ({total:,})")

    say(first_label)
    token = progress_callback.set(on_progress)
    try:
        yield
    finally:
        progress_callback.reset(token)


def _run_plain(plan: SnapshotPlan) -> SnapshotSummary:
    from solvelens.flows.steps import run_snapshot

    with _progress("reading the store's last snapshot"):
        return run_snapshot(plan)


def _run_prefect(plan: SnapshotPlan, verbose: bool) -> SnapshotSummary:
    _quiet_prefect(verbose)
    with _progress("starting the Prefect flow run (importing Prefect)", lines=True):
        from solvelens.flows.prefect_import import prefect_imported

        with prefect_imported():
            from solvelens.flows.snapshot import snapshot_flow

        with _prefect_console(verbose):
            return asyncio.run(snapshot_flow(plan))


@contextmanager
def _interruptible() -> Any:
    """Ctrl-C stops the run wherever the main thread is, and the run always ends in ``KeyboardInterrupt``.

    Inside an event loop the first Ctrl-C cancels the loop's tasks (scheduled on the loop, as
    :func:`asyncio.run`'s own handler cancels its main task), so every step unwinds through its task group and
    closes its client before the loop ends: a ``KeyboardInterrupt`` raised in the middle of one task would
    leave its siblings running against closed clients and print "Task exception was never retrieved".
    Outside a loop (a DuckDB query, the write) and on a second Ctrl-C it raises ``KeyboardInterrupt`` at once;
    DuckDB's own error for a stopped query, and the cancellation, are turned into ``KeyboardInterrupt``."""
    import signal
    import threading

    interrupted = threading.Event()

    def on_sigint(signum: int, frame: Any) -> None:
        first = not interrupted.is_set()
        interrupted.set()
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if first and loop is not None:
            loop.call_soon_threadsafe(_cancel_all_tasks, loop)
            return
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGINT, on_sigint)
    try:
        yield
    except (Exception, asyncio.CancelledError) as exc:  # DuckDB's error for a stopped query; the cancellation
        if interrupted.is_set():
            raise KeyboardInterrupt from exc
        raise
    finally:
        signal.signal(signal.SIGINT, previous)


def _kept_after_interrupt(db_path: str, base_url: str, started: datetime) -> None:
    """After Ctrl-C: when this run's snapshot had committed (the interrupt came later: while closing the
    file, evaluating alerts or printing), say it was kept and return (exit 0); else re-raise the
    ``KeyboardInterrupt`` (exit 130: nothing written)."""
    from solvelens.store.readers import committed_since

    kept = committed_since(db_path, base_url, started)
    if kept is None:
        raise KeyboardInterrupt
    typer.echo(f"interrupted after the snapshot was written: snapshot {kept} kept", err=True)


def _cancel_all_tasks(loop: asyncio.AbstractEventLoop) -> None:
    # anyio's connect_tcp starts one try_connect per address in a task group; cancelled before it ran, that
    # coroutine is never awaited and Python warns on stderr when it is collected: noise for a user who
    # pressed Ctrl-C (an anyio internal, nothing of ours left undone).
    warnings.filterwarnings(
        "ignore",
        message=r"coroutine 'connect_tcp\.<locals>\.try_connect' was never awaited",
        category=RuntimeWarning,
    )
    for task in asyncio.all_tasks(loop):
        task.cancel("interrupted (Ctrl-C)")


def _one_line(summary: SnapshotSummary) -> str:
    """The summary as one line (``--quiet``, for cron logs): snapshot id and time, the main counts, how
    long, the store's size, the vote coverage, and how many warnings, drifts, data-quality lines and alerts
    (the full summary: ``solvelens db snapshots`` and ``db check``)."""
    from solvelens.store.quality import coverage_line
    from solvelens.store.units import mib

    counts = ", ".join(
        f"{summary.counts[name]:,} {name}"
        for name in ("problems", "solutions", "bots")
        if name in summary.counts
    )
    parts = [f"snapshot {summary.snapshot_id} complete, taken at {summary.taken_at}: {counts}"]
    if summary.duration_s is not None:
        parts.append(f"{summary.duration_s:.1f} s")
    if summary.file_bytes is not None:
        parts.append(f"store {mib(summary.file_bytes)}")
    coverage = coverage_line(summary.vote_coverage).split(";", 1)[0]
    if coverage:
        parts.append(coverage)
    flagged = sum(1 for r in summary.data_quality if r.get("reason"))
    for n, what in (
        (len(summary.warnings), "warnings"),
        (len(summary.drift), "drift"),
        (flagged, "data-quality rows"),
        (len(summary.fired), "alerts fired"),
    ):
        if n:
            parts.append(f"{n} {what}")
    return "; ".join(parts)


def _print_summary(summary: SnapshotSummary, output: str = "text") -> None:
    """Print the summary: ``text`` (a table and a few lines), ``quiet`` (:func:`_one_line`) or ``json`` (one
    object: :meth:`SnapshotSummary.as_dict`, plus ``quality_lines``)."""
    if output == "quiet":
        typer.echo(_one_line(summary))
        return
    if output == "json":
        import json

        typer.echo(json.dumps({**summary.as_dict(), "quality_lines": summary.quality_lines()}, default=str))
        return
    from rich.console import Console
    from rich.table import Table

    from solvelens.store.units import mib

    console = Console()
    table = Table(title=f"snapshot {summary.snapshot_id} taken at {summary.taken_at}")
    table.add_column("resource")
    table.add_column("rows", justify="right")
    table.add_column("new versions", justify="right")
    for name, n in summary.totals().items():
        table.add_row(name, f"{n:,}", f"{summary.new_versions.get(name, 0):,}")
    console.print(table)
    if summary.new_line():
        console.print(summary.new_line(), highlight=False)
    if summary.mode == "prefect":
        run = summary.flow_run
        how = f"as Prefect flow run {run.get('name', '?')} ({run.get('id', '?')})"
    else:
        how = "in-process (no Prefect API configured; --prefect records it as a flow run)"
    took = "" if summary.duration_s is None else f" in {summary.duration_s:.1f} s"
    size = "" if summary.file_bytes is None else f"; store {mib(summary.file_bytes)}"
    console.print(f"complete{took}, {how}{size}")
    console.print(summary.carryover_line())
    if summary.optional_line():
        console.print(summary.optional_line())
    if summary.pacing_line():
        console.print(summary.pacing_line(), highlight=False)
    for line in summary.quality_lines():
        console.print(line, highlight=False)
    for d in summary.drift:
        console.print(f"[yellow]drift[/] {d['resource']}.{d['field']}: {d['change']}")
    for w in summary.warnings:
        console.print(f"[yellow]warning[/] {w}")
    _print_alerts(summary.alerts, console)


# -- snapshot ---------------------------------------------------------------------------------------------


def _check_alert_exit_code(code: int | None) -> None:
    """Refuse a code that already means something (1 failed, 2 bad input, 126-255 the shell's) or 0."""
    if code is not None and not 3 <= code <= 125:
        raise BadInputError(
            f"--alert-exit-code {code} cannot tell a fired alert apart (0 complete, 1 failed, 2 bad input, "
            "126-255 the shell's); pick one of 3-125, e.g. --alert-exit-code 3"
        )


@dataclass(frozen=True)
class _AlertOptions:
    """The checked alert options: ``alerts`` (the rules' canonical texts, ``None``: none) and ``alerts_file``
    (an absolute path) for the plan, and ``env``: the notification URLs for the run's environment (never a
    plan field)."""

    alerts: list[str] | None = None
    alerts_file: str | None = None
    env: dict[str, str] = field(default_factory=dict)


def _checked_alerts(
    alert: list[str] | None,
    alerts_file: Path | None,
    notify: list[str] | None,
    needs_bot_me: Callable[[], bool],
    *,
    db: Path | None = None,
    base_url: str | None = None,
) -> _AlertOptions:
    """The alert options, checked: reads the rules and the rules file and checks every notification URL (no
    alert option given: nothing is imported). ``needs_bot_me``: whether ``/bot/me`` will be read, asked only
    for a ``my-bot`` rule. With ``db`` and ``base_url``, a rule limited to a bot the store has never seen on
    that platform is refused (:func:`solvelens.alerts.subjects.check_rule_bots`).
    Raises :class:`solvelens.alerts.AlertRuleError` / ``NotifyTargetError`` / :class:`BadInputError` (exit
    2)."""
    if not (alert or alerts_file or notify):
        return _AlertOptions()
    from solvelens.alerts import NOTIFY_ENV, alert_config

    config = alert_config(alert or [], alerts_file, environ={NOTIFY_ENV: " ".join(notify or [])})
    if any(r.kind == "my-bot-rank" for r in config.rules) and not needs_bot_me():
        raise BadInputError(
            "the alert rule 'my-bot rank > N' reads /bot/me: pass --api-key (or SOLVELENS_API_KEY / "
            "SOLVELENS_API_KEY_FILE) and keep --bot-me"
        )
    if db is not None and base_url is not None:
        from solvelens.alerts.subjects import check_rule_bots

        check_rule_bots(config.rules, db, base_url)
    return _AlertOptions(
        alerts=[r.text for r in parse_cli_rules(alert)] or None,
        alerts_file=str(alerts_file.resolve()) if alerts_file is not None else None,
        env={NOTIFY_ENV: " ".join(notify)} if notify else {},
    )


def parse_cli_rules(alert: list[str] | None) -> list[Any]:
    """The ``--alert`` rules, read (canonical forms)."""
    from solvelens.alerts import parse_rules

    return list(parse_rules(alert or []))


def _print_alerts(alerts: dict[str, Any], console: Any) -> int:
    """One line per fired alert, one per alert warning (``alerts``: the summary's); returns how many alerts
    fired."""
    from rich.markup import escape

    fired = alerts.get("fired", [])
    for a in fired:
        line = f"[{a['rule']}] {a['message']}"
        console.print(f"[bold magenta]alert[/] {escape(line)}", highlight=False, soft_wrap=True)
    for w in alerts.get("warnings", []):
        console.print(f"[yellow]warning[/] {escape(w)}", highlight=False, soft_wrap=True)
    return len(fired)


def _checked_target(
    base_url: str, db: Path, api_key: str | None, read_timeout: float | None
) -> tuple[str, dict[str, str]]:
    """The checked base URL (:func:`solvelens.baseurl.normalise_base_url`, the one rule), and the
    environment of the run: the API key the ``/bot/me`` step reads (never a plan field) and the client's
    read timeout. Checks ``--db`` (:func:`solvelens.flows.preflight.check_db_path`). No I/O beyond the store
    file's header and no pydantic, so the probe's request comes right after. Raises
    :class:`solvelens.flows.preflight.PreflightError` / ``InvalidApiKeyError`` (bad input)."""
    from solvelens.apikey import check_api_key
    from solvelens.flows.preflight import READ_TIMEOUT_ENV, check_base_url, check_db_path
    from solvelens.flows.preflight import read_timeout as checked_read_timeout

    env = {READ_TIMEOUT_ENV: f"{checked_read_timeout(read_timeout):g}"}
    check_db_path(db)
    if api_key:
        env["SOLVELENS_API_KEY"] = check_api_key(api_key).get_secret_value()
    return check_base_url(base_url), env


def _checked_taken_at(taken_at: str | None) -> str | None:
    """``--taken-at`` as ISO-8601 UTC (``None``: the platform's or the machine's time at the run)."""
    from solvelens.flows.preflight import normalise_taken_at

    return None if taken_at is None else normalise_taken_at(taken_at)


def _output_form(quiet: bool, json_output: bool) -> str:
    """``text``, ``quiet`` or ``json``; both flags: :class:`BadInputError`."""
    if quiet and json_output:
        raise BadInputError("--quiet and --json: choose one (one line, or one JSON object)")
    return "json" if json_output else "quiet" if quiet else "text"


def _has_api_key(api_key: str | None) -> bool:
    """Whether an API key is given (``--api-key``, ``SOLVELENS_API_KEY`` or ``SOLVELENS_API_KEY_FILE``)."""
    if api_key:
        return True
    from solvelens.config import Settings

    return Settings().resolved_api_key() is not None


def _checked_resources(value: str | None) -> list[str] | None:
    """``--resources`` as the plan's list (:func:`solvelens.resources.wanted_resources`, the one check:
    ``None`` every one offered, ``[]`` for ``none``). Raises :class:`BadInputError` naming an unknown
    resource and the known ones."""
    try:
        return wanted_resources(value)
    except ValueError as exc:
        raise BadInputError(f"--resources: {exc}") from None


def _checked_budget(value: str) -> Budget:
    """``--budget`` parsed, once (:meth:`solvelens.flows.budget.Budget.parse`: the plan keeps the parsed
    budget); raises :class:`BadInputError` naming the forms it takes."""
    from solvelens.flows.budget import Budget

    try:
        return Budget.parse(value)
    except ValueError as exc:
        raise BadInputError(str(exc)) from None


def _checked_profile(profile: Path | None) -> str | None:
    """The absolute path of a readable, valid profile file, or ``None``. Raises
    :class:`solvelens.client.profile.ProfileError` (bad input) naming the file, endpoint and setting."""
    if profile is None:
        return None
    from solvelens.client.profile import Profile

    Profile.load(profile)
    return str(profile.resolve())


def _plan(base_url: str, db: Path, rules: _AlertOptions, **fields: Any) -> SnapshotPlan:
    """The plan of a snapshot, a run's (``snapshot``) or a deployment's (``schedule``): the checked base
    URL, the store, the checked alert rules, and the other plan fields by name (``fields``; pydantic refuses
    an unknown or mistyped one: :class:`solvelens.flows.plan.SnapshotPlan` forbids extra fields). Imports
    pydantic: call it after the probe's request."""
    from solvelens.flows.plan import SnapshotPlan

    return SnapshotPlan(
        base_url=base_url, db_path=str(db), alerts=rules.alerts, alerts_file=rules.alerts_file, **fields
    )


def snapshot(
    ctx: typer.Context,
    base_url: BaseUrl,
    db: DbPath = DEFAULT_DB,
    api_key: ApiKey = None,
    full: Full = False,
    bot_me: BotMe = True,
    taken_at: TakenAt = None,
    backfill: Backfill = False,
    allow_missing_bot_me: AllowMissingBotMe = False,
    prefect: UsePrefect = None,
    concurrency: Concurrency = 8,
    lock_timeout: LockTimeout = 60.0,
    read_timeout: ReadTimeout = None,
    verbose: Verbose = False,
    profile: ProfileFile = None,
    max_rps: MaxRps = None,
    resources: Resources = None,
    budget: BudgetOption = DEFAULT_BUDGET,
    alert: AlertRules = None,
    alerts_file: AlertsFile = None,
    notify: Notify = None,
    alert_exit_code: AlertExitCode = None,
    quiet: Quiet = False,
    json_output: JsonOutput = False,
) -> None:
    """Take one complete snapshot of every public resource into the DuckDB store.

    Inputs are checked and the platform probed (GET /categories, a few seconds at most) before anything
    is fetched. Unchanged solution lists and bot profiles are carried over from the last snapshot.

    The optional resources (--resources) are found out per snapshot: one the platform does not offer is
    recorded as "not offered" and the snapshot is still complete. Activity events are kept once each; when
    the feed moved past the last stored event, the gap is recorded and the summary says which cadence would
    have caught it. Comparisons are fetched only for solutions whose vote count moved, within --budget
    (the rest by the next snapshots), plus a share of lists trusted by their counts, re-read in turn.

    Exact or loud: a list shorter than the total the platform announced for it (after one re-walk) fails
    the snapshot in one line; a gap the platform itself cannot fill (a list capped at 50 votes, a count its
    rows disagree with) is recorded in the data_quality view and printed in the summary (`solvelens db
    check` shows it later).

    Alert rules (--alert, --alerts-file) are evaluated after the snapshot: one line per alert, a
    notification per --notify target, a Prefect event per alert when a Prefect API is configured. An
    undeliverable notification is a warning; the snapshot stays complete.

    Exit codes: 0 the snapshot is complete (also when Ctrl-C came after its commit: "snapshot N kept");
    1 it failed (platform unreachable or failing, a list shorter than announced, API key rejected, store
    busy), nothing written; 2 bad input (URL, --db not a store, --taken-at malformed or older than the
    store's newest snapshot, --budget, an alert rule or notification URL), nothing written; 130
    interrupted (Ctrl-C), nothing written; --alert-exit-code N: complete, and an alert fired.
    """
    on_failure(ctx, "snapshot", "no snapshot was written")
    profile_path, wanted = _checked_profile(profile), _checked_resources(resources)
    spend = _checked_budget(budget)
    checked_url, env = _checked_target(base_url, db, api_key, read_timeout)
    when = _checked_taken_at(taken_at)
    _check_alert_exit_code(alert_exit_code)
    rules = _checked_alerts(
        alert, alerts_file, notify, lambda: bot_me and _has_api_key(api_key), db=db, base_url=checked_url
    )
    output = _output_form(quiet, json_output)
    run = _Run.of(checked_url, db, {**env, **rules.env}, prefect, verbose, alert_exit_code, output)
    # the plan is built once the probe answered (pydantic comes after the first request)
    plan = partial(
        _plan,
        checked_url,
        db,
        rules,
        taken_at=when,
        full=full,
        use_api_key=bot_me,
        concurrency=concurrency,
        lock_timeout_s=lock_timeout,
        backfill=backfill,
        allow_missing_bot_me=allow_missing_bot_me,
        profile=profile_path,
        max_rps=max_rps,
        resources=wanted,
        budget=spend,
    )
    _take_snapshot(plan, run)


@dataclass(frozen=True)
class _Run:
    """How ``snapshot`` runs its plan: the checked ``base_url`` and ``db_path`` (for the probe and, after a
    Ctrl-C, the committed-or-not check), ``env`` (set for the run: the API key, the read timeout, the
    notification URLs; never plan fields), ``use_prefect``, ``verbose``, ``alert_exit_code``, ``output``
    (``text``, ``quiet``, ``json``)."""

    base_url: str
    db_path: str
    env: dict[str, str]
    use_prefect: bool
    verbose: bool
    alert_exit_code: int | None
    output: str

    @classmethod
    def of(
        cls,
        base_url: str,
        db: Path,
        env: dict[str, str],
        prefect: bool | None,
        verbose: bool,
        alert_exit_code: int | None,
        output: str,
    ) -> _Run:
        """The run of the checked options; ``prefect`` ``None``: a flow run when a Prefect API is
        configured (:func:`solvelens.flows.preflight.prefect_api_url`), else in-process."""
        from solvelens.flows.preflight import prefect_api_url

        use_prefect = prefect if prefect is not None else prefect_api_url() is not None
        return cls(base_url, str(db), env, use_prefect, verbose, alert_exit_code, output)


def _take_snapshot(plan: Callable[[], SnapshotPlan], run: _Run) -> None:
    """Probe the platform, build the plan (``plan()``), run the snapshot (a Prefect flow run or the plain
    steps) with ``run.env`` set, print its summary. A Ctrl-C ends it: exit 0 with "snapshot N kept" when its
    transaction committed, else 130 (:func:`_kept_after_interrupt`); ``run.alert_exit_code`` is the exit code
    when an alert fired."""
    from solvelens.flows.gc_tuning import no_collection_at_exit
    from solvelens.flows.preflight import READ_TIMEOUT_ENV, probe, read_timeout

    no_collection_at_exit()
    started = datetime.now(UTC)
    try:
        with _interruptible():
            if (
                run.use_prefect and not sys.stderr.isatty()
            ):  # a flow run says what it does from its first second
                print(
                    "snapshot: checking that the platform answers (GET /categories)",
                    file=sys.stderr,
                    flush=True,
                )
            answered = probe(run.base_url, read_timeout_s=read_timeout(run.env.get(READ_TIMEOUT_ENV)))
            if answered.slow:
                typer.echo(f"preflight: {answered.line}", err=True)
            built = plan()
            with _env(run.env):
                summary = _run_prefect(built, run.verbose) if run.use_prefect else _run_plain(built)
    except KeyboardInterrupt:
        _kept_after_interrupt(run.db_path, run.base_url, started)
        return
    _print_summary(summary, run.output)
    if summary.fired and run.alert_exit_code is not None:
        raise typer.Exit(run.alert_exit_code)


# -- schedule ---------------------------------------------------------------------------------------------


def _check_schedule_local(base_url: str, db: Path) -> str:
    """The inputs of ``schedule`` this machine can check alone (the base URL's form, the store, the order of
    its snapshots); returns the base URL without a trailing slash. Raises
    :class:`solvelens.flows.preflight.PreflightError` (bad input)."""
    from solvelens.flows.preflight import (
        check_base_url,
        check_db_path,
        check_taken_at_order,
        normalise_taken_at,
    )

    base_url = check_base_url(base_url)
    check_db_path(db)
    check_taken_at_order(db, base_url, normalise_taken_at(None))
    return base_url


def _check_schedule_platform(base_url: str, crons: dict[str, str], allow_missing_bot_me: bool) -> None:
    """Check, as ``snapshot`` does, that the platform answers and accepts the API key of this process, then
    the cron expressions. Raises :class:`solvelens.flows.preflight.PreflightError` (bad input; a subclass
    when the platform is unreachable)."""
    from solvelens.config import Settings
    from solvelens.flows.preflight import check_cron, probe, probe_api_key

    key = Settings().resolved_api_key()
    probe(base_url)
    if key is not None and not allow_missing_bot_me:
        probe_api_key(base_url, key)
    for option, expression in crons.items():  # last: Prefect's check imports Prefect (and makes its home)
        check_cron(expression, option)


def schedule(
    base_url: BaseUrl,
    db: DbPath = DEFAULT_DB,
    cron: Cron = "0 * * * *",
    report_cron: ReportCron = "30 6 * * *",
    compact_cron: CompactCron = "15 3 * * 0",
    report_out: ReportOut = DEFAULT_REPORT,
    full: Full = False,
    allow_missing_bot_me: AllowMissingBotMe = False,
    profile: ProfileFile = None,
    alert: AlertRules = None,
    alerts_file: AlertsFile = None,
    notify: Notify = None,
) -> None:
    """Serve scheduled snapshots (--cron), the report (--report-cron) and the store's compaction
    (--compact-cron, weekly by default: Sundays 03:15 UTC) until Ctrl-C or SIGTERM.

    Checks at start, as `solvelens snapshot` does: the base URL, the cron expressions, the store, the
    platform answering, and the API key (SOLVELENS_API_KEY / SOLVELENS_API_KEY_FILE of this process: its
    form, and that the platform accepts it). Deployment names are derived from the platform and the store;
    runs an earlier process scheduled with other parameters are cancelled. Ctrl-C or SIGTERM cancels a run
    in progress (nothing written) and exits 0 within a few seconds with one line.

    Alert rules (--alert, --alerts-file) are evaluated after every scheduled snapshot (one line each here,
    a notification per --notify target, a Prefect event each, and the run's markdown artifact lists them);
    'stale > H hours' is checked between snapshots (every minute, or every H/4 when shorter).

    Exit codes: 0 stopped by Ctrl-C/SIGTERM; 1 the platform is unreachable or Prefect did not start;
    2 bad input (URL, cron, store, API key, an alert rule or notification URL).
    """
    # Local inputs first (the profile, the URL's form, the store, the alert rules and notification URLs),
    # then the platform, then the cron expressions (their check imports Prefect).
    profile_path = _checked_profile(profile)
    base_url = _check_schedule_local(base_url, db)
    rules = _checked_alerts(alert, alerts_file, notify, lambda: _has_api_key(None), db=db, base_url=base_url)
    crons = {"--cron": cron, "--report-cron": report_cron, "--compact-cron": compact_cron}
    _check_schedule_platform(base_url, crons, allow_missing_bot_me)
    _quiet_prefect(verbose=True)
    from solvelens.alerts import alert_config
    from solvelens.flows.alerts import StaleWatch
    from solvelens.flows.deployments import build_deployments, serve_deployments

    # The runs (subprocesses of this process) read the notification URLs from the environment, never from
    # a parameter.
    os.environ.update(rules.env)
    watch = StaleWatch(str(db.resolve()), base_url, alert_config(alert or [], alerts_file))

    plan = _plan(
        base_url,
        db.resolve(),
        rules,
        full=full,
        allow_missing_bot_me=allow_missing_bot_me,
        profile=profile_path,
    )
    deployments = build_deployments(
        plan,
        str(report_out.resolve()),
        snapshot_cron=cron,
        report_cron=report_cron,
        compact_cron=compact_cron,
    )
    try:
        line = serve_deployments(deployments, watch=watch if watch else None)
    except RuntimeError as exc:  # the local Prefect server did not start
        raise CommandFailedError(str(exc)) from exc
    typer.echo(line)
    # The process ends now: its final garbage collection of Prefect's objects took 1-5 s on a loaded host
    # (measured stopping `schedule`); frozen objects are left to the exit, which frees them anyway.
    gc.freeze()


def register(app: typer.Typer) -> None:
    """Add ``snapshot`` and ``schedule`` to the root app."""
    app.command("snapshot")(snapshot)
    app.command("schedule")(schedule)
