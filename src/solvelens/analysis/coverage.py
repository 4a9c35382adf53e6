"""Snapshot coverage and data freshness: which UTC days have a snapshot, where the gaps are, how old the
newest snapshot is.

Input is the store's ``snapshots`` frame (snapshot_id, taken_at Datetime[us, UTC]).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import polars as pl

from solvelens.analysis.timescale import snapshot_intervals

FrameLike = pl.DataFrame | pl.LazyFrame


def snapshot_days(snapshots: FrameLike) -> pl.DataFrame:
    """Every UTC day from the first snapshot's day to the last one's, with its number of snapshots.

    Output columns: day Date, snapshots UInt32, covered Boolean (at least one snapshot); sorted by day.
    Empty when there is no snapshot.
    """
    counts = (
        snapshots.lazy()
        .select(day=pl.col("taken_at").dt.date())
        .group_by("day")
        .agg(snapshots=pl.len().cast(pl.UInt32))
        .collect()
    )
    if counts.is_empty():
        return pl.DataFrame(schema={"day": pl.Date, "snapshots": pl.UInt32, "covered": pl.Boolean})
    first, last = counts["day"].min(), counts["day"].max()
    days = pl.DataFrame({"day": pl.date_range(first, last, "1d", eager=True)})  # type: ignore[arg-type]
    return (
        days.join(counts, on="day", how="left")
        .with_columns(pl.col("snapshots").fill_null(0))
        .with_columns(covered=pl.col("snapshots") > 0)
        .sort("day")
    )


def snapshot_gaps(snapshots: FrameLike, *, expected: dt.timedelta = dt.timedelta(days=1)) -> pl.DataFrame:
    """Intervals between consecutive snapshots longer than 1.5 x ``expected``.

    Output columns: after_snapshot_id Int64, before_snapshot_id Int64, gap_start Datetime (the earlier
    snapshot), gap_end Datetime (the later one), gap_days Float64, missed Int64 (snapshots missing at the
    expected interval); sorted by gap_start.
    """
    expected_days = expected.total_seconds() / 86400
    return (
        snapshot_intervals(snapshots)
        .select(
            "after_snapshot_id",
            "before_snapshot_id",
            "gap_start",
            "gap_end",
            gap_days=pl.col("elapsed_s") / 86400,
        )
        .filter(pl.col("gap_days") > 1.5 * expected_days)
        .with_columns(missed=((pl.col("gap_days") / expected_days).round(0) - 1).cast(pl.Int64))
    )


@dataclass(frozen=True)
class Freshness:
    """How complete and how recent the snapshot history is (times UTC, ages in hours)."""

    snapshot_count: int
    first_taken_at: dt.datetime | None
    last_taken_at: dt.datetime | None
    age_hours: float | None
    days_spanned: int
    days_covered: int
    missing_days: int

    @property
    def coverage(self) -> float:
        """Share of days between the first and the last snapshot that have a snapshot (0..1; 0 when empty)."""
        return self.days_covered / self.days_spanned if self.days_spanned else 0.0


def freshness(snapshots: FrameLike, *, now: dt.datetime | None = None) -> Freshness:
    """Summarise the snapshot history; ``now`` (default: current UTC time) gives the newest one's age."""
    frame = snapshots.lazy().select("taken_at").sort("taken_at").collect()
    days = snapshot_days(frame)
    if frame.is_empty():
        return Freshness(0, None, None, None, 0, 0, 0)
    first, last = frame["taken_at"][0], frame["taken_at"][-1]
    current = now or dt.datetime.now(dt.UTC)
    covered = int(days["covered"].sum())
    return Freshness(
        snapshot_count=frame.height,
        first_taken_at=first,
        last_taken_at=last,
        age_hours=(current - last).total_seconds() / 3600,
        days_spanned=days.height,
        days_covered=covered,
        missing_days=days.height - covered,
    )
