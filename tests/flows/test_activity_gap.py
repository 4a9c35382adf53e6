"""Gap detection of the activity history: one fetched page against the newest stored event (pure)."""

from __future__ import annotations

import datetime as dt

import pytest

from solvelens.flows.activity_gap import (
    SAFETY_FACTOR,
    StoredEvent,
    events_per_hour,
    find_gap,
    gap_sentence,
    suggested_interval_s,
)

T0 = dt.datetime(2026, 3, 1, tzinfo=dt.UTC)


def _iso(minutes: float) -> str:
    return (T0 + dt.timedelta(minutes=minutes)).isoformat().replace("+00:00", "Z")


def _page(first: int, last: int, minutes_apart: float = 2.0) -> list[dict[str, object]]:
    """Events ``first..last`` (serial ids, ``minutes_apart`` apart), newest first, as /activity sends."""
    return [
        {"id": i, "action": "vote_cast", "createdAt": _iso(i * minutes_apart)}
        for i in range(last, first - 1, -1)
    ]


def _stored(i: int, minutes_apart: float = 2.0) -> StoredEvent:
    return StoredEvent(str(i), _iso(i * minutes_apart))


def test_no_gap_without_history_or_while_the_feed_still_holds_the_newest_stored_event():
    assert find_gap(_page(1, 50), None) is None  # the history starts here
    assert find_gap([], _stored(7)) is None
    assert find_gap(_page(51, 100), _stored(51)) is None  # the oldest fetched is the one stored last
    assert find_gap(_page(20, 69), _stored(40)) is None


def test_a_feed_that_moved_past_the_newest_stored_event_is_a_gap_with_its_bounds_and_cadence():
    gap = find_gap(_page(101, 150), _stored(60))
    assert gap is not None
    assert (gap.newest_stored_event_id, gap.oldest_fetched_event_id) == ("60", "101")
    assert (gap.gap_from, gap.gap_to) == (_iso(120), _iso(202))
    assert gap.window == 50
    assert gap.events_per_hour == pytest.approx(30.0)  # one event every 2 minutes
    # The feed turns over in 50 / 30 h = 100 minutes; a snapshot every half of that keeps up.
    assert gap.suggested_interval_s == pytest.approx(SAFETY_FACTOR * 100 * 60)
    line = gap_sentence(gap)
    assert "event 60" in line and "event 101" in line and "30.0 events/hour" in line
    assert "every 50 minutes" in line
    assert gap_sentence(gap.as_dict()) == line


def test_a_feed_that_reaches_beyond_the_stored_event_without_it_dropped_it_rather_than_moved_on():
    # Event 40 was deleted (or the feed reset): 20..69 reaches back beyond it, nothing was missed.
    page = [e for e in _page(20, 69) if e["id"] != 40]
    assert find_gap(page, _stored(40)) is None


def test_ids_that_are_not_serial_integers_are_ordered_by_time_and_unknown_counts_as_newer():
    page = [{"id": f"ev-{i}", "createdAt": _iso(i)} for i in range(90, 80, -1)]
    gap = find_gap(page, StoredEvent("ev-10", _iso(10)))
    assert gap is not None and gap.oldest_fetched_event_id == "ev-81"
    assert find_gap(page, StoredEvent("ev-85x", _iso(85.5))) is None  # the page reaches beyond it
    undated = [{"id": "a"}, {"id": "b"}]
    gap = find_gap(undated, StoredEvent("z", None))
    assert gap is not None and gap.events_per_hour is None and gap.suggested_interval_s is None
    assert "would have caught" not in gap_sentence(gap)


def test_rates_and_intervals():
    assert events_per_hour(_page(1, 1)) is None
    assert events_per_hour([{"id": 1, "createdAt": _iso(0)}, {"id": 2, "createdAt": _iso(0)}]) is None
    assert events_per_hour(_page(1, 61, minutes_apart=1)) == pytest.approx(60.0)
    assert suggested_interval_s(None, 50) is None
    assert suggested_interval_s(0.0, 50) is None
    assert suggested_interval_s(100.0, 50) == pytest.approx(SAFETY_FACTOR * 0.5 * 3600)


def test_a_burst_of_seconds_gives_no_rate_and_the_summary_says_too_short_to_rate():
    """Issue 29: a page of 50 events cast within 3 seconds of platform time read "58,198.6 events/hour".
    Below the stated minimum span (:data:`MIN_RATE_SPAN`) there is no rate; the cadence that would have
    caught a gap still follows from the page's span (the feed filled in 3 s)."""
    from solvelens.analysis.timescale import MIN_RATE_SPAN
    from solvelens.flows.figures import ActivityFigures
    from solvelens.flows.summary import SnapshotSummary

    burst = _page(1, 50, minutes_apart=3 / 49 / 60)
    assert events_per_hour(burst) is None
    long_enough = _page(1, 50, minutes_apart=MIN_RATE_SPAN.total_seconds() / 60 / 49)
    assert events_per_hour(long_enough) == pytest.approx(49 / (MIN_RATE_SPAN.total_seconds() / 3600))
    gap = find_gap(burst, _stored(-100))
    assert gap is not None and gap.events_per_hour is None
    assert gap.suggested_interval_s == pytest.approx(SAFETY_FACTOR * 3 * 50 / 49)
    summary = SnapshotSummary(
        snapshot_id=2,
        taken_at=_iso(0),
        base_url="http://127.0.0.1:1/api/v1",
        counts={"activity": 50},
        duration_s=1.0,
        warnings=[],
        drift=[],
        fetch={"activity": ActivityFigures(fetched=50, events_per_hour=events_per_hour(burst), span_s=3.0)},
        resources={"activity": "stored"},
    )
    line = summary.optional_line()
    assert "events/hour" not in line and "too short to rate" in line, line
