"""The time scale of a snapshot history: which rate unit is honest, and at which resolution to draw time.

Snapshots may be a minute, an hour or a day apart. A rate "per day" computed from snapshots taken minutes
apart extrapolates a few minutes to a day (a change of 60 in one minute reads as 86,400 per day), so every
helper that reports a rate picks its unit here:

- the history spans at least one day: per **day** (change divided by elapsed days);
- shorter: per **hour** (change divided by elapsed hours).

Rates are always per unit of the platform's time (``taken_at``: the platform's simulated clock where it
declares one), never per snapshot: a snapshot taken while nothing on the platform changed (the same clock)
leaves every rate as it was. No rate is taken over less than :data:`MIN_RATE_SPAN` (10 minutes) of platform
time: such a change is "too short to rate" (null), never extrapolated to an hour.

A rate is never taken across a **gap** in the history: an interval between consecutive snapshots longer
than :data:`GAP_FACTOR` (3) times the typical interval (the lower median of all intervals) and longer than
:data:`MIN_GAP` (1 hour). Daily snapshots with one missed day (a 2-day interval) have no gap; daily snapshots
and then none for 295 days have one. A rate over a gap would spread what happened during it evenly over it
(or, between two platforms, invent it); such a rate is null (:meth:`RateUnit.rate`), and
:func:`history_gaps` lists the gaps so a report says where they are. The unit is chosen from the longest
gap-free stretch, so snapshots minutes apart are never extrapolated to a day by a gap that spans days.

Times are UTC.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Literal

import polars as pl

from solvelens.config import MIN_RATE_SPAN as MIN_RATE_SPAN

FrameLike = pl.DataFrame | pl.LazyFrame

UnitName = Literal["day", "hour"]
Resolution = Literal["minute", "hour", "day"]


@dataclass(frozen=True)
class RateUnit:
    """The unit of every rate in one analysis.

    ``name`` is ``"day"`` or ``"hour"``; ``seconds`` the length of the unit in seconds of platform time;
    ``label`` reads ``"per day"`` or ``"per hour"``; ``max_elapsed_s`` the longest interval a rate is taken
    over (longer ones are gaps: rate null; ``None`` = no limit). The shortest is :data:`MIN_RATE_SPAN`.
    """

    name: UnitName
    seconds: float
    max_elapsed_s: float | None = None

    @property
    def label(self) -> str:
        """``"per day"`` or ``"per hour"``."""
        return f"per {self.name}"

    def rate(self, change: pl.Expr, elapsed_seconds: pl.Expr) -> pl.Expr:
        """The polars expression of ``change`` in this unit: divided by the elapsed units of platform time.
        Null where the elapsed time is null or shorter than :data:`MIN_RATE_SPAN` (zero: a snapshot at the
        same platform time; seconds: too short to rate), or longer than ``max_elapsed_s`` (a gap)."""
        valid = elapsed_seconds >= MIN_RATE_SPAN.total_seconds()
        if self.max_elapsed_s is not None:
            valid = valid & (elapsed_seconds <= self.max_elapsed_s)
        units = elapsed_seconds / self.seconds
        return pl.when(valid).then(change.cast(pl.Float64) / units).otherwise(None)

    def across_gaps(self, max_elapsed_s: float | None) -> RateUnit:
        """This unit, refusing rates over intervals longer than ``max_elapsed_s``."""
        return RateUnit(self.name, self.seconds, max_elapsed_s)


DAY = RateUnit("day", 86400.0)
HOUR = RateUnit("hour", 3600.0)


def too_short(span: dt.timedelta) -> str:
    """``"too short to rate: 3 s of platform time (a rate needs at least 10 min)"``: the line where a rate
    would stand over less than :data:`MIN_RATE_SPAN`."""
    return (
        f"too short to rate: {format_duration(span)} of platform time (a rate needs at least "
        f"{format_duration(MIN_RATE_SPAN)})"
    )


def history_span(snapshots: FrameLike) -> dt.timedelta:
    """Time from the first to the newest snapshot (zero for fewer than two snapshots)."""
    times = (
        snapshots.lazy()
        .select(first=pl.col("taken_at").min(), last=pl.col("taken_at").max(), n=pl.len())
        .collect()
    )
    if times["n"][0] < 2 or times["first"][0] is None:
        return dt.timedelta(0)
    return times["last"][0] - times["first"][0]


#: An interval longer than this many typical intervals is a gap (see the module docstring).
GAP_FACTOR = 3.0
#: ... and longer than this: pauses under an hour between snapshots minutes apart are no gap.
MIN_GAP = dt.timedelta(hours=1)


def snapshot_intervals(snapshots: FrameLike) -> pl.DataFrame:
    """One row per pair of consecutive snapshots (by taken_at, then id): after_snapshot_id Int64 (the
    earlier), before_snapshot_id Int64 (the later), gap_start and gap_end Datetime (their taken_at), elapsed_s
    Float64 (seconds between them); sorted by gap_start. ``snapshots`` needs snapshot_id and taken_at."""
    return (
        snapshots.lazy()
        .select("snapshot_id", "taken_at")
        .sort("taken_at", "snapshot_id")
        .select(
            after_snapshot_id=pl.col("snapshot_id").shift(1),
            before_snapshot_id=pl.col("snapshot_id"),
            gap_start=pl.col("taken_at").shift(1),
            gap_end=pl.col("taken_at"),
            elapsed_s=pl.col("taken_at").diff().dt.total_microseconds() / 1e6,
        )
        .drop_nulls("elapsed_s")
        .collect()
    )


def gap_threshold_s(snapshots: FrameLike) -> float | None:
    """The longest interval (seconds) that is not a gap: max(:data:`GAP_FACTOR` x the lower median
    interval, :data:`MIN_GAP`); ``None`` with fewer than three snapshots (two intervals are needed to tell
    a gap from the rhythm)."""
    elapsed = snapshot_intervals(snapshots)["elapsed_s"]
    if elapsed.len() < 2:
        return None
    typical = float(elapsed.sort()[(elapsed.len() - 1) // 2])  # the lower median
    return max(GAP_FACTOR * typical, MIN_GAP.total_seconds())


def history_gaps(snapshots: FrameLike) -> pl.DataFrame:
    """The gaps of a snapshot history (see the module docstring): intervals between consecutive snapshots
    longer than :func:`gap_threshold_s`.

    Output columns: after_snapshot_id Int64 (the last snapshot before the gap), before_snapshot_id Int64
    (the first after it), gap_start, gap_end (Datetime UTC), elapsed_s Float64, typical_s Float64 (the
    history's threshold divided by :data:`GAP_FACTOR`, or the minimum); sorted by gap_start. Empty with
    fewer than three snapshots.
    """
    threshold = gap_threshold_s(snapshots)
    frame = snapshot_intervals(snapshots)
    if threshold is None:
        return frame.clear().with_columns(typical_s=pl.lit(None, dtype=pl.Float64))
    return frame.filter(pl.col("elapsed_s") > threshold).with_columns(
        typical_s=pl.lit(threshold / GAP_FACTOR)
    )


def longest_stretch(snapshots: FrameLike) -> dt.timedelta:
    """The time spanned by the longest run of snapshots without a gap (:func:`history_gaps`)."""
    frame = snapshot_intervals(snapshots)
    if frame.is_empty():
        return dt.timedelta(0)
    threshold = gap_threshold_s(snapshots)
    is_gap = pl.col("elapsed_s") > threshold if threshold is not None else pl.lit(False)
    stretches = frame.with_columns(stretch=is_gap.cum_sum()).filter(~is_gap)
    if stretches.is_empty():
        return dt.timedelta(0)
    longest = stretches.group_by("stretch").agg(pl.col("elapsed_s").sum())["elapsed_s"].max()
    return dt.timedelta(seconds=float(longest))  # type: ignore[arg-type]


def rate_unit(snapshots: FrameLike) -> RateUnit:
    """The rate unit for a snapshot history (``snapshots``: taken_at): per day when its longest gap-free
    stretch spans at least a day, else per hour; rates across a gap are refused
    (:attr:`RateUnit.max_elapsed_s` = :func:`gap_threshold_s`)."""
    return unit_for_span(longest_stretch(snapshots)).across_gaps(gap_threshold_s(snapshots))


def unit_for_span(span: dt.timedelta) -> RateUnit:
    """:data:`DAY` for a span of at least a day, else :data:`HOUR` (a span shorter than
    :data:`MIN_RATE_SPAN` gives no rate at all: :func:`too_short`)."""
    return DAY if span >= dt.timedelta(days=1) else HOUR


def time_resolution(snapshots: FrameLike) -> Resolution:
    """The finest time unit that tells the snapshots apart: ``"minute"`` when two snapshots fall in the
    same hour, ``"hour"`` when two fall on the same UTC day, else ``"day"``."""
    times = snapshots.lazy().select("taken_at").collect()["taken_at"]
    if times.len() < 2:
        return "day"
    if times.dt.truncate("1h").n_unique() < times.len():
        return "minute"
    if times.dt.truncate("1d").n_unique() < times.len():
        return "hour"
    return "day"


def format_duration(delta: dt.timedelta | float) -> str:
    """A readable duration: ``"45 s"``, ``"12 min"``, ``"5.5 hours"``, ``"3.2 days"`` (a float is
    seconds)."""
    seconds = delta.total_seconds() if isinstance(delta, dt.timedelta) else float(delta)
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    if seconds < 48 * 3600:
        hours = seconds / 3600
        return f"{hours:.1f} hours" if hours % 1 else f"{hours:.0f} hours"
    days = seconds / 86400
    return f"{days:.0f} days" if abs(days - round(days)) < 0.05 else f"{days:.1f} days"


def format_time(value: dt.datetime | None) -> str:
    """``2026-01-31 06:00 UTC``, ``–`` for None."""
    return "–" if value is None else value.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
