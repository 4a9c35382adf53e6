"""One alert check, start to end: read the facts, evaluate the rules against the stored state and store the
new state in one locked transaction, then send the notifications.

:func:`check_snapshot` runs after a complete snapshot (never for a ``--backfill`` one: the caller skips it),
:func:`check_stale` from ``schedule`` between snapshots. Both return an :class:`AlertOutcome`; a notification
that cannot be delivered is a warning line in it, never an exception. The state is written before anything is
sent, so an alert fires once even when its delivery fails.
"""

from __future__ import annotations

import datetime as dt
import os
from dataclasses import dataclass, field
from typing import Any

from solvelens.alerts.config import AlertConfig
from solvelens.alerts.deliver import Notifier
from solvelens.alerts.evaluate import Alert, Evaluation, Facts, StateRow, evaluate
from solvelens.alerts.facts import snapshot_facts, stale_facts
from solvelens.alerts.rules import Rule
from solvelens.analysis.diff import SnapshotDiff
from solvelens.store.alerts import update_alert_state

__all__ = ["AlertOutcome", "check_snapshot", "check_stale", "commit"]


@dataclass
class AlertOutcome:
    """What a check did: ``alerts`` fired, ``warnings`` (undelivered notifications; one line each, URLs
    masked), ``diff`` (the snapshot's diff, for the artifact; ``None`` for a first snapshot or a staleness
    check), ``notified`` (targets), ``platform``."""

    alerts: list[Alert] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    diff: SnapshotDiff | None = None
    notified: int = 0
    platform: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON values: ``{"fired": [alert dicts], "warnings": [str], "notified": n, "platform"}``."""
        return {
            "fired": [a.as_dict() for a in self.alerts],
            "warnings": list(self.warnings),
            "notified": self.notified,
            "platform": self.platform,
        }


def commit(
    db_path: str | os.PathLike[str],
    rules: tuple[Rule, ...],
    facts: Facts,
    *,
    lock_timeout_s: float = 60.0,
    create: bool = False,
) -> Evaluation:
    """Evaluate ``rules`` for ``facts`` against the stored state of ``facts.platform`` and store the new
    state, in one transaction under the writer lock. Returns the evaluation. Raises the store's errors
    (e.g. :class:`solvelens.store.StoreLockTimeout`); ``create``: make the store when it does not exist."""
    outcome: list[Evaluation] = []

    def decide(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        state = [StateRow(r["rule"], r["subject"], bool(r["active"]), r["snapshot_id"]) for r in rows]
        evaluation = evaluate(rules, facts, state)
        outcome.append(evaluation)
        return [
            {"rule": s.rule, "subject": s.subject, "active": s.active, "snapshot_id": s.snapshot_id}
            for s in evaluation.state
        ]

    update_alert_state(db_path, facts.platform, decide, lock_timeout_s=lock_timeout_s, create=create)
    return outcome[0]


def _deliver(config: AlertConfig, outcome: AlertOutcome) -> AlertOutcome:
    notifier = Notifier(config.notify)
    outcome.warnings += notifier.send(outcome.alerts)
    outcome.notified = len(notifier) if outcome.alerts else 0
    return outcome


def check_snapshot(
    db_path: str | os.PathLike[str],
    snapshot_id: int,
    config: AlertConfig,
    *,
    lock_timeout_s: float = 60.0,
    now: dt.datetime | None = None,
) -> AlertOutcome:
    """Evaluate ``config``'s rules after the complete snapshot ``snapshot_id``, store the state, notify.
    Without rules only the diff is read (nothing stored). Raises the store's errors; never a delivery
    error."""
    found = snapshot_facts(db_path, snapshot_id, config.rules, now=now, lock_timeout_s=lock_timeout_s)
    outcome = AlertOutcome(diff=found.diff, platform=found.facts.platform)
    if config.rules:
        outcome.alerts = commit(db_path, config.rules, found.facts, lock_timeout_s=lock_timeout_s).alerts
    return _deliver(config, outcome)


def check_stale(
    db_path: str | os.PathLike[str],
    base_url: str,
    config: AlertConfig,
    *,
    watching_since: dt.datetime,
    lock_timeout_s: float = 5.0,
    now: dt.datetime | None = None,
) -> AlertOutcome:
    """Evaluate ``config``'s ``stale`` rules for the platform at ``base_url`` (no new snapshot), store the
    state, notify. Does nothing without stale rules. A store without snapshots is stale from
    ``watching_since`` (the file is created to hold the state). Raises the store's errors (a short
    ``lock_timeout_s``: the next check retries)."""
    rules = config.stale_rules
    if not rules:
        return AlertOutcome()
    facts = stale_facts(
        db_path, base_url, watching_since=watching_since, now=now, lock_timeout_s=lock_timeout_s
    )
    outcome = AlertOutcome(platform=facts.platform)
    outcome.alerts = commit(db_path, rules, facts, lock_timeout_s=lock_timeout_s, create=True).alerts
    return _deliver(config, outcome)
