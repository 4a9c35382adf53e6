"""analysis/timeline.py: the stored activity feed counted per hour (or day) by action."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import polars as pl

from solvelens import analysis as an
from solvelens.analysis.timeline import TIMELINE_SCHEMA

T0 = dt.datetime(2026, 3, 1, tzinfo=dt.UTC)


def _events(times: list[dt.datetime], actions: list[str | None]) -> pl.DataFrame:
    return pl.DataFrame(
        {"created_at": times, "action": actions},
        schema={"created_at": pl.Datetime("us", "UTC"), "action": pl.String},
    )


def test_events_are_counted_per_hour_and_action() -> None:
    times = [T0, T0 + dt.timedelta(minutes=10), T0 + dt.timedelta(minutes=59), T0 + dt.timedelta(hours=2)]
    out = an.activity_timeline(_events(times, ["vote_cast", "vote_cast", None, "vote_cast"]))
    assert out.schema == pl.Schema(TIMELINE_SCHEMA)
    assert out.select("start", "action", "events").rows() == [
        (T0, "unknown", 1),
        (T0, "vote_cast", 2),
        (T0 + dt.timedelta(hours=2), "vote_cast", 1),
    ]
    assert out["events_per_hour"].to_list() == [1.0, 2.0, 1.0] and set(out["bucket_hours"]) == {1.0}


def test_a_long_history_is_counted_per_day_as_a_rate_per_hour() -> None:
    times = [T0 + dt.timedelta(hours=h) for h in (0, 5, 30 * 24)]
    out = an.activity_timeline(_events(times, ["a", "a", "a"]), max_buckets=100)
    assert out.select("start", "events", "events_per_hour", "bucket_hours").rows() == [
        (T0, 2, 2 / 24, 24.0),
        (T0 + dt.timedelta(days=30), 1, 1 / 24, 24.0),
    ]


def test_no_events_give_an_empty_frame() -> None:
    assert an.activity_timeline(_events([], [])).schema == pl.Schema(TIMELINE_SCHEMA)


def test_the_stored_feed_is_counted_and_a_store_without_one_gives_nothing(
    store_db: Path, evidence_store_db: Path
) -> None:
    assert an.activity_timeline(an.load(store_db).activity).is_empty()
    events = an.load(evidence_store_db).activity.collect()
    out = an.activity_timeline(events)
    assert events.height > 400 and out["events"].sum() == events.height
