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

``make test`` runs the suite on two pytest-xdist workers (``-n 2 --dist loadgroup``, in ``pyproject.toml``):
each test gets an ``xdist_group`` (:func:`pytest_collection_modifyitems`), so the tests sharing a costly
session fixture run on one worker and build it once: the truth scenarios (``tests/truth``), the Prefect test
harness (``prefect_harness``); every other test is grouped with its module (module-scoped sandboxes are
built once). The costliest groups are sent first, so the two workers finish close together.
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

#: The groups of tests sharing one costly session fixture: each sent to one worker, before the others.
_SHARED_GROUPS = ("truth", "prefect")


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


def _group(item: pytest.Item) -> str:
    """The xdist group of ``item``: a shared-fixture group of :data:`_SHARED_GROUPS`, else its module."""
    module = item.nodeid.split("::")[0]
    if module.startswith("tests/truth/") or module == "tests/report/test_truth.py":
        return "truth"  # the session's truth scenarios (tests/truth/conftest.py): built once
    if "prefect_harness" in getattr(item, "fixturenames", ()):
        return "prefect"  # Prefect's temporary API server: started once
    return module


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook, which reads the marks into the node ids
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Give every test its ``xdist_group`` (module doc); on an xdist worker, the shared groups first."""
    for item in items:
        item.add_marker(pytest.mark.xdist_group(_group(item)))
    if hasattr(config, "workerinput"):  # an xdist worker: its order is the order groups are handed out
        rank = {group: i for i, group in enumerate(_SHARED_GROUPS)}
        items.sort(key=lambda item: rank.get(_group(item), len(rank)))
