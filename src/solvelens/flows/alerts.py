"""Alerts after a snapshot, as the flows run them: the check (:mod:`solvelens.alerts.check`), a Prefect
event per alert, the markdown of the diff and the alerts for the run's artifact, and ``schedule``'s
staleness watch.

- :func:`alerts_after_snapshot` runs after every complete snapshot (the in-process run and the Prefect
  flow): never for a ``backfill`` snapshot; the rules come from the plan (``alerts``, ``alerts_file``), the
  notification URLs from the rules file and ``SOLVELENS_NOTIFY`` at run time (never a flow parameter).
  Nothing it does fails or undoes the snapshot: a failure is one warning line in the summary.
- Events: ``solvelens.alert.<kind>`` with the platform as the resource (``solvelens.platform.<id>``) and the
  bot (``solvelens.bot.<id>``) or problem (``solvelens.problem.<id>``) as the related resource, the alert
  as payload; sent when a Prefect API is configured or inside a flow run (never starting a temporary
  server for them).
- :class:`StaleWatch`: ``schedule``'s check of the ``stale > H hours`` rules between snapshots.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from solvelens.flows.preflight import prefect_api_url

if TYPE_CHECKING:
    from solvelens.alerts import Alert, AlertConfig
    from solvelens.alerts.check import AlertOutcome
    from solvelens.analysis.diff import SnapshotDiff

__all__ = [
    "AlertPlan",
    "StaleWatch",
    "alerts_after_snapshot",
    "alerts_markdown",
    "emit_alert_events",
    "event_of",
    "import_check_early",
]

#: Rows of each diff frame shown in the artifact (the rest is counted).
ARTIFACT_ROWS = 10


class AlertPlan(Protocol):
    """What the alert check reads of a run's plan (:class:`solvelens.flows.plan.SnapshotPlan` has these
    fields; this module does not import it, so the steps may import this module and no cycle forms):
    ``db_path`` (the store), ``alerts`` (``--alert`` rules or ``None``), ``alerts_file`` (a rules file's path
    or ``None``), ``backfill`` (never alerts), ``lock_timeout_s`` (seconds to wait for the store lock)."""

    @property
    def db_path(self) -> str: ...
    @property
    def alerts(self) -> list[str] | None: ...
    @property
    def alerts_file(self) -> str | None: ...
    @property
    def backfill(self) -> bool: ...
    @property
    def lock_timeout_s(self) -> float: ...


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"[:300]


def event_of(alert: Alert) -> dict[str, Any]:
    """The Prefect event of ``alert`` as keyword arguments of ``prefect.events.emit_event``: ``event``
    (``solvelens.alert.<kind>``), ``resource`` (the platform), ``related`` (the bot or problem; none for a
    platform-wide alert such as staleness) and ``payload`` (:meth:`Alert.as_dict`)."""
    related = []
    if alert.subject_type != "platform":
        related.append(
            {
                "prefect.resource.id": f"solvelens.{alert.subject_type}.{alert.subject_id}",
                "prefect.resource.role": alert.subject_type,
                "prefect.resource.name": alert.subject_name or alert.subject_id,
            }
        )
    return {
        "event": f"solvelens.alert.{alert.kind}",
        "resource": {
            "prefect.resource.id": f"solvelens.platform.{alert.platform}",
            "prefect.resource.name": alert.platform,
        },
        "related": related,
        "payload": alert.as_dict(),
    }


def _in_flow_run() -> bool:
    from prefect.context import FlowRunContext

    return FlowRunContext.get() is not None


def emit_alert_events(alerts: list[Alert], *, flush: bool = True) -> str | None:
    """Send one Prefect event per alert (:func:`event_of`) when a Prefect API is configured or a flow run is
    in progress; returns a warning line when they could not be sent, else ``None``. ``flush``: outside a
    flow run, wait until they are sent (a CLI process may exit right after; a long-lived one passes
    ``False``)."""
    if not alerts:
        return None
    in_flow = _in_flow_run()
    if not in_flow and prefect_api_url() is None:
        return None
    try:
        from prefect.events import emit_event
        from prefect.events.worker import EventsWorker

        for alert in alerts:
            emit_event(**event_of(alert))
        if flush and not in_flow:
            EventsWorker.drain_all(timeout=10.0)
    except Exception as exc:
        return f"Prefect events for {len(alerts)} alerts not sent ({_first_line(exc)})"
    return None


def _will_check(plan: AlertPlan, want_diff: bool) -> bool:
    """Whether :func:`alerts_after_snapshot` may evaluate anything (so imports the check)."""
    return not plan.backfill and bool(plan.alerts or plan.alerts_file or want_diff)


def _import_check() -> None:
    # A failure here is left for alerts_after_snapshot, which imports again and reports it.
    with contextlib.suppress(Exception):
        import solvelens.alerts.check  # noqa: F401


def import_check_early(plan: AlertPlan, *, want_diff: bool = False) -> threading.Thread | None:
    """Start importing the alert check (:mod:`solvelens.alerts.check`: polars and
    :mod:`solvelens.analysis`, 0.2-0.3 s of CPU) in a daemon thread when :func:`alerts_after_snapshot` (same
    ``plan`` and ``want_diff``) will need it; returns the thread, or ``None`` when nothing will be checked.
    Call it just before the store's write: DuckDB runs the write's statements without holding the GIL, so
    the import overlaps them instead of following them (the write imports no module of its own). An import
    that fails there is left for :func:`alerts_after_snapshot`, which imports again and reports it."""
    if not _will_check(plan, want_diff):
        return None
    thread = threading.Thread(target=_import_check, name="solvelens-import-alert-check", daemon=True)
    thread.start()
    return thread


def _skipped(reason: str) -> dict[str, Any]:
    return {"fired": [], "warnings": [], "notified": 0, "platform": None, "skipped": reason}


@dataclass
class AfterSnapshot:
    """What :func:`alerts_after_snapshot` did: ``summary`` (the run summary's ``alerts`` entry: ``fired``
    alert dicts, ``warnings``, ``notified``, ``platform``, and ``skipped`` when not evaluated) and
    ``outcome`` (with the diff, for the artifact; ``None`` when skipped or failed)."""

    summary: dict[str, Any]
    outcome: AlertOutcome | None = None
    alerts: list[Alert] = field(default_factory=list)


def alerts_after_snapshot(plan: AlertPlan, snapshot_id: int, *, want_diff: bool = False) -> AfterSnapshot:
    """Evaluate the plan's alert rules after the complete snapshot ``snapshot_id``, store their state, send
    notifications and Prefect events (see the module docstring). ``want_diff``: read the diff even without
    rules (for the flow's artifact). Never raises (but ``KeyboardInterrupt``): failures are warning lines."""
    if plan.backfill:
        return AfterSnapshot(_skipped("a backfilled snapshot never fires alerts"))
    if not _will_check(plan, want_diff):  # nothing to do: not even the imports
        return AfterSnapshot(_skipped("no alert rules"))
    from solvelens.alerts import alert_config
    from solvelens.alerts.check import check_snapshot

    try:
        config = alert_config(plan.alerts or [], plan.alerts_file)
        if not config and not want_diff:
            return AfterSnapshot(_skipped("no alert rules"))
        outcome = check_snapshot(plan.db_path, snapshot_id, config, lock_timeout_s=plan.lock_timeout_s)
    except Exception as exc:
        summary = _skipped("failed")
        summary["warnings"] = [f"alerts not evaluated ({_first_line(exc)}); the snapshot is complete"]
        return AfterSnapshot(summary)
    warning = emit_alert_events(outcome.alerts)
    if warning:
        outcome.warnings.append(warning)
    summary = outcome.as_dict()
    if not config:
        summary["skipped"] = "no alert rules"
    return AfterSnapshot(summary, outcome, outcome.alerts)


def _table(frame: Any, limit: int = ARTIFACT_ROWS) -> list[str]:
    columns = list(frame.columns)
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for row in frame.head(limit).iter_rows():
        lines.append("| " + " | ".join("" if v is None else str(v).replace("|", "\\|") for v in row) + " |")
    if frame.height > limit:
        lines.append(f"\n... and {frame.height - limit} more")
    return lines


def diff_markdown(diff: SnapshotDiff | None) -> list[str]:
    """The diff as markdown lines: one heading and table per non-empty change frame (first
    :data:`ARTIFACT_ROWS` rows)."""
    from solvelens.analysis.diff import FRAMES

    if diff is None:
        return ["First snapshot of this platform: nothing to compare with."]
    lines = [f"Snapshot {diff.a.describe()} -> {diff.b.describe()} of {diff.platform_label}.", ""]
    if diff.is_empty():
        return [*lines, "Nothing changed."]
    for name, frame in diff.frames().items():
        if frame.height:
            heading = FRAMES[name].replace("top N", f"top {diff.top_n}")
            lines += [f"### {heading} ({diff.counts()[name]})", "", *_table(frame), ""]
    return lines


def alerts_markdown(after: AfterSnapshot) -> str:
    """The artifact's part on this snapshot: "What changed" (the diff) and "Alerts" (fired, warnings)."""
    lines = ["", "## What changed", ""]
    outcome = after.outcome
    lines += (
        diff_markdown(outcome.diff) if outcome is not None else ["Not computed (see the warnings below)."]
    )
    lines += ["", "## Alerts", ""]
    if after.summary.get("skipped") and not after.alerts:
        lines.append(f"Not evaluated: {after.summary['skipped']}.")
    fired = after.summary.get("fired", [])
    lines += [f"- **{a['rule']}**: {a['message']}" for a in fired]
    if not fired and not after.summary.get("skipped"):
        lines.append("No alert fired.")
    lines += [f"- warning: {w}" for w in after.summary.get("warnings", [])]
    return "\n".join(lines) + "\n"


class StaleWatch:
    """``schedule``'s check of the ``stale > H hours`` rules between snapshots: :meth:`tick` every
    ``every_s`` seconds (default: a quarter of the smallest H, between 1 and 60 s; a busy store is tried at
    the next tick). A fresh snapshot re-arms a rule that fired. The clock of a store without snapshots starts
    when the watch is made. Prints one line per alert and per warning."""

    def __init__(
        self, db_path: str, base_url: str, config: AlertConfig, *, every_s: float | None = None
    ) -> None:
        self.db_path = db_path
        self.base_url = base_url
        self.config = config
        smallest = min((r.hours or 1.0 for r in config.stale_rules), default=1.0)
        self.every_s = every_s if every_s is not None else min(60.0, max(1.0, smallest * 3600 / 4))
        self.started = dt.datetime.now(dt.UTC)

    def __bool__(self) -> bool:
        return bool(self.config.stale_rules)

    def tick(self, now: dt.datetime | None = None) -> list[str]:
        """Check once; returns (and prints) the lines: one per alert fired, one per warning."""
        from solvelens.alerts import alert_line
        from solvelens.alerts.check import check_stale

        try:
            outcome = check_stale(
                self.db_path, self.base_url, self.config, watching_since=self.started, now=now
            )
        except Exception as exc:
            lines = [f"warning: staleness not checked ({_first_line(exc)}); retried in {self.every_s:.0f} s"]
        else:
            warning = emit_alert_events(outcome.alerts, flush=False)
            lines = [alert_line(a) for a in outcome.alerts]
            lines += [f"warning: {w}" for w in [*outcome.warnings, *([warning] if warning else [])]]
        for line in lines:
            print(line, flush=True)
        return lines


def notify_env(urls: list[str] | tuple[str, ...]) -> dict[str, str]:
    """The environment entry carrying ``urls`` to the run (``SOLVELENS_NOTIFY``, whitespace-separated): how
    ``--notify`` reaches the flow without being a parameter; ``{}`` for none."""
    from solvelens.alerts import NOTIFY_ENV

    return {NOTIFY_ENV: " ".join(urls)} if urls else {}
