"""The one setup every notebook runs: find the store, load it read-only, turn on the chart theme and the
notebook renderer, and hand back what the cells use.

In a notebook::

    from solvelens.notebook import setup
    nb = setup(DB_PATH, window_days=WINDOW_DAYS)   # prints "38 snapshot(s) from ... to ..."
    nb.store, nb.history, nb.unit                  # the Frames, rank_history, the rate unit
    nb.drawn, nb.drawn_unit                        # the snapshots charts draw, the unit of rates between them

A long history is read bounded (:mod:`solvelens.analysis.points`): the per-snapshot frames hold the snapshots
the charts draw (every snapshot of a history of at most 480), so a year of hourly snapshots opens in seconds;
``setup(..., every_snapshot=True)`` reads them all.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from solvelens import analysis as an
from solvelens.charts import enable_notebook_charts
from solvelens.charts.theme import use_simulated_time

#: The store a notebook reads when neither the argument nor ``SOLVELENS_DB`` names one.
DEFAULT_DB = "data/solvelens.duckdb"


@dataclass(frozen=True)
class Notebook:
    """What :func:`setup` prepared: the store path, the loaded store, the rank history over the drawn
    snapshots (see :func:`solvelens.analysis.rank_history`), the rate unit of its snapshots, the snapshots the
    charts draw (``drawn``: the rows of ``store.snapshots`` whose per-snapshot frames were read) and the unit
    of rates between them (``drawn_unit``; pass it as ``unit=`` to the growth helpers given ``drawn``)."""

    db: Path
    store: an.Frames
    history: pl.DataFrame
    unit: an.RateUnit
    drawn: pl.DataFrame
    drawn_unit: an.RateUnit


def resolve_db(db: str | os.PathLike[str] | None = None) -> Path:
    """The store path: ``db``, else ``$SOLVELENS_DB``, else ``data/solvelens.duckdb``; a relative path that
    does not exist here but does one folder up (a notebook started from ``notebooks/``) is taken from
    there."""
    path = Path(db or os.environ.get("SOLVELENS_DB") or DEFAULT_DB)
    if not path.is_absolute() and not path.exists() and (Path("..") / path).exists():
        return Path("..") / path
    return path


def setup(
    db: str | os.PathLike[str] | None = None,
    *,
    window_days: float | None = None,
    platform: str | None = None,
    interactive: bool = True,
    table_rows: int = 25,
    every_snapshot: bool = False,
) -> Notebook:
    """Load the store read-only (the file is closed before this returns, so a snapshot writer is never
    blocked), enable the solvelens chart theme and renderer (interactive Vega-Lite in JupyterLab plus an
    SVG), show up to ``table_rows`` rows of frames, and print one line naming the store and its snapshots and
    one on the newest snapshot's data quality (:func:`solvelens.analysis.data_quality_line`).

    ``window_days`` keeps only the snapshots of the last that many days. ``platform`` (else
    ``$SOLVELENS_PLATFORM``, else the newest snapshot's): which platform of the store (as ``--platform``).
    ``every_snapshot``: read every snapshot's rows, not only the drawn ones (slow on a long history).
    Raises
    :class:`solvelens.analysis.StoreError` subclasses: for a missing, busy or foreign file, and
    :class:`solvelens.analysis.EmptyStoreError` for a store without a complete snapshot (the message names
    ``solvelens snapshot``).
    """
    path = resolve_db(db)
    store = an.load(
        path,
        last_days=window_days,
        platform=platform or os.environ.get("SOLVELENS_PLATFORM"),
        every_snapshot=every_snapshot,
    )
    store.require_snapshots()
    enable_notebook_charts(interactive=interactive)
    pl.Config.set_tbl_rows(table_rows)
    snapshots = store.snapshots.collect()
    unit = an.rate_unit(snapshots)
    use_simulated_time(bool(an.simulated_label(snapshots)))  # time axes: "Simulated time (UTC)" then
    first, last = snapshots["taken_at"][0], snapshots["taken_at"][-1]
    others = store.other_platforms.height if store.other_platforms is not None else 0
    print(
        f"{store.snapshot_count} snapshot(s) from {first:%Y-%m-%d %H:%M} to {last:%Y-%m-%d %H:%M} UTC "
        f"of {store.platform_label} in {path}; rates are {unit.label}"
        + (f"; {others} other platform(s) in this store (platform=...)" if others else "")
    )
    points = store.points or an.HistoryPoints(snapshots["snapshot_id"], complete=True)
    if points.rule:
        print(points.rule)
    print(an.data_quality_line(store))
    drawn = points.drawn(snapshots)
    return Notebook(
        db=path,
        store=store,
        history=an.rank_history(store.leaderboard, drawn),
        unit=unit,
        drawn=drawn,
        drawn_unit=points.rate_unit(unit),
    )
