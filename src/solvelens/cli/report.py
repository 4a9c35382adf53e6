"""`solvelens report`: write the leaderboard history report (one self-contained HTML file) from the store.

Heavy libraries (polars, DuckDB, Altair) are imported inside the command so ``solvelens --help`` stays fast.
"""

from __future__ import annotations

from pathlib import Path

import typer


def report(
    db: Path = typer.Option(
        Path("data/solvelens.duckdb"),
        "--db",
        envvar="SOLVELENS_DB",
        help="DuckDB snapshot store to read (opened read-only).",
    ),
    out: Path = typer.Option(
        Path("data/reports/leaderboard.html"),
        "--out",
        envvar="SOLVELENS_OUT",
        help="HTML file to write (self-contained: opens offline).",
    ),
    png: Path | None = typer.Option(
        None,
        "--png",
        envvar="SOLVELENS_PNG",
        help="Also write every chart as a PNG into this folder.",
    ),
) -> None:
    """Write the leaderboard history report: leaderboard, rank history, movers, trends, growth, coverage."""
    from solvelens.analysis import StoreError
    from solvelens.report import build_report

    try:
        path = build_report(db, out, png_dir=png)
    except StoreError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from None
    typer.echo(f"Report: {path}")
    if png is not None:
        typer.echo(f"Charts as PNG: {png}")


def register(app: typer.Typer) -> None:
    """Add ``solvelens report`` to the root app."""
    app.command("report")(report)
