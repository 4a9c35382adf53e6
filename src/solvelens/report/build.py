"""Build the leaderboard history report (one HTML file plus the bot table as CSV beside it) or one bot's page:
load the store read-only, compute, render, and optionally write each chart as a PNG."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from solvelens.analysis import load, load_bot
from solvelens.analysis.models import N_BOOT
from solvelens.charts import save_png
from solvelens.report.bot import bot_page
from solvelens.report.content import report_content
from solvelens.report.html import render_bot_html, render_html
from solvelens.report.slots import ChartSlot
from solvelens.report.table import write_csv


def csv_path(out_path: str | Path) -> Path:
    """Where the bot table's CSV goes: beside the HTML file, same name, ``.csv``."""
    return Path(out_path).with_suffix(".csv")


def _write_pngs(slots: list[ChartSlot], png_dir: str | Path) -> None:
    folder = Path(png_dir)
    folder.mkdir(parents=True, exist_ok=True)
    for slot in slots:
        if slot.chart is not None:
            save_png(slot.chart.properties(title=slot.heading), folder / f"{slot.key}.png")


def build_report(
    db_path: str | Path,
    out_path: str | Path,
    *,
    png_dir: str | Path | None = None,
    top_n: int = 10,
    movers_window: dt.timedelta = dt.timedelta(days=7),
    now: dt.datetime | None = None,
    platform: str | None = None,
    bootstrap: int = N_BOOT,
) -> Path:
    """Write the leaderboard history report for the store at ``db_path`` to ``out_path`` and return it.

    One platform: ``platform`` (an id, a unique id prefix or a base URL), by default the newest snapshot's;
    the page names it and lists the store's other platforms. The intervals of the model leaderboard and the
    arena come from ``bootstrap`` resamples (default 1,000, as the page says; fewer is faster and coarser).

    The store is opened read-only and closed before any rendering. The HTML file is self-contained (Vega
    inlined, no network). The full bot table is written beside it as CSV (:func:`csv_path`, columns
    :data:`solvelens.report.table.CSV_COLUMNS`). With ``png_dir``, every chart is also written there as
    ``<key>.png`` (e.g. ``rank_history.png``). Parent folders are created.

    Raises :class:`solvelens.store.StoreNotFoundError` (no such file),
    :class:`solvelens.store.NotAStoreError` (not a store), :class:`solvelens.store.StoreLockTimeout` (a
    writer held the store too long) and :class:`solvelens.report.EmptyStoreError` (no complete snapshot);
    all are :class:`solvelens.store.StoreError` with a one-line message naming the file and the fix; and
    :class:`solvelens.analysis.PlatformNotFoundError` (``platform`` names none of the store's platforms).
    """
    store = load(db_path, platform=platform)
    content = report_content(store, top_n=top_n, movers_window=movers_window, now=now, bootstrap=bootstrap)
    out = Path(out_path)
    out.parent.mkdir(parents=True, exist_ok=True)
    table = csv_path(out)
    out.write_text(render_html(content, csv_name=table.name), encoding="utf-8")
    write_csv(content.table, table)
    if png_dir is not None:
        _write_pngs([slot for slots in content.sections.values() for slot in slots], png_dir)
    return out


def build_bot_report(
    db_path: str | Path,
    bot: str,
    out_path: str | Path,
    *,
    png_dir: str | Path | None = None,
    top_n: int = 10,
    now: dt.datetime | None = None,
    platform: str | None = None,
) -> Path:
    """Write the page of one bot (``bot``: its id or name, any case) to ``out_path`` and return it.

    Works for any bot in the store, ranked or not. Raises what :func:`build_report` raises, and
    :class:`solvelens.analysis.BotNotFoundError` (naming close matches) when no single bot matches; nothing
    is written then. Reads that bot's rows only (:func:`solvelens.analysis.load_bot`).
    """
    page = bot_page(load_bot(db_path, bot, platform=platform), top_n=top_n, now=now)
    out = Path(out_path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render_bot_html(page), encoding="utf-8")
    if png_dir is not None:
        _write_pngs(page.bot.charts, png_dir)
    return out
