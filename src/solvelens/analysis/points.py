"""Which snapshots a long history's charts draw: a bounded number of points, every one the exact figure at
its snapshot (issue 30).

A year of hourly snapshots is 8,760 points per series: more than a chart can carry (Altair's inline data
limit, :data:`solvelens.charts.data.MAX_ROWS`) and more than a reader needs. The rule
(:func:`history_points`), stated on every page that draws such a history (:attr:`HistoryPoints.rule`):

- at most :data:`MAX_POINTS` snapshots: every snapshot is drawn (the demo's month of daily snapshots, any
  history of a few weeks of hourly snapshots: nothing changes);
- more: every snapshot of the last :data:`RECENT_DAYS` days before the newest one (the last snapshot of each
  UTC hour there when they are more than one an hour), and before that the last snapshot of each UTC day --
  of each week (from Monday) or each month when days would still be more than the points left;
- the first, the newest and the one before the newest snapshot are always drawn.

A point is never an average: it is the snapshot closest to its bucket's end, so each drawn value is exactly
what the store holds at that snapshot. Times are UTC.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import polars as pl

from solvelens.analysis.timescale import RateUnit

#: Snapshots a history chart draws at most (per series; a chart of 10 series stays under 5,000 rows).
MAX_POINTS = 480
#: The recent days drawn at the snapshots' own resolution (at most hourly).
RECENT_DAYS = 14
#: The older history's buckets, finest first: (polars truncation, the rule's word, the longest bucket in s).
_BUCKETS: tuple[tuple[str, str, float], ...] = (
    ("1d", "day", 86_400.0),
    ("1w", "week (from Monday)", 7 * 86_400.0),
    ("1mo", "month", 31 * 86_400.0),
)


@dataclass(frozen=True)
class HistoryPoints:
    """The snapshots a history chart draws.

    ``snapshot_ids``: the drawn snapshots' ids (Int64, sorted by time); ``complete``: every snapshot is
    drawn; ``rule``: the sentence a page states ('' when complete); ``older``: the older history's bucket
    (``"day"``, ``"week (from Monday)"``, ``"month"``; ``None`` when complete); ``older_s``: the longest such
    bucket in seconds (a rate between two drawn points of the older history spans up to two of them).
    """

    snapshot_ids: pl.Series
    complete: bool
    rule: str = ""
    older: str | None = None
    older_s: float | None = None

    def drawn(self, snapshots: pl.DataFrame) -> pl.DataFrame:
        """The rows of ``snapshots`` (a frame with ``snapshot_id``) this history draws."""
        if self.complete:
            return snapshots
        return snapshots.filter(pl.col("snapshot_id").is_in(self.snapshot_ids.implode()))

    def rate_unit(self, unit: RateUnit) -> RateUnit:
        """``unit`` for rates between consecutive drawn points: an interval of up to two older buckets is
        then no gap (a gap in the history longer than that still is)."""
        if self.complete or self.older_s is None or unit.max_elapsed_s is None:
            return unit
        return unit.across_gaps(max(unit.max_elapsed_s, 2 * self.older_s))


def _last_per(frame: pl.DataFrame, every: str) -> pl.DataFrame:
    """The last snapshot of each ``every`` bucket of ``taken_at``."""
    return (
        frame.with_columns(bucket=pl.col("taken_at").dt.truncate(every))
        .group_by("bucket")
        .agg(pl.all().sort_by("taken_at").last())
        .drop("bucket")
    )


def history_points(
    snapshots: pl.DataFrame, *, max_points: int = MAX_POINTS, recent_days: float = RECENT_DAYS
) -> HistoryPoints:
    """The snapshots to draw of ``snapshots`` (columns snapshot_id Int64, taken_at Datetime UTC; one
    platform), by the module's rule. Never raises; an empty frame gives no points (complete)."""
    ordered = snapshots.select("snapshot_id", "taken_at").sort("taken_at", "snapshot_id")
    if ordered.height <= max_points:
        return HistoryPoints(ordered["snapshot_id"], complete=True)
    newest = ordered["taken_at"][-1]
    cutoff = newest - dt.timedelta(days=recent_days)
    recent = ordered.filter(pl.col("taken_at") >= cutoff)
    thinned = _last_per(recent, "1h")
    hourly = thinned.height < recent.height
    recent = thinned
    older_all = ordered.filter(pl.col("taken_at") < cutoff)
    room = max(max_points - recent.height, 1)
    older, word, seconds = older_all, _BUCKETS[-1][1], _BUCKETS[-1][2]
    for every, name, length in _BUCKETS:
        older, word, seconds = _last_per(older_all, every), name, length
        if older.height <= room:
            break
    always = pl.concat([ordered.head(1), ordered.tail(2)])
    chosen = pl.concat([older, recent, always]).unique("snapshot_id").sort("taken_at", "snapshot_id")
    recent_words = "the last snapshot of each hour" if hourly else "every snapshot"
    rule = (
        f"Long history: charts draw {chosen.height:,} of {ordered.height:,} snapshots -- {recent_words} "
        f"of the last {recent_days:g} days, and before that the last snapshot of each {word} (UTC), plus the "
        "first and the newest; each point is the exact figure at its snapshot."
    )
    return HistoryPoints(chosen["snapshot_id"], complete=False, rule=rule, older=word, older_s=seconds)
