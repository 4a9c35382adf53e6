"""``PlanFlow.serialize_parameters``: the snapshot flow records its ``plan`` parameter exactly as
Prefect's own ``Flow.serialize_parameters`` (FastAPI's ``jsonable_encoder``) records it, without importing
FastAPI; any other parameter still goes through Prefect's. The fresh-interpreter case runs in a
subprocess (imports are process-wide); no Prefect API is needed (nothing is run)."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime

from prefect import Flow

from solvelens.flows.budget import Budget
from solvelens.flows.snapshot import SnapshotPlan, snapshot_flow

#: A plan with every field away from its default (strings, numbers, lists, the budget's text).
_PLAN = SnapshotPlan(
    base_url="http://127.0.0.1:9/api/v1",
    db_path="/tmp/solvelens-plan-flow/s.duckdb",
    taken_at="2026-11-27T21:00:00Z",
    full=True,
    use_api_key=False,
    concurrency=3,
    lock_timeout_s=2.5,
    backfill=True,
    allow_missing_bot_me=True,
    profile="/tmp/solvelens-plan-flow/profile.json",
    max_rps=7.5,
    alerts=["problem matured", "stale > 2 hours"],
    alerts_file="/tmp/solvelens-plan-flow/alerts.toml",
    budget=Budget.parse("1.25x"),
    resources=["activity", "comparisons"],
)


def test_the_plan_is_recorded_as_prefects_own_serialisation_records_it() -> None:
    ours = snapshot_flow.serialize_parameters({"plan": _PLAN})
    prefects = Flow.serialize_parameters(snapshot_flow, {"plan": _PLAN})
    assert ours == prefects
    assert ours["plan"]["budget"] == "1.25x" and ours["plan"]["alerts"] == [
        "problem matured",
        "stale > 2 hours",
    ]
    assert json.loads(json.dumps(ours)) == ours  # plain JSON values, as the API stores them


def test_other_parameters_still_go_through_prefect() -> None:
    when = datetime(2026, 11, 27, 21, 0, tzinfo=UTC)
    given = {"plan": _PLAN, "when": when, "obj": object()}
    ours = snapshot_flow.serialize_parameters(given)
    assert list(ours) == ["plan", "when", "obj"]
    assert ours == Flow.serialize_parameters(snapshot_flow, given)
    assert ours["when"] == when.isoformat() and ours["obj"] == "<object>"


def test_recording_the_plan_imports_no_fastapi() -> None:
    code = (
        "import sys\n"
        "from solvelens.flows.prefect_import import prefect_imported\n"
        "with prefect_imported():\n"
        "    from solvelens.flows.snapshot import SnapshotPlan, snapshot_flow\n"
        "before = 'fastapi' in sys.modules\n"
        "snapshot_flow.serialize_parameters({'plan': SnapshotPlan(base_url='http://127.0.0.1:9/api/v1', "
        "db_path='/tmp/x.duckdb')})\n"
        "print(before, 'fastapi' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "False"], done.stderr
