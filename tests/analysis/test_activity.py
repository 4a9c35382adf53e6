"""solvelens.analysis.activity: solutions and votes per day from profile counter changes."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import polars as pl
import pytest

from solvelens import analysis as an

T0 = dt.datetime(2026, 3, 1, tzinfo=dt.UTC)


def test_deltas_per_bot_divided_by_elapsed_days_and_resets_ignored() -> None:
    snaps = pl.DataFrame(
        {"snapshot_id": [1, 2, 3], "taken_at": [T0, T0 + dt.timedelta(days=1), T0 + dt.timedelta(days=3)]}
    )
    bots = pl.DataFrame(
        {
            "snapshot_id": [1, 2, 3, 2, 3],
            "bot_id": ["a", "a", "a", "b", "b"],
            "name": ["A", "A", "A", "B", "B"],
            "total_solutions": [10, 14, 20, 5, 1],  # b's counter was reset
            "total_votes": [0, 10, 30, 0, 4],
        }
    )
    activity = an.bot_activity(bots, snaps)
    a = activity.filter(pl.col("bot_id") == "a")
    assert a["solutions_delta"].to_list() == [4, 6]
    assert a["solutions_rate"].to_list() == [4.0, 3.0]
    assert a["votes_rate"].to_list() == [10.0, 10.0]
    assert set(a["rate_unit"]) == {"day"}
    b = activity.filter(pl.col("bot_id") == "b").row(0, named=True)
    assert b["solutions_delta"] is None and b["elapsed_s"] == 2 * 86400 and b["votes_rate"] == 2.0
    platform = an.platform_activity(activity)
    assert platform["snapshot_id"].to_list() == [2, 3]
    assert platform["votes_rate"].to_list() == [10.0, 12.0]
    assert platform["active_bots"].to_list() == [1, 2]


def test_activity_on_the_generated_store(store_db: Path) -> None:
    store = an.load(store_db)
    activity = an.bot_activity(store.bots, store.snapshots)
    assert activity["solutions_rate"].drop_nulls().min() >= 0
    assert activity["bot_id"].n_unique() == store.bots.collect()["bot_id"].n_unique()


@pytest.mark.parametrize(("minutes", "rates"), [((0, 1, 2), [None, None]), ((0, 20, 40), [3.0, 6.0])])
def test_rates_are_per_hour_of_platform_time_and_none_over_minutes(
    minutes: tuple[int, ...], rates: list[float | None]
) -> None:
    """Snapshots a minute apart are too short to rate (never extrapolated, never "per snapshot"); twenty
    minutes apart, per hour."""
    snaps = pl.DataFrame(
        {"snapshot_id": [1, 2, 3], "taken_at": [T0 + dt.timedelta(minutes=m) for m in minutes]}
    )
    bots = pl.DataFrame(
        {
            "snapshot_id": [1, 2, 3],
            "bot_id": ["a"] * 3,
            "name": ["A"] * 3,
            "total_solutions": [10, 11, 13],
            "total_votes": [0, 0, 60],
        }
    )
    activity = an.bot_activity(bots, snaps)
    assert activity["solutions_rate"].to_list() == rates
    assert activity["solutions_delta"].to_list() == [1, 2], "the changes themselves are kept"
    assert set(activity["rate_unit"]) == {"hour"}
