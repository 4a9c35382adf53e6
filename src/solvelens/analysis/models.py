"""The model leaderboard: how the LLM models behind the stored solutions rank within their problems, with
95% bootstrap intervals resampled over problems.

Every solution names its ``llm_model`` and has a competition rank within its problem (1 = best; solutions
with equal scores share a rank). Only **contested** problems (at least two solutions) count: a sole
solution is trivially first. Per model:

- ``mean_percentile``: mean rank percentile within problem, ``(n - rank - (t - 1) / 2) / (n - 1)`` for a
  solution tied with ``t`` (1 = best, 0 = worst; a tied solution beats half of those it ties with);
- ``top1_rate``: mean top-1 credit of its solutions, ``top3_rate``: mean top-3 credit: 1 for a solution
  untied within the top k, a share for a tie across the line (two solutions tied for first are 1/2 of a
  top-1 each), so a problem hands out exactly one top-1 whatever its ties.

Ties are thus counted as their expected value under a random order of each tie
(:mod:`solvelens.analysis.solutions`): the order the platform happened to list a tie in moves no figure.

**Intervals.** The unit of resampling is the problem (solutions of one problem are compared with each
other, so they are not independent): each of ``n_boot`` replicates draws as many problems as there are,
with replacement, and recomputes every model's figures from the solutions of the drawn problems. The
interval is the 2.5th to 97.5th percentile of the replicates (percentile bootstrap). The draw uses
``numpy.random.default_rng(seed)``: the same store and seed give the same intervals.

**Ranking**, as the Chatbot Arena leaderboard does with its confidence intervals: a model's ``rank`` is 1
plus the number of ranked models that are statistically better (their lower bound of mean_percentile above
its upper bound), so models whose intervals overlap usually share a rank (not always: A may overlap
B and C while C lies entirely above B). A model with fewer than ``min_solutions``
contested solutions is listed with its figures and ``ranked = False`` and no rank.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from solvelens.analysis.solutions import with_rank_percentile

FrameLike = pl.DataFrame | pl.LazyFrame

#: Default minimum of contested solutions for a model to be ranked.
MIN_SOLUTIONS = 30
#: Default number of bootstrap replicates and the seed of their draw.
N_BOOT = 1000
SEED = 20240611

_METRICS = ("mean_percentile", "top1_rate", "top3_rate")

LEADERBOARD_SCHEMA: dict[str, pl.DataType] = {
    "rank": pl.Int32(),
    "llm_model": pl.String(),
    "ranked": pl.Boolean(),
    "solutions": pl.UInt32(),
    "contested_solutions": pl.UInt32(),
    "problems": pl.UInt32(),
    "mean_percentile": pl.Float64(),
    "mean_percentile_lo": pl.Float64(),
    "mean_percentile_hi": pl.Float64(),
    "top1_rate": pl.Float64(),
    "top1_rate_lo": pl.Float64(),
    "top1_rate_hi": pl.Float64(),
    "top3_rate": pl.Float64(),
    "top3_rate_lo": pl.Float64(),
    "top3_rate_hi": pl.Float64(),
}


def model_leaderboard(
    solutions: FrameLike,
    *,
    min_solutions: int = MIN_SOLUTIONS,
    n_boot: int = N_BOOT,
    seed: int = SEED,
    confidence: float = 0.95,
) -> pl.DataFrame:
    """The model leaderboard of one snapshot's solutions (see the module docstring for the method).

    Input: solutions (snapshot_id, problem_id, rank, llm_model; e.g. ``Frames.solutions``, the newest
    snapshot). Null models count as ``"unknown"``.
    Output columns (:data:`LEADERBOARD_SCHEMA`): rank Int32 (Arena-style, null when not ranked),
    llm_model, ranked Boolean (at least ``min_solutions`` contested solutions), solutions UInt32 (all),
    contested_solutions UInt32, problems UInt32 (contested problems it has a solution in), then
    mean_percentile, top1_rate, top3_rate (0..1) each with ``_lo`` and ``_hi`` (the ``confidence``
    bootstrap interval; null for a model without contested solutions); ranked models first by
    mean_percentile descending, then the others by contested solutions.
    """
    frame = with_rank_percentile(solutions)
    if frame.is_empty():
        return pl.DataFrame(schema=LEADERBOARD_SCHEMA)
    totals = frame.group_by("llm_model").agg(solutions=pl.len().cast(pl.UInt32))
    rated = frame.filter(pl.col("contested"))
    models = sorted(totals["llm_model"].to_list())
    per_pm = (
        rated.group_by("problem_id", "llm_model")
        .agg(
            n=pl.len().cast(pl.Float64),
            pct=pl.col("rank_percentile").sum(),
            t1=pl.col("top1").sum().cast(pl.Float64),
            t3=pl.col("top3").sum().cast(pl.Float64),
        )
        .sort("problem_id", "llm_model")
    )
    point = (
        per_pm.group_by("llm_model")
        .agg(
            contested_solutions=pl.col("n").sum().cast(pl.UInt32),
            problems=pl.len().cast(pl.UInt32),
            mean_percentile=pl.col("pct").sum() / pl.col("n").sum(),
            top1_rate=pl.col("t1").sum() / pl.col("n").sum(),
            top3_rate=pl.col("t3").sum() / pl.col("n").sum(),
        )
        .join(totals, on="llm_model", how="right")
    )
    bounds = _bootstrap(per_pm, models, n_boot=n_boot, seed=seed, confidence=confidence)
    out = point.join(bounds, on="llm_model", how="left").with_columns(
        pl.col("contested_solutions", "problems").fill_null(0),
        ranked=pl.col("contested_solutions").fill_null(0) >= min_solutions,
    )
    ranked = out.filter(pl.col("ranked"))
    better = [
        int((ranked["mean_percentile_lo"] > hi).sum()) + 1 if hi is not None else None
        for hi in out["mean_percentile_hi"].to_list()
    ]
    out = out.with_columns(
        rank=pl.when(pl.col("ranked")).then(pl.Series(better, dtype=pl.Int32)).otherwise(None)
    )
    out = out.sort(
        ["ranked", "mean_percentile", "contested_solutions", "llm_model"],
        descending=[True, True, True, False],
        nulls_last=True,
    )
    return out.select(list(LEADERBOARD_SCHEMA)).cast(LEADERBOARD_SCHEMA)  # type: ignore[arg-type]


def _bootstrap(
    per_pm: pl.DataFrame, models: list[str], *, n_boot: int, seed: int, confidence: float
) -> pl.DataFrame:
    """Percentile-bootstrap bounds of each model's metrics, resampling problems with replacement."""
    schema = {"llm_model": pl.String, **{f"{m}_{s}": pl.Float64 for m in _METRICS for s in ("lo", "hi")}}
    problems = per_pm["problem_id"].unique(maintain_order=True)
    if problems.is_empty() or n_boot < 1:
        return pl.DataFrame(schema=schema)
    p_index = per_pm["problem_id"].replace_strict(problems, pl.int_range(problems.len(), eager=True))
    m_index = per_pm["llm_model"].replace_strict(models, list(range(len(models))))
    n_problems, n_models = problems.len(), len(models)
    # One (problems x 4·models) matrix: counts, percentile sums, top-1 and top-3 counts per problem and model.
    table = np.zeros((n_problems, 4, n_models))
    for k, column in enumerate(("n", "pct", "t1", "t3")):
        np.add.at(table[:, k, :], (p_index.to_numpy(), m_index.to_numpy()), per_pm[column].to_numpy())
    flat = table.reshape(n_problems, 4 * n_models)
    rng = np.random.default_rng(seed)
    replicates = []
    uniform = np.full(n_problems, 1.0 / n_problems)
    for start in range(0, n_boot, 200):  # chunks keep the weight matrix small
        weights = rng.multinomial(n_problems, uniform, size=min(200, n_boot - start)).astype(np.float64)
        replicates.append((weights @ flat).reshape(-1, 4, n_models))
    sums = np.concatenate(replicates)
    counts = sums[:, 0, :]
    with np.errstate(invalid="ignore", divide="ignore"):
        rates = {
            "mean_percentile": sums[:, 1, :] / counts,
            "top1_rate": sums[:, 2, :] / counts,
            "top3_rate": sums[:, 3, :] / counts,
        }
    tail = (1.0 - confidence) / 2 * 100
    columns: dict[str, list[float | None]] = {"llm_model": models}  # type: ignore[dict-item]
    for metric, values in rates.items():
        seen = ~np.all(np.isnan(values), axis=0)
        lo = np.full(n_models, np.nan)
        hi = np.full(n_models, np.nan)
        if seen.any():
            lo[seen] = np.nanpercentile(values[:, seen], tail, axis=0)
            hi[seen] = np.nanpercentile(values[:, seen], 100 - tail, axis=0)
        columns[f"{metric}_lo"] = [None if np.isnan(v) else float(v) for v in lo]
        columns[f"{metric}_hi"] = [None if np.isnan(v) else float(v) for v in hi]
    return pl.DataFrame(columns, schema=schema)


def model_trend(model_counts: FrameLike, snapshots: FrameLike) -> pl.DataFrame:
    """Each model's standing at each snapshot (no intervals: the leaderboard has them for the newest).

    Input: ``Frames.model_counts`` (snapshot_id, llm_model, solutions, contested_solutions,
    percentile_sum, top1, top3) and ``snapshots`` (snapshot_id, taken_at).
    Output columns: snapshot_id Int64, taken_at, llm_model String, solutions Int64, contested_solutions
    Int64, share Float64 (of the snapshot's solutions, 0..1), mean_percentile Float64, top1_rate Float64,
    top3_rate Float64 (null without contested solutions); sorted by llm_model, taken_at.
    """
    rated = pl.col("contested_solutions")
    return (
        model_counts.lazy()
        .join(snapshots.lazy().select("snapshot_id", "taken_at"), on="snapshot_id")
        .with_columns(share=pl.col("solutions") / pl.col("solutions").sum().over("snapshot_id"))
        .with_columns(
            mean_percentile=pl.when(rated > 0).then(pl.col("percentile_sum") / rated),
            top1_rate=pl.when(rated > 0).then(pl.col("top1") / rated),
            top3_rate=pl.when(rated > 0).then(pl.col("top3") / rated),
        )
        .select(
            "snapshot_id",
            "taken_at",
            "llm_model",
            "solutions",
            "contested_solutions",
            "share",
            "mean_percentile",
            "top1_rate",
            "top3_rate",
        )
        .sort("llm_model", "taken_at")
        .collect()
    )
