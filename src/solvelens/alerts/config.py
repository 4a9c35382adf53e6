"""What a run's alerts are set up with: the rules (``--alert``, the rules file) and where to send alerts
(``--notify``, ``SOLVELENS_NOTIFY``, the rules file), read and checked before any snapshot is taken.

Light on purpose (the standard library, the rule language and, only when notification URLs are given,
apprise): the snapshot command reads its alert options with this module alone, and the store, polars and
the analysis are imported only when a check runs (:mod:`solvelens.alerts.check`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from solvelens.alerts.deliver import check_notify_urls, notify_urls_from_env
from solvelens.alerts.rules import Rule, load_rules_file, parse_rules

__all__ = ["AlertConfig", "alert_config"]


@dataclass(frozen=True)
class AlertConfig:
    """The rules and where to send alerts. ``notify`` holds secret URLs: excluded from ``repr``; never put it
    in a Prefect parameter, a log or the store."""

    rules: tuple[Rule, ...] = ()
    notify: tuple[str, ...] = field(default=(), repr=False)

    def __bool__(self) -> bool:
        return bool(self.rules)

    @property
    def stale_rules(self) -> tuple[Rule, ...]:
        """The ``stale > H hours`` rules (what ``schedule`` checks between snapshots)."""
        return tuple(r for r in self.rules if r.kind == "stale")


def alert_config(
    alerts: list[str] | tuple[str, ...] = (),
    alerts_file: str | os.PathLike[str] | None = None,
    *,
    environ: dict[str, str] | None = None,
) -> AlertConfig:
    """The rules of ``alerts`` (``--alert`` strings) and of the rules file, and the notification URLs of the
    rules file and of ``SOLVELENS_NOTIFY`` (read from ``environ``, default the process environment).

    Raises :class:`~solvelens.alerts.rules.AlertRuleError` for a bad rule or rules file and
    :class:`~solvelens.alerts.deliver.NotifyTargetError` for a URL apprise cannot use (shown masked)."""
    rules = list(parse_rules(list(alerts)))
    notify = notify_urls_from_env(environ)
    if alerts_file is not None:
        file = load_rules_file(os.fspath(alerts_file))
        rules += [r for r in file.rules if r.text not in {x.text for x in rules}]
        notify += list(file.notify)
    urls = tuple(dict.fromkeys(notify))
    check_notify_urls(urls)
    return AlertConfig(tuple(rules), urls)
