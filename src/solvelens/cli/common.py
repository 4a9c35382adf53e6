"""What every ``solvelens`` command shares: the options ``--db``, ``--base-url`` and ``--api-key`` (defined
once, each reading ``SOLVELENS_<NAME>``), the path defaults, and the one error printer. Every command
module registers itself the same way: ``register(app)`` adds its command or command group to the root app.

This module imports only typer, so ``solvelens --help`` stays fast (no pydantic-settings: the option
defaults equal :class:`solvelens.config.Settings`'s, whose ``base_url``/``api_key`` default to ``None``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, NoReturn

import typer

#: Default paths of the snapshot store, the report and the demo's sandbox database (relative to the cwd).
DEFAULT_DB = Path("data/solvelens.duckdb")
DEFAULT_REPORTS_DIR = Path("data/reports")
DEFAULT_REPORT = DEFAULT_REPORTS_DIR / "leaderboard.html"
DEFAULT_SANDBOX_DB = Path("data/sandbox.sqlite")


def fail(message: str, code: int = 1) -> NoReturn:
    """Print ``error: <message>`` (one line, red, on stderr) and exit with ``code`` (1 failed, 2 bad
    input)."""
    typer.secho(f"error: {message}", err=True, fg=typer.colors.RED)
    raise typer.Exit(code)


def db_option(help: str = "DuckDB snapshot store.") -> Any:
    """``--db PATH`` (``SOLVELENS_DB``, default ``data/solvelens.duckdb``)."""
    return typer.Option(DEFAULT_DB, "--db", envvar="SOLVELENS_DB", help=help)


def base_url_option() -> Any:
    """``--base-url URL`` (``SOLVELENS_BASE_URL``), required."""
    return typer.Option(
        ..., "--base-url", envvar="SOLVELENS_BASE_URL", help="Platform API base URL, ending in /api/v1."
    )


def api_key_option(help: str) -> Any:
    """``--api-key KEY`` (``SOLVELENS_API_KEY``, default none); never printed."""
    return typer.Option(None, "--api-key", envvar="SOLVELENS_API_KEY", show_default=False, help=help)


def allow_missing_bot_me_option() -> Any:
    """``--allow-missing-bot-me`` (``SOLVELENS_ALLOW_MISSING_BOT_ME``): a rejected API key is a warning."""
    return typer.Option(
        False,
        "--allow-missing-bot-me",
        envvar="SOLVELENS_ALLOW_MISSING_BOT_ME",
        help="When the platform rejects the API key, snapshot without /bot/me (a warning) instead of failing "
        "with nothing written.",
    )
