"""Naming a snapshot: by its id, by a time, or by a duration before another snapshot (``solvelens diff A B``).

- an id (``12``): that complete snapshot;
- a time (``2026-01-05T06:00Z``, ``2026-01-05 06:00``; naive means UTC): the newest snapshot of the platform
  taken at or before it; a date alone (``2026-01-05``) means the end of that UTC day;
- a duration (``7d``, ``12h``, ``30m``, ``2w``): the newest snapshot taken at least that long before the other
  snapshot of the pair (the report's "7 days" baseline is ``7d`` before the newest).

Anything that names no snapshot is a :class:`SnapshotSelectionError` (bad input, exit 2) naming the fix.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import NamedTuple

import polars as pl

from solvelens.analysis.timescale import format_time
from solvelens.store.errors import StoreInputError

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(w|d|h|m|min)\s*$", re.IGNORECASE)
_SECONDS = {"w": 7 * 86400.0, "d": 86400.0, "h": 3600.0, "m": 60.0, "min": 60.0}
_DATE_ONLY = re.compile(r"^\d{4}-\d{2}-\d{2}$")


class SnapshotSelectionError(StoreInputError):
    """A snapshot named on the command line (or by a caller) names no usable snapshot: an unknown id, a
    time before the first snapshot, a store with fewer than two snapshots; the message names the fix."""


class SnapshotRef(NamedTuple):
    """One snapshot of a pair: ``snapshot_id`` and ``taken_at`` (UTC)."""

    snapshot_id: int
    taken_at: dt.datetime

    def describe(self) -> str:
        """``#12 (2026-01-05 06:00 UTC)``."""
        return f"#{self.snapshot_id} ({format_time(self.taken_at)})"


def parse_duration(text: str) -> dt.timedelta | None:
    """``7d`` -> 7 days (units w, d, h, m/min); ``None`` when ``text`` is not a duration."""
    match = _DURATION.match(text)
    if not match:
        return None
    return dt.timedelta(seconds=float(match.group(1)) * _SECONDS[match.group(2).lower()])


def parse_time(text: str) -> dt.datetime | None:
    """An ISO-8601 time (``Z`` or an offset; naive = UTC) or a date (= the end of that UTC day), in UTC;
    ``None`` when ``text`` is neither."""
    value = text.strip()
    try:
        if _DATE_ONLY.match(value):
            day = dt.date.fromisoformat(value)
            return dt.datetime.combine(day, dt.time.max, tzinfo=dt.UTC)
        when = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return (when if when.tzinfo else when.replace(tzinfo=dt.UTC)).astimezone(dt.UTC)


def ref_of(snapshots: pl.DataFrame, snapshot_id: int) -> SnapshotRef:
    """The :class:`SnapshotRef` of ``snapshot_id`` in ``snapshots`` (snapshot_id, taken_at)."""
    row = snapshots.filter(pl.col("snapshot_id") == snapshot_id).row(0, named=True)
    return SnapshotRef(int(row["snapshot_id"]), row["taken_at"])


def at_or_before(snapshots: pl.DataFrame, when: dt.datetime, what: str) -> SnapshotRef:
    """The newest of ``snapshots`` (one platform, sorted by taken_at) taken at or before ``when``; raises
    :class:`SnapshotSelectionError` naming the first snapshot when there is none. ``what`` is how the
    message names the request (``"2026-01-05"``, ``"7d before #12"``)."""
    earlier = snapshots.filter(pl.col("taken_at") <= when)
    if earlier.is_empty():
        first = ref_of(snapshots, int(snapshots["snapshot_id"][0]))
        raise SnapshotSelectionError(
            f"no snapshot at or before {what} ({format_time(when)}): the platform's first snapshot is "
            f"{first.describe()}; name a later time or a snapshot id (`solvelens db snapshots`)"
        )
    return ref_of(earlier, int(earlier["snapshot_id"][-1]))


def is_id(spec: object) -> bool:
    """Whether ``spec`` names a snapshot by id (an int or a string of digits)."""
    return isinstance(spec, int) or (isinstance(spec, str) and spec.strip().isdigit())


def resolve(
    spec: int | str | dt.datetime,
    snapshots: pl.DataFrame,
    *,
    other: SnapshotRef | None = None,
) -> SnapshotRef:
    """The snapshot ``spec`` names among ``snapshots`` (one platform's complete snapshots, sorted by
    taken_at): an id, a time or a duration before ``other`` (see the module docstring). Raises
    :class:`SnapshotSelectionError` with the fix."""
    if isinstance(spec, dt.datetime):
        when = spec if spec.tzinfo else spec.replace(tzinfo=dt.UTC)
        return at_or_before(snapshots, when.astimezone(dt.UTC), format_time(when))
    if is_id(spec):
        sid = int(spec)
        if sid not in snapshots["snapshot_id"].to_list():
            raise SnapshotSelectionError(
                f"no complete snapshot #{sid} of this platform: list them with `solvelens db snapshots`, "
                "or name a time (2026-01-05T06:00Z) or a duration (7d)"
            )
        return ref_of(snapshots, sid)
    text = str(spec)
    duration = parse_duration(text)
    if duration is not None:
        base = other or ref_of(snapshots, int(snapshots["snapshot_id"][-1]))
        return at_or_before(snapshots, base.taken_at - duration, f"{text} before {base.describe()}")
    parsed = parse_time(text)
    if parsed is None:
        raise SnapshotSelectionError(
            f"{text!r} names no snapshot: give a snapshot id (12), a time (2026-01-05T06:00Z, a date means "
            "the end of that UTC day) or a duration before the other snapshot (7d, 12h)"
        )
    return at_or_before(snapshots, parsed, text)
