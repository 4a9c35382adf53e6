"""Nothing on the hot path that the run does not use (issue 22): ``snapshot``, ``bot run`` and ``probe``,
each run in a fresh interpreter against the sandbox over real HTTP, import no analysis, charts, report,
scipy, choix, apprise, Altair or Prefect unless the run needs them (alert rules given: the alert check;
a notification URL: apprise). Structural, not timed: the test reads ``sys.modules`` at the process's exit.

The layer contract in ``pyproject.toml`` ("The hot path ...") says the same for the import graph; the time
from process start to the first request is printed by ``benchmarks/first_request.py``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fixtures.sandbox import SandboxServer

#: What a plain run must not import (top-level packages, or our own packages).
HEAVY = (
    "solvelens.analysis",
    "solvelens.charts",
    "solvelens.report",
    "solvelens.alerts.check",
    "scipy",
    "choix",
    "apprise",
    "altair",
    "prefect",
)

#: What httpx and stamina import only when installed, and no command uses (:mod:`solvelens.lean_imports`),
#: and stamina's Prometheus hook (its default hooks are built at a request's first retry, not before).
OPTIONAL_PARTS = ("httpx._main", "click", "pygments", "tornado", "prometheus_client")

_RUN = r"""
import atexit, json, sys
out = sys.argv[1]
atexit.register(lambda: open(out, "w").write(json.dumps(sorted(sys.modules))))
sys.argv = ["solvelens", *sys.argv[2:]]
from solvelens.cli import app
app()
"""


def _modules_of(tmp_path: Path, *args: str) -> set[str]:
    """Run ``solvelens ARGS`` in a fresh interpreter (exit 0 asserted) and return its ``sys.modules``."""
    out = tmp_path / "modules.json"
    proc = subprocess.run(
        [sys.executable, "-c", _RUN, str(out), *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    return set(json.loads(out.read_text()))


def _loaded(modules: set[str], names: tuple[str, ...]) -> list[str]:
    return [n for n in names if any(m == n or m.startswith(n + ".") for m in modules)]


@pytest.mark.parametrize("snapshots", [1, 2], ids=["first", "re-snapshot"])
def test_a_plain_snapshot_imports_nothing_it_does_not_use(
    sandbox: SandboxServer, tmp_path: Path, snapshots: int
) -> None:
    args = ("snapshot", "--base-url", sandbox.base_url, "--db", str(tmp_path / "s.duckdb"))
    for _ in range(snapshots):  # the second carries lists over and re-reads some (flows.carryover)
        modules = _modules_of(tmp_path, *args, "--resources", "none", "--no-bot-me")
    assert "solvelens.store.writer" in modules  # it did take the snapshot
    assert _loaded(modules, HEAVY) == []
    # The store writes through DuckDB and Parquet files: no polars (the summary reads its rows with DuckDB),
    # no pyarrow.compute (no casts, no datasets), no pyrate-limiter (only a --max-rps cap needs it).
    lighter = ("polars", "pandas", "pyarrow.compute", "pyarrow.dataset", "pyrate_limiter")
    assert _loaded(modules, lighter) == []
    # output not a terminal: no progress display is drawn, so rich's is not imported
    assert "rich.progress" not in modules
    # --no-bot-me: no API key is looked for, so no settings (pydantic-settings, python-dotenv) are read
    assert _loaded(modules, ("pydantic_settings", "dotenv", "solvelens.config")) == []
    # Nor the optional parts of httpx's and stamina's imports (solvelens.lean_imports): httpx's command line
    # (click, pygments) and tenacity's Tornado support; nor, with no retry, stamina's Prometheus hook.
    assert _loaded(modules, OPTIONAL_PARTS) == []


_FIRST_REQUEST = r"""
import json, os, socket, sys
out = sys.argv[1]
seen = []
plain_connect = socket.socket.connect
def connect(self, *args):
    # The preflight's plain TCP connection comes first (no httpx yet): record, let it through. The first
    # connection with httpx imported is the probe's GET /categories: record and stop there.
    seen.append(sorted(sys.modules))
    if "httpx" not in sys.modules:
        return plain_connect(self, *args)
    open(out, "w").write(json.dumps(seen))
    os._exit(0)
socket.socket.connect = connect
sys.argv = ["solvelens", *sys.argv[2:]]
from solvelens.cli import app
app()
"""


def test_a_snapshot_sends_its_first_request_before_it_imports_the_store(
    sandbox: SandboxServer, tmp_path: Path
) -> None:
    """What a snapshot has imported when it opens its first connection (the preflight's TCP connect) and
    when it sends its first request (the probe of ``/categories``): the client only. The store, Parquet,
    pydantic and the plan come after (``benchmarks/first_request.py`` times it)."""
    out = tmp_path / "modules.json"
    args = ["snapshot", "--base-url", sandbox.base_url, "--db", str(tmp_path / "s.duckdb"), "--no-bot-me"]
    proc = subprocess.run(
        [sys.executable, "-c", _FIRST_REQUEST, str(out), *args], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    connections = [set(modules) for modules in json.loads(out.read_text())]
    assert "httpx" not in connections[0]  # the preflight's TCP connect, before the client is imported
    request = connections[-1]
    assert "httpx" in request and "solvelens.flows.preflight" in request  # it was the probe's request
    assert not (tmp_path / "s.duckdb").exists()
    heavy = ("duckdb", "pyarrow", "numpy", "polars", "pydantic", "pydantic_settings", "pyrate_limiter")
    for modules in connections:
        assert _loaded(modules, (*HEAVY, *heavy, "solvelens.store", "solvelens.flows.steps")) == []
        assert _loaded(modules, OPTIONAL_PARTS) == []


def test_alert_rules_bring_the_check_and_nothing_else(sandbox: SandboxServer, tmp_path: Path) -> None:
    modules = _modules_of(
        tmp_path, "snapshot", "--base-url", sandbox.base_url, "--db", str(tmp_path / "s.duckdb"),
        "--resources", "none", "--no-bot-me", "--alert", "new-leader",
    )  # fmt: skip
    assert "solvelens.alerts.check" in modules and "solvelens.analysis.diff" in modules
    assert _loaded(modules, ("solvelens.charts", "solvelens.report", "apprise", "altair", "prefect")) == []


def test_bot_run_imports_no_store_and_no_analysis(sandbox: SandboxServer, tmp_path: Path) -> None:
    key = sandbox.create_bot(f"hot-path-{tmp_path.name[-8:]}")
    modules = _modules_of(
        tmp_path, "bot", "run", "--base-url", sandbox.base_url, "--api-key", key,
        "--solver", "solvelens.client.example_solver:solve", "--max-tasks", "1",
    )  # fmt: skip
    assert "solvelens.client.runner" in modules or "solvelens.client.bot" in modules
    assert _loaded(modules, (*HEAVY, "duckdb", "polars", "solvelens.store", *OPTIONAL_PARTS)) == []
    # --api-key given: no settings (pydantic-settings) are read for it
    assert _loaded(modules, ("pydantic_settings", "solvelens.config", "pyrate_limiter")) == []


@pytest.mark.parametrize("out", [False, True])
def test_probe_imports_no_store_and_no_analysis(sandbox: SandboxServer, tmp_path: Path, out: bool) -> None:
    extra = ("--out", str(tmp_path / "profile.toml")) if out else ()
    modules = _modules_of(tmp_path, "probe", "--base-url", sandbox.base_url, *extra)
    assert "solvelens.client.probe" in modules
    assert _loaded(modules, (*HEAVY, "duckdb", "polars", "solvelens.store", *OPTIONAL_PARTS)) == []
