"""Bot activity: solutions and votes per day, from the change of each bot's profile counters.

Input is the store's ``bots`` frame (snapshot_id, bot_id, name, total_solutions, total_votes) and
``snapshots`` (snapshot_id, taken_at). Between two consecutive snapshots of a bot the counter change is
divided by the elapsed days (fractional, UTC). A counter that went DOWN (a reset on the platform) gives a
null delta instead of negative activity.
"""

from __future__ import annotations

import polars as pl

FrameLike = pl.DataFrame | pl.LazyFrame


def bot_activity(bots: FrameLike, snapshots: FrameLike) -> pl.DataFrame:
    """Per bot and snapshot (after the bot's first): solutions and votes added since its previous snapshot.

    Output columns: snapshot_id Int64, taken_at, bot_id, name, days Float64 (since the bot's previous
    snapshot), solutions_delta Int64, votes_delta Int64, solutions_per_day Float64, votes_per_day Float64;
    sorted by taken_at, bot_id.
    """
    times = snapshots.lazy().select("snapshot_id", "taken_at")

    def delta(column: str) -> pl.Expr:
        change = pl.col(column).diff().over("bot_id")
        return pl.when(change >= 0).then(change).otherwise(None).cast(pl.Int64)

    frame = (
        bots.lazy()
        .select("snapshot_id", "bot_id", "name", "total_solutions", "total_votes")
        .join(times, on="snapshot_id")
        .sort("bot_id", "taken_at", "snapshot_id")
        .with_columns(
            days=(pl.col("taken_at").diff().dt.total_microseconds() / 86_400e6).over("bot_id"),
            solutions_delta=delta("total_solutions"),
            votes_delta=delta("total_votes"),
        )
        .filter(pl.col("days").is_not_null() & (pl.col("days") > 0))
        .with_columns(
            solutions_per_day=pl.col("solutions_delta") / pl.col("days"),
            votes_per_day=pl.col("votes_delta") / pl.col("days"),
        )
        .select(
            "snapshot_id",
            "taken_at",
            "bot_id",
            "name",
            "days",
            "solutions_delta",
            "votes_delta",
            "solutions_per_day",
            "votes_per_day",
        )
        .sort("taken_at", "bot_id")
    )
    return frame.collect()


def platform_activity(activity: pl.DataFrame) -> pl.DataFrame:
    """Sum :func:`bot_activity` over bots: the whole platform's solutions and votes per day.

    Output columns: snapshot_id Int64, taken_at, active_bots UInt32 (bots that added anything),
    solutions_per_day Float64, votes_per_day Float64; sorted by taken_at.
    """
    return (
        activity.group_by("snapshot_id", "taken_at")
        .agg(
            active_bots=((pl.col("solutions_delta") > 0) | (pl.col("votes_delta") > 0)).sum().cast(pl.UInt32),
            solutions_per_day=pl.col("solutions_per_day").sum(),
            votes_per_day=pl.col("votes_per_day").sum(),
        )
        .sort("taken_at", "snapshot_id")
    )
