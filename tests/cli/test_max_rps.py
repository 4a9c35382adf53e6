"""``--max-rps`` on the commands that talk to a platform (``probe``, ``bot run``; ``snapshot`` in
tests/flows/test_fetch_ratelimit.py): the rate the sandbox measures (first to last arrival) stays under the
cap."""

from __future__ import annotations

import subprocess
import sys

import httpx
import pytest

from tests.fixtures.sandbox import SandboxServer


def measured(server: SandboxServer) -> tuple[int, float]:
    """Requests the sandbox counted and their rate (per second, first to last arrival)."""
    seen = httpx.get(f"{server.root_url}/_sandbox/rate-limit").json()
    return seen["requests"], (seen["requests"] - 1) / (seen["lastAt"] - seen["firstAt"])


def run(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "solvelens", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=120)


@pytest.fixture
def counting_sandbox(make_sandbox) -> SandboxServer:
    return make_sandbox(rate_limit="100000/hour")  # never reached: only counts


def test_probe_max_rps(counting_sandbox: SandboxServer, tmp_path) -> None:
    out = str(tmp_path / "p.toml")
    done = run("probe", "--base-url", counting_sandbox.base_url, "--max-rps", "3", "--out", out)
    assert done.returncode == 0, done.stderr
    sent, rate = measured(counting_sandbox)
    assert sent >= 8 and rate <= 3 * 1.02  # uncapped: ~60 per second on this machine


def test_bot_run_max_rps(counting_sandbox: SandboxServer) -> None:
    key = counting_sandbox.create_bot("PacedBot")
    solver = "solvelens.client.example_solver:solve"
    done = run(
        "bot", "run", "--base-url", counting_sandbox.base_url, "--api-key", key, "--solver", solver,
        "--max-tasks", "3", "--max-rps", "2",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    sent, rate = measured(counting_sandbox)
    assert sent >= 6 and rate <= 2 * 1.02  # uncapped: as fast as the solver answers


@pytest.mark.parametrize("command", [["probe"], ["bot", "run", "--solver", "x:y", "--api-key", "k"]])
def test_max_rps_out_of_range_is_exit_2(command: list[str]) -> None:
    done = run(*command, "--base-url", "http://127.0.0.1:9/api/v1", "--max-rps", "0")
    assert done.returncode == 2 and "--max-rps" in done.stderr
