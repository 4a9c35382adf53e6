"""solvelens.analysis.platforms: a store's platforms, picking one, and never mixing clocks."""

from __future__ import annotations

import datetime as dt
import json

import polars as pl
import pytest

from solvelens import analysis as an
from solvelens.analysis.platforms import select_platform

T0 = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
SANDBOX = "6f1c2a8e-0000-4000-8000-000000000001"


def _snapshots(rows: list[tuple[int, float, str, dict[str, str] | None]]) -> pl.DataFrame:
    """(id, day, base_url, declared platform) per snapshot."""
    return pl.DataFrame(
        {
            "snapshot_id": [r[0] for r in rows],
            "taken_at": [T0 + dt.timedelta(days=r[1]) for r in rows],
            "base_url": [r[2] for r in rows],
            "platform": [None if r[3] is None else json.dumps(r[3]) for r in rows],
        },
        schema={
            "snapshot_id": pl.Int64,
            "taken_at": pl.Datetime("us", "UTC"),
            "base_url": pl.String,
            "platform": pl.String,
        },
    )


#: The demo's sandbox on two ports (one platform), the real platform, and a v1 store's unknown declaration.
MIXED = _snapshots(
    [
        (1, 0, "http://127.0.0.1:5001/api/v1", {"id": SANDBOX, "clock": "simulated"}),
        (2, 1, "http://127.0.0.1:5002/api/v1", {"id": SANDBOX, "clock": "simulated"}),
        (3, 2, "https://platform.example/api/v1", {}),
        (4, 0.5, "http://127.0.0.1:5001/api/v1", None),
    ]
)


def test_identity_is_the_declared_id_else_the_base_url():
    table = an.platforms(MIXED)
    assert table["platform"].to_list() == [
        "https://platform.example/api/v1",
        SANDBOX,
        "http://127.0.0.1:5001/api/v1",
    ]
    assert table["snapshots"].to_list() == [1, 2, 1]
    sandbox = table.row(1, named=True)
    assert sandbox["base_url"] == "http://127.0.0.1:5002/api/v1"  # its newest address
    assert sandbox["label"].startswith("sandbox 6f1c2a8e")
    assert table.row(0, named=True)["label"] == "https://platform.example/api/v1"


def test_default_is_the_platform_snapshotted_last_and_others_are_listed():
    # by the wall clock (started_at), not by taken_at: a sandbox's simulated dates are not comparable
    chosen = select_platform(MIXED.with_columns(started_at=pl.col("taken_at")))
    assert chosen.platform == "https://platform.example/api/v1"
    assert chosen.snapshots["snapshot_id"].to_list() == [3]
    assert chosen.others["platform"].to_list() == [SANDBOX, "http://127.0.0.1:5001/api/v1"]
    # without started_at: the highest snapshot id (ids grow with every snapshot written)
    assert select_platform(MIXED).platform == "http://127.0.0.1:5001/api/v1"
    simulated_future = MIXED.with_columns(
        started_at=pl.col("taken_at"),
        taken_at=pl.when(pl.col("snapshot_id") == 2).then(T0 + dt.timedelta(days=900)).otherwise("taken_at"),
    )
    assert select_platform(simulated_future).platform == "https://platform.example/api/v1"


@pytest.mark.parametrize(
    "wanted", [SANDBOX, "6f1c2a8e", "http://127.0.0.1:5002/api/v1", "http://127.0.0.1:5002/", "6F1C"]
)
def test_a_platform_is_named_by_id_prefix_or_any_of_its_addresses(wanted: str):
    assert select_platform(MIXED, wanted).snapshots["snapshot_id"].to_list() == [1, 2]


def test_an_address_of_an_undeclared_platform_wins_and_unknown_names_list_the_platforms():
    assert select_platform(MIXED, "http://127.0.0.1:5001").platform == "http://127.0.0.1:5001/api/v1"
    with pytest.raises(an.PlatformNotFoundError) as err:
        select_platform(MIXED, "abc")
    message = str(err.value)
    assert "no platform 'abc'" in message and SANDBOX in message and "--platform" in message
    assert "\n" not in message


def test_simulated_and_real_clocks_are_never_mixed():
    frame = _snapshots(
        [
            (1, 0, "http://x/api/v1", {"id": "p1", "clock": "simulated"}),
            (2, 1, "http://x/api/v1", {"id": "p1"}),
            (3, 2, "http://x/api/v1", {"id": "p1", "clock": "simulated"}),
        ]
    )
    chosen = select_platform(frame)
    assert chosen.snapshots["snapshot_id"].to_list() == [1, 3]
    assert chosen.left_out == 1 and "left out" in chosen.clock_note and "never mixed" in chosen.clock_note


def test_wall_clock_snapshots_of_a_simulated_platform_give_way_to_its_own_clock():
    """The issue's scenario: the demo's sandbox (simulated January) served again by hand and snapshotted
    without --taken-at (stamped with the real November time) is the same platform, on another clock."""
    frame = _snapshots(
        [
            (1, 0, "http://127.0.0.1:5001/api/v1", {"id": SANDBOX, "clock": "simulated"}),
            (2, 1, "http://127.0.0.1:5001/api/v1", {"id": SANDBOX, "clock": "simulated"}),
            (3, 320, "http://127.0.0.1:5009/api/v1", {"id": SANDBOX, "clock": "simulated"}),
        ]
    ).with_columns(started_at=pl.Series([T0 + dt.timedelta(days=d) for d in (300, 300, 320)]))
    chosen = select_platform(frame)
    assert chosen.snapshots["snapshot_id"].to_list() == [1, 2]
    assert chosen.left_out == 1 and "wall-clock" in chosen.clock_note and "--taken-at" in chosen.clock_note
    # a store that only ever holds wall-stamped snapshots of a sandbox keeps them all (one clock)
    only_wall = frame.with_columns(started_at=pl.col("taken_at"))
    assert select_platform(only_wall).snapshots.height == 3


def test_an_empty_store_has_no_platform():
    chosen = select_platform(MIXED.clear())
    assert chosen.platform is None and chosen.snapshots.is_empty() and an.platforms(MIXED.clear()).is_empty()
