"""Problem and solution growth, per platform and per category, with the maturity rate.

Input is ``problem_counts`` (one row per snapshot x category x status x author_type; see
:class:`solvelens.analysis.frames.Frames`), either read from the store or computed from full ``problems``
rows by :func:`problem_counts`. Rates divide the change between consecutive snapshots by the time between
them in the history's rate unit (:func:`solvelens.analysis.timescale.rate_unit`: per day when the history
spans a day or more, else per hour; none over less than ``MIN_RATE_SPAN`` of platform time), so gaps in the
snapshot series do not inflate them and minutes are never extrapolated.
"""

from __future__ import annotations

import polars as pl

from solvelens.analysis.timescale import RateUnit, rate_unit

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


def _rate(column: str, unit: RateUnit, over: str | None = None) -> pl.Expr:
    change = pl.col(column).diff()
    if over:
        change = change.over(over)
    return unit.rate(change, pl.col("elapsed_s"))


def platform_growth(counts: FrameLike, snapshots: FrameLike, *, unit: RateUnit | None = None) -> pl.DataFrame:
    """Totals of problems, solutions and comparisons per snapshot, and their growth rate.

    ``unit`` defaults to :func:`~solvelens.analysis.timescale.rate_unit` of ``snapshots``.
    Output columns: snapshot_id Int64, taken_at, problems Int64, solutions Int64, comparisons Int64,
    mature Int64, elapsed_s Float64 (seconds since the previous snapshot; null for the first),
    problems_added Int64, solutions_added Int64 (change since the previous snapshot), problems_rate Float64,
    solutions_rate Float64 (the change in ``unit``: per day or per hour; null for the first snapshot and
    over less than ``MIN_RATE_SPAN``), rate_unit String ("day" | "hour"); sorted by taken_at. Snapshots
    without problem rows count zero.
    """
    unit = unit or rate_unit(snapshots)
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
        .with_columns(elapsed_s=pl.col("taken_at").diff().dt.total_microseconds() / 1e6)
        .with_columns(
            problems_added=pl.col("problems").diff(),
            solutions_added=pl.col("solutions").diff(),
            problems_rate=_rate("problems", unit),
            solutions_rate=_rate("solutions", unit),
            rate_unit=pl.lit(unit.name),
        )
    )
    return frame.collect()


def category_growth(
    counts: FrameLike,
    snapshots: FrameLike,
    categories: FrameLike | None = None,
    *,
    unit: RateUnit | None = None,
) -> pl.DataFrame:
    """Problems per category per snapshot, the category's maturity rate and its growth rate.

    ``categories`` (slug, name; any snapshot) supplies display names; without it the slug is the name.
    Output columns: snapshot_id Int64, taken_at, category String (slug; :data:`UNCATEGORISED` for null),
    name String, problems Int64, mature Int64, maturity_rate Float64 (mature / problems, 0..1),
    solutions Int64, problems_rate Float64 (problems added in ``unit``, default
    :func:`~solvelens.analysis.timescale.rate_unit`; null for a category's first snapshot), rate_unit
    String; sorted by taken_at, category. Every category appears at every snapshot (zero when it had no
    problems).
    """
    unit = unit or rate_unit(snapshots)
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
        .with_columns(elapsed_s=(pl.col("taken_at").diff().dt.total_microseconds() / 1e6).over("category"))
        .with_columns(problems_rate=_rate("problems", unit, over="category"), rate_unit=pl.lit(unit.name))
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
    return frame.select([*columns, "problems_rate", "rate_unit"]).sort("taken_at", "category").collect()
