"""Shared pytest fixtures and the test run's environment. Each fixture family lives in a module of
``tests/fixtures`` registered here:

- ``tests/fixtures/sandbox.py``: the sandbox server on 127.0.0.1 (real uvicorn subprocess, real SQLite file).
- ``tests/fixtures/prefect.py``: a session-scoped Prefect test harness.
- ``tests/fixtures/store.py``: small DuckDB stores in the public schema for analysis, chart and report tests.
- ``tests/fixtures/conventions.py``: the sandbox served in each wire convention mode (one fresh copy of one
  small platform per server).
- ``tests/fixtures/evidence.py``: a generated store plus the platform's votes, activity and model board.

The environment every test and every process a test starts sees (set here, so ``make test`` on a fresh clone
needs no variables of its own, and two test runs on one machine share nothing):

- ``PREFECT_HOME``: a new temporary folder per test run (Prefect's SQLite database, profiles, logs);
  ``PREFECT_API_URL`` and ``PREFECT_PROFILE`` from the caller's environment are dropped, so no test reports
  to a user's Prefect server.
- ``PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS=120``: Prefect's temporary server takes 10-30 s to start
  on a busy 2-core machine (its default of 20 s fails there); telemetry off; no warnings when a task's
  ``.fn`` runs outside a flow.
- ``SOLVELENS_*`` variables of the caller are dropped (a key or base URL in the developer's shell must not
  leak into tests).
"""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

pytest_plugins = [
    "tests.fixtures.sandbox",
    "tests.fixtures.prefect",
    "tests.fixtures.store",
    "tests.fixtures.conventions",
    "tests.fixtures.evidence",
]

_PREFECT_ENV = {
    "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
    "PREFECT_LOGGING_TO_API_WHEN_MISSING_FLOW": "ignore",
    "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "120",
}
_HOME = pytest.StashKey[str]()


def pytest_configure(config: pytest.Config) -> None:
    """Give this test run its own Prefect home and a clean environment (see the module docstring)."""
    for key in [k for k in os.environ if k.startswith("SOLVELENS_")]:
        del os.environ[key]
    for key in ("PREFECT_API_URL", "PREFECT_PROFILE", "PREFECT_API_KEY"):
        os.environ.pop(key, None)
    os.environ.update(_PREFECT_ENV)
    home = tempfile.mkdtemp(prefix="solvelens-test-prefect-")
    os.environ["PREFECT_HOME"] = home
    config.stash[_HOME] = home


def pytest_unconfigure(config: pytest.Config) -> None:
    home = config.stash.get(_HOME, None)
    if home:
        shutil.rmtree(home, ignore_errors=True)
