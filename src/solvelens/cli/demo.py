"""``solvelens demo``: the whole pipeline on an embedded sandbox platform (what ``make demo`` runs)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from solvelens.cli.common import DEFAULT_DEMO_DIR, check_output_dir

Days = Annotated[
    int, typer.Option(min=1, envvar="SOLVELENS_DEMO_DAYS", help="Simulated days (one snapshot per day).")
]
Seed = Annotated[
    int, typer.Option(envvar="SOLVELENS_DEMO_SEED", help="Seed of the sandbox platform and simulator.")
]
# The demo's paths read variables of their own: a SOLVELENS_DB or SOLVELENS_SANDBOX_DB set for real use
# never sends the demo to a user's files.
DemoDb = Annotated[
    Path, typer.Option("--db", envvar="SOLVELENS_DEMO_DB", help="The demo's DuckDB snapshot store.")
]
SandboxDb = Annotated[
    Path, typer.Option(envvar="SOLVELENS_DEMO_SANDBOX_DB", help="SQLite file of the demo's sandbox.")
]
ReportsDir = Annotated[
    Path, typer.Option(envvar="SOLVELENS_DEMO_REPORTS_DIR", help="Where the demo's report is written.")
]
Force = Annotated[
    bool,
    typer.Option(
        "--force",
        help="Delete a store or sandbox database at --db/--sandbox-db that holds something the demo did not "
        "make (a line names what would be deleted; on a terminal the demo asks first). Without it the demo "
        "replaces only its own earlier outputs.",
    ),
]


def demo(
    days: Days = 30,
    seed: Seed = 7,
    db: DemoDb = DEFAULT_DEMO_DIR / "solvelens.duckdb",
    sandbox_db: SandboxDb = DEFAULT_DEMO_DIR / "sandbox.sqlite",
    reports_dir: ReportsDir = DEFAULT_DEMO_DIR / "reports",
    force: Force = False,
) -> None:
    """Run the whole pipeline on an embedded sandbox platform.

    Builds a sandbox platform, serves it on 127.0.0.1, lets it evolve over DAYS simulated days with one
    snapshot per day (Prefect snapshot flow into DuckDB), compacts the store, writes the leaderboard history
    report and prints a summary. Its files are its own (data/demo/ by default, never data/solvelens.duckdb
    or data/sandbox.sqlite). It replaces only a store and a sandbox database it made and that hold nothing
    else: a store with a snapshot the demo did not take, or a sandbox database with a bot it did not make,
    is kept (exit 1, one line naming it) unless --force.

    Exit codes: 0 done; 1 failed (a file at --db/--sandbox-db holds something the demo did not make, the
    sandbox did not start, --force not confirmed); 2 bad input (an option's value); 130 interrupted.
    """
    from rich.console import Console

    from solvelens.demo import print_summary, run_demo

    check_output_dir(reports_dir, "--reports-dir")
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
