"""Build the leaderboard history report: load the store read-only, compute, render one HTML file, and
optionally write each chart as a PNG."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from solvelens.analysis import load
from solvelens.charts import save_png
from solvelens.report.content import report_content
from solvelens.report.html import render_html


def build_report(
    db_path: str | Path,
    out_path: str | Path,
    *,
    png_dir: str | Path | None = None,
    top_n: int = 10,
    movers_window: dt.timedelta = dt.timedelta(days=7),
    now: dt.datetime | None = None,
) -> Path:
    """Write the leaderboard history report for the store at ``db_path`` to ``out_path`` and return it.

    The store is opened read-only and closed before any rendering. The HTML file is self-contained (Vega
    inlined, no network). With ``png_dir``, every chart is also written there as ``<key>.png`` (e.g.
    ``rank_history.png``). Parent folders are created.

    Raises :class:`solvelens.store.StoreNotFoundError` (no such file),
    :class:`solvelens.store.NotAStoreError` (not a store), :class:`solvelens.store.StoreLockTimeout` (a
    writer held the store too long) and :class:`solvelens.report.EmptyStoreError` (no complete snapshot);
    all are :class:`solvelens.store.StoreError` with a one-line message naming the file and the fix.
    """
    store = load(db_path)
    content = report_content(store, top_n=top_n, movers_window=movers_window, now=now)
    out = Path(out_path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render_html(content), encoding="utf-8")
    if png_dir is not None:
        folder = Path(png_dir)
        folder.mkdir(parents=True, exist_ok=True)
        for slots in content.sections.values():
            for slot in slots:
                if slot.chart is not None:
                    save_png(slot.chart.properties(title=slot.heading), folder / f"{slot.key}.png")
    return out
