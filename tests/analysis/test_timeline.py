"""analysis/timeline.py: the stored activity feed counted per hour (or day) by action."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import polars as pl

from solvelens import analysis as an
from solvelens import charts as ch
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


def test_a_history_longer_than_max_buckets_days_is_counted_per_week() -> None:
    """Two years of hourly events: weekly bars (at most ~105 buckets per action), not a bar per hour."""
    times = [T0 + dt.timedelta(hours=h) for h in range(0, 2 * 365 * 24, 7)]
    out = an.activity_timeline(_events(times, ["a"] * len(times)))
    assert set(out["bucket_hours"]) == {168.0}
    assert out.height <= 2 * 365 / 7 + 2
    assert out["events"].sum() == len(times)
    ch.activity_timeline_chart(out)  # within the chart's row limit


def _gaps(*spans: tuple[dt.datetime, dt.datetime], snapshot_id: int | None = None) -> pl.DataFrame:
    """Recorded gaps, the i-th recorded by snapshot i + 2 (or all by ``snapshot_id``)."""
    ids = [snapshot_id or i + 2 for i in range(len(spans))]
    return pl.DataFrame(
        {"snapshot_id": ids, "gap_from": [a for a, _ in spans], "gap_to": [b for _, b in spans]},
        schema={
            "snapshot_id": pl.Int64,
            "gap_from": pl.Datetime("us", "UTC"),
            "gap_to": pl.Datetime("us", "UTC"),
        },
    )


def _snapshots(times: list[dt.datetime]) -> pl.DataFrame:
    return pl.DataFrame(
        {"snapshot_id": list(range(1, len(times) + 1)), "taken_at": times},
        schema={"snapshot_id": pl.Int64, "taken_at": pl.Datetime("us", "UTC")},
    )


def test_a_day_is_a_rate_per_covered_hour_not_per_24_hours() -> None:
    """A snapshot a day with a feed of 50 events: each day's stored events span ~3 hours, the rest of the
    day is a recorded gap; the rate is 50 / 3 per hour (the issue's "~2 events/hour" divided by 24)."""
    times, spans = [], []
    for day in range(20):
        start = T0 + dt.timedelta(days=day, hours=20)
        times += [start + dt.timedelta(minutes=3.6 * i) for i in range(50)]  # 50 events over 3 hours
        if day:
            spans.append((T0 + dt.timedelta(days=day - 1, hours=23), start))
    snapshots = _snapshots([T0 + dt.timedelta(days=day, hours=23) for day in range(20)])
    events = _events(times, ["vote_cast"] * len(times))
    out = an.activity_timeline(events, gaps=_gaps(*spans), snapshots=snapshots, max_buckets=100)
    assert set(out["bucket_hours"]) == {24.0} and out.height == 20
    assert out["covered_hours"].to_list() == [3.0] * 20
    assert out["events_per_hour"].to_list() == [50 / 3] * 20


def test_a_gap_inside_an_hour_and_the_newest_snapshot_bound_the_covered_part() -> None:
    times = [T0 + dt.timedelta(minutes=m) for m in (0, 10, 50, 70)]
    out = an.activity_timeline(
        _events(times, ["a"] * 4),
        gaps=_gaps((T0 + dt.timedelta(minutes=15), T0 + dt.timedelta(minutes=45)), snapshot_id=2),
        snapshots=_snapshots([T0 + dt.timedelta(minutes=m) for m in (12, 90)]),
    )
    assert out.select("start", "events", "covered_hours").rows() == [
        (T0, 3, 0.5),
        (T0 + dt.timedelta(hours=1), 1, 0.5),
    ]
    assert out["events_per_hour"].to_list() == [6.0, 2.0]


def test_no_events_give_an_empty_frame() -> None:
    assert an.activity_timeline(_events([], [])).schema == pl.Schema(TIMELINE_SCHEMA)


def test_the_stored_feed_is_counted_and_a_store_without_one_gives_nothing(
    store_db: Path, evidence_store_db: Path
) -> None:
    assert an.activity_timeline(an.load(store_db).activity).is_empty()
    events = an.load(evidence_store_db).activity.collect()
    out = an.activity_timeline(events)
    assert events.height > 400 and out["events"].sum() == events.height
