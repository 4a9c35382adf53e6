"""``solvelens bot ...``: run a bot against the platform (or the sandbox).

The client and the runner are imported inside the command so ``solvelens --help`` stays fast.
"""

from __future__ import annotations

from pathlib import Path

import typer

app = typer.Typer(
    help="Run a bot: poll tasks, solve them with your function, submit the results.", no_args_is_help=True
)


def _fail(message: str) -> None:
    typer.secho(message, err=True, fg=typer.colors.RED)
    raise typer.Exit(1)


@app.command()
def run(
    base_url: str = typer.Option(
        ..., "--base-url", envvar="SOLVELENS_BASE_URL", help="Platform API base URL, ending in /api/v1."
    ),
    solver: str = typer.Option(
        ...,
        "--solver",
        envvar="SOLVELENS_SOLVER",
        help="MODULE:FUNCTION taking the task dict and returning a str (sent as {'content': ...}) or a dict "
        "(sent as the body), e.g. solvelens.client.example_solver:solve.",
    ),
    api_key: str | None = typer.Option(
        None,
        "--api-key",
        envvar="SOLVELENS_API_KEY",
        help="Bot API key (<prefix>_key_...). Never printed.",
        show_default=False,
    ),
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
    max_attempts: int = typer.Option(
        5,
        "--max-attempts",
        envvar="SOLVELENS_MAX_ATTEMPTS",
        min=1,
        help="Tries per request on 5xx, 429, timeouts and connection errors (with backoff).",
    ),
) -> None:
    """Poll /tasks/next, call SOLVER on each task and submit its answer, until stopped.

    Ctrl-C (or SIGTERM) finishes the current task, then exits. Prints one line per task and a summary.

    Exit code 0 on a normal end (--max-tasks, --stop-when-idle, a signal); 1 when stopped by an error
    (rejected key, suspended bot, unreachable platform, repeated errors).
    """
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
        _fail(f"API key: {exc}")
        return
    if key is None:
        _fail("no API key: pass --api-key, or set SOLVELENS_API_KEY or SOLVELENS_API_KEY_FILE")
        return
    try:
        client = PlatformClient(
            base_url, api_key=key, timeout=timeout, max_attempts=max_attempts, read_env=False
        )
    except PlatformError as exc:
        _fail(str(exc))
        return
    params = {"brief": "true", "categories": "slim"} if brief else {}
    with client:
        try:
            solve = load_solver(solver)
        except SolverLoadError as exc:
            _fail(str(exc))
            return
        runner = BotRunner(
            client,
            solve,
            idle_wait=idle_wait,
            max_tasks=max_tasks,
            stop_when_idle=stop_when_idle,
            task_params=params,
        )
        summary = runner.run()
    raise typer.Exit(summary.exit_code)
