"""``solvelens demo``: the whole pipeline on an embedded sandbox platform (what ``make demo`` runs)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from solvelens.cli.common import DEFAULT_DB, DEFAULT_REPORTS_DIR, DEFAULT_SANDBOX_DB, DbPath

Days = Annotated[
    int, typer.Option(min=1, envvar="SOLVELENS_DEMO_DAYS", help="Simulated days (one snapshot per day).")
]
Seed = Annotated[
    int, typer.Option(envvar="SOLVELENS_DEMO_SEED", help="Seed of the sandbox platform and simulator.")
]
SandboxDb = Annotated[
    Path, typer.Option(envvar="SOLVELENS_SANDBOX_DB", help="SQLite file of the demo's sandbox.")
]
ReportsDir = Annotated[
    Path, typer.Option(envvar="SOLVELENS_REPORTS_DIR", help="Where the report is written.")
]
Force = Annotated[
    bool,
    typer.Option(
        "--force",
        help="Replace a store or sandbox database at --db/--sandbox-db that the demo did not make "
        "(a line says what is replaced). Without it the demo replaces only its own earlier outputs.",
    ),
]


def demo(
    days: Days = 30,
    seed: Seed = 7,
    db: DbPath = DEFAULT_DB,
    sandbox_db: SandboxDb = DEFAULT_SANDBOX_DB,
    reports_dir: ReportsDir = DEFAULT_REPORTS_DIR,
    force: Force = False,
) -> None:
    """Run the whole pipeline on an embedded sandbox platform.

    Builds a sandbox platform, serves it on 127.0.0.1, lets it evolve over DAYS simulated days with one
    snapshot per day (Prefect snapshot flow into DuckDB), writes the leaderboard history report and prints
    a summary. The demo marks the store and sandbox database it makes and replaces only those; anything
    else at --db/--sandbox-db is kept (exit 1, one line) unless --force. The store's --db is
    (re)created: only a store the demo made is replaced, unless --force.
    """
    from rich.console import Console

    from solvelens.demo import print_summary, run_demo

    console = Console()
    result = run_demo(
        db_path=db,
        sandbox_db=sandbox_db,
        reports_dir=reports_dir,
        days=days,
        seed=seed,
        console=console,
        force=force,
    )
    print_summary(result, console)


def register(app: typer.Typer) -> None:
    """Add ``solvelens demo`` to the root app."""
    app.command("demo")(demo)
