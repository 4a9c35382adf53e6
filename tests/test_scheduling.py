"""The test run's own scheduling (tests/conftest.py): every truth test runs in the group of the scenario it
uses, so each scenario is built once per run (a test whose scenario the groups do not know would build it a
second time, on the other worker)."""

from __future__ import annotations

import pytest

from tests.conftest import _FIRST_GROUPS, _group, group_of


def test_every_collected_truth_test_is_in_its_scenarios_group(request: pytest.FixtureRequest) -> None:
    items = [item for item in request.session.items if item.nodeid.startswith("tests/truth/")]
    if not items:
        pytest.skip("no test of tests/truth collected in this run")
    loose = [item.nodeid for item in items if not _group(item).startswith("truth:")]
    assert not loose, f"add the scenario these tests use to _SCENARIOS in tests/conftest.py: {loose[:5]}"
    groups = {_group(item) for item in items}
    assert groups <= set(_FIRST_GROUPS), sorted(groups - set(_FIRST_GROUPS))


def test_the_groups_a_node_id_alone_gives() -> None:
    assert group_of("tests/truth/test_views.py::test_x[relay-day]") == "truth"
    assert group_of("tests/test_demo.py::test_demo_takes_one_snapshot_per_simulated_day") == "prefect"
    assert group_of("tests/client/test_client.py::test_x[sync]") == "tests/client/test_client.py"
