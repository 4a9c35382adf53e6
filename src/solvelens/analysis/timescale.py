"""The time scale of a snapshot history: which rate unit is honest, and at which resolution to draw time.

Snapshots may be a minute, an hour or a day apart. A rate "per day" computed from snapshots taken minutes
apart extrapolates a few minutes to a day (a change of 60 in one minute reads as 86,400 per day), so every
helper that reports a rate picks its unit here:

- the history spans at least one day: per **day** (change divided by elapsed days);
- at least one hour: per **hour** (change divided by elapsed hours);
- shorter: per **snapshot** (the change between consecutive snapshots, no division).

Times are UTC.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Literal

import polars as pl

FrameLike = pl.DataFrame | pl.LazyFrame

UnitName = Literal["day", "hour", "snapshot"]
Resolution = Literal["minute", "hour", "day"]


@dataclass(frozen=True)
class RateUnit:
    """The unit of every rate in one analysis.

    ``name`` is ``"day"``, ``"hour"`` or ``"snapshot"``; ``seconds`` the length of the unit in seconds
    (``None`` for ``"snapshot"``: rates are changes between consecutive snapshots); ``label`` reads
    ``"per day"``, ``"per hour"`` or ``"per snapshot"``.
    """

    name: UnitName
    seconds: float | None

    @property
    def label(self) -> str:
        """``"per day"``, ``"per hour"`` or ``"per snapshot"``."""
        return f"per {self.name}"

    def rate(self, change: pl.Expr, elapsed_seconds: pl.Expr) -> pl.Expr:
        """The polars expression of ``change`` in this unit: divided by the elapsed units, or unchanged per
        snapshot. Null where the elapsed time is zero or null."""
        if self.seconds is None:
            return change.cast(pl.Float64)
        units = elapsed_seconds / self.seconds
        return pl.when(units > 0).then(change.cast(pl.Float64) / units).otherwise(None)


DAY = RateUnit("day", 86400.0)
HOUR = RateUnit("hour", 3600.0)
PER_SNAPSHOT = RateUnit("snapshot", None)


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


def rate_unit(snapshots: FrameLike) -> RateUnit:
    """The rate unit for a snapshot history (``snapshots``: taken_at): per day when it spans at least a
    day, per hour when at least an hour, else per snapshot."""
    return unit_for_span(history_span(snapshots))


def unit_for_span(span: dt.timedelta) -> RateUnit:
    """:data:`DAY` for a span of at least a day, :data:`HOUR` for at least an hour, else
    :data:`PER_SNAPSHOT`."""
    if span >= dt.timedelta(days=1):
        return DAY
    if span >= dt.timedelta(hours=1):
        return HOUR
    return PER_SNAPSHOT


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
