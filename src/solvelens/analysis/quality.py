"""Data quality: where a snapshot stored other counts than the platform announced (the store's
``data_quality`` view, read by :func:`solvelens.analysis.load` into ``Frames.data_quality``).

Every snapshot records each whole list there (announced and stored records, agreeing or not) and each list
whose count the platform's rows disagree with (a problem's solution count, a solution's vote count), with
the reason where they differ (e.g. the platform serves only the newest 50 votes of a solution). The
report and the notebooks show the lists whose counts differ.
"""

from __future__ import annotations

import polars as pl

from solvelens.analysis.frames import Frames

#: Columns of :func:`data_quality_of`.
QUALITY_SCHEMA: dict[str, pl.DataType] = {
    "resource": pl.String(),
    "scope": pl.String(),
    "announced": pl.Int64(),
    "stored": pl.Int64(),
    "difference": pl.Int64(),
    "reason": pl.String(),
}


def data_quality_of(frames: Frames, snapshot_id: int | None = None) -> pl.DataFrame:
    """The lists of one snapshot (default the newest selected one) whose stored count differs from the
    announced one; a list the platform announced no count for is left out. Columns
    (:data:`QUALITY_SCHEMA`): resource, scope ("" = the whole list), announced, stored, difference =
    stored - announced (negative: records missing), reason; sorted by resource, scope.
    Empty when every list held what was announced, or when the store has no ``data_quality`` view
    (``frames.has_data_quality`` tells the two apart)."""
    wanted = frames.latest_snapshot_id if snapshot_id is None else snapshot_id
    rows = frames.data_quality.filter(
        (pl.col("snapshot_id") == wanted)
        & pl.col("announced").is_not_null()
        & pl.col("stored").ne_missing(pl.col("announced"))
    ).collect()
    return (
        rows.with_columns(
            scope=pl.col("scope").fill_null(""), difference=pl.col("stored") - pl.col("announced")
        )
        .select(list(QUALITY_SCHEMA))
        .cast(QUALITY_SCHEMA)  # type: ignore[arg-type]
        .sort("resource", "scope")
    )


#: The ``/stats`` totals -> the list whose records they count (a shortfall of both is one shortfall).
STATS_LISTS: dict[str, str] = {
    "totalComparisons": "comparisons",
    "totalProblems": "problems",
    "totalSolutions": "solutions",
    "totalBots": "leaderboard",
}


def missing_records(table: pl.DataFrame) -> int:
    """Records missing in a :func:`data_quality_of` table, each shortfall counted once: per list, the
    largest of its whole list's shortfall, the ``/stats`` total counting the same records (``/stats
    totalComparisons`` and the comparisons list are the same votes) and its parts' shortfalls summed (a
    solution's short vote list is part of the whole list's)."""
    if table.is_empty():
        return 0
    rows = table.with_columns(
        counted=pl.when(pl.col("resource") == "platform_stats")
        .then(pl.col("scope").replace(STATS_LISTS))
        .otherwise(pl.col("resource")),
        whole=(pl.col("resource") == "platform_stats") | (pl.col("scope") == ""),
        short=(-pl.col("difference")).clip(lower_bound=0),
    )
    per_list = rows.group_by("counted").agg(
        pl.max_horizontal(
            pl.col("short").filter(pl.col("whole")).max().fill_null(0),
            pl.col("short").filter(~pl.col("whole")).sum(),
        ).alias("missing")
    )
    return int(per_list["missing"].sum())


def data_quality_line(frames: Frames) -> str:
    """One sentence on the newest snapshot's data quality: every list complete, N lists differing (with
    the records missing in all, each shortfall once: :func:`missing_records`), or that the store predates
    the table."""
    if not frames.has_data_quality:
        return "This store predates the data-quality table: announced and stored counts were not recorded."
    table = data_quality_of(frames)
    newest = frames.latest_snapshot_id
    if table.is_empty():
        return f"Every list of snapshot #{newest} holds as many records as the platform announced."
    missing = missing_records(table)
    return (
        f"{table.height} list(s) of snapshot #{newest} hold another count than the platform announced "
        f"({missing:,} record(s) missing in all)."
    )
