"""Leaderboard history: rank, points and Elo per bot per snapshot; the leaderboard now; movers; stability.

Inputs are the store's ``leaderboard`` and ``snapshots`` frames (:class:`solvelens.analysis.store.Store`),
as polars DataFrames or LazyFrames. Outputs are eager DataFrames. Ranks: 1 = top; a positive
``rank_change`` means the bot moved UP (its rank number fell).
"""

from __future__ import annotations

import datetime as dt

import polars as pl

FrameLike = pl.DataFrame | pl.LazyFrame

#: Columns of :func:`leaderboard_history`.
HISTORY_COLUMNS = ("snapshot_id", "taken_at", "bot_id", "name", "rank", "points", "elo")


def leaderboard_history(leaderboard: FrameLike, snapshots: FrameLike) -> pl.DataFrame:
    """Rank, points and Elo of every ranked bot at every snapshot.

    Input: ``leaderboard`` (snapshot_id, rank, bot_id, name, points, elo, ...) and ``snapshots``
    (snapshot_id, taken_at).
    Output columns: snapshot_id Int64, taken_at Datetime[us, UTC], bot_id String, name String, rank Int32,
    points Int64, elo Float64; sorted by taken_at, rank (deterministic: ties in rank break on bot_id).
    """
    times = snapshots.lazy().select("snapshot_id", "taken_at").collect().sort("taken_at", "snapshot_id")
    # One integer sort key (snapshot position, rank) is several times faster than a multi-column sort.
    position = pl.col("snapshot_id").replace_strict(
        times["snapshot_id"], pl.int_range(times.height, eager=True), default=None, return_dtype=pl.Int64
    )
    frame = (
        leaderboard.lazy()
        .select("snapshot_id", "bot_id", "name", "rank", "points", "elo")
        .with_columns(_key=position * (1 << 32) + pl.col("rank").cast(pl.Int64))
        .drop_nulls("_key")
        .sort("_key")
        .collect()
    )
    if frame.height and (frame["_key"].diff() == 0).any():  # tied ranks: break ties on bot_id
        frame = frame.sort("_key", "bot_id")
    frame = frame.join(times, on="snapshot_id", how="left", maintain_order="left")
    return frame.select(HISTORY_COLUMNS)


def _snapshot_times(history: pl.DataFrame) -> pl.DataFrame:
    return history.select("snapshot_id", "taken_at").unique().sort("taken_at", "snapshot_id")


def _reference_snapshot(history: pl.DataFrame, window: dt.timedelta | None) -> int | None:
    """The snapshot to compare the newest one with: the latest taken at or before ``newest - window``
    (``window=None``: the previous snapshot). Falls back to the oldest snapshot when the window reaches
    past the history; ``None`` when there is only one snapshot."""
    times = _snapshot_times(history)
    if times.height < 2:
        return None
    if window is None:
        return int(times["snapshot_id"][-2])
    cutoff = times["taken_at"][-1] - window
    earlier = times.filter(pl.col("taken_at") <= cutoff)
    return int(earlier["snapshot_id"][-1]) if earlier.height else int(times["snapshot_id"][0])


def _compare(history: pl.DataFrame, reference: int | None) -> pl.DataFrame:
    times = _snapshot_times(history)
    now = history.filter(pl.col("snapshot_id") == times["snapshot_id"][-1]) if times.height else history
    before = (
        history.filter(pl.col("snapshot_id") == reference).select(
            "bot_id", prev_rank="rank", prev_points="points", prev_elo="elo"
        )
        if reference is not None
        else pl.DataFrame(
            schema={
                "bot_id": pl.String,
                "prev_rank": pl.Int32,
                "prev_points": pl.Int64,
                "prev_elo": pl.Float64,
            }
        )
    )
    return now.join(before, on="bot_id", how="left").with_columns(
        rank_change=(pl.col("prev_rank") - pl.col("rank")).cast(pl.Int32),
        points_change=pl.col("points") - pl.col("prev_points"),
        elo_change=pl.col("elo") - pl.col("prev_elo"),
        is_new=pl.col("prev_rank").is_null() & pl.lit(reference is not None),
    )


def current_leaderboard(
    history: pl.DataFrame, *, top: int | None = None, window: dt.timedelta | None = None
) -> pl.DataFrame:
    """The newest snapshot's leaderboard with changes against an earlier snapshot.

    Input: the output of :func:`leaderboard_history`. ``window=None`` compares with the previous snapshot;
    otherwise with the latest snapshot at least ``window`` older than the newest.
    Output columns: rank Int32, bot_id, name, points Int64, elo Float64, prev_rank Int32 (null: not ranked
    then), rank_change Int32 (positive = up), points_change Int64, elo_change Float64, is_new Boolean;
    sorted by rank, at most ``top`` rows. Empty when ``history`` is empty.
    """
    columns = ["rank", "bot_id", "name", "points", "elo", "prev_rank", "rank_change", "points_change"]
    columns += ["elo_change", "is_new"]
    if history.is_empty():
        return _compare(history, None).select(columns).clear()
    table = _compare(history, _reference_snapshot(history, window)).select(columns).sort("rank", "bot_id")
    return table.head(top) if top is not None else table


def top_movers(
    history: pl.DataFrame, *, window: dt.timedelta = dt.timedelta(days=7), n: int = 5
) -> pl.DataFrame:
    """The ``n`` bots that rose most and the ``n`` that fell most in rank over ``window``.

    Compares the newest snapshot with the latest snapshot at least ``window`` older (the oldest one when the
    history is shorter). Bots ranked in both snapshots only; unchanged bots are left out.
    Output columns: bot_id, name, rank_start Int32, rank_end Int32, rank_change Int32 (positive = up),
    points_start Int64, points_end Int64, points_gain Int64, direction ("up" | "down"); risers first
    (largest rise first), then fallers (largest fall first); ties break on points_gain, then name, bot_id.
    Empty with fewer than two snapshots.
    """
    schema = {
        "bot_id": pl.String,
        "name": pl.String,
        "rank_start": pl.Int32,
        "rank_end": pl.Int32,
        "rank_change": pl.Int32,
        "points_start": pl.Int64,
        "points_end": pl.Int64,
        "points_gain": pl.Int64,
        "direction": pl.String,
    }
    reference = _reference_snapshot(history, window) if not history.is_empty() else None
    if reference is None:
        return pl.DataFrame(schema=schema)
    moved = (
        _compare(history, reference)
        .filter(pl.col("prev_rank").is_not_null() & (pl.col("rank_change") != 0))
        .select(
            "bot_id",
            "name",
            rank_start=pl.col("prev_rank"),
            rank_end=pl.col("rank"),
            rank_change=pl.col("rank_change"),
            points_start=pl.col("prev_points"),
            points_end=pl.col("points"),
            points_gain=pl.col("points_change"),
            direction=pl.when(pl.col("rank_change") > 0).then(pl.lit("up")).otherwise(pl.lit("down")),
        )
    )
    up = moved.filter(pl.col("direction") == "up").sort(
        ["rank_change", "points_gain", "name", "bot_id"], descending=[True, True, False, False]
    )
    down = moved.filter(pl.col("direction") == "down").sort(
        ["rank_change", "points_gain", "name", "bot_id"], descending=[False, False, False, False]
    )
    return pl.concat([up.head(n), down.head(n)]).cast(schema)  # type: ignore[arg-type]


def rank_stability(history: pl.DataFrame, *, top_n: int = 10) -> pl.DataFrame:
    """How the top ``top_n`` changes from each snapshot to the next.

    Output, one row per snapshot after the first: snapshot_id Int64, taken_at, entered UInt32 (bots in the
    top N now but not before), left UInt32, moved UInt32 (bots in the top N both times whose rank changed),
    leader_changed Boolean (rank 1 changed hands), changed Boolean (any of the above).
    """
    top = history.filter(pl.col("rank") <= top_n).select("snapshot_id", "taken_at", "bot_id", "rank")
    times = (
        _snapshot_times(history).with_columns(prev_id=pl.col("snapshot_id").shift(1)).drop_nulls("prev_id")
    )
    prev = top.select(prev_id="snapshot_id", bot_id="bot_id", prev_rank="rank")
    cur = top.join(times.select("snapshot_id", "prev_id"), on="snapshot_id")
    pairs = cur.join(prev, on=["prev_id", "bot_id"], how="full", coalesce=True)
    pairs = pairs.with_columns(
        pl.col("snapshot_id").fill_null(
            pl.col("prev_id").replace_strict(
                times["prev_id"], times["snapshot_id"], default=None, return_dtype=pl.Int64
            )
        )
    ).filter(pl.col("snapshot_id").is_not_null())
    summary = pairs.group_by("snapshot_id").agg(
        entered=(pl.col("prev_rank").is_null()).sum(),
        left=(pl.col("rank").is_null()).sum(),
        moved=(
            pl.col("rank").is_not_null()
            & pl.col("prev_rank").is_not_null()
            & (pl.col("rank") != pl.col("prev_rank"))
        ).sum(),
        leader_changed=((pl.col("rank") == 1) & (pl.col("prev_rank") != 1).fill_null(True)).any(),
    )
    result = times.select("snapshot_id", "taken_at").join(summary, on="snapshot_id", how="left")
    result = result.with_columns(
        pl.col("entered", "left", "moved").fill_null(0).cast(pl.UInt32),
        pl.col("leader_changed").fill_null(False),
    )
    return result.with_columns(
        changed=(pl.col("entered") + pl.col("left") + pl.col("moved") > 0) | pl.col("leader_changed")
    ).sort("taken_at", "snapshot_id")


def leader_changes(history: pl.DataFrame) -> pl.DataFrame:
    """Snapshots where rank 1 changed hands (annotations for trend charts).

    Output columns: snapshot_id Int64, taken_at, bot_id, name (the new leader), label String
    ("<name> takes #1"); sorted by taken_at. The first snapshot is not a change.
    """
    leaders = history.filter(pl.col("rank") == 1).sort("taken_at", "snapshot_id")
    changed = leaders.filter(pl.col("bot_id") != pl.col("bot_id").shift(1))
    return changed.select(
        "snapshot_id", "taken_at", "bot_id", "name", label=pl.format("{} takes #1", pl.col("name"))
    )


def top_bots(history: pl.DataFrame, *, n: int = 10) -> list[str]:
    """Bot ids of the newest snapshot's top ``n`` in rank order (ties break on bot_id)."""
    if history.is_empty():
        return []
    latest = _snapshot_times(history)["snapshot_id"][-1]
    newest = history.filter(pl.col("snapshot_id") == latest).sort("rank", "bot_id")
    return newest["bot_id"].head(n).to_list()


def daily_last(frame: pl.DataFrame) -> pl.DataFrame:
    """Keep, per UTC calendar day, only the rows of that day's newest snapshot (frame needs snapshot_id,
    taken_at). Same columns as the input."""
    times = _snapshot_times(frame).with_columns(day=pl.col("taken_at").dt.date())
    keep = times.group_by("day").agg(pl.col("snapshot_id").last())["snapshot_id"]
    return frame.filter(pl.col("snapshot_id").is_in(keep.implode()))


def bump_data(history: pl.DataFrame, *, top_n: int = 10, max_rows: int = 4500) -> pl.DataFrame:
    """Rank history of the newest snapshot's top ``top_n`` bots, ready for a bump chart.

    One snapshot per day (the day's newest); if that still exceeds ``max_rows`` rows, every k-th day is kept
    (always keeping the newest), so a chart stays under Altair's 5,000-row limit.
    Output columns: snapshot_id, taken_at, bot_id, name, rank Int32, points Int64, elo Float64,
    final_rank Int32 (rank at the newest snapshot: the series order and tie-break); sorted by final_rank,
    taken_at.
    """
    ids = top_bots(history, n=top_n)
    order = pl.DataFrame(
        {"bot_id": ids, "final_rank": list(range(1, len(ids) + 1))},
        schema={"bot_id": pl.String, "final_rank": pl.Int32},
    )
    frame = daily_last(history).join(order, on="bot_id", how="inner")
    frame = thin_snapshots(frame, max_rows=max_rows)
    return frame.sort("final_rank", "taken_at")


def thin_snapshots(frame: pl.DataFrame, *, max_rows: int) -> pl.DataFrame:
    """Keep every k-th snapshot (oldest to newest, always the newest) so the frame has at most ``max_rows``
    rows (when one snapshot alone fits). Frame needs snapshot_id, taken_at; same columns out."""
    if frame.height <= max_rows:
        return frame
    times = _snapshot_times(frame)
    per_snapshot = max(1, frame.height // max(times.height, 1))
    step = -(-times.height * per_snapshot // max_rows)
    picked = times.with_row_index("i").filter(pl.col("i") % step == (times.height - 1) % step)["snapshot_id"]
    return frame.filter(pl.col("snapshot_id").is_in(picked.implode()))
