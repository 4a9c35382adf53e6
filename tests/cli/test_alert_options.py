"""Bad alert options of ``snapshot`` and ``schedule``, as real processes: one ``error:`` line naming the rule,
the problem and the fix, exit 2, nothing written, and never a notification URL's secret."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fixtures.sandbox import SandboxServer

SECRET = "s3cr3t-token"

CASES = [
    (
        ["--alert", "top ten left"],
        'alert rule "top ten left" (--alert): N must be a whole number >= 1, got "ten"',
    ),
    (
        ["--alert", "leader changed"],
        'alert rule "leader changed" (--alert): not a rule this version knows; write',
    ),
    (
        ["--notify", f"nosuch://{SECRET}@host/x"],
        "notification URL nosuch://… (#1) is not one apprise can use",
    ),
    (["--alert", "my-bot rank > 3"], "the alert rule 'my-bot rank > N' reads /bot/me: pass --api-key"),
    (["--alert-exit-code", "2"], "--alert-exit-code 2 cannot tell a fired alert apart"),
    (["--alerts-file", "{d}/missing.toml"], "does not exist; pass --alerts-file an existing file"),
    (
        ["--alerts-file", "{d}/bad.toml"],
        'alert rule "top many left" ({d}/bad.toml): N must be a whole number',
    ),
]


def _run(args: list[str]) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SOLVELENS_")}
    return subprocess.run(
        [sys.executable, "-m", "solvelens", *args], env=env, capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize(
    ("command", "options", "expected"),
    [("snapshot", *case) for case in CASES] + [("schedule", *c) for c in (CASES[0], CASES[2], CASES[3])],
)
def test_a_bad_alert_option_is_one_line_and_exit_2(
    sandbox: SandboxServer, tmp_path: Path, command: str, options: list[str], expected: str
) -> None:
    (tmp_path / "bad.toml").write_text(f'alerts = ["top many left"]\nnotify = ["json://x/{SECRET}"]\n')
    db = tmp_path / "store.duckdb"
    args = [command, "--base-url", sandbox.base_url, "--db", str(db)]
    result = _run([*args, *(o.format(d=tmp_path) for o in options)])
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert expected.format(d=tmp_path) in lines[0]
    assert SECRET not in result.stdout + result.stderr
    assert not db.exists()
