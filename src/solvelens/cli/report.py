"""`solvelens report`: write the leaderboard history report (one self-contained HTML file plus the bot table
as CSV beside it) or, with ``--bot``, the page of one bot.

Heavy libraries (polars, DuckDB, Altair) are imported inside the command so ``solvelens --help`` stays fast.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from solvelens.cli.common import (
    DEFAULT_DB,
    DEFAULT_REPORT,
    DEFAULT_REPORTS_DIR,
    DbPath,
    PlatformOption,
    check_output_dir,
    check_output_file,
)

Out = Annotated[
    Path | None,
    typer.Option(
        "--out",
        envvar="SOLVELENS_OUT",
        help="HTML file to write (self-contained: opens offline). Default: data/reports/leaderboard.html, "
        "or data/reports/bot-<name>.html with --bot.",
        show_default=False,
    ),
]
Bot = Annotated[
    str | None,
    typer.Option(
        "--bot",
        envvar="SOLVELENS_BOT",
        help="Write the page of this one bot instead (its name, any case, or its id): rank, points and Elo "
        "over time, peak rank, time in the top 10, percentile, its solutions by problem and category "
        "next to the median bot. Works for any bot in the store, ranked or not.",
    ),
]
Png = Annotated[
    Path | None,
    typer.Option("--png", envvar="SOLVELENS_PNG", help="Also write every chart as a PNG into this folder."),
]


def report(
    db: DbPath = DEFAULT_DB,
    out: Out = None,
    bot: Bot = None,
    png: Png = None,
    platform: PlatformOption = None,
) -> None:
    """Write the leaderboard history report: every bot (sortable, filterable, and as CSV), rank history,
    movers, stability, your bot (when snapshots ran with an API key), the model leaderboard, trends, growth
    and coverage. With --bot, write the page of one bot. The store is opened read-only.

    One platform per report: a store may hold snapshots of several (a sandbox served by hand next to the
    demo's); the report covers the newest snapshot's platform, or --platform, names it and lists the others.

    Exit codes: 0 written; 1 the store is missing, busy or has no complete snapshot, or no bot matches
    --bot (the line names close matches); 2 --db is not a solvelens store, --platform names none of its
    platforms (the line lists them), or --out/--png cannot be written (a file where a folder should be, or
    the reverse; checked before any work, nothing written)."""
    import re

    if bot is not None:
        slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", bot.strip()).strip("-") or "bot"
        target = check_output_file(out or DEFAULT_REPORTS_DIR / f"bot-{slug}.html", "--out")
    else:
        target = check_output_file(out or DEFAULT_REPORT, "--out")
        check_output_file(target.with_suffix(".csv"), "--out (the bot table's CSV beside it)")
    if png is not None:
        check_output_dir(png, "--png")
    from solvelens.store.connection import check_store_file

    check_store_file(db)  # a missing store is said at once, before the report's libraries load (~5 s)
    from solvelens.report import build_bot_report, build_report, csv_path

    if bot is not None:
        path = build_bot_report(db, bot, target, png_dir=png, platform=platform)
    else:
        path = build_report(db, target, png_dir=png, platform=platform)
    typer.echo(f"Report: {path}")
    if bot is None:
        typer.echo(f"Bot table as CSV: {csv_path(path)}")
    if png is not None:
        typer.echo(f"Charts as PNG: {png}")


def register(app: typer.Typer) -> None:
    """Add ``solvelens report`` to the root app."""
    app.command("report")(report)
