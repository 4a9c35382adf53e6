"""``import_check_early``: the alert check's modules (polars, ``solvelens.analysis``) start importing in a
thread of their own exactly when ``alerts_after_snapshot`` will evaluate (rules set, or the flow's artifact
wants the diff; never for a backfill), so the import overlaps the store's write. Each case runs in a fresh
interpreter (imports are process-wide)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.fixtures.sandbox import SandboxServer

_PLAN = (
    "from dataclasses import dataclass\n"
    "@dataclass\n"
    "class Plan:\n"
    "    db_path: str = 'x.duckdb'\n"
    "    alerts: list | None = None\n"
    "    alerts_file: str | None = None\n"
    "    backfill: bool = False\n"
    "    lock_timeout_s: float = 1.0\n"
)


def _run(code: str) -> list[str]:
    done = subprocess.run([sys.executable, "-c", _PLAN + code], capture_output=True, text=True, check=True)
    return done.stdout.splitlines()


@pytest.mark.parametrize(
    ("plan", "want_diff", "starts"),
    [
        ("Plan()", False, False),
        ("Plan(alerts=['new-leader'])", False, True),
        ("Plan(alerts_file='rules.toml')", False, True),
        ("Plan()", True, True),
        ("Plan(alerts=['new-leader'], backfill=True)", True, False),
    ],
)
def test_the_check_imports_in_its_own_thread_only_when_it_will_run(
    plan: str, want_diff: bool, starts: bool
) -> None:
    lines = _run(
        "import sys, threading\n"
        "from solvelens.flows.alerts import import_check_early\n"
        "importers = []\n"
        "class Watch:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'solvelens.alerts.check':\n"
        "            importers.append(threading.current_thread().name)\n"
        "        return None\n"
        "sys.meta_path.insert(0, Watch())\n"
        f"thread = import_check_early({plan}, want_diff={want_diff})\n"
        "if thread is not None:\n"
        "    thread.join(60)\n"
        "print('started:', thread is not None)\n"
        "print('imported:', 'solvelens.alerts.check' in sys.modules, importers)\n"
    )
    expected = "['solvelens-import-alert-check']" if starts else "[]"
    assert lines == [f"started: {starts}", f"imported: {starts} {expected}"]


def test_an_in_process_snapshot_with_rules_imports_the_check_before_its_write(
    sandbox: SandboxServer, tmp_path: Path
) -> None:
    lines = _run(
        "import sys, threading\n"
        "import solvelens.store.writer as writer\n"
        "from solvelens.flows.steps import SnapshotPlan, run_snapshot\n"
        "seen = []\n"
        "original = writer.write_snapshot\n"
        "def write_snapshot(*args, **kwargs):\n"
        "    seen.append([t.name for t in threading.enumerate() if t.name.startswith('solvelens-import')]\n"
        "                or 'solvelens.alerts.check' in sys.modules)\n"
        "    return original(*args, **kwargs)\n"
        "import solvelens.flows.steps as steps\n"
        "steps.write_snapshot = write_snapshot\n"
        f"plan = SnapshotPlan(base_url={sandbox.base_url!r}, db_path={str(tmp_path / 's.duckdb')!r},\n"
        "                    use_api_key=False, allow_missing_bot_me=True, alerts=['new-leader'])\n"
        "summary = run_snapshot(plan)\n"
        "print('import under way or done when the write began:', bool(seen and seen[0]))\n"
        "print('alerts evaluated:', summary.alerts.get('skipped') is None)\n"
    )
    assert lines == ["import under way or done when the write began: True", "alerts evaluated: True"]
