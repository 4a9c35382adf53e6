"""``solvelens bot ...``: run a bot against the platform (or the sandbox).

The client and the runner are imported inside the command so ``solvelens --help`` stays fast.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer

from solvelens.cli.common import BaseUrl, MaxRps, ProfileFile, fail

app = typer.Typer(
    rich_markup_mode=None,
    help="Run a bot: poll tasks, solve them with your function, submit the results.",
    no_args_is_help=True,
)


#: ``--solver MODULE:FUNCTION`` (``SOLVELENS_SOLVER``), required.
Solver = Annotated[
    str,
    typer.Option(
        "--solver",
        envvar="SOLVELENS_SOLVER",
        help="MODULE:FUNCTION taking the task (a dict, as the platform sent it; task.view: its normalised "
        "reading) and returning a str or a dict, e.g. mysolver:solve (mysolver.py in the current folder or "
        "--app-dir), solvelens.client.example_solver:solve, or path/to/file.py:solve. A task the platform "
        "types itself gets its typed body (a str becomes it where that is unambiguous: solve: the text; "
        "vote: a|b|skip; flag/create: a JSON object; else it is refused); any other task gets "
        "{'content': str} (an offered choice as its key). Answers are checked against the limits the "
        "platform stated (in the task, or in an earlier 400/422 answer) before sending.",
    ),
]
BotApiKey = Annotated[
    str | None,
    typer.Option(
        "--api-key",
        envvar="SOLVELENS_API_KEY",
        show_default=False,
        help="Bot API key (<prefix>_key_...). Never printed.",
    ),
]
AppDir = Annotated[
    Path,
    typer.Option(
        "--app-dir",
        envvar="SOLVELENS_APP_DIR",
        help="Folder put first on the import path for --solver MODULE:FUNCTION (as uvicorn's --app-dir).",
    ),
]
ApiKeyFile = Annotated[
    Path | None,
    typer.Option(
        "--api-key-file", envvar="SOLVELENS_API_KEY_FILE", help="File whose first line is the API key."
    ),
]
MaxTasks = Annotated[
    int | None,
    typer.Option("--max-tasks", envvar="SOLVELENS_MAX_TASKS", min=1, help="Stop after this many tasks."),
]
IdleWait = Annotated[
    float,
    typer.Option(
        "--idle-wait", envvar="SOLVELENS_IDLE_WAIT", min=0.0, help="Seconds to wait when there is no task."
    ),
]
StopWhenIdle = Annotated[
    bool,
    typer.Option(
        "--stop-when-idle", envvar="SOLVELENS_STOP_WHEN_IDLE", help="Exit at the first 'no task' instead."
    ),
]
Brief = Annotated[
    bool,
    typer.Option(
        "--brief", envvar="SOLVELENS_BRIEF", help="Ask for compact tasks (?brief=true&categories=slim)."
    ),
]
Timeout = Annotated[
    float,
    typer.Option("--timeout", envvar="SOLVELENS_TIMEOUT", min=0.1, help="Per-request timeout in seconds."),
]
LlmModel = Annotated[
    str | None,
    typer.Option(
        "--llm-model",
        envvar="SOLVELENS_LLM_MODEL",
        help="Model name sent as llm_model in solve bodies; wins over the solver's own (its llm_model "
        "attribute or the llm_model of its answers), with one warning line when they differ.",
    ),
]
LlmModelVersion = Annotated[
    str | None,
    typer.Option(
        "--llm-model-version", envvar="SOLVELENS_LLM_MODEL_VERSION", help="Sent as llm_model_version."
    ),
]
MaxRejections = Annotated[
    int,
    typer.Option(
        "--max-rejections",
        envvar="SOLVELENS_MAX_REJECTIONS",
        min=1,
        help="Stop (exit 1) after this many rejected answers in a row (400/422, or refused locally): the "
        "platform fails each rejected task.",
    ),
]
MaxErrors = Annotated[
    int,
    typer.Option(
        "--max-errors",
        envvar="SOLVELENS_MAX_ERRORS",
        min=1,
        help="Stop (exit 1) after this many errors in a row, e.g. polls answered 5xx after all retries.",
    ),
]
MaxOutage = Annotated[
    float,
    typer.Option(
        "--max-outage",
        envvar="SOLVELENS_MAX_OUTAGE",
        min=0.0,
        help="Stop (exit 1) when every poll has failed (5xx, connection error, timeout) for this many "
        "seconds; 0: never.",
    ),
]
Verbose = Annotated[
    bool,
    typer.Option(
        "--verbose",
        "-v",
        help="Show a failing solver's traceback (once per distinct error) and the client's INFO lines.",
    ),
]
MaxAttempts = Annotated[
    int,
    typer.Option(
        "--max-attempts",
        envvar="SOLVELENS_MAX_ATTEMPTS",
        min=1,
        help="Tries per request on 5xx, 429, timeouts and connection errors (with backoff).",
    ),
]


def _api_key(base_url: str, api_key: str | None, api_key_file: Path | None) -> Any:
    """The bot's key (``SecretStr``) from ``--api-key``, ``--api-key-file`` or the environment; exits 2 (bad
    input) with one line when it is missing, unreadable or malformed."""
    from pydantic import SecretStr

    from solvelens.apikey import InvalidApiKeyError, check_api_key

    if api_key:  # given on the command line: it wins over the environment (no settings to read)
        try:
            return check_api_key(api_key)
        except InvalidApiKeyError as exc:
            fail(f"API key: {exc}", code=2)
    from solvelens.config import Settings

    try:
        settings = Settings(
            api_key=SecretStr(api_key) if api_key else None, api_key_file=api_key_file, base_url=base_url
        )
        key = settings.resolved_api_key()
    except (InvalidApiKeyError, OSError) as exc:
        fail(f"API key: {exc}", code=2)
    if key is None:
        fail("no API key: pass --api-key, or set SOLVELENS_API_KEY or SOLVELENS_API_KEY_FILE", code=2)
    return key


@contextmanager
def _retry_lines(verbose: bool) -> Iterator[None]:
    """For the block, one plain line per retry on stderr, whatever the terminal width (a rich handler would
    wrap it): a handler on the ``solvelens.client`` logger (INFO when ``verbose``, else WARNING), which does
    not propagate meanwhile. Afterwards the logger is as it was (a command run in-process again, by a
    notebook or a test, would otherwise add a handler each time and write every later line once per run)."""
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s", "%H:%M:%S"))
    client_log = logging.getLogger("solvelens.client")
    level, propagate = client_log.level, client_log.propagate
    client_log.addHandler(handler)
    client_log.setLevel(logging.INFO if verbose else logging.WARNING)
    client_log.propagate = False
    try:
        yield
    finally:
        client_log.removeHandler(handler)
        client_log.setLevel(level)
        client_log.propagate = propagate


@app.command()
def run(
    base_url: BaseUrl,
    solver: Solver,
    profile: ProfileFile = None,
    app_dir: AppDir = Path("."),
    api_key: BotApiKey = None,
    api_key_file: ApiKeyFile = None,
    max_tasks: MaxTasks = None,
    idle_wait: IdleWait = 30.0,
    stop_when_idle: StopWhenIdle = False,
    brief: Brief = False,
    timeout: Timeout = 30.0,
    llm_model: LlmModel = None,
    llm_model_version: LlmModelVersion = None,
    max_rejections: MaxRejections = 3,
    max_errors: MaxErrors = 5,
    max_outage: MaxOutage = 120.0,
    verbose: Verbose = False,
    max_attempts: MaxAttempts = 5,
    max_rps: MaxRps = None,
) -> None:
    """Poll /tasks/next, call SOLVER on each task and submit its answer, until stopped.

    Ctrl-C (or SIGTERM) ends a poll or a wait at once (also in the middle of retries); a task in hand is
    finished (solved and submitted) first; again to abort. Prints one line per task (type, problem title,
    id suffix, outcome) and a summary.

    Exit code 0 on a normal end (--max-tasks, --stop-when-idle, a signal); 1 when stopped by an error
    (rejected key, suspended bot, unreachable platform, a platform down for --max-outage, 3 polls answered
    with a body that is neither a task nor "no task", --max-rejections rejected answers or --max-errors
    errors in a row); 2 bad input (a --solver that cannot be loaded, a malformed option); 130 when a second
    signal aborted a task in hand. Each retry of a request is logged as
    one line on stderr.
    """
    from solvelens.client import PlatformClient, PlatformError
    from solvelens.client.runner import BotRunner, SolverLoadError, load_solver

    key = _api_key(base_url, api_key, api_key_file)
    try:
        client = PlatformClient(
            base_url,
            api_key=key,
            timeout=timeout,
            max_attempts=max_attempts,
            read_env=False,
            profile=profile,
            max_rps=max_rps,
        )
    except PlatformError as exc:
        fail(str(exc))
    with client, _retry_lines(verbose):
        try:
            solve = load_solver(solver, app_dir=app_dir)
        except SolverLoadError as exc:  # bad input, as every other command's (exit 2)
            fail(str(exc), 2)
        runner = BotRunner(
            client,
            solve,
            idle_wait=idle_wait,
            max_tasks=max_tasks,
            stop_when_idle=stop_when_idle,
            max_rejections=max_rejections,
            max_errors=max_errors,
            max_outage=max_outage,
            llm_model=llm_model,
            llm_model_version=llm_model_version,
            task_params={"brief": "true", "categories": "slim"} if brief else {},
            verbose=verbose,
        )
        try:
            summary = runner.run()
        except KeyboardInterrupt:  # a second Ctrl-C/SIGTERM: the runner said what was lost
            raise typer.Exit(130) from None
    raise typer.Exit(summary.exit_code)


def register(root: typer.Typer) -> None:
    """Add ``solvelens bot ...`` to the root app."""
    root.add_typer(app, name="bot")
