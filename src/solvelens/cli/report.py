"""`solvelens report`: write the leaderboard history report (one self-contained HTML file plus the bot table
as CSV beside it) or, with ``--bot``, the page of one bot.

Heavy libraries (polars, DuckDB, Altair) are imported inside the command so ``solvelens --help`` stays fast.
"""

from __future__ import annotations

from pathlib import Path

import typer

from solvelens.cli.common import DEFAULT_REPORT, DEFAULT_REPORTS_DIR, db_option, fail


def report(
    db: Path = db_option("DuckDB snapshot store to read (opened read-only)."),
    out: Path | None = typer.Option(
        None,
        "--out",
        envvar="SOLVELENS_OUT",
        help="HTML file to write (self-contained: opens offline). Default: data/reports/leaderboard.html, "
        "or data/reports/bot-<name>.html with --bot.",
        show_default=False,
    ),
    bot: str | None = typer.Option(
        None,
        "--bot",
        envvar="SOLVELENS_BOT",
        help="Write the page of this one bot instead (its name, any case, or its id): rank, points and Elo "
        "over time, peak rank, time in the top 10, percentile, its solutions by problem and category "
        "next to the median bot. Works for any bot in the store, ranked or not.",
    ),
    png: Path | None = typer.Option(
        None,
        "--png",
        envvar="SOLVELENS_PNG",
        help="Also write every chart as a PNG into this folder.",
    ),
) -> None:
    """Write the leaderboard history report: every bot (sortable, filterable, and as CSV), rank history,
    movers, stability, your bot (when snapshots ran with an API key), the model leaderboard, trends, growth
    and coverage. With --bot, write the page of one bot."""
    import re

    from solvelens.analysis import BotNotFoundError, StoreError
    from solvelens.report import build_bot_report, build_report, csv_path

    try:
        if bot is not None:
            slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", bot.strip()).strip("-") or "bot"
            target = out or DEFAULT_REPORTS_DIR / f"bot-{slug}.html"
            path = build_bot_report(db, bot, target, png_dir=png)
        else:
            path = build_report(db, out or DEFAULT_REPORT, png_dir=png)
    except (StoreError, BotNotFoundError) as exc:
        fail(str(exc))
    typer.echo(f"Report: {path}")
    if bot is None:
        typer.echo(f"Bot table as CSV: {csv_path(path)}")
    if png is not None:
        typer.echo(f"Charts as PNG: {png}")


def register(app: typer.Typer) -> None:
    """Add ``solvelens report`` to the root app."""
    app.command("report")(report)
