"""``solvelens demo``: the whole pipeline on an embedded sandbox platform (what ``make demo`` runs)."""

from __future__ import annotations

from pathlib import Path

import typer


def demo(
    days: int = typer.Option(
        30, min=1, envvar="SOLVELENS_DEMO_DAYS", help="Simulated days (one snapshot per day)."
    ),
    seed: int = typer.Option(
        7, envvar="SOLVELENS_DEMO_SEED", help="Seed of the sandbox platform and simulator."
    ),
    db: Path = typer.Option(
        Path("data/solvelens.duckdb"), envvar="SOLVELENS_DB", help="DuckDB snapshot store to (re)create."
    ),
    sandbox_db: Path = typer.Option(
        Path("data/sandbox.sqlite"), envvar="SOLVELENS_SANDBOX_DB", help="SQLite file of the demo's sandbox."
    ),
    reports_dir: Path = typer.Option(
        Path("data/reports"), envvar="SOLVELENS_REPORTS_DIR", help="Where the report is written."
    ),
) -> None:
    """Run the whole pipeline on an embedded sandbox platform.

    Builds a sandbox platform, serves it on 127.0.0.1, lets it evolve over DAYS simulated days with one
    snapshot per day (Prefect snapshot flow into DuckDB), writes the leaderboard history report and prints
    a summary. The demo replaces its own earlier outputs; it refuses to replace a store holding snapshots
    of a real platform.
    """
    from rich.console import Console

    from solvelens.demo import DemoError, print_summary, run_demo

    console = Console()
    try:
        result = run_demo(
            db_path=db, sandbox_db=sandbox_db, reports_dir=reports_dir, days=days, seed=seed, console=console
        )
    except DemoError as exc:
        console.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(1) from exc
    print_summary(result, console)


def register(app: typer.Typer) -> None:
    """Add ``solvelens demo`` to the root app."""
    app.command("demo")(demo)
