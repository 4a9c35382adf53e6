"""Solution score distributions, the share of top-ranked solutions by LLM model, and rank percentiles.

Input is the store's ``solutions`` frame (one snapshot; :class:`solvelens.analysis.frames.Frames` reads the
newest): solution_id, problem_id, rank Int32 (1 = best within its problem), score Float64, llm_model.

**Ties.** ``rank`` is the competition rank over the score within the problem ("1224": solutions with equal
scores share the best rank among them, :mod:`solvelens.flows.ranks`); the platform orders a tie
differently on every call, so no measure here may depend on that order. Every measure built on ranks
treats a tie the same way: the ``t`` solutions tied at rank ``r`` share the positions ``r .. r + t - 1``
equally, i.e. each figure is its expected value when every tie is broken uniformly at random.

- rank percentile (:func:`tie_percentile`): ``(n - r - (t - 1) / 2) / (n - 1)``: the share of the other
  solutions of the problem it beats, a tied one counting half (mid-rank);
- top-k credit (:func:`top_k_credit`): the share of the tie's positions within the top ``k``,
  ``clip(k - r + 1, 0, t) / t``: two solutions tied for first get 1/2 of a top-1 each and 1 of a top-3
  each, so a problem always has exactly one top-1 and at most three top-3 places in total;
- rank groups (:func:`score_distribution`): by the shared rank (every solution tied for first is in
  "rank 1").

A store of schema 2 not written since holds positions (no equal ranks; its next write rewrites them,
:data:`solvelens.store.schema.RERANK_MANIFESTS_SQL`): the same formulas then give the figures by position,
as before. A platform that publishes no numeric score also gets positions (the snapshot warns).
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


def tie_percentile(rank: pl.Expr, tied: pl.Expr, n: pl.Expr) -> pl.Expr:
    """Rank percentile with ties counting half: ``(n - rank - (tied - 1) / 2) / (n - 1)``, clipped to 0..1
    (Float64; 1 = best, 0 = worst; ``tied`` = how many share the rank; null when ``n < 2``)."""
    n_f, t_f = n.cast(pl.Float64), tied.cast(pl.Float64)
    value = (n_f - rank.cast(pl.Float64) - (t_f - 1.0) / 2.0) / (n_f - 1.0)
    return pl.when(n >= 2).then(value.clip(0.0, 1.0)).otherwise(None)


def top_k_credit(rank: pl.Expr, tied: pl.Expr, k: int) -> pl.Expr:
    """Top-``k`` credit (Float64, 0..1) of a solution at competition rank ``rank`` tied with ``tied``
    solutions: the share of the positions ``rank .. rank + tied - 1`` that lie within the top ``k``."""
    inside = (pl.lit(k + 1, dtype=pl.Int64) - rank.cast(pl.Int64)).clip(0, None)
    return pl.min_horizontal(inside, tied.cast(pl.Int64)).cast(pl.Float64) / tied.cast(pl.Float64)


def score_distribution(solutions: FrameLike, *, bins: int = 20) -> pl.DataFrame:
    """Histogram of solution scores, split by rank group ("rank 1", "rank 2-3", "rank 4+"; by the
    competition rank, so every solution tied for first is in "rank 1").

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

    Input: solutions (problem_id, rank, llm_model; ``snapshot_id`` too when several snapshots). A solution
    counts as top-ranked with its top-``top_rank`` credit (:func:`top_k_credit`): 1 when its rank is
    within ``top_rank`` and untied there, a share when it ties across that line (two solutions tied for
    first count 1/2 each with ``top_rank=1``). Models beyond the ``max_models`` most frequent among
    top-ranked solutions are merged into :data:`OTHER_MODELS`; null models are :data:`UNKNOWN_MODEL`.
    Output columns: llm_model String, top_solutions Float64 (sum of credits: whole numbers without ties),
    top_share Float64 (0..1), solutions UInt32, share Float64 (0..1 of all solutions), lift Float64
    (top_share / share; > 1: over-represented at the top); sorted by top_solutions descending, then
    llm_model.
    """
    lazy = solutions.lazy()
    groups = ["problem_id", "rank"]
    if "snapshot_id" in lazy.collect_schema().names():
        groups.insert(0, "snapshot_id")
    frame = lazy.select(
        llm_model=pl.col("llm_model").fill_null(UNKNOWN_MODEL),
        top=top_k_credit(pl.col("rank"), pl.len().over(groups), top_rank),
    ).collect()
    schema = {
        "llm_model": pl.String,
        "top_solutions": pl.Float64,
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
        .agg(top_solutions=pl.col("top").sum(), solutions=pl.len().cast(pl.UInt32))
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

    A problem's ``n`` solutions have competition ranks 1..n (1 = best; ``t`` tied solutions share a rank).
    The rank percentile is :func:`tie_percentile`, ``(n - rank - (t - 1) / 2) / (n - 1)``: 1.0 for the
    sole best solution, 0.0 for the sole worst, 0.5 for every solution of a problem whose solutions all
    tie, null when the problem has a single solution (nothing to compare with); ``rank`` above ``n`` (a
    page not stored) is clipped. top1/top3 are the top-k credits of :func:`top_k_credit` (ties share the
    positions they span).
    Output: the input columns plus solutions_in_problem UInt32, tied UInt32 (solutions sharing its rank,
    itself included; 1 = untied), rank_percentile Float64 (0..1, null for uncontested problems), contested
    Boolean (n >= 2), top1 Float64 (top-1 credit 0..1 in a contested problem, else 0), top3 Float64 (top-3
    credit), llm_model with nulls as :data:`UNKNOWN_MODEL`.
    """
    n = pl.len().over("snapshot_id", "problem_id")
    frame = solutions.lazy().with_columns(
        solutions_in_problem=n.cast(pl.UInt32),
        tied=pl.len().over("snapshot_id", "problem_id", "rank").cast(pl.UInt32),
    )
    contested = pl.col("solutions_in_problem") >= 2
    rank, tied = pl.col("rank"), pl.col("tied")
    return frame.with_columns(
        llm_model=pl.col("llm_model").fill_null(UNKNOWN_MODEL),
        rank_percentile=tie_percentile(rank, tied, pl.col("solutions_in_problem")),
        contested=contested,
        top1=pl.when(contested).then(top_k_credit(rank, tied, 1)).otherwise(0.0),
        top3=pl.when(contested).then(top_k_credit(rank, tied, 3)).otherwise(0.0),
    ).collect()
