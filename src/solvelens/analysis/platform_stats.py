"""Platform statistics (``GET /stats`` figures) over time.

Input is the store's ``platform_stats`` frame (long format: snapshot_id, metric, value; nested figures are
dotted names) and ``snapshots`` (snapshot_id, taken_at).
"""

from __future__ import annotations

import polars as pl

from solvelens.analysis.timescale import RateUnit, rate_unit

FrameLike = pl.DataFrame | pl.LazyFrame


def platform_stats_over_time(
    platform_stats: FrameLike,
    snapshots: FrameLike,
    *,
    metrics: list[str] | None = None,
    unit: RateUnit | None = None,
) -> pl.DataFrame:
    """Each metric's value at each snapshot and its change rate since the previous snapshot.

    ``metrics`` limits the output to those metric names (all when None); ``unit`` defaults to
    :func:`~solvelens.analysis.timescale.rate_unit` of ``snapshots``.
    Output columns: snapshot_id Int64, taken_at, metric String, value Float64, change_rate Float64 (in
    ``unit``; null at the metric's first snapshot), rate_unit String; sorted by metric, taken_at.
    """
    unit = unit or rate_unit(snapshots)
    frame = platform_stats.lazy().select("snapshot_id", "metric", "value")
    if metrics is not None:
        frame = frame.filter(pl.col("metric").is_in(metrics))
    return (
        frame.join(snapshots.lazy().select("snapshot_id", "taken_at"), on="snapshot_id")
        .sort("metric", "taken_at", "snapshot_id")
        .with_columns(
            change_rate=unit.rate(
                pl.col("value").diff().over("metric"),
                (pl.col("taken_at").diff().dt.total_microseconds() / 1e6).over("metric"),
            ),
            rate_unit=pl.lit(unit.name),
        )
        .select("snapshot_id", "taken_at", "metric", "value", "change_rate", "rate_unit")
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
