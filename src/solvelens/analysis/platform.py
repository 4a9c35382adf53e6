"""Platform statistics (``GET /stats`` figures) over time.

Input is the store's ``platform_stats`` frame (long format: snapshot_id, metric, value; nested figures are
dotted names) and ``snapshots`` (snapshot_id, taken_at).
"""

from __future__ import annotations

import polars as pl

FrameLike = pl.DataFrame | pl.LazyFrame


def platform_stats_over_time(
    platform_stats: FrameLike, snapshots: FrameLike, *, metrics: list[str] | None = None
) -> pl.DataFrame:
    """Each metric's value at each snapshot and its change per day since the previous snapshot.

    ``metrics`` limits the output to those metric names (all when None).
    Output columns: snapshot_id Int64, taken_at, metric String, value Float64, change_per_day Float64
    (null at the metric's first snapshot); sorted by metric, taken_at.
    """
    frame = platform_stats.lazy().select("snapshot_id", "metric", "value")
    if metrics is not None:
        frame = frame.filter(pl.col("metric").is_in(metrics))
    return (
        frame.join(snapshots.lazy().select("snapshot_id", "taken_at"), on="snapshot_id")
        .sort("metric", "taken_at", "snapshot_id")
        .with_columns(
            change_per_day=(
                pl.col("value").diff() / (pl.col("taken_at").diff().dt.total_microseconds() / 86_400e6)
            ).over("metric")
        )
        .select("snapshot_id", "taken_at", "metric", "value", "change_per_day")
        .collect()
    )


def latest_stats(platform_stats: FrameLike, snapshots: FrameLike) -> dict[str, float]:
    """The newest snapshot's metrics as ``{metric: value}`` (empty when there is no snapshot)."""
    times = snapshots.lazy().select("snapshot_id", "taken_at").collect()
    if times.is_empty():
        return {}
    latest = times.sort("taken_at", "snapshot_id")["snapshot_id"][-1]
    rows = platform_stats.lazy().filter(pl.col("snapshot_id") == latest).select("metric", "value").collect()
    return dict(zip(rows["metric"].to_list(), rows["value"].to_list(), strict=True))
