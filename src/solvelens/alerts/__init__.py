"""Alert rules over the snapshot store, evaluated after every snapshot, delivered where people already are.

- :mod:`~solvelens.alerts.rules`: the rule language (``--alert`` strings, the TOML rules file).
- :mod:`~solvelens.alerts.facts`: what the rules look at, read from the store (the diff of
  :mod:`solvelens.analysis.diff`, the ``/bot/me`` bot's rank, the newest snapshot's time).
- :mod:`~solvelens.alerts.evaluate`: rules x facts x stored state -> alerts, once per transition (pure).
- :mod:`~solvelens.alerts.deliver`: the terminal line, apprise notifications (URLs are secrets: masked).
- :mod:`~solvelens.alerts.check`: one check start to end (facts, evaluate + store the state, notify).

Prefect events and the markdown artifact are in :mod:`solvelens.flows.alerts` (the flows layer).
"""

from solvelens.alerts.check import AlertConfig, AlertOutcome, alert_config, check_snapshot, check_stale
from solvelens.alerts.deliver import NOTIFY_ENV, NotifyTargetError, alert_line, mask_url
from solvelens.alerts.evaluate import Alert, Facts, evaluate
from solvelens.alerts.rules import RULE_FORMS, AlertRuleError, Rule, load_rules_file, parse_rule, parse_rules

__all__ = [
    "NOTIFY_ENV",
    "RULE_FORMS",
    "Alert",
    "AlertConfig",
    "AlertOutcome",
    "AlertRuleError",
    "Facts",
    "NotifyTargetError",
    "Rule",
    "alert_config",
    "alert_line",
    "check_snapshot",
    "check_stale",
    "evaluate",
    "load_rules_file",
    "mask_url",
    "parse_rule",
    "parse_rules",
]
