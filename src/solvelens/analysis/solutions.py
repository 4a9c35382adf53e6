"""Solution score distributions and the share of top-ranked solutions by LLM model.

Input is the store's ``solutions`` frame (one snapshot; :class:`solvelens.analysis.store.Store` reads the
newest): solution_id, problem_id, rank Int32 (1 = best within its problem), score Float64, llm_model.
"""

from __future__ import annotations

import math

import polars as pl

FrameLike = pl.DataFrame | pl.LazyFrame

#: Label for solutions without an LLM model.
UNKNOWN_MODEL = "unknown"
#: Label that collects the models beyond ``max_models``.
OTHER_MODELS = "other"


def _rank_group(rank: pl.Expr) -> pl.Expr:
    return (
        pl.when(rank == 1)
        .then(pl.lit("rank 1"))
        .when(rank <= 3)
        .then(pl.lit("rank 2-3"))
        .otherwise(pl.lit("rank 4+"))
    )


def score_distribution(solutions: FrameLike, *, bins: int = 20) -> pl.DataFrame:
    """Histogram of solution scores, split by rank group ("rank 1", "rank 2-3", "rank 4+").

    Bins are ``bins`` equal-width intervals over [min score, max score] (the last one closed).
    Output columns: group String, bin Int32 (0-based), bin_start Float64, bin_end Float64,
    solutions UInt32; only non-empty bins; sorted by group, bin. Empty input gives an empty frame.
    """
    schema = {
        "group": pl.String,
        "bin": pl.Int32,
        "bin_start": pl.Float64,
        "bin_end": pl.Float64,
        "solutions": pl.UInt32,
    }
    frame = solutions.lazy().select("rank", "score").drop_nulls().collect()
    if frame.is_empty():
        return pl.DataFrame(schema=schema)
    low, high = float(frame["score"].min()), float(frame["score"].max())  # type: ignore[arg-type]
    width = (high - low) / bins if high > low else 1.0
    index = ((pl.col("score") - low) / width).floor().cast(pl.Int32).clip(0, bins - 1)
    out = (
        frame.with_columns(group=_rank_group(pl.col("rank")), bin=index)
        .group_by("group", "bin")
        .agg(solutions=pl.len().cast(pl.UInt32))
        .with_columns(
            bin_start=low + pl.col("bin").cast(pl.Float64) * width,
            bin_end=low + (pl.col("bin").cast(pl.Float64) + 1) * width,
        )
        .select(list(schema))
        .sort("group", "bin")
    )
    return out.cast(schema)  # type: ignore[arg-type]


def llm_model_share(solutions: FrameLike, *, top_rank: int = 1, max_models: int = 8) -> pl.DataFrame:
    """Which LLM models the top-ranked solutions come from, next to their share of all solutions.

    A solution is top-ranked when its rank <= ``top_rank``. Models beyond the ``max_models`` most frequent
    among top-ranked solutions are merged into :data:`OTHER_MODELS`; null models are :data:`UNKNOWN_MODEL`.
    Output columns: llm_model String, top_solutions UInt32, top_share Float64 (0..1), solutions UInt32,
    share Float64 (0..1 of all solutions), lift Float64 (top_share / share; > 1: over-represented at the
    top); sorted by top_solutions descending, then llm_model.
    """
    frame = (
        solutions.lazy()
        .select(llm_model=pl.col("llm_model").fill_null(UNKNOWN_MODEL), top=pl.col("rank") <= top_rank)
        .collect()
    )
    schema = {
        "llm_model": pl.String,
        "top_solutions": pl.UInt32,
        "top_share": pl.Float64,
        "solutions": pl.UInt32,
        "share": pl.Float64,
        "lift": pl.Float64,
    }
    if frame.is_empty():
        return pl.DataFrame(schema=schema)
    ranking = (
        frame.group_by("llm_model")
        .agg(top=pl.col("top").sum(), n=pl.len())
        .sort(["top", "n", "llm_model"], descending=[True, True, False])
    )
    keep = ranking["llm_model"].head(max_models).implode()
    grouped = (
        frame.with_columns(
            llm_model=pl.when(pl.col("llm_model").is_in(keep))
            .then(pl.col("llm_model"))
            .otherwise(pl.lit(OTHER_MODELS))
        )
        .group_by("llm_model")
        .agg(top_solutions=pl.col("top").sum().cast(pl.UInt32), solutions=pl.len().cast(pl.UInt32))
    )
    total_top = max(int(grouped["top_solutions"].sum()), 1)
    total = max(int(grouped["solutions"].sum()), 1)
    out = grouped.with_columns(
        top_share=pl.col("top_solutions") / total_top,
        share=pl.col("solutions") / total,
    ).with_columns(
        lift=pl.when(pl.col("share") > 0).then(pl.col("top_share") / pl.col("share")).otherwise(math.nan)
    )
    return out.select(list(schema)).sort(["top_solutions", "llm_model"], descending=[True, False])


def with_rank_percentile(solutions: FrameLike) -> pl.DataFrame:
    """Add each solution's standing within its problem (one snapshot, or several: grouped per snapshot).

    A problem's solutions are ranked 1..n by the platform (1 = best). The rank percentile is
    ``(n - rank) / (n - 1)``: 1.0 for the best solution, 0.0 for the worst, null when the problem has a
    single solution (nothing to compare with). ``rank`` above ``n`` (a page not stored) is clipped.
    Output: the input columns plus solutions_in_problem UInt32, rank_percentile Float64 (0..1, null for
    uncontested problems), contested Boolean (n >= 2), top1 Boolean (rank 1 in a contested problem),
    top3 Boolean (rank <= 3 in a contested problem), llm_model with nulls as :data:`UNKNOWN_MODEL`.
    """
    n = pl.len().over("snapshot_id", "problem_id")
    frame = solutions.lazy().with_columns(solutions_in_problem=n.cast(pl.UInt32))
    contested = pl.col("solutions_in_problem") >= 2
    return frame.with_columns(
        llm_model=pl.col("llm_model").fill_null(UNKNOWN_MODEL),
        rank_percentile=pl.when(contested)
        .then(
            (
                (pl.col("solutions_in_problem").cast(pl.Float64) - pl.col("rank").cast(pl.Float64))
                / (pl.col("solutions_in_problem").cast(pl.Float64) - 1.0)
            ).clip(0.0, 1.0)
        )
        .otherwise(None),
        contested=contested,
        top1=contested & (pl.col("rank") == 1),
        top3=contested & (pl.col("rank") <= 3),
    ).collect()
