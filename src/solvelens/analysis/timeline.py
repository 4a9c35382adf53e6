"""The activity timeline: the platform's own event feed (``GET /activity``, kept by every snapshot in the
store's ``activity`` view, each event once) counted per time bucket by action, as a rate per covered hour.

The feed holds only the latest 50 events, so the history is complete only where snapshots came often
enough; the store records each hole it noticed in ``activity_gaps`` (``Frames.activity_gaps``), and the
chart shades them: an empty stretch there means "not seen", not "nothing happened".

**Covered hours.** The stored history covers the time from its oldest event to the newest snapshot, except
the recorded gaps; a gap runs from the snapshot before the one that recorded it (the feed was read whole
then: nothing newer than its newest event had happened) to the oldest event the recording snapshot
fetched. A bucket's rate divides its events by the hours of the bucket that history covers, never by the
bucket's length: with a snapshot a day and a feed of 50 events, a day holds ~3 covered hours and its
50 events are ~16 per hour, not 50 / 24 = 2.
"""

from __future__ import annotations

import datetime as dt

import polars as pl

FrameLike = pl.DataFrame | pl.LazyFrame
_UTC = pl.Datetime("us", "UTC")

TIMELINE_SCHEMA: dict[str, pl.DataType] = {
    "start": _UTC,
    "action": pl.String(),
    "events": pl.UInt32(),
    "events_per_hour": pl.Float64(),
    "bucket_hours": pl.Float64(),
    "covered_hours": pl.Float64(),
}
#: At most this many time buckets: an hour each while the history is short, a day beyond ~17 days, a week
#: beyond ~13 months.
MAX_BUCKETS = 400
#: The least covered time (hours) a rate is divided by: a bucket whose covered part is ~0 (the history's
#: first event late in its hour, an event on the very edge of a gap) keeps a finite rate.
MIN_COVERED_HOURS = 0.1


def unseen_spans(gaps: FrameLike | None, snapshots: FrameLike | None) -> pl.DataFrame:
    """The stretches the stored feed did not see (gap_from, gap_to; Datetime UTC): each recorded gap
    (``Frames.activity_gaps``: snapshot_id, gap_from, gap_to; null bounds dropped), starting no earlier than
    the ``taken_at`` of the snapshot before the one that recorded it (``snapshots``: snapshot_id, taken_at),
    when that snapshot is known."""
    schema = {"gap_from": _UTC, "gap_to": _UTC}
    if gaps is None:
        return pl.DataFrame(schema=schema)
    holes = (
        gaps.lazy().select("snapshot_id", "gap_from", "gap_to").drop_nulls(["gap_from", "gap_to"]).collect()
    )
    if snapshots is not None:
        order = (
            snapshots.lazy()
            .select("snapshot_id", "taken_at")
            .collect()
            .sort("taken_at", "snapshot_id")
            .with_columns(previous=pl.col("taken_at").shift(1))
        )
        holes = holes.join(
            order.select("snapshot_id", "previous"), on="snapshot_id", how="left"
        ).with_columns(gap_from=pl.max_horizontal("gap_from", "previous"))
    return holes.select("gap_from", "gap_to").cast(schema)  # type: ignore[arg-type]


def _merged(
    holes: pl.DataFrame, start: dt.datetime, end: dt.datetime
) -> list[tuple[dt.datetime, dt.datetime]]:
    """``holes`` (gap_from, gap_to) clipped to [start, end], overlapping ones merged, sorted."""
    merged: list[tuple[dt.datetime, dt.datetime]] = []
    for lo, hi in holes.sort("gap_from").rows():
        lo, hi = max(lo, start), min(hi, end)
        if hi <= lo:
            continue
        if merged and lo <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], hi))
        else:
            merged.append((lo, hi))
    return merged


def covered_hours(
    starts: list[dt.datetime], hours: float, start: dt.datetime, end: dt.datetime, unseen: pl.DataFrame
) -> list[float]:
    """For each bucket ``[s, s + hours)`` of ``starts``: the hours of it within ``[start, end]`` and outside
    every ``unseen`` stretch (gap_from, gap_to: :func:`unseen_spans`)."""
    holes = _merged(unseen, start, end)
    length = dt.timedelta(hours=hours)
    out = []
    for s in starts:
        lo, hi = max(s, start), min(s + length, end)
        seconds = max((hi - lo).total_seconds(), 0.0)
        for g_lo, g_hi in holes:
            seconds -= max((min(hi, g_hi) - max(lo, g_lo)).total_seconds(), 0.0)
        out.append(max(seconds, 0.0) / 3600)
    return out


def activity_timeline(
    events: FrameLike,
    *,
    gaps: FrameLike | None = None,
    snapshots: FrameLike | None = None,
    max_buckets: int = MAX_BUCKETS,
) -> pl.DataFrame:
    """Events per time bucket and action (:data:`TIMELINE_SCHEMA`): start (the bucket's UTC start), action,
    events UInt32, bucket_hours Float64 (1 while the history spans at most ``max_buckets`` hours, else 24
    while it spans at most ``max_buckets`` days, else 168: a week, so a history of any length stays bounded),
    covered_hours Float64 (the hours of the bucket the stored history covers: see the module docstring),
    events_per_hour Float64 (events / covered_hours, covered hours floored at :data:`MIN_COVERED_HOURS`);
    only non-empty buckets; sorted by start, action.

    Input: events with ``created_at`` and ``action`` (``Frames.activity``); a null action counts as
    ``"unknown"``, events without a time are left out. ``gaps``: ``Frames.activity_gaps`` (snapshot_id,
    gap_from, gap_to); ``snapshots`` (snapshot_id, taken_at): the history ends at the newest one's taken_at
    (without it, at the end of the newest event's bucket) and each gap starts at the snapshot before the
    one that recorded it (:func:`unseen_spans`).
    """
    frame = events.lazy().select("created_at", "action").drop_nulls("created_at").collect()
    if frame.is_empty():
        return pl.DataFrame(schema=TIMELINE_SCHEMA)
    first: dt.datetime = frame["created_at"].min()  # type: ignore[assignment]
    last: dt.datetime = frame["created_at"].max()  # type: ignore[assignment]
    span_s = (last - first).total_seconds()
    hours = 1 if span_s <= max_buckets * 3600 else 24 if span_s <= max_buckets * 86_400 else 168
    newest_bucket_end = frame.select(pl.col("created_at").max().dt.truncate(f"{hours}h")).item()
    newest_bucket_end += dt.timedelta(hours=hours)
    end = newest_bucket_end
    if snapshots is not None:
        until = snapshots.lazy().select(pl.col("taken_at").max()).collect().item()
        end = max(until, last) if until is not None else end
    counted = (
        frame.with_columns(
            start=pl.col("created_at").dt.truncate(f"{hours}h"), action=pl.col("action").fill_null("unknown")
        )
        .group_by("start", "action")
        .agg(events=pl.len().cast(pl.UInt32))
    )
    starts = counted["start"].unique().sort()
    covered = pl.DataFrame(
        {
            "start": starts,
            "covered_hours": covered_hours(
                starts.to_list(), float(hours), first, end, unseen_spans(gaps, snapshots)
            ),
        }
    )
    return (
        counted.join(covered, on="start")
        .with_columns(
            events_per_hour=pl.col("events") / pl.col("covered_hours").clip(lower_bound=MIN_COVERED_HOURS),
            bucket_hours=pl.lit(float(hours)),
        )
        .select(list(TIMELINE_SCHEMA))
        .cast(TIMELINE_SCHEMA)  # type: ignore[arg-type]
        .sort("start", "action")
    )
