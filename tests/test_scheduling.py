"""The test run's own scheduling (tests/conftest.py): every truth test runs in the group of the scenario it
uses, so each scenario is built once per run (a test whose scenario the groups do not know would build it a
second time, on the other worker)."""

from __future__ import annotations

import pytest

from tests.conftest import _SCENARIOS, _group, _hand_out_order, group_of


def test_every_collected_truth_test_is_in_its_scenarios_group(request: pytest.FixtureRequest) -> None:
    """A truth test requesting a session fixture of ``tests/truth/conftest.py`` (a scenario) is in that
    scenario's group; one using none (a module-scoped harness of its own) is in its module's group."""
    items = [item for item in request.session.items if item.nodeid.startswith("tests/truth/")]
    if not items:
        pytest.skip("no test of tests/truth collected in this run")
    for item in items:
        defs = item._fixtureinfo.name2fixturedefs  # type: ignore[attr-defined]
        scenarios = {
            name
            for name, found in defs.items()
            if found[-1].scope == "session" and found[-1].baseid == "tests/truth"
        }
        unknown = scenarios - set(_SCENARIOS)
        assert not unknown, f"add {sorted(unknown)} to _SCENARIOS in tests/conftest.py ({item.nodeid})"
        group = _group(item)
        if scenarios:
            assert group in {f"truth:{_SCENARIOS[name]}" for name in scenarios}, (item.nodeid, group)
        assert group.startswith("truth:") or group == item.nodeid.split("::")[0], (item.nodeid, group)


def test_the_groups_a_node_id_alone_gives() -> None:
    assert group_of("tests/truth/test_views.py::test_x[relay-day]") == "truth"
    assert group_of("tests/test_demo.py::test_demo_takes_one_snapshot_per_simulated_day") == "prefect"
    assert group_of("tests/client/test_client.py::test_x[sync]") == "tests/client/test_client.py"


def test_a_worker_hands_out_the_selected_groups_costliest_first(request: pytest.FixtureRequest) -> None:
    """On an xdist worker the selected tests (after ``-m``/``-k``) are in the hand-out order computed from
    them (``make test`` runs ``-m "not slow"``: a module is not handed out early for tests left out)."""
    if not hasattr(request.config, "workerinput"):
        pytest.skip("no xdist worker: the tests keep their collection order")
    items = request.session.items
    order = _hand_out_order(items)
    places = [order[_group(item)] for item in items]
    assert places == sorted(places)
