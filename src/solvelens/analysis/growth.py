"""Problem and solution growth, per platform and per category, with the maturity rate.

Input is ``problem_counts`` (one row per snapshot x category x status x author_type; see
:class:`solvelens.analysis.store.Store`), either read from the store or computed from full ``problems``
rows by :func:`problem_counts`. Rates per day divide the change between consecutive snapshots by the
days between them (fractional days, UTC), so gaps in the snapshot series do not inflate them.
"""

from __future__ import annotations

import polars as pl

FrameLike = pl.DataFrame | pl.LazyFrame

#: Category label used for problems without a category.
UNCATEGORISED = "uncategorised"


def problem_counts(problems: FrameLike) -> pl.DataFrame:
    """Aggregate problem rows (snapshot_id, category, status, author_type, solution_count, comparison_count).

    Output columns: snapshot_id Int64, category String (null kept), status String, author_type String,
    problems Int64, solutions Int64, comparisons Int64; sorted by all key columns.
    """
    return (
        problems.lazy()
        .group_by("snapshot_id", "category", "status", "author_type")
        .agg(
            problems=pl.len().cast(pl.Int64),
            solutions=pl.col("solution_count").sum().cast(pl.Int64),
            comparisons=pl.col("comparison_count").sum().cast(pl.Int64),
        )
        .sort("snapshot_id", "category", "status", "author_type", nulls_last=True)
        .collect()
    )


def _per_day(column: str, over: str | None = None) -> pl.Expr:
    change = pl.col(column).diff()
    days = pl.col("days_since_prev")
    rate = (change.cast(pl.Float64) / days).cast(pl.Float64)
    return rate.over(over) if over else rate


def platform_growth(counts: FrameLike, snapshots: FrameLike) -> pl.DataFrame:
    """Totals of problems, solutions and comparisons per snapshot, and their growth per day.

    Output columns: snapshot_id Int64, taken_at, problems Int64, solutions Int64, comparisons Int64,
    mature Int64, days_since_prev Float64 (null for the first snapshot), problems_per_day Float64,
    solutions_per_day Float64 (null for the first snapshot); sorted by taken_at. Snapshots without problem
    rows count zero.
    """
    totals = (
        counts.lazy()
        .group_by("snapshot_id")
        .agg(
            pl.col("problems", "solutions", "comparisons").sum(),
            mature=pl.col("problems").filter(pl.col("status") == "mature").sum(),
        )
    )
    frame = (
        snapshots.lazy()
        .select("snapshot_id", "taken_at")
        .join(totals, on="snapshot_id", how="left")
        .with_columns(pl.col("problems", "solutions", "comparisons", "mature").fill_null(0).cast(pl.Int64))
        .sort("taken_at", "snapshot_id")
        .with_columns(days_since_prev=pl.col("taken_at").diff().dt.total_microseconds() / 86_400e6)
        .with_columns(problems_per_day=_per_day("problems"), solutions_per_day=_per_day("solutions"))
    )
    return frame.collect()


def category_growth(
    counts: FrameLike, snapshots: FrameLike, categories: FrameLike | None = None
) -> pl.DataFrame:
    """Problems per category per snapshot, the category's maturity rate and its growth per day.

    ``categories`` (slug, name; any snapshot) supplies display names; without it the slug is the name.
    Output columns: snapshot_id Int64, taken_at, category String (slug; :data:`UNCATEGORISED` for null),
    name String, problems Int64, mature Int64, maturity_rate Float64 (mature / problems, 0..1),
    solutions Int64, problems_per_day Float64 (null for a category's first snapshot); sorted by taken_at,
    category. Every category appears at every snapshot (zero when it had no problems).
    """
    per_cat = (
        counts.lazy()
        .with_columns(pl.col("category").fill_null(UNCATEGORISED))
        .group_by("snapshot_id", "category")
        .agg(
            problems=pl.col("problems").sum(),
            mature=pl.col("problems").filter(pl.col("status") == "mature").sum(),
            solutions=pl.col("solutions").sum(),
        )
    )
    times = snapshots.lazy().select("snapshot_id", "taken_at")
    cats = per_cat.select("category").unique()
    grid = times.join(cats, how="cross")
    frame = (
        grid.join(per_cat, on=["snapshot_id", "category"], how="left")
        .with_columns(pl.col("problems", "mature", "solutions").fill_null(0).cast(pl.Int64))
        .with_columns(
            maturity_rate=pl.when(pl.col("problems") > 0)
            .then(pl.col("mature") / pl.col("problems"))
            .otherwise(0.0)
        )
        .sort("category", "taken_at", "snapshot_id")
        .with_columns(
            days_since_prev=(pl.col("taken_at").diff().dt.total_microseconds() / 86_400e6).over("category")
        )
        .with_columns(problems_per_day=_per_day("problems", over="category"))
    )
    if categories is not None:
        names = (
            categories.lazy()
            .sort("snapshot_id")
            .group_by("slug")
            .agg(pl.col("name").last())
            .rename({"slug": "category"})
        )
        frame = frame.join(names, on="category", how="left")
    else:
        frame = frame.with_columns(name=pl.lit(None, dtype=pl.String))
    frame = frame.with_columns(
        name=pl.coalesce(
            pl.col("name"),
            pl.when(pl.col("category") == UNCATEGORISED)
            .then(pl.lit("Uncategorised"))
            .otherwise(pl.col("category")),
        )
    )
    columns = [
        "snapshot_id",
        "taken_at",
        "category",
        "name",
        "problems",
        "mature",
        "maturity_rate",
        "solutions",
    ]
    return frame.select([*columns, "problems_per_day"]).sort("taken_at", "category").collect()
