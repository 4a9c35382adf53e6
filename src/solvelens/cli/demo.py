"""``solvelens demo``: the whole pipeline on an embedded sandbox platform (what ``make demo`` runs)."""

from __future__ import annotations

from pathlib import Path

import typer

from solvelens.cli.common import DEFAULT_REPORTS_DIR, DEFAULT_SANDBOX_DB, db_option, fail


def demo(
    days: int = typer.Option(
        30, min=1, envvar="SOLVELENS_DEMO_DAYS", help="Simulated days (one snapshot per day)."
    ),
    seed: int = typer.Option(
        7, envvar="SOLVELENS_DEMO_SEED", help="Seed of the sandbox platform and simulator."
    ),
    db: Path = db_option("DuckDB snapshot store to (re)create (only one the demo made, unless --force)."),
    sandbox_db: Path = typer.Option(
        DEFAULT_SANDBOX_DB, envvar="SOLVELENS_SANDBOX_DB", help="SQLite file of the demo's sandbox."
    ),
    reports_dir: Path = typer.Option(
        DEFAULT_REPORTS_DIR, envvar="SOLVELENS_REPORTS_DIR", help="Where the report is written."
    ),
    force: bool = typer.Option(
        False,
        "--force",
        help="Replace a store or sandbox database at --db/--sandbox-db that the demo did not make "
        "(a line says what is replaced). Without it the demo replaces only its own earlier outputs.",
    ),
) -> None:
    """Run the whole pipeline on an embedded sandbox platform.

    Builds a sandbox platform, serves it on 127.0.0.1, lets it evolve over DAYS simulated days with one
    snapshot per day (Prefect snapshot flow into DuckDB), writes the leaderboard history report and prints
    a summary. The demo marks the store and sandbox database it makes and replaces only those; anything
    else at --db/--sandbox-db is kept (exit 1, one line) unless --force.
    """
    from rich.console import Console

    from solvelens.demo import DemoError, print_summary, run_demo

    console = Console()
    try:
        result = run_demo(
            db_path=db,
            sandbox_db=sandbox_db,
            reports_dir=reports_dir,
            days=days,
            seed=seed,
            console=console,
            force=force,
        )
    except DemoError as exc:
        fail(str(exc))
    print_summary(result, console)


def register(app: typer.Typer) -> None:
    """Add ``solvelens demo`` to the root app."""
    app.command("demo")(demo)
