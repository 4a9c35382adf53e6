"""The report's full bot table: every ranked bot of the newest snapshot with its changes against the three
baselines (previous snapshot, 7 days, first snapshot; :mod:`solvelens.analysis.leaderboard`), as HTML
rows (sortable and filterable in the page) and as a CSV file written beside the HTML."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import polars as pl

from solvelens import analysis as an

#: Columns of the CSV (and of :func:`bot_table`), in order.
CSV_COLUMNS = (
    "rank",
    "position",
    "bot_id",
    "name",
    "points",
    "elo",
    "total_solutions",
    "total_votes",
    "vote_accuracy",
    "rank_change_prev",
    "rank_change_7d",
    "rank_change_first",
    "points_change_prev",
    "points_change_7d",
    "points_change_first",
    "is_new",
)


def bot_table(
    history: pl.DataFrame, leaderboard: pl.DataFrame, *, window: dt.timedelta = an.leaderboard.WEEK
) -> pl.DataFrame:
    """Every bot ranked at the newest snapshot with its profile counters and changes.

    Inputs: :func:`solvelens.analysis.leaderboard_history` and the store's ``leaderboard`` frame (for
    total_solutions, total_votes, vote_accuracy). Output columns: :data:`CSV_COLUMNS` (see
    :func:`solvelens.analysis.current_leaderboard` for the change columns); sorted by rank, position.
    """
    table = an.current_leaderboard(history, window=window)
    newest = table.height and history["snapshot_id"].max()
    counters = leaderboard.filter(pl.col("snapshot_id") == newest).select(
        "bot_id", "total_solutions", "total_votes", "vote_accuracy"
    )
    return table.join(counters, on="bot_id", how="left", maintain_order="left").select(CSV_COLUMNS)


def write_csv(table: pl.DataFrame, path: Path) -> Path:
    """Write :func:`bot_table` as CSV (UTF-8, header row, empty cells for nulls) and return the path."""
    table.write_csv(path)
    return path


def _move(change: int | None) -> tuple[str, str]:
    """The arrow text and CSS class of a rank change (positive = up)."""
    if change is None:
        return "–", "same"
    if change > 0:
        return f"▲ {change}", "up"
    if change < 0:
        return f"▼ {-change}", "down"
    return "=", "same"


def table_rows(table: pl.DataFrame) -> list[dict[str, Any]]:
    """HTML rows of :func:`bot_table`: display text plus a sort key per cell (``*_key``; numbers, with
    missing values sorting last)."""
    rows = []
    for row in table.iter_rows(named=True):
        cells: dict[str, Any] = {
            "rank": row["rank"],
            "name": row["name"] or row["bot_id"],
            "bot_id": row["bot_id"],
            "points": "–" if row["points"] is None else f"{row['points']:,}",
            "points_key": row["points"] if row["points"] is not None else "",
            "points_change": "" if row["points_change_prev"] is None else f"{row['points_change_prev']:+,}",
            "points_change_key": row["points_change_prev"] if row["points_change_prev"] is not None else "",
            "elo": "–" if row["elo"] is None else f"{row['elo']:.0f}",
            "elo_key": row["elo"] if row["elo"] is not None else "",
            "solutions": "–" if row["total_solutions"] is None else f"{row['total_solutions']:,}",
            "solutions_key": row["total_solutions"] if row["total_solutions"] is not None else "",
            "is_new": row["is_new"],
        }
        for b in an.BASELINES:
            change = row[f"rank_change_{b}"]
            text, css = ("new", "new") if b == "prev" and row["is_new"] else _move(change)
            cells[f"move_{b}"] = text
            cells[f"move_{b}_class"] = css
            cells[f"move_{b}_key"] = change if change is not None else ""
        rows.append(cells)
    return rows
