"""The activity timeline: the platform's own event feed (``GET /activity``, kept by every snapshot in the
store's ``activity`` view, each event once) counted per hour by action.

The feed holds only the latest 50 events, so the history is complete only where snapshots came often
enough; the store records each hole it noticed in ``activity_gaps`` (``Frames.activity_gaps``), and the
chart shades them: an empty stretch there means "not seen", not "nothing happened".
"""

from __future__ import annotations

import polars as pl

FrameLike = pl.DataFrame | pl.LazyFrame
_UTC = pl.Datetime("us", "UTC")

TIMELINE_SCHEMA: dict[str, pl.DataType] = {
    "start": _UTC,
    "action": pl.String(),
    "events": pl.UInt32(),
    "events_per_hour": pl.Float64(),
    "bucket_hours": pl.Float64(),
}
#: At most this many time buckets: an hour each while the history is short, a day beyond ~14 days.
MAX_BUCKETS = 400


def activity_timeline(events: FrameLike, *, max_buckets: int = MAX_BUCKETS) -> pl.DataFrame:
    """Events per time bucket and action (:data:`TIMELINE_SCHEMA`): start (the bucket's UTC start), action,
    events UInt32, events_per_hour Float64 (events / bucket_hours), bucket_hours Float64 (1 while the
    history spans at most ``max_buckets`` hours, else 24); only non-empty buckets; sorted by start, action.

    Input: events with ``created_at`` and ``action`` (``Frames.activity``); a null action counts as
    ``"unknown"``, events without a time are left out.
    """
    frame = events.lazy().select("created_at", "action").drop_nulls("created_at").collect()
    if frame.is_empty():
        return pl.DataFrame(schema=TIMELINE_SCHEMA)
    span_s = frame.select((pl.col("created_at").max() - pl.col("created_at").min()).dt.total_seconds()).item()
    hours = 1 if span_s <= max_buckets * 3600 else 24
    return (
        frame.with_columns(
            start=pl.col("created_at").dt.truncate(f"{hours}h"), action=pl.col("action").fill_null("unknown")
        )
        .group_by("start", "action")
        .agg(events=pl.len().cast(pl.UInt32))
        .with_columns(events_per_hour=pl.col("events") / hours, bucket_hours=pl.lit(float(hours)))
        .select(list(TIMELINE_SCHEMA))
        .cast(TIMELINE_SCHEMA)  # type: ignore[arg-type]
        .sort("start", "action")
    )
