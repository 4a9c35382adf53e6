"""``solvelens snapshot``'s options build a :class:`SnapshotPlan`: the CLI's defaults are the plan's (the CLI
states them in its signature only so that ``--help`` needs no pydantic import)."""

from __future__ import annotations

import inspect
import os

import pytest

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


def test_a_flow_run_sends_no_telemetry(monkeypatch: pytest.MonkeyPatch) -> None:
    """Prefect's SDK analytics (an event to its analytics service for a new user's first flow run, in a
    terminal) is off once the command has set up Prefect; a user's own ``DO_NOT_TRACK`` is kept."""
    import prefect._internal.analytics.enabled as enabled

    from solvelens.cli.snapshot import _quiet_prefect

    monkeypatch.setattr(enabled, "is_ci_environment", lambda: False)  # the check this machine's CI would skip
    for name in ("DO_NOT_TRACK", "PREFECT_SERVER_ANALYTICS_ENABLED", "PREFECT_LOGGING_LEVEL"):
        monkeypatch.delenv(name, raising=False)
    assert enabled.is_telemetry_enabled()  # Prefect's default
    _quiet_prefect(verbose=False)
    assert not enabled.is_telemetry_enabled()
    assert os.environ["PREFECT_SERVER_ANALYTICS_ENABLED"] == "false"
    monkeypatch.setenv("DO_NOT_TRACK", "0")
    _quiet_prefect(verbose=False)
    assert os.environ["DO_NOT_TRACK"] == "0"
