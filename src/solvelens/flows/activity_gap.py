"""Did the activity history miss events? Pure functions over one fetched ``/activity`` page (no I/O).

``GET /activity`` holds only the platform's latest events (50 at most on the real platform, newest first,
no paging): whatever happened before is gone unless a snapshot kept it. Each snapshot stores the events it
has not seen before; between two snapshots the history is complete when the feed still reaches back to the
newest event stored before (:func:`find_gap`). When it does not, the events between that event and the
oldest one fetched may be lost: the gap is recorded (``activity_gaps``) with the rate the page shows
(:func:`events_per_hour`) and the cadence that would have caught them (:func:`suggested_interval_s`).

Times are the events' ``createdAt`` (platform time: simulated on the sandbox); rates are events per hour of
that time, intervals seconds of it.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from solvelens.ratespan import MIN_RATE_SPAN

__all__ = [
    "SAFETY_FACTOR",
    "ActivityGap",
    "StoredEvent",
    "events_per_hour",
    "find_gap",
    "gap_sentence",
    "page_interval_s",
    "page_span_s",
    "suggested_interval_s",
]

#: A snapshot should come around before the feed has turned over halfway (bursts happen).
SAFETY_FACTOR = 0.5


@dataclass(frozen=True)
class StoredEvent:
    """The newest event the store held before this snapshot: its id (text) and ``createdAt`` (ISO UTC or
    ``None``)."""

    event_id: str
    created_at: str | None


@dataclass(frozen=True)
class ActivityGap:
    """Events missed between two snapshots: every event after ``newest_stored_event_id`` (created at
    ``gap_from``) and before ``oldest_fetched_event_id`` (created at ``gap_to``) may be lost.
    ``events_per_hour``: the rate the fetched page shows (``None`` when it cannot tell);
    ``suggested_interval_s``: a snapshot at least this often (seconds) would have caught them; ``window``:
    how many events the feed holds (the page fetched, all newer than the stored history)."""

    newest_stored_event_id: str
    oldest_fetched_event_id: str
    gap_from: str | None
    gap_to: str | None
    events_per_hour: float | None
    suggested_interval_s: float | None
    window: int

    def as_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict of every field."""
        return asdict(self)


def _when(value: Any) -> dt.datetime | None:
    if not isinstance(value, str):
        return None
    try:
        parsed = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=dt.UTC)


def page_span_s(events: Sequence[dict[str, Any]]) -> float | None:
    """Seconds of platform time between one page's oldest and newest ``createdAt``; ``None`` for fewer
    than two dated events."""
    times = [t for t in (_when(e.get("createdAt")) for e in events) if t is not None]
    if len(times) < 2:
        return None
    return (max(times) - min(times)).total_seconds()


def _dated(events: Sequence[dict[str, Any]]) -> int:
    return sum(1 for e in events if _when(e.get("createdAt")) is not None)


def events_per_hour(events: Sequence[dict[str, Any]]) -> float | None:
    """Events per hour over one page (``n - 1`` intervals between its newest and oldest ``createdAt``);
    ``None`` for fewer than two dated events or a span under :data:`solvelens.ratespan.MIN_RATE_SPAN` (a burst
    of seconds is too short to rate, never extrapolated to an hour)."""
    span_s = page_span_s(events)
    if span_s is None or span_s < MIN_RATE_SPAN.total_seconds():
        return None
    return (_dated(events) - 1) / (span_s / 3600)


def suggested_interval_s(rate_per_hour: float | None, page_size: int) -> float | None:
    """How often (seconds) to snapshot so that the feed's ``page_size`` events never turn over between two
    snapshots: :data:`SAFETY_FACTOR` x the time the feed takes to fill at ``rate_per_hour``."""
    if not rate_per_hour or rate_per_hour <= 0:
        return None
    return SAFETY_FACTOR * page_size / rate_per_hour * 3600


def page_interval_s(events: Sequence[dict[str, Any]]) -> float | None:
    """:func:`suggested_interval_s` from the page's own span (the time its ``n - 1`` intervals took), so a
    burst too short to rate still tells how often to snapshot (seconds); ``None`` when the page has no
    span."""
    span_s = page_span_s(events)
    if not span_s:
        return None
    return SAFETY_FACTOR * len(events) * span_s / (_dated(events) - 1)


def _after(event: dict[str, Any], stored: StoredEvent) -> bool:
    """Whether ``event`` is newer than the stored one: by serial id when both are integers, else by time;
    unknown counts as newer (never read "cannot tell" as "nothing missed")."""
    ident, other = str(event.get("id")), stored.event_id
    if ident.isdigit() and other.isdigit():
        return int(ident) > int(other)
    when, then = _when(event.get("createdAt")), _when(stored.created_at)
    return when is None or then is None or when > then


def find_gap(events: Sequence[dict[str, Any]], newest_stored: StoredEvent | None) -> ActivityGap | None:
    """The gap between the stored history and a fetched page (newest first), or ``None``.

    No gap when nothing was stored before (the history starts here), when the page is empty, or when the
    page still holds the newest stored event. A gap when it does not and every fetched event is newer than
    it (the feed moved past it: events in between may be lost). When the page reaches back beyond it
    without holding it, the feed dropped that event (deleted or reset): no events were missed by our
    cadence, so no gap (the caller warns). The suggested cadence is for the feed's window as it answered
    (its page: the real platform's 50, or fewer where a platform serves less than asked)."""
    if newest_stored is None or not events:
        return None
    if any(str(e.get("id")) == newest_stored.event_id for e in events):
        return None
    if not all(_after(e, newest_stored) for e in events):
        return None
    oldest = min(events, key=lambda e: _when(e.get("createdAt")) or dt.datetime.max.replace(tzinfo=dt.UTC))
    numeric = [e for e in events if str(e.get("id")).isdigit()]
    if len(numeric) == len(events):
        oldest = min(events, key=lambda e: int(str(e.get("id"))))
    rate = events_per_hour(events)
    interval = page_interval_s(events)
    return ActivityGap(
        newest_stored_event_id=newest_stored.event_id,
        oldest_fetched_event_id=str(oldest.get("id")),
        gap_from=newest_stored.created_at,
        gap_to=oldest.get("createdAt") if isinstance(oldest.get("createdAt"), str) else None,
        events_per_hour=rate,
        suggested_interval_s=interval,
        window=len(events),
    )


def _duration(seconds: float) -> str:
    if seconds >= 2 * 86400:
        return f"{seconds / 86400:.1f} days"
    if seconds >= 2 * 3600:
        return f"{seconds / 3600:.1f} hours"
    if seconds >= 120:
        return f"{seconds / 60:.0f} minutes"
    return f"{seconds:.0f} seconds"


def gap_sentence(gap: dict[str, Any] | ActivityGap) -> str:
    """One line for a person: which events may be lost and which cadence would have caught them (``gap``:
    an :class:`ActivityGap` or its :meth:`~ActivityGap.as_dict`)."""
    g = gap.as_dict() if isinstance(gap, ActivityGap) else gap
    page_size = g.get("window", "")
    since, until = g["gap_from"] or "time unknown", g["gap_to"] or "time unknown"
    line = (
        f"activity: events missed between event {g['newest_stored_event_id']} ({since}) and event "
        f"{g['oldest_fetched_event_id']} ({until}): the feed's {page_size} newest events no longer reach the "
        "last one stored"
    )
    rate, interval = g.get("events_per_hour"), g.get("suggested_interval_s")
    if rate and interval:
        line += (
            f"; at the measured {rate:,.1f} events/hour (platform time) a snapshot at least every "
            f"{_duration(interval)} would have caught them"
        )
    elif interval:  # a burst too short to rate: the page's own span still gives the cadence
        line += (
            f"; the page's events span too little platform time to rate, a snapshot at least every "
            f"{_duration(interval)} would have caught them"
        )
    return line
