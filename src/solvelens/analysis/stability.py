"""Rank stability per bot: how much a bot's rank moves from snapshot to snapshot, and how long it held #1.

Input is :func:`solvelens.analysis.leaderboard_history` (snapshot_id, taken_at, bot_id, name, rank, ...),
where tied bots share a rank, so a tie reordering is not a move. Times are UTC; durations are measured
between snapshots: a bot "holds" its rank from a snapshot until the next one (the newest snapshot adds
no time).
"""

from __future__ import annotations

import polars as pl

#: Output schema of :func:`rank_volatility`.
VOLATILITY_SCHEMA: dict[str, pl.DataType] = {
    "bot_id": pl.String(),
    "name": pl.String(),
    "rank_now": pl.Int32(),
    "best_rank": pl.Int32(),
    "worst_rank": pl.Int32(),
    "mean_rank": pl.Float64(),
    "snapshots": pl.UInt32(),
    "moves": pl.UInt32(),
    "volatility": pl.Float64(),
    "rank_sd": pl.Float64(),
    "time_at_1_s": pl.Float64(),
    "days_at_1": pl.Float64(),
    "share_at_1": pl.Float64(),
}


def rank_volatility(history: pl.DataFrame, *, top_n: int = 10) -> pl.DataFrame:
    """Per bot: rank volatility and time at #1, for the newest snapshot's top ``top_n`` and every bot that
    ever held #1.

    Output columns: bot_id, name (newest name), rank_now Int32 (null: not ranked at the newest snapshot),
    best_rank Int32, worst_rank Int32, mean_rank Float64, snapshots UInt32 (snapshots it was ranked in),
    moves UInt32 (consecutive snapshot pairs, both ranked, whose rank differs), volatility Float64 (mean
    absolute rank change between consecutive snapshots in which it was ranked; 0 = never moved),
    rank_sd Float64 (standard deviation of its rank; null with one snapshot), time_at_1_s Float64 (seconds
    it held rank 1, ties included), days_at_1 Float64 (the same in days), share_at_1 Float64 (0..1 of the
    history's span; null when the history spans no time); sorted by rank_now (nulls last), best_rank,
    name.
    """
    if history.is_empty():
        return pl.DataFrame(schema=VOLATILITY_SCHEMA)
    times = (
        history.select("snapshot_id", "taken_at")
        .unique()
        .sort("taken_at", "snapshot_id")
        .with_columns(
            held_s=(pl.col("taken_at").shift(-1) - pl.col("taken_at")).dt.total_microseconds() / 1e6,
            order=pl.int_range(pl.len()),
        )
    )
    newest = times["snapshot_id"][-1]
    span_s = float(times["held_s"].sum() or 0.0)
    ever_first = history.filter(pl.col("rank") == 1)["bot_id"].unique()
    top_now = history.filter((pl.col("snapshot_id") == newest) & (pl.col("rank") <= top_n))["bot_id"]
    chosen = pl.concat([top_now, ever_first]).unique().implode()
    frame = (
        history.filter(pl.col("bot_id").is_in(chosen))
        .join(times.select("snapshot_id", "held_s", "order"), on="snapshot_id")
        .sort("bot_id", "order")
        .with_columns(
            step=pl.when(pl.col("order").diff().over("bot_id") == 1)
            .then((pl.col("rank") - pl.col("rank").shift(1)).over("bot_id").abs())
            .otherwise(None)
        )
    )
    out = frame.group_by("bot_id").agg(
        name=pl.col("name").last(),
        rank_now=pl.col("rank").filter(pl.col("snapshot_id") == newest).first(),
        best_rank=pl.col("rank").min(),
        worst_rank=pl.col("rank").max(),
        mean_rank=pl.col("rank").mean(),
        snapshots=pl.len(),
        moves=(pl.col("step") > 0).sum(),
        volatility=pl.col("step").mean().fill_null(0.0),
        rank_sd=pl.col("rank").cast(pl.Float64).std(),
        time_at_1_s=pl.col("held_s").filter(pl.col("rank") == 1).sum().fill_null(0.0),
    )
    out = out.with_columns(
        days_at_1=pl.col("time_at_1_s") / 86400,
        share_at_1=(pl.col("time_at_1_s") / span_s) if span_s > 0 else pl.lit(None, dtype=pl.Float64),
    )
    return (
        out.select(list(VOLATILITY_SCHEMA))
        .cast(VOLATILITY_SCHEMA)  # type: ignore[arg-type]
        .sort(["rank_now", "best_rank", "name"], nulls_last=True)
    )
