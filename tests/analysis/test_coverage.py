"""solvelens.analysis.coverage and platform: snapshot days, gaps, freshness, stats over time."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import polars as pl

from solvelens import analysis as an
from tests.fixtures.store import StoreSpec


def test_gaps_and_days_of_the_generated_store(store_db: Path, store_spec: StoreSpec) -> None:
    store = an.load(store_db)
    days = an.snapshot_days(store.snapshots)
    assert days.height == store_spec.days
    missing = days.filter(~pl.col("covered"))["day"].to_list()
    assert missing == [(store_spec.start + dt.timedelta(days=d)).date() for d in store_spec.gap_days]
    assert days["snapshots"].max() == 2, "one day has two snapshots"
    gaps = an.snapshot_gaps(store.snapshots)
    assert gaps.height == 1
    assert gaps["missed"].to_list() == [len(store_spec.gap_days)]
    assert 3.9 < gaps["gap_days"][0] < 4.1


def test_freshness_summary(store_db: Path, store_spec: StoreSpec) -> None:
    store = an.load(store_db)
    last = store.snapshots.collect()["taken_at"][-1]
    fresh = an.freshness(store.snapshots, now=last + dt.timedelta(hours=5))
    assert fresh.age_hours == 5.0
    assert fresh.days_spanned == store_spec.days
    assert fresh.missing_days == len(store_spec.gap_days)
    assert fresh.coverage == (store_spec.days - len(store_spec.gap_days)) / store_spec.days
    empty = an.freshness(store.snapshots.clear())
    assert empty.snapshot_count == 0 and empty.coverage == 0.0 and empty.last_taken_at is None


def test_platform_stats_over_time(store_db: Path) -> None:
    store = an.load(store_db)
    stats = an.platform_stats_over_time(store.platform_stats, store.snapshots, metrics=["totalProblems"])
    assert stats["metric"].unique().to_list() == ["totalProblems"]
    assert stats.height == store.snapshot_count
    assert stats["change_rate"][0] is None
    assert set(stats["rate_unit"]) == {"day"}
    latest = an.latest_stats(store.platform_stats, store.snapshots)
    assert latest["totalProblems"] == stats["value"][-1]
    assert "queue.pendingTasks" in latest, "dotted (flattened) metrics come through"
