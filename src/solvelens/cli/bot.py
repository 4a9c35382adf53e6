"""``solvelens bot ...``: run a bot against the platform (or the sandbox).

The client and the runner are imported inside the command so ``solvelens --help`` stays fast.
"""

from __future__ import annotations

from pathlib import Path

import typer

from solvelens.cli.common import api_key_option, base_url_option, fail

app = typer.Typer(
    help="Run a bot: poll tasks, solve them with your function, submit the results.", no_args_is_help=True
)


@app.command()
def run(
    base_url: str = base_url_option(),
    solver: str = typer.Option(
        ...,
        "--solver",
        envvar="SOLVELENS_SOLVER",
        help="MODULE:FUNCTION taking the task dict and returning a str or a dict, e.g. mysolver:solve "
        "(mysolver.py in the current folder or --app-dir), solvelens.client.example_solver:solve, or "
        "path/to/file.py:solve. For typed tasks a str becomes the typed body where that is unambiguous "
        "(solve: the text; vote: a|b|skip; flag/create: a JSON object), else it is refused.",
    ),
    profile: Path | None = typer.Option(
        None,
        "--profile",
        envvar="SOLVELENS_PROFILE",
        show_default=False,
        help="Platform profile (TOML, written by `solvelens probe`); e.g. [endpoints.tasks_next] "
        "data_selector names where the task sits in /tasks/next answers.",
    ),
    app_dir: Path = typer.Option(
        Path("."),
        "--app-dir",
        envvar="SOLVELENS_APP_DIR",
        help="Folder put first on the import path for --solver MODULE:FUNCTION (as uvicorn's --app-dir).",
    ),
    api_key: str | None = api_key_option("Bot API key (<prefix>_key_...). Never printed."),
    api_key_file: Path | None = typer.Option(
        None, "--api-key-file", envvar="SOLVELENS_API_KEY_FILE", help="File whose first line is the API key."
    ),
    max_tasks: int | None = typer.Option(
        None, "--max-tasks", envvar="SOLVELENS_MAX_TASKS", min=1, help="Stop after this many tasks."
    ),
    idle_wait: float = typer.Option(
        30.0,
        "--idle-wait",
        envvar="SOLVELENS_IDLE_WAIT",
        min=0.0,
        help="Seconds to wait when there is no task.",
    ),
    stop_when_idle: bool = typer.Option(
        False,
        "--stop-when-idle",
        envvar="SOLVELENS_STOP_WHEN_IDLE",
        help="Exit at the first 'no task' instead.",
    ),
    brief: bool = typer.Option(
        False,
        "--brief",
        envvar="SOLVELENS_BRIEF",
        help="Ask for compact tasks (?brief=true&categories=slim).",
    ),
    timeout: float = typer.Option(
        30.0, "--timeout", envvar="SOLVELENS_TIMEOUT", min=0.1, help="Per-request timeout in seconds."
    ),
    llm_model: str | None = typer.Option(
        None,
        "--llm-model",
        envvar="SOLVELENS_LLM_MODEL",
        help="Model name sent as llm_model in solve bodies; wins over the solver's own (its llm_model "
        "attribute or the llm_model of its answers), with one warning line when they differ.",
    ),
    llm_model_version: str | None = typer.Option(
        None, "--llm-model-version", envvar="SOLVELENS_LLM_MODEL_VERSION", help="Sent as llm_model_version."
    ),
    max_rejections: int = typer.Option(
        3,
        "--max-rejections",
        envvar="SOLVELENS_MAX_REJECTIONS",
        min=1,
        help="Stop (exit 1) after this many rejected answers in a row (400/422, or refused locally): the "
        "platform fails each rejected task.",
    ),
    max_errors: int = typer.Option(
        5,
        "--max-errors",
        envvar="SOLVELENS_MAX_ERRORS",
        min=1,
        help="Stop (exit 1) after this many errors in a row, e.g. polls answered 5xx after all retries.",
    ),
    max_outage: float = typer.Option(
        120.0,
        "--max-outage",
        envvar="SOLVELENS_MAX_OUTAGE",
        min=0.0,
        help="Stop (exit 1) when every poll has failed (5xx, connection error, timeout) for this many "
        "seconds; 0: never.",
    ),
    verbose: bool = typer.Option(
        False,
        "--verbose",
        "-v",
        help="Show a failing solver's traceback (once per distinct error) and the client's INFO lines.",
    ),
    max_attempts: int = typer.Option(
        5,
        "--max-attempts",
        envvar="SOLVELENS_MAX_ATTEMPTS",
        min=1,
        help="Tries per request on 5xx, 429, timeouts and connection errors (with backoff).",
    ),
) -> None:
    """Poll /tasks/next, call SOLVER on each task and submit its answer, until stopped.

    Ctrl-C (or SIGTERM) ends a poll or a wait at once (also in the middle of retries); a task in hand is
    finished (solved and submitted) first; again to abort. Prints one line per task (type, problem title,
    id suffix, outcome) and a summary.

    Exit code 0 on a normal end (--max-tasks, --stop-when-idle, a signal); 1 when stopped by an error
    (rejected key, suspended bot, unreachable platform, a platform down for --max-outage, 3 polls answered
    with a body that is neither a task nor "no task", --max-rejections rejected answers or --max-errors
    errors in a row); 130 when a second signal aborted a task in hand. Each retry of a request is logged as
    one line on stderr.
    """
    import logging

    from pydantic import SecretStr

    from solvelens.client import PlatformClient, PlatformError
    from solvelens.client.bot import BotRunner, SolverLoadError, load_solver
    from solvelens.config import InvalidApiKeyError, Settings

    try:
        settings = Settings(
            api_key=SecretStr(api_key) if api_key else None, api_key_file=api_key_file, base_url=base_url
        )
        key = settings.resolved_api_key()
    except (InvalidApiKeyError, OSError) as exc:
        fail(f"API key: {exc}")
        return
    if key is None:
        fail("no API key: pass --api-key, or set SOLVELENS_API_KEY or SOLVELENS_API_KEY_FILE")
        return
    try:
        client = PlatformClient(
            base_url, api_key=key, timeout=timeout, max_attempts=max_attempts, read_env=False, profile=profile
        )
    except PlatformError as exc:
        fail(str(exc))
        return
    # One plain line per retry on stderr, whatever the terminal width (a rich handler would wrap it).
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s", "%H:%M:%S"))
    client_log = logging.getLogger("solvelens.client")
    client_log.addHandler(handler)
    client_log.setLevel(logging.INFO if verbose else logging.WARNING)
    client_log.propagate = False
    params = {"brief": "true", "categories": "slim"} if brief else {}
    with client:
        try:
            solve = load_solver(solver, app_dir=app_dir)
        except SolverLoadError as exc:
            fail(str(exc))
            return
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
            task_params=params,
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
