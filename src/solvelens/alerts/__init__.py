"""Alert rules over the snapshot store, evaluated after every snapshot, delivered where people already are.

- :mod:`~solvelens.alerts.rules`: the rule language (``--alert`` strings, the TOML rules file).
- :mod:`~solvelens.alerts.config`: a run's rules and notification URLs, read and checked (light: what the
  snapshot command imports to read its options).
- :mod:`~solvelens.alerts.subjects`: rules that can never fire (a bot the store has never seen), found
  before the snapshot.
- :mod:`~solvelens.alerts.facts`: what the rules look at, read from the store (the diff of
  :mod:`solvelens.analysis.diff`, the ``/bot/me`` bot's rank, the newest snapshot's time).
- :mod:`~solvelens.alerts.evaluate`: rules x facts x stored state -> alerts, once per transition (pure).
- :mod:`~solvelens.alerts.deliver`: the terminal line, apprise notifications (URLs are secrets: masked).
- :mod:`~solvelens.alerts.check`: one check start to end (facts, evaluate + store the state, notify).

This package's namespace holds only the light modules (rules, config, evaluate, deliver: the standard
library; apprise only when a URL is checked or sent to). The check, which reads the store through polars and
the analysis, is imported from :mod:`solvelens.alerts.check` by whoever runs one, so a snapshot without
alert rules imports neither (``tests/cli/test_hot_path.py``).

Prefect events and the markdown artifact are in :mod:`solvelens.flows.alerts` (the flows layer).
"""

from solvelens.alerts.config import AlertConfig, alert_config
from solvelens.alerts.deliver import NOTIFY_ENV, NotifyTargetError, alert_line, mask_url
from solvelens.alerts.evaluate import Alert, Facts, evaluate
from solvelens.alerts.rules import RULE_FORMS, AlertRuleError, Rule, load_rules_file, parse_rule, parse_rules

__all__ = [
    "NOTIFY_ENV",
    "RULE_FORMS",
    "Alert",
    "AlertConfig",
    "AlertRuleError",
    "Facts",
    "NotifyTargetError",
    "Rule",
    "alert_config",
    "alert_line",
    "evaluate",
    "load_rules_file",
    "mask_url",
    "parse_rule",
    "parse_rules",
]
