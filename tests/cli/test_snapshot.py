"""``solvelens snapshot``'s options build a :class:`SnapshotPlan`: the CLI's defaults are the plan's (the CLI
states them in its signature only so that ``--help`` needs no pydantic import)."""

from __future__ import annotations

import inspect

from solvelens.cli.snapshot import snapshot
from solvelens.flows.budget import Budget
from solvelens.flows.steps import SnapshotPlan

#: CLI parameter -> SnapshotPlan field.
OPTION_FIELDS = {
    "full": "full",
    "bot_me": "use_api_key",
    "taken_at": "taken_at",
    "backfill": "backfill",
    "allow_missing_bot_me": "allow_missing_bot_me",
    "concurrency": "concurrency",
    "lock_timeout": "lock_timeout_s",
    "profile": "profile",
    "alert": "alerts",
    "alerts_file": "alerts_file",
    "max_rps": "max_rps",
    "resources": "resources",
    "budget": "budget",
}


def test_every_snapshot_option_defaults_to_the_plans_default() -> None:
    parameters = inspect.signature(snapshot).parameters
    for option, field in OPTION_FIELDS.items():
        default = SnapshotPlan.model_fields[field].default
        if isinstance(default, Budget):  # the plan holds the parsed budget; the option its text
            default = default.spec
        assert parameters[option].default == default, option


def test_every_plan_field_is_an_option() -> None:
    covered = {*OPTION_FIELDS.values(), "base_url", "db_path"}
    assert set(SnapshotPlan.model_fields) <= covered, set(SnapshotPlan.model_fields) - covered
