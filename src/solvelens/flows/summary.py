"""A snapshot run's summary, typed: :class:`SnapshotSummary`, built once by
:func:`solvelens.flows.steps.summarise` and rendered by ``solvelens snapshot`` (terminal) and the flow's
markdown artifact (:func:`solvelens.flows.snapshot.summary_markdown`), and read back from the store's snapshot
log by ``solvelens db snapshots`` (:meth:`SnapshotSummary.from_log_row`).

What changed since the previous snapshot is not part of it: that is :func:`solvelens.analysis.diff`, the
one definition (the artifact's "What changed", ``solvelens diff``, the report and the alerts).
The run functions (:func:`solvelens.flows.steps.run_snapshot`, :func:`solvelens.flows.snapshot.snapshot_flow`)
return the dataclass; :meth:`SnapshotSummary.as_dict` is its JSON form and :meth:`SnapshotSummary.from_dict`
reads that back.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from solvelens.resources import RESOURCES

__all__ = ["LOG_FIELDS", "LOG_MODE", "SnapshotSummary"]

#: ``mode`` of a summary read back from the store's snapshot log (:meth:`SnapshotSummary.from_log_row`).
LOG_MODE = "log"
#: The fields the snapshot log keeps (``db snapshots --json``: :meth:`SnapshotSummary.log_record`).
LOG_FIELDS: tuple[str, ...] = (
    "snapshot_id",
    "taken_at",
    "base_url",
    "status",
    "started_at",
    "finished_at",
    "duration_s",
    "counts",
    "warnings",
    "drift",
)


def _iso(value: Any) -> str | None:
    """A log time (``datetime``, UTC) as ISO-8601 with ``Z``; ``None`` stays ``None``."""
    if value is None or isinstance(value, str):
        return value
    return str(value.isoformat()).replace("+00:00", "Z")


def _json(value: Any, empty: Any) -> Any:
    """A log JSON column's value parsed (``empty`` when NULL)."""
    if value is None or value == "":
        return empty
    return json.loads(value) if isinstance(value, str) else value


@dataclass
class SnapshotSummary:
    """One snapshot run.

    - ``snapshot_id``; ``taken_at`` (ISO-8601 UTC: the platform's time when it declares a simulated clock);
      ``base_url``;
    - ``counts``: rows per public view for this snapshot; ``new_versions``: record versions stored new, per
      resource;
    - ``duration_s`` (seconds, the whole run), ``write_s`` (seconds the store file was held), ``file_bytes``
      (the store's size after the write);
    - ``warnings`` (one line each), ``drift`` (entries of :mod:`solvelens.store.drift`: resource, field,
      change, type, previous_types);
    - ``fetch``: each fetch step's info by step name (e.g. ``problems``: refetched, carried_over;
      ``carryover``: stale_lists, rotation_lists, renamed_bots, requests); ``resources``: each optional
      resource's status (stored, unchanged, not offered, not requested);
    - ``mode``: ``plain`` (in-process) or ``prefect``; ``flow_run``: ``{"id", "name"}`` of the Prefect run
      (empty in-process); ``alerts``: :func:`solvelens.flows.alerts.alerts_after_snapshot`'s summary
      (``fired``: [{rule, message, ...}], ``warnings``, ``skipped``), empty until evaluated;
    - ``data_quality``: the snapshot's rows of the ``data_quality`` view (resource, scope, announced,
      stored, reason) and ``vote_coverage`` (:func:`solvelens.store.quality.vote_coverage`'s row or
      ``None``), read by the writer on its connection right after the commit
      (:func:`solvelens.store.quality.snapshot_quality`);
    - ``status`` (``complete`` for a run's summary), ``started_at``/``finished_at`` (ISO-8601 UTC): set when
      read back from the snapshot log.

    A summary read back from the log (:meth:`from_log_row`, ``mode`` :data:`LOG_MODE`) holds only what the
    log keeps (:data:`LOG_FIELDS`): ``new_versions``, ``fetch``, ``resources`` stay empty and ``write_s``,
    ``file_bytes`` ``None``; ``duration_s`` is ``None`` for a run that never completed.
    """

    snapshot_id: int
    taken_at: str
    base_url: str
    counts: dict[str, int]
    duration_s: float | None
    warnings: list[str]
    drift: list[dict[str, Any]]
    new_versions: dict[str, int] = field(default_factory=dict)
    write_s: float | None = None
    file_bytes: int | None = None
    fetch: dict[str, dict[str, Any]] = field(default_factory=dict)
    resources: dict[str, str] = field(default_factory=dict)
    mode: str = LOG_MODE
    status: str = "complete"
    started_at: str | None = None
    finished_at: str | None = None
    flow_run: dict[str, str] = field(default_factory=dict)
    alerts: dict[str, Any] = field(default_factory=dict)
    data_quality: list[dict[str, Any]] = field(default_factory=list)
    vote_coverage: dict[str, Any] | None = None

    def as_dict(self) -> dict[str, Any]:
        """Every field as plain JSON values (e.g. for ``json.dumps``)."""
        return asdict(self)

    @classmethod
    def from_log_row(cls, row: Mapping[str, Any]) -> SnapshotSummary:
        """The summary of one stored snapshot from a row of the store's snapshot log (as
        :func:`solvelens.store.list_snapshots` returns it: ``taken_at``/``started_at``/``finished_at``
        datetimes (UTC), ``counts``/``warnings``/``drift`` JSON text; other columns ignored). Raises
        ``KeyError`` when ``snapshot_id``, ``taken_at``, ``base_url`` or ``status`` is missing."""
        return cls(
            snapshot_id=int(row["snapshot_id"]),
            taken_at=str(_iso(row["taken_at"])),
            base_url=row["base_url"],
            status=row["status"],
            started_at=_iso(row.get("started_at")),
            finished_at=_iso(row.get("finished_at")),
            duration_s=row.get("duration_s"),
            counts=_json(row.get("counts"), {}),
            warnings=_json(row.get("warnings"), []),
            drift=_json(row.get("drift"), []),
        )

    def log_record(self) -> dict[str, Any]:
        """The fields the snapshot log keeps (:data:`LOG_FIELDS`, in that order) as plain JSON values."""
        return {name: getattr(self, name) for name in LOG_FIELDS}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SnapshotSummary:
        """The summary from :meth:`as_dict`'s form (unknown keys ignored). Raises ``TypeError`` when a
        field without a default is missing."""
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})

    @property
    def fired(self) -> list[dict[str, Any]]:
        """The alerts fired after the snapshot (rule, message, ...)."""
        return list(self.alerts.get("fired", []))

    def carryover_line(self) -> str:
        """One sentence on what an incremental run fetched and what it carried over from the last snapshot
        (and of the carried solution lists, how many were re-read and why)."""
        problems = self.fetch.get("problems", {})
        board = self.fetch.get("leaderboard", {})
        check = self.fetch.get("carryover", {})
        reread = check.get("requests", 0)
        return (
            f"Solution lists refetched for {problems.get('refetched', 0):,} problems, carried over for "
            f"{problems.get('carried_over', 0) - reread:,}"
            + (
                f" (of the carried lists {reread:,} re-read: {check.get('stale_lists', 0):,} naming one of "
                f"{check.get('renamed_bots', 0):,} renamed bots, {check.get('rotation_lists', 0):,} in "
                "rotation)"
                if reread
                else ""
            )
            + f"; bot profiles refetched for {board.get('profiles_refetched', 0):,}, carried over for "
            f"{board.get('profiles_carried_over', 0):,}."
        )

    def optional_line(self) -> str:
        """One sentence on the optional resources: what became of each, with the figures of those stored
        (events fetched and new, the feed's rate; comparisons requests; models); ``""`` when none."""
        parts = [
            f"{name} {status}{self._optional_detail(name, status)}" for name, status in self.resources.items()
        ]
        return "Optional resources: " + "; ".join(parts) + "." if parts else ""

    def _optional_detail(self, name: str, status: str) -> str:
        info, counts = self.fetch.get(name, {}), self.counts
        if name == "activity" and status == "stored":
            rate = info.get("events_per_hour")
            detail = f" ({info.get('fetched', 0)} events in the feed, {counts.get('activity', 0)} new"
            return detail + (f"; {rate:,.1f} events/hour)" if rate else ")")
        if name == "comparisons" and status == "unchanged":
            return " (no solution's vote count moved: no request)"
        if name == "comparisons" and status == "stored":
            return (
                f" ({info.get('requested', 0):,} requests for the solutions whose vote count moved, "
                f"{info.get('skipped', 0):,} more covered by those lists; {counts.get('comparisons', 0):,} "
                f"new votes{self._quota_detail(info)})"
            )
        declared = next((r for r in RESOURCES if r.name == name and r.write == "linked"), None)
        if declared is not None and status == "stored":  # an optional list: its records
            return f" ({counts.get(name, 0)} {declared.unit})"
        if status == "not offered" and info.get("absent"):
            return f" ({info['absent']})"
        return ""

    def _quota_detail(self, info: dict[str, Any]) -> str:
        """What an announced quota left the vote lists and what they spent of it (``""``: no quota)."""
        quota = info.get("quota")
        if not quota:
            return ""
        return (
            f"; the platform's quota left {quota['left']:,} requests without waiting, {quota['reserve']:,} "
            f"kept for the next snapshot's interface reads: the vote lists spent "
            f"{info.get('requested', 0):,} of the {quota['room']:,} left to them"
        )

    def quality_lines(self) -> list[str]:
        """The lines on exactness: one per data-quality row whose counts differ (``resource scope: announced
        N, stored M: reason``; the first 20, then how many more) and the vote coverage sentence; ``["data
        quality: every list holds what the platform announced"]`` when nothing differs."""
        from solvelens.store.quality import coverage_line

        rows = [r for r in self.data_quality if r.get("reason")]
        lines = [
            f"data quality: {r['resource']}{' ' + r['scope'] if r['scope'] else ''}: announced "
            f"{r['announced']:,}, stored {r['stored']:,}: {r['reason']}"
            for r in rows[:20]
        ]
        if len(rows) > 20:
            lines.append(f"data quality: {len(rows) - 20} more rows: `solvelens db check` lists them all")
        if not rows and self.data_quality:
            lines.append("data quality: every list holds what the platform announced")
        coverage = coverage_line(self.vote_coverage)
        return [*lines, *([coverage] if coverage else [])]
