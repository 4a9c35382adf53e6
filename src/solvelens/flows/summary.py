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
from typing import Any, TypeVar

from solvelens.flows.figures import (
    ActivityFigures,
    CarryoverFigures,
    ComparisonsFigures,
    LeaderboardFigures,
    OptionalFigures,
    PacingFigures,
    ProblemsFigures,
    figures_of,
)
from solvelens.resources import RESOURCES
from solvelens.store.reports import StepFigures

__all__ = ["LOG_FIELDS", "LOG_MODE", "NEW_ONLY", "SnapshotLogEntry", "SnapshotSummary"]

_F = TypeVar("_F", bound=StepFigures)

#: Resources whose count is the records the snapshot stored first (feed events, votes: each kept once), never
#: a total; a summary shows them apart from the totals ("New in this snapshot (not totals): ...").
NEW_ONLY: tuple[str, ...] = tuple(r.name for r in RESOURCES if r.write == "history")
#: ``mode`` of a summary not made by a run (the default; a run's is ``plain`` or ``prefect``).
LOG_MODE = "log"
#: The fields the snapshot log keeps (``db snapshots --json``: :meth:`SnapshotLogEntry.log_record`).
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
    - ``fetch``: each fetch step's own figures by step name, typed per step kind
      (:mod:`solvelens.flows.figures`: ``problems`` :class:`~solvelens.flows.figures.ProblemsFigures`,
      ``carryover`` :class:`~solvelens.flows.figures.CarryoverFigures`, the pseudo-step ``pacing``
      :class:`~solvelens.flows.figures.PacingFigures`, ...: :data:`solvelens.flows.figures.FIGURES`; typed
      after :meth:`from_dict` too); ``resources``: each optional
      resource's status (stored, unchanged, not offered, not requested);
    - ``mode``: ``plain`` (in-process) or ``prefect``; ``flow_run``: ``{"id", "name"}`` of the Prefect run
      (empty in-process); ``alerts``: :func:`solvelens.flows.alerts.alerts_after_snapshot`'s summary
      (``fired``: [{rule, message, ...}], ``warnings``, ``skipped``), empty until evaluated;
    - ``data_quality``: the snapshot's rows of the ``data_quality`` view (resource, scope, announced,
      stored, reason) and ``vote_coverage`` (:func:`solvelens.store.quality.vote_coverage`'s row or
      ``None``), read by the writer on its connection right after the commit
      (:func:`solvelens.store.quality.snapshot_quality`);
    - ``status`` (``complete`` for a run's summary), ``started_at``/``finished_at`` (ISO-8601 UTC; unset).

    What the store's snapshot log keeps of a run is :class:`SnapshotLogEntry`, not this type.
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
    fetch: dict[str, StepFigures] = field(default_factory=dict)
    resources: dict[str, str] = field(default_factory=dict)
    mode: str = LOG_MODE
    status: str = "complete"
    started_at: str | None = None
    finished_at: str | None = None
    flow_run: dict[str, str] = field(default_factory=dict)
    alerts: dict[str, Any] = field(default_factory=dict)
    data_quality: list[dict[str, Any]] = field(default_factory=list)
    vote_coverage: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        """Raises ``TypeError`` when a ``fetch`` entry is not typed figures (a plain mapping would read as
        the step's defaults: :meth:`from_dict` types the JSON form)."""
        untyped = sorted(step for step, v in self.fetch.items() if not isinstance(v, StepFigures))
        if untyped:
            raise TypeError(
                f"fetch figures of {', '.join(untyped)} are not StepFigures: build them with "
                "solvelens.flows.figures.figures_of, or the summary with SnapshotSummary.from_dict"
            )

    def as_dict(self) -> dict[str, Any]:
        """Every field as plain JSON values (e.g. for ``json.dumps``)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SnapshotSummary:
        """The summary from :meth:`as_dict`'s form, this version's or an older one's (unknown keys ignored);
        ``fetch`` typed per step (:func:`solvelens.flows.figures.figures_of`). Raises ``TypeError`` when a
        field without a default is missing."""
        names = {f.name for f in fields(cls)}
        known = {k: v for k, v in data.items() if k in names}
        known["fetch"] = {step: figures_of(step, v) for step, v in (data.get("fetch") or {}).items()}
        return cls(**known)

    def figures(self, step: str, kind: type[_F]) -> _F:
        """The figures of ``step`` as ``kind`` (:mod:`solvelens.flows.figures`), or ``kind``'s defaults
        when the step did not run or has figures of another kind (an optional list's
        :class:`~solvelens.flows.figures.OptionalFigures` read as the activity's)."""
        given = self.fetch.get(step)
        return given if isinstance(given, kind) else kind()

    @property
    def fired(self) -> list[dict[str, Any]]:
        """The alerts fired after the snapshot (rule, message, ...)."""
        return list(self.alerts.get("fired", []))

    def carryover_line(self) -> str:
        """One sentence on what an incremental run fetched and what it carried over from the last snapshot
        (and of the carried solution lists, how many were re-read and why)."""
        problems = self.figures("problems", ProblemsFigures)
        board = self.figures("leaderboard", LeaderboardFigures)
        check = self.figures("carryover", CarryoverFigures)
        reread = check.requests
        return (
            f"Solution lists refetched for {problems.refetched:,} problems, carried over for "
            f"{problems.carried_over - reread:,}"
            + (
                f" (of the carried lists {reread:,} re-read: {check.stale_lists:,} naming one of "
                f"{check.renamed_bots:,} renamed bots, {check.rotation_lists:,} in rotation)"
                if reread
                else ""
            )
            + f"; bot profiles refetched for {board.profiles_refetched:,}, carried over for "
            f"{board.profiles_carried_over:,}."
        )

    def totals(self) -> dict[str, int]:
        """The counts that are totals at this snapshot (rows per public view), without :data:`NEW_ONLY`."""
        return {k: v for k, v in self.counts.items() if k not in NEW_ONLY}

    def new_records(self) -> dict[str, int]:
        """The counts of the records this snapshot stored first (:data:`NEW_ONLY`: events, votes)."""
        return {k: self.counts[k] for k in NEW_ONLY if k in self.counts}

    def new_line(self) -> str:
        """``New in this snapshot (not totals): activity 12, comparisons 249``; ``""`` when none."""
        new = self.new_records()
        if not new:
            return ""
        return "New in this snapshot (not totals): " + ", ".join(f"{k} {v:,}" for k, v in new.items())

    def optional_line(self) -> str:
        """One sentence on the optional resources: what became of each, with the figures of those stored
        (events fetched and new, the feed's rate; comparisons requests; models); ``""`` when none."""
        parts = [
            f"{name} {status}{self._optional_detail(name, status)}" for name, status in self.resources.items()
        ]
        return "Optional resources: " + "; ".join(parts) + "." if parts else ""

    def _optional_detail(self, name: str, status: str) -> str:
        counts = self.counts
        if name == "activity" and status == "stored":
            feed = self.figures(name, ActivityFigures)
            rate, span_s = feed.events_per_hour, feed.span_s
            detail = f" ({feed.fetched} events in the feed, {counts.get('activity', 0)} new"
            if rate:
                return detail + f"; {rate:,.1f} events/hour)"
            if span_s is not None:  # a page spanning less than MIN_RATE_SPAN of platform time
                return detail + f"; too short to rate: they span {span_s:,.0f} s of platform time)"
            return detail + ")"
        if name == "comparisons" and status == "unchanged":
            return " (no solution's vote count moved: no request)"
        if name == "comparisons" and status == "stored":
            votes = self.figures(name, ComparisonsFigures)
            return (
                f" ({votes.requested:,} requests for the solutions whose vote count moved, "
                f"{votes.skipped:,} more covered by those lists; {counts.get('comparisons', 0):,} "
                f"new votes{_quota_detail(votes)})"
            )
        declared = next((r for r in RESOURCES if r.name == name and r.write == "linked"), None)
        if declared is not None and status == "stored":  # an optional list: its records
            return f" ({counts.get(name, 0)} {declared.unit})"
        absent = self.figures(name, OptionalFigures).absent
        if status == "not offered" and absent:
            return f" ({absent})"
        return ""

    def pacing_line(self) -> str:
        """One sentence when requests waited for the platform's quota (or it answered 429), per kind:
        ``Requests held for the platform's quota: 812 of the 2,300 interface requests (34.2 s in all); none
        of the 1,108 optional requests.`` (the pseudo-step ``pacing``:
        :func:`solvelens.flows.steps.pacing_report`); ``""`` when nothing waited."""
        pacing = self.figures("pacing", PacingFigures)
        kinds = pacing.kinds()
        limited = pacing.rate_limited
        if not limited and not any(v.held for v in kinds.values()):
            return ""
        parts = []
        for kind, v in kinds.items():
            if v.held:
                parts.append(f"{v.held:,} of the {v.requests:,} {kind} requests ({v.waited_s:,.1f} s in all)")
            else:
                parts.append(f"none of the {v.requests:,} {kind} requests")
        plural = "" if limited == 1 else "s"
        answered = f"; the platform answered 429 to {limited:,} request{plural}" if limited else ""
        return "Requests held for the platform's quota: " + "; ".join(parts) + answered + "."

    def quality_lines(self) -> list[str]:
        """The lines on exactness, a few whatever the snapshot: per resource and reason, one line (``resource
        scope: announced N, stored M: reason`` for a single list; for several, how many lists and their
        totals, never their ids: `solvelens db check` lists them); then the vote coverage sentence, once,
        with the count of solutions whose votes the platform caps (the whole vote list's own data-quality
        row says the same and is left out); ``["data quality: every list holds what the platform
        announced"]`` when nothing differs."""
        from solvelens.store.quality import coverage_line

        coverage = coverage_line(self.vote_coverage)
        flagged = [r for r in self.data_quality if r.get("reason")]
        votes = [r for r in flagged if coverage and _is_vote_row(r)]
        groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
        for r in flagged:
            if not any(r is v for v in votes):
                groups.setdefault((r["resource"], r["reason"]), []).append(r)
        lines = [_group_line(resource, reason, group) for (resource, reason), group in groups.items()]
        if self.data_quality and not flagged:
            lines.append("data quality: every list holds what the platform announced")
        capped = sum(1 for r in votes if r["resource"] == "comparisons" and r["scope"])
        if capped:
            many = "solutions have" if capped > 1 else "solution has"
            coverage += (
                f"; {capped:,} {many} more votes than the platform serves (`solvelens db check` lists them)"
            )
        return [*lines, *([coverage] if coverage else [])]


@dataclass(frozen=True)
class SnapshotLogEntry:
    """One row of the store's snapshot log, as ``solvelens db snapshots`` shows it (:data:`LOG_FIELDS`):
    ``snapshot_id``; ``taken_at``, ``started_at``, ``finished_at`` (ISO-8601 UTC; the last two ``None`` when
    unknown); ``base_url``; ``status`` (``complete``, or ``writing`` for a run that never completed);
    ``duration_s`` (seconds, ``None`` for a run that never completed); ``counts`` (rows per view),
    ``warnings``, ``drift``."""

    snapshot_id: int
    taken_at: str
    base_url: str
    status: str
    started_at: str | None
    finished_at: str | None
    duration_s: float | None
    counts: dict[str, int]
    warnings: list[str]
    drift: list[dict[str, Any]]

    @classmethod
    def from_log_row(cls, row: Mapping[str, Any]) -> SnapshotLogEntry:
        """The entry of one row of the store's snapshot log (as :func:`solvelens.store.list_snapshots`
        returns it: ``taken_at``/``started_at``/``finished_at`` datetimes (UTC), ``counts``/``warnings``/
        ``drift`` JSON text; other columns ignored). Raises ``KeyError`` when ``snapshot_id``, ``taken_at``,
        ``base_url`` or ``status`` is missing."""
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


def _quota_detail(votes: ComparisonsFigures) -> str:
    """What an announced quota left the vote lists and what they spent of it (``""``: no quota)."""
    quota = votes.quota
    if quota is None:
        return ""
    return (
        f"; the platform's quota left {quota.left:,} requests without waiting, {quota.reserve:,} "
        f"kept for the next snapshot's interface reads: the vote lists spent "
        f"{votes.requested:,} of the {quota.room:,} left to them"
    )


def _is_vote_row(row: dict[str, Any]) -> bool:
    """A data-quality row the vote coverage sentence says already: a solution's capped vote list, or the
    whole vote list (``comparisons`` without scope, or the ``/stats`` total of votes)."""
    return row["resource"] == "comparisons" or (
        row["resource"] == "platform_stats" and row["scope"] == "totalComparisons"
    )


def _group_line(resource: str, reason: str, group: list[dict[str, Any]]) -> str:
    """One summary line for the data-quality rows of one resource and reason: the list itself when it is
    one, else how many lists and their totals (`solvelens db check` lists them)."""
    if len(group) == 1:
        r = group[0]
        where = f"{resource} {r['scope']}" if r["scope"] else resource
        return f"data quality: {where}: announced {r['announced']:,}, stored {r['stored']:,}: {reason}"
    announced, stored = sum(r["announced"] for r in group), sum(r["stored"] for r in group)
    return (
        f"data quality: {resource}: {len(group):,} lists hold fewer than announced ({announced:,} announced, "
        f"{stored:,} stored): {reason} (`solvelens db check` lists them)"
    )
