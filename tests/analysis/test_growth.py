"""solvelens.analysis.growth: problem and solution growth per day, per category, maturity rate."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import duckdb
import polars as pl
import pytest

from solvelens import analysis as an
from solvelens.analysis.growth import UNCATEGORISED

T0 = dt.datetime(2026, 3, 1, tzinfo=dt.UTC)


def _snapshots(days: list[float]) -> pl.DataFrame:
    return pl.DataFrame(
        {"snapshot_id": list(range(1, len(days) + 1)), "taken_at": [T0 + dt.timedelta(days=d) for d in days]},
        schema={"snapshot_id": pl.Int64, "taken_at": pl.Datetime("us", "UTC")},
    )


def _counts(rows: list[tuple[int, str | None, str, int, int]]) -> pl.DataFrame:
    return pl.DataFrame(
        [
            {
                "snapshot_id": s,
                "category": c,
                "status": st,
                "author_type": "bot",
                "problems": p,
                "solutions": so,
                "comparisons": 0,
            }
            for s, c, st, p, so in rows
        ],
        schema={
            "snapshot_id": pl.Int64,
            "category": pl.String,
            "status": pl.String,
            "author_type": pl.String,
            "problems": pl.Int64,
            "solutions": pl.Int64,
            "comparisons": pl.Int64,
        },
    )


def test_growth_per_day_divides_by_the_days_between_snapshots() -> None:
    snaps = _snapshots([0, 1, 4])  # a 3-day gap before the third snapshot
    counts = _counts(
        [(1, "tech", "active", 10, 20), (2, "tech", "active", 12, 30), (3, "tech", "mature", 18, 60)]
    )
    growth = an.platform_growth(counts, snaps)
    assert growth["problems"].to_list() == [10, 12, 18]
    assert growth["problems_rate"].to_list() == [None, 2.0, 2.0]
    assert growth["solutions_rate"].to_list() == [None, 10.0, 10.0]
    assert growth["problems_added"].to_list() == [None, 2, 6]
    assert set(growth["rate_unit"]) == {"day"}
    assert growth["mature"].to_list() == [0, 0, 18]


@pytest.mark.parametrize(
    ("offsets_h", "unit", "rates"),
    [
        ([0, 1 / 60, 2 / 60], "hour", [None, None, None]),  # a minute apart: too short to rate
        ([0, 1 / 3, 2 / 3], "hour", [None, 6.0, 18.0]),  # 20 minutes apart: per hour, never per snapshot
        ([0, 2, 6], "hour", [None, 1.0, 1.5]),  # hours apart, less than a day in all
        ([0, 24, 96], "day", [None, 2.0, 2.0]),
    ],
)
def test_the_rate_unit_follows_the_span_of_the_history(
    offsets_h: list[float], unit: str, rates: list[float | None]
) -> None:
    snaps = pl.DataFrame(
        {"snapshot_id": [1, 2, 3], "taken_at": [T0 + dt.timedelta(hours=h) for h in offsets_h]},
        schema={"snapshot_id": pl.Int64, "taken_at": pl.Datetime("us", "UTC")},
    )
    counts = _counts(
        [(1, "tech", "active", 10, 20), (2, "tech", "active", 12, 30), (3, "tech", "mature", 18, 60)]
    )
    growth = an.platform_growth(counts, snaps)
    assert an.rate_unit(snaps).name == unit
    assert set(growth["rate_unit"]) == {unit}
    assert growth["problems_rate"].to_list() == rates


def test_category_growth_fills_missing_categories_and_computes_maturity() -> None:
    snaps = _snapshots([0, 1])
    counts = _counts(
        [
            (1, "tech", "active", 4, 0),
            (2, "tech", "active", 2, 0),
            (2, "tech", "mature", 4, 0),
            (2, "health", "active", 1, 0),
            (2, None, "mature", 1, 0),
        ]
    )
    names = pl.DataFrame(
        {"snapshot_id": [2, 2], "slug": ["tech", "health"], "name": ["Technology", "Health"]}
    )
    growth = an.category_growth(counts, snaps, names)
    first = growth.filter(pl.col("snapshot_id") == 1).sort("category")
    assert first["category"].to_list() == ["health", "tech", UNCATEGORISED]
    assert first["problems"].to_list() == [0, 4, 0]
    second = {r["category"]: r for r in growth.filter(pl.col("snapshot_id") == 2).iter_rows(named=True)}
    assert second["tech"]["maturity_rate"] == 4 / 6
    assert second["tech"]["name"] == "Technology"
    assert second["tech"]["problems_rate"] == 2.0
    assert second[UNCATEGORISED]["name"] == "Uncategorised"
    assert second["health"]["maturity_rate"] == 0.0


def test_problem_counts_in_polars_match_the_store_aggregate(store_db: Path) -> None:
    store = an.load(store_db)
    from_rows = an.problem_counts(store.problems)
    from_store = store.problem_counts.collect().filter(pl.col("snapshot_id") == store.latest_snapshot_id)
    keys = ["snapshot_id", "category", "status", "author_type"]
    assert from_rows.sort(keys, nulls_last=True).equals(from_store.sort(keys, nulls_last=True))


def test_platform_growth_on_the_generated_store_matches_sql(store_db: Path) -> None:
    store = an.load(store_db)
    growth = an.platform_growth(store.problem_counts, store.snapshots)
    with duckdb.connect(str(store_db), read_only=True) as con:
        expected = dict(
            con.sql("SELECT snapshot_id, sum(solution_count) FROM problems GROUP BY 1").fetchall()
        )
    assert dict(growth.select("snapshot_id", "solutions").iter_rows()) == expected
    assert growth["problems"].is_sorted(), "the generator only adds problems"
    assert growth["solutions_rate"].drop_nulls().min() >= 0
