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
each test has a group (:func:`group_of`, from its node id), so the tests sharing a costly session fixture
run on one worker and build it once: the truth scenarios (``tests/truth``), the Prefect test harness (the
modules of :data:`_PREFECT_MODULES`); every other test is grouped with its module (module-scoped sandboxes
are built once). The groups are scheduled by :func:`pytest_xdist_make_scheduler`: xdist's own ``loadgroup``
stopped grouping with pytest 9.2 (each test was its own group). The costliest groups are handed out first,
so the two workers finish close together: the shared groups, then the groups holding tests marked ``slow``
(a Prefect server, a benchmark run), then the rest by their number of tests. xdist would otherwise reorder
the groups by their number of tests alone (``--loadscope-reorder``, on by default), which sends the
few-test modules that take a minute or more (``tests/flows/test_schedule.py``, the benchmark tests) last,
leaving one worker idle while the other runs them: ``pyproject.toml`` passes ``--no-loadscope-reorder``, so
the order of the workers' collection (:func:`pytest_collection_modifyitems`) is the order the groups are
handed out.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from typing import Any

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
_CPU = pytest.StashKey[dict[str, float]]()

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
    config.stash[_CPU] = {}


def pytest_unconfigure(config: pytest.Config) -> None:
    home = config.stash.get(_HOME, None)
    if home:
        shutil.rmtree(home, ignore_errors=True)


#: The modules holding the tests that request ``prefect_harness`` (checked at collection: a module missing
#: here is a usage error naming it). The whole module goes to the ``prefect`` group.
_PREFECT_MODULES = frozenset(
    {
        "tests/flows/test_cli_snapshot.py",
        "tests/flows/test_fetch_ratelimit.py",
        "tests/flows/test_snapshot_flow.py",
        "tests/report/test_flow.py",
        "tests/test_demo.py",
    }
)


def group_of(nodeid: str) -> str:
    """The xdist group of the test ``nodeid``: a shared-fixture group of :data:`_SHARED_GROUPS`, else its
    module. Read from the node id alone: the xdist controller, which schedules, sees only node ids."""
    module = nodeid.split("::")[0]
    if module.startswith("tests/truth/") or module == "tests/report/test_truth.py":
        return "truth"  # the session's truth scenarios (tests/truth/conftest.py): built once
    if module in _PREFECT_MODULES:
        return "prefect"  # Prefect's temporary API server (prefect_harness): started once
    return module


def _group(item: pytest.Item) -> str:
    """:func:`group_of` the item; raises ``pytest.UsageError`` for a test requesting ``prefect_harness``
    outside :data:`_PREFECT_MODULES` (it would start a second Prefect server on another worker)."""
    group = group_of(item.nodeid)
    if "prefect_harness" in getattr(item, "fixturenames", ()) and group != "prefect":
        raise pytest.UsageError(
            f"{item.nodeid} requests prefect_harness: add its module to _PREFECT_MODULES in tests/conftest.py"
        )
    return group


@pytest.hookimpl(tryfirst=True)  # before xdist's own scheduler factory
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """The ``--dist loadgroup`` scheduler, its groups read with :func:`group_of`.

    xdist's own ``loadgroup`` appends ``@group`` to each node id on the workers and splits it off on the
    controller; since pytest 9.2 (structured node ids) that suffix no longer takes (pytest-dev/pytest-xdist
    issue 1386), so every test was its own group: the truth scenarios and the Prefect harness were built on
    both workers, a module's fixtures once per worker. This scheduler groups by the node id itself (a
    ``@group`` suffix, where a pytest still adds it, wins)."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class GroupScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            if nodeid.rfind("@") > nodeid.rfind("]"):
                return nodeid.rsplit("@", 1)[-1]
            return group_of(nodeid)

    return GroupScheduling(config, log)


def _hand_out_order(items: list[pytest.Item]) -> dict[str, tuple[int, int, int]]:
    """Per group its place in the hand-out order (smaller first): the shared groups, then the groups holding
    ``slow`` tests (most first), then the rest by test count (most first), as xdist's own reordering would."""
    shared = {group: i for i, group in enumerate(_SHARED_GROUPS)}
    slow: dict[str, int] = {}
    count: dict[str, int] = {}
    for item in items:
        group = _group(item)
        count[group] = count.get(group, 0) + 1
        slow[group] = slow.get(group, 0) + (item.get_closest_marker("slow") is not None)
    return {group: (shared.get(group, len(shared)), -slow[group], -count[group]) for group in count}


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook, which reads the marks into the node ids
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Give every test its ``xdist_group`` (module doc); on an xdist worker, order the tests so the costliest
    groups come first (:func:`_hand_out_order`)."""
    for item in items:
        item.add_marker(pytest.mark.xdist_group(_group(item)))
    if hasattr(config, "workerinput"):  # an xdist worker: its order is the order groups are handed out
        order = _hand_out_order(items)
        items.sort(key=lambda item: order[_group(item)])  # stable: a group's tests keep their order


def _cpu_seconds() -> float:
    """User + system CPU seconds of this process and of its finished (waited-for) child processes."""
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """Add the CPU seconds of the test's set-up, call and tear-down to its file's total (a sandbox server a
    test starts counts once it is stopped; a session fixture's servers count to the file that stops them)."""
    before = _cpu_seconds()
    try:
        return (yield)
    finally:
        cpu = item.config.stash[_CPU]
        path = item.nodeid.split("::")[0]
        cpu[path] = cpu.get(path, 0.0) + _cpu_seconds() - before


def pytest_sessionfinish(session: pytest.Session) -> None:
    """On an xdist worker, hand the CPU seconds per file to the controller (``workeroutput``)."""
    if hasattr(session.config, "workeroutput"):
        session.config.workeroutput["cpu_by_file"] = json.dumps(session.config.stash[_CPU])


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    """On the xdist controller, add a finished worker's CPU seconds per file to the run's."""
    cpu = node.config.stash[_CPU]
    for path, seconds in json.loads(node.workeroutput.get("cpu_by_file", "{}")).items():
        cpu[path] = cpu.get(path, 0.0) + seconds


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    """CPU seconds per test file, costliest first (next to ``--durations``' wall times: on a shared machine
    the CPU figures are the ones that compare across runs)."""
    if hasattr(config, "workerinput"):
        return
    cpu = config.stash.get(_CPU, {})
    if not cpu:
        return
    terminalreporter.write_sep("=", f"CPU seconds per test file (total {sum(cpu.values()):.0f} s)")
    for path, seconds in sorted(cpu.items(), key=lambda kv: -kv[1])[:30]:
        terminalreporter.write_line(f"{seconds:8.1f}s {path}")
