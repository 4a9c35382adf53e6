"""Shared pytest fixtures and the test run's environment. Each fixture family lives in a module of
``tests/fixtures`` registered here:

- ``tests/fixtures/sandbox.py``: the sandbox server on 127.0.0.1 (real uvicorn in a thread of the test
  process, real SQLite file).
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

``make test`` runs the suite on three pytest-xdist workers (``-n 3``: ``TEST_WORKERS`` in the ``Makefile``;
``--dist loadgroup`` and a bare run's ``-n 2`` in ``pyproject.toml``):
each test has a group (:func:`_group`), so the tests sharing a costly session fixture run on one worker and
build it once: each truth scenario (``tests/truth``: ``truth:modes``, ``truth:history``, ``truth:votes``,
``truth:tied``, read from the fixtures a test uses, :data:`_SCENARIOS`), the Prefect test harness (the
modules of :data:`_PREFECT_MODULES`); every other test is grouped with its module (module-scoped sandboxes
are built once). The groups are scheduled by :func:`pytest_xdist_make_scheduler`, which reads the groups the
workers wrote at collection: xdist's own ``loadgroup`` stopped grouping with pytest 9.2 (each test was its
own group). The costliest groups are handed out first, so the workers finish close together:
:data:`_FIRST_GROUPS` (the Prefect harness, the truth scenarios, the notebooks, the truth harnesses
outside ``tests/truth``), then the groups holding tests marked ``slow``
(a Prefect server, a benchmark run), then the rest by their number of tests. xdist would otherwise reorder
the groups by their number of tests alone (``--loadscope-reorder``, on by default), which sends the
few-test modules that take a minute or more (``tests/flows/test_schedule.py``, the benchmark tests) last,
leaving one worker idle while the other runs them: ``pyproject.toml`` passes ``--no-loadscope-reorder``, so
the order of the workers' collection (the selected tests, sorted in :func:`pytest_collection_finish`) is the
order the groups are handed out.
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
    if not hasattr(config, "workerinput"):  # the controller (or a run without workers)
        config.stash[_GROUPS_DIR] = tempfile.mkdtemp(prefix="solvelens-test-groups-")


def pytest_unconfigure(config: pytest.Config) -> None:
    home = config.stash.get(_HOME, None)
    for folder in (home, config.stash.get(_GROUPS_DIR, None)):
        if folder:
            shutil.rmtree(folder, ignore_errors=True)


#: The modules holding the tests that request ``prefect_harness`` (checked at collection: a module missing
#: here is a usage error naming it). The whole module goes to the ``prefect`` group.
_PREFECT_MODULES = frozenset(
    {
        "tests/flows/test_cli_snapshot.py",
        "tests/flows/test_compact_flow.py",
        "tests/flows/test_fetch_ratelimit.py",
        "tests/flows/test_snapshot_flow.py",
        "tests/report/test_flow.py",
        "tests/test_demo.py",
    }
)


#: The truth layer's session scenarios (``tests/truth/conftest.py``) by the fixtures that build or read them
#: (and by the name a test's ``which`` parameter gives them, for tests that look the fixture up themselves).
#: A test of ``tests/truth`` goes to the group ``truth:<scenario>`` of the scenario it uses, so each scenario
#: is built once, on whichever worker is free, and both workers build scenarios.
_SCENARIOS = {
    "modes": "modes",
    "history": "history",
    "history_report": "history",
    "votes": "votes",
    "votes_report": "votes",
    "tied_history": "tied",
    "tied_pages": "tied",
    "tied": "tied",
}
#: The groups handed out first, in this order (the costliest first, so the workers finish close together):
#: the Prefect harness (its server, the 30-day demo, the Prefect flow tests: the largest group), the truth
#: scenarios (modes: 12 snapshots on 4 servers; history: 4 snapshots, a simulation and a report; votes: 3
#: snapshots and a report with its arena; tied: 3 snapshots and 4 pages) with the notebooks (a kernel each,
#: 15-30 s) among them, and the truth harnesses outside ``tests/truth`` (module-scoped sandboxes driven
#: through snapshots). A costly group handed out last would leave the other worker idle until it ends.
_FIRST_GROUPS = (
    "prefect",
    "truth:modes",
    "truth:history",
    "tests/notebooks/test_notebooks.py",
    "truth:votes",
    "truth:tied",
    "tests/report/test_truth.py",
    "tests/analysis/test_diff_truth.py",
)
#: ``workerinput`` key: the folder where each xdist worker writes the group of every test it collected.
_GROUPS_KEY = "solvelens_groups"
_GROUPS_DIR = pytest.StashKey[str]()


def group_of(nodeid: str) -> str:
    """The xdist group of the test ``nodeid`` as far as the node id tells: ``prefect`` for the modules of
    :data:`_PREFECT_MODULES`, ``truth`` for ``tests/truth`` (one group for every scenario: what the scheduler
    falls back to when the workers' groups (:func:`_group`) are missing), else its module."""
    module = nodeid.split("::")[0]
    if module.startswith("tests/truth/"):
        return "truth"
    if module in _PREFECT_MODULES:
        return "prefect"  # Prefect's temporary API server (prefect_harness): started once
    return module


def _scenario_of(item: pytest.Item) -> str | None:
    """The truth scenario (:data:`_SCENARIOS`) the test ``item`` requests, or names in its ``which``
    parameter; None when it uses none."""
    used = sorted({_SCENARIOS[name] for name in getattr(item, "fixturenames", ()) if name in _SCENARIOS})
    if not used:
        callspec = getattr(item, "callspec", None)
        which = callspec.params.get("which") if callspec is not None else None
        used = [_SCENARIOS[which]] if isinstance(which, str) and which in _SCENARIOS else []
    return used[0] if used else None


def _group(item: pytest.Item) -> str:
    """The xdist group of ``item``: ``truth:<scenario>`` for a test of ``tests/truth`` using a scenario
    (:func:`_scenario_of`), else :func:`group_of` its node id (a truth test using none: its module). Raises
    ``pytest.UsageError`` for a test requesting ``prefect_harness`` outside :data:`_PREFECT_MODULES` (it
    would start a second Prefect server on another worker)."""
    group = group_of(item.nodeid)
    if group == "truth":
        scenario = _scenario_of(item)
        group = f"truth:{scenario}" if scenario else item.nodeid.split("::")[0]
    if "prefect_harness" in getattr(item, "fixturenames", ()) and group != "prefect":
        raise pytest.UsageError(
            f"{item.nodeid} requests prefect_harness: add its module to _PREFECT_MODULES in tests/conftest.py"
        )
    return group


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """xdist controller: tell each worker where to write its tests' groups (:func:`_write_groups`)."""
    node.workerinput[_GROUPS_KEY] = node.config.stash[_GROUPS_DIR]


def _write_groups(config: pytest.Config, items: list[pytest.Item]) -> None:
    """xdist worker: write ``{node id: group}`` of every collected test for the controller's scheduler (the
    controller collects nothing and sees node ids only; the groups need the tests' fixtures)."""
    folder = config.workerinput.get(_GROUPS_KEY)  # type: ignore[attr-defined]
    if folder:
        groups = {item.nodeid: _group(item) for item in items}
        path = os.path.join(folder, f"{config.workerinput['workerid']}.json")  # type: ignore[attr-defined]
        with open(path + ".tmp", "w", encoding="utf-8") as out:
            json.dump(groups, out)
        os.replace(path + ".tmp", path)


def _read_groups(folder: str) -> dict[str, str]:
    """The workers' ``{node id: group}`` (:func:`_write_groups`); empty when none wrote them."""
    groups: dict[str, str] = {}
    for name in sorted(os.listdir(folder)) if os.path.isdir(folder) else ():
        if name.endswith(".json"):
            with open(os.path.join(folder, name), encoding="utf-8") as src:
                groups.update(json.load(src))
    return groups


@pytest.hookimpl(tryfirst=True)  # before xdist's own scheduler factory
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """The ``--dist loadgroup`` scheduler, its groups the workers' (:func:`_group`, written by
    :func:`_write_groups` before the workers report their collection), else :func:`group_of` the node id.

    xdist's own ``loadgroup`` appends ``@group`` to each node id on the workers and splits it off on the
    controller; since pytest 9.2 (structured node ids) that suffix no longer takes (pytest-dev/pytest-xdist
    issue 1386), so every test was its own group: the truth scenarios and the Prefect harness were built on
    both workers, a module's fixtures once per worker. A ``@group`` suffix, where a pytest still adds it,
    wins."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    folder = config.stash[_GROUPS_DIR]
    groups: dict[str, str] = {}

    class GroupScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            if nodeid.rfind("@") > nodeid.rfind("]"):
                return nodeid.rsplit("@", 1)[-1]
            if not groups:  # first asked once every worker has collected (schedule())
                groups.update(_read_groups(folder))
            return groups.get(nodeid) or group_of(nodeid)

    return GroupScheduling(config, log)


def _hand_out_order(items: list[pytest.Item]) -> dict[str, tuple[int, int, int]]:
    """Per group its place in the hand-out order (smaller first): :data:`_FIRST_GROUPS` in their order, the
    other groups of ``tests/truth`` (modules with a harness of their own), then the groups holding ``slow``
    tests (most first), then the rest by test count (most first), as xdist's own reordering would."""
    first = {group: i for i, group in enumerate(_FIRST_GROUPS)}
    slow: dict[str, int] = {}
    count: dict[str, int] = {}
    for item in items:
        group = _group(item)
        count[group] = count.get(group, 0) + 1
        slow[group] = slow.get(group, 0) + (item.get_closest_marker("slow") is not None)
    after = len(first)  # a truth harness of its own in tests/truth (a module group): right after them
    place = {
        group: first.get(group, after if group.startswith("tests/truth/") else after + 1) for group in count
    }
    return {group: (place[group], -slow[group], -count[group]) for group in count}


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook, which reads the marks into the node ids
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Give every test its ``xdist_group`` (module doc)."""
    for item in items:
        item.add_marker(pytest.mark.xdist_group(_group(item)))


@pytest.hookimpl(tryfirst=True)  # before xdist sends the collection; after ``-m``/``-k`` deselected tests
def pytest_collection_finish(session: pytest.Session) -> None:
    """On an xdist worker, order the selected tests so the costliest groups come first
    (:func:`_hand_out_order`; ``make test`` runs ``-m "not slow"``, so a module whose ``slow`` tests are
    left out is not handed out early for them) and write their groups for the controller."""
    config = session.config
    if hasattr(config, "workerinput"):  # an xdist worker: its order is the order groups are handed out
        order = _hand_out_order(session.items)
        session.items.sort(key=lambda item: order[_group(item)])  # stable: a group's tests keep their order
        _write_groups(config, session.items)
    else:  # no workers: the groups of the wall-time summary
        _GROUP_OF.update({item.nodeid: _group(item) for item in session.items})


def _solvelens_loggers() -> dict[str, Any]:
    """The ``solvelens`` logger and those under it that exist now, by name."""
    import logging

    names = [n for n in logging.Logger.manager.loggerDict if n == "solvelens" or n.startswith("solvelens.")]
    return {name: logging.getLogger(name) for name in names}


@pytest.fixture(autouse=True)
def _solvelens_logging_restored() -> Iterator[None]:
    """Give back, after each test, the handlers, level and propagation the ``solvelens`` loggers had before
    it. An in-process ``bot run`` (typer's CliRunner) adds a stderr handler to ``solvelens.client`` once per
    run, as a command does once per process: over the suite's in-process runs they piled up on a worker,
    and each later warning of the client was written once per handler (``tests/client/test_ratelimit.py``'s
    hypothesis test, up to 120,000 pacing warnings, took 475 s of CPU after them in one run; 1.5 s alone).
    Checked by ``tests/test_logging_isolation.py``."""
    saved = {name: (lg.handlers[:], lg.level, lg.propagate) for name, lg in _solvelens_loggers().items()}
    yield
    for name, lg in _solvelens_loggers().items():
        handlers, level, propagate = saved.get(name, ([], 0, True))  # a logger made by the test: as new
        lg.handlers[:] = handlers
        lg.setLevel(level)
        lg.propagate = propagate


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


#: Wall seconds (set-up + call + tear-down) per (worker, group), summed on the controller from the reports:
#: the worker is xdist's ``gw0``, ``gw1`` (``main`` without workers).
_WALL: dict[tuple[str, str], float] = {}
#: ``{node id: group}`` of a run without workers (:func:`pytest_collection_finish`).
_GROUP_OF: dict[str, str] = {}


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Add a phase's wall seconds to its worker's and group's totals (the worker's groups: ``node``)."""
    node = getattr(report, "node", None)
    worker = node.gateway.id if node is not None else "main"
    key = (worker, report.nodeid)
    _WALL[key] = _WALL.get(key, 0.0) + report.duration


def _wall_by_group(config: pytest.Config) -> dict[tuple[str, str], float]:
    """Wall seconds per (worker, group): the groups the workers wrote (:func:`_write_groups`), else
    :func:`group_of` the node id."""
    folder = config.stash.get(_GROUPS_DIR, None)
    groups = _read_groups(folder) if folder else {}
    groups |= _GROUP_OF
    out: dict[tuple[str, str], float] = {}
    for (worker, nodeid), seconds in _WALL.items():
        key = (worker, groups.get(nodeid) or group_of(nodeid))
        out[key] = out.get(key, 0.0) + seconds
    return out


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    """CPU seconds per test file, costliest first (next to ``--durations``' wall times: on a shared machine
    the CPU figures are the ones that compare across runs); then the wall seconds each worker spent in tests
    and the costliest groups with the worker that ran them (the longest worker bounds the run; a costly
    group handed out last shows here)."""
    if hasattr(config, "workerinput"):
        return
    cpu = config.stash.get(_CPU, {})
    if cpu:
        terminalreporter.write_sep("=", f"CPU seconds per test file (total {sum(cpu.values()):.0f} s)")
        for path, seconds in sorted(cpu.items(), key=lambda kv: -kv[1])[:30]:
            terminalreporter.write_line(f"{seconds:8.1f}s {path}")
    wall = _wall_by_group(config)
    if not wall:
        return
    workers: dict[str, list[float]] = {}
    for (worker, _), seconds in wall.items():
        workers.setdefault(worker, []).append(seconds)
    terminalreporter.write_sep("=", "wall seconds in tests per worker (set-up + call + tear-down)")
    for worker, times in sorted(workers.items()):
        terminalreporter.write_line(f"{sum(times):8.1f}s {worker} ({len(times)} groups)")
    terminalreporter.write_sep("=", "wall seconds per xdist group (costliest 20)")
    for (worker, group), seconds in sorted(wall.items(), key=lambda kv: -kv[1])[:20]:
        terminalreporter.write_line(f"{seconds:8.1f}s {group} ({worker})")
