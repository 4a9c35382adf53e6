"""Leaderboard history: rank, points and Elo per bot per snapshot; the leaderboard now; movers; stability.

Inputs are the store's ``leaderboard`` and ``snapshots`` frames (:class:`solvelens.analysis.frames.Frames`),
as polars DataFrames or LazyFrames. Outputs are eager DataFrames.

Ranks: 1 = top. Bots with equal points share a rank (standard competition ranking, "1224": two bots tied
for second are both 2 and the next bot is 4), so two tied bots swapping places on the platform's list is
no move. ``position`` keeps the platform's own list position.

Change, one definition for every helper, the report and the CLI: a bot's rank change against a baseline
snapshot is ``baseline rank - rank now`` (positive = moved UP). The three baselines are

- ``prev``: the snapshot before the newest one;
- ``7d``: the latest snapshot taken at least ``window`` (default 7 days) before the newest one (null when
  the history is shorter than the window);
- ``first``: the oldest snapshot in the history.
"""

from __future__ import annotations

import datetime as dt
from typing import Literal

import polars as pl

FrameLike = pl.DataFrame | pl.LazyFrame
Baseline = Literal["prev", "7d", "first"]

#: The baselines of every change, in the order tables show them.
BASELINES: tuple[Baseline, ...] = ("prev", "7d", "first")
#: Column headings for the baselines.
BASELINE_LABELS: dict[str, str] = {"prev": "vs previous", "7d": "vs 7 days", "first": "vs first"}
#: Default window of the ``7d`` baseline.
WEEK = dt.timedelta(days=7)

#: Columns of :func:`leaderboard_history`.
HISTORY_COLUMNS = ("snapshot_id", "taken_at", "bot_id", "name", "rank", "position", "points", "elo")


def leaderboard_history(leaderboard: FrameLike, snapshots: FrameLike) -> pl.DataFrame:
    """Rank, points and Elo of every ranked bot at every snapshot (also exported as ``rank_history``).

    Input: ``leaderboard`` (snapshot_id, rank, bot_id, name, points, elo, ...) and ``snapshots``
    (snapshot_id, taken_at).
    Output columns: snapshot_id Int64, taken_at Datetime[us, UTC], bot_id String, name String, rank Int32
    (competition rank: bots with equal points share the best position among them, "1224"), position Int32
    (the platform's list position), points Int64, elo Float64; sorted by taken_at, position
    (deterministic: equal positions break on bot_id). In a snapshot whose list is not ordered by points
    (another sort), rank is the position.
    """
    times = snapshots.lazy().select("snapshot_id", "taken_at").collect().sort("taken_at", "snapshot_id")
    # One integer sort key (snapshot position, rank) is several times faster than a multi-column sort.
    order = pl.col("snapshot_id").replace_strict(
        times["snapshot_id"], pl.int_range(times.height, eager=True), default=None, return_dtype=pl.Int64
    )
    frame = (
        leaderboard.lazy()
        .select("snapshot_id", "bot_id", "name", position="rank", points="points", elo="elo")
        .with_columns(_key=order * (1 << 32) + pl.col("position").cast(pl.Int64))
        .drop_nulls("_key")
        .sort("_key")
        .collect()
    )
    if frame.height and (frame["_key"].diff() == 0).any():  # equal positions: break ties on bot_id
        frame = frame.sort("_key", "bot_id")
    same_snapshot = pl.col("snapshot_id") == pl.col("snapshot_id").shift(1)
    unordered = frame.filter(same_snapshot & (pl.col("points") > pl.col("points").shift(1)))["snapshot_id"]
    tied = same_snapshot & (pl.col("points") == pl.col("points").shift(1)).fill_null(False)
    competition = pl.when(tied).then(None).otherwise(pl.col("position")).forward_fill()
    if unordered.len():
        competition = (
            pl.when(pl.col("snapshot_id").is_in(unordered.unique().implode()))
            .then(pl.col("position"))
            .otherwise(competition)
        )
    frame = frame.with_columns(rank=competition.cast(pl.Int32), position=pl.col("position").cast(pl.Int32))
    frame = frame.join(times, on="snapshot_id", how="left", maintain_order="left")
    return frame.select(HISTORY_COLUMNS)


#: The analyst's name for :func:`leaderboard_history`.
rank_history = leaderboard_history


def _snapshot_times(history: pl.DataFrame) -> pl.DataFrame:
    return history.select("snapshot_id", "taken_at").unique().sort("taken_at", "snapshot_id")


def reference_snapshots(history: pl.DataFrame, *, window: dt.timedelta = WEEK) -> dict[str, int | None]:
    """The baseline snapshot ids of the newest snapshot: ``{"prev": id, "7d": id, "first": id}`` (see the
    module docstring). A baseline is ``None`` when it does not exist: one snapshot only, or (``7d``) a
    history shorter than ``window``. Input: any frame with snapshot_id, taken_at."""
    times = _snapshot_times(history)
    if times.height < 2:
        return {"prev": None, "7d": None, "first": None}
    cutoff = times["taken_at"][-1] - window
    earlier = times.filter(pl.col("taken_at") <= cutoff)
    return {
        "prev": int(times["snapshot_id"][-2]),
        "7d": int(earlier["snapshot_id"][-1]) if earlier.height else None,
        "first": int(times["snapshot_id"][0]),
    }


def _compare(history: pl.DataFrame, reference: int | None, suffix: str) -> pl.DataFrame:
    """bot_id, rank_<suffix>, points_<suffix>, elo_<suffix> at the ``reference`` snapshot (empty for None)."""
    before = (
        history.filter(pl.col("snapshot_id") == reference).select("bot_id", "rank", "points", "elo")
        if reference is not None
        else pl.DataFrame(
            schema={"bot_id": pl.String, "rank": pl.Int32, "points": pl.Int64, "elo": pl.Float64}
        )
    )
    return before.rename({"rank": f"rank_{suffix}", "points": f"points_{suffix}", "elo": f"elo_{suffix}"})


def current_leaderboard(
    history: pl.DataFrame, *, top: int | None = None, window: dt.timedelta = WEEK
) -> pl.DataFrame:
    """The newest snapshot's leaderboard with its changes against the three baselines (previous snapshot,
    ``window`` earlier, first snapshot; see the module docstring).

    Input: the output of :func:`leaderboard_history`.
    Output columns: rank Int32, position Int32, bot_id, name, points Int64, elo Float64, then for each
    baseline ``b`` in prev, 7d, first: rank_b Int32 (the rank then; null when not ranked then or when the
    baseline does not exist), rank_change_b Int32 (positive = up), points_change_b Int64, elo_change_b
    Float64; and is_new Boolean (ranked now, not at the previous snapshot). Sorted by rank, position, at
    most ``top`` rows. Empty when ``history`` is empty.
    """
    refs = reference_snapshots(history, window=window)
    times = _snapshot_times(history)
    newest = times["snapshot_id"][-1] if times.height else None
    table = history.filter(pl.col("snapshot_id") == newest if newest is not None else pl.lit(False)).select(
        "rank", "position", "bot_id", "name", "points", "elo"
    )
    changes = []
    for b in BASELINES:
        table = table.join(_compare(history, refs[b], b), on="bot_id", how="left")
        changes += [
            (pl.col(f"rank_{b}") - pl.col("rank")).cast(pl.Int32).alias(f"rank_change_{b}"),
            (pl.col("points") - pl.col(f"points_{b}")).alias(f"points_change_{b}"),
            (pl.col("elo") - pl.col(f"elo_{b}")).alias(f"elo_change_{b}"),
        ]
    table = table.with_columns(
        *changes, is_new=pl.col("rank_prev").is_null() & pl.lit(refs["prev"] is not None)
    )
    columns = ["rank", "position", "bot_id", "name", "points", "elo"]
    for b in BASELINES:
        columns += [f"rank_{b}", f"rank_change_{b}", f"points_change_{b}", f"elo_change_{b}"]
    table = table.select(*columns, "is_new").sort("rank", "position", "bot_id")
    return table.head(top) if top is not None else table


def top_movers(history: pl.DataFrame, *, window: dt.timedelta = WEEK, n: int = 5) -> pl.DataFrame:
    """The ``n`` bots that rose most and the ``n`` that fell most in rank since the ``7d`` baseline (the
    latest snapshot at least ``window`` before the newest), or since the first snapshot when the history is
    shorter than ``window``; the same changes :func:`current_leaderboard` shows.

    Bots ranked in both snapshots only; unchanged bots (including tied bots swapping places) are left out.
    Output columns: bot_id, name, rank_start Int32, rank_end Int32, rank_change Int32 (positive = up),
    points_start Int64, points_end Int64, points_gain Int64, direction ("up" | "down"), baseline ("7d" |
    "first"); risers first (largest rise first), then fallers (largest fall first); ties break on
    points_gain, then name, bot_id. Empty with fewer than two snapshots.
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
        "baseline": pl.String,
    }
    if history.is_empty() or _snapshot_times(history).height < 2:
        return pl.DataFrame(schema=schema)
    baseline = "7d" if reference_snapshots(history, window=window)["7d"] is not None else "first"
    table = current_leaderboard(history, window=window)
    moved = table.filter(
        pl.col(f"rank_{baseline}").is_not_null() & (pl.col(f"rank_change_{baseline}") != 0)
    ).select(
        "bot_id",
        "name",
        rank_start=pl.col(f"rank_{baseline}"),
        rank_end=pl.col("rank"),
        rank_change=pl.col(f"rank_change_{baseline}"),
        points_start=pl.col("points") - pl.col(f"points_change_{baseline}"),
        points_end=pl.col("points"),
        points_gain=pl.col(f"points_change_{baseline}"),
        direction=pl.when(pl.col(f"rank_change_{baseline}") > 0).then(pl.lit("up")).otherwise(pl.lit("down")),
        baseline=pl.lit(baseline),
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
    """Snapshots where the #1 spot changed hands (annotations for trend charts).

    Bots tied at rank 1 share it; a change is any change in the set of bots at #1.
    Output columns: snapshot_id Int64, taken_at, bot_id (the first new leader by position), name (the new
    leader's name, or the tied leaders' names joined by " and "), label String ("<name> takes #1" or
    "<a> and <b> share #1"); sorted by taken_at. The first snapshot is not a change.
    """
    leaders = (
        history.filter(pl.col("rank") == 1)
        .sort("taken_at", "snapshot_id", "position", "bot_id")
        .group_by("snapshot_id", "taken_at", maintain_order=True)
        .agg(pl.col("bot_id"), pl.col("name"))
        .with_columns(key=pl.col("bot_id").list.sort().list.join(","))
    )
    changed = leaders.filter(pl.col("key") != pl.col("key").shift(1))
    return changed.select(
        "snapshot_id",
        "taken_at",
        bot_id=pl.col("bot_id").list.first(),
        name=pl.col("name").list.join(" and "),
        label=pl.when(pl.col("name").list.len() > 1)
        .then(pl.format("{} share #1", pl.col("name").list.join(" and ")))
        .otherwise(pl.format("{} takes #1", pl.col("name").list.first())),
    )


def top_bots(history: pl.DataFrame, *, n: int = 10) -> list[str]:
    """Bot ids of the newest snapshot's top ``n`` in rank order (ties break on position, then bot_id)."""
    if history.is_empty():
        return []
    latest = _snapshot_times(history)["snapshot_id"][-1]
    newest = history.filter(pl.col("snapshot_id") == latest).sort("rank", "position", "bot_id")
    return newest["bot_id"].head(n).to_list()


def daily_last(frame: pl.DataFrame) -> pl.DataFrame:
    """Keep, per UTC calendar day, only the rows of that day's newest snapshot (frame needs snapshot_id,
    taken_at). Same columns as the input."""
    times = _snapshot_times(frame).with_columns(day=pl.col("taken_at").dt.date())
    keep = times.group_by("day").agg(pl.col("snapshot_id").last())["snapshot_id"]
    return frame.filter(pl.col("snapshot_id").is_in(keep.implode()))


def bump_data(history: pl.DataFrame, *, top_n: int = 10, max_rows: int = 4500) -> pl.DataFrame:
    """Rank history of the newest snapshot's top ``top_n`` bots, ready for a bump chart.

    Every snapshot is kept (the history's own resolution: minutes, hours or days); when that exceeds
    ``max_rows`` rows, every k-th snapshot is kept (always the newest), so a chart stays under Altair's
    5,000-row limit.
    Output columns: snapshot_id, taken_at, bot_id, name (the bot's name at the newest snapshot, at every
    row: one series per bot, a rename does not split its line), rank Int32, position Int32, points Int64,
    elo Float64, final_rank Int32 (order at the newest snapshot, 1..n: the series order; ties in rank
    break on position); sorted by final_rank, taken_at, snapshot_id (snapshots taken at one platform time
    stay in the order they were taken).
    """
    ids = top_bots(history, n=top_n)
    latest = _snapshot_times(history)["snapshot_id"][-1] if ids else -1
    names = history.filter(pl.col("snapshot_id") == latest).select("bot_id", name_now="name")
    order = pl.DataFrame(
        {"bot_id": ids, "final_rank": list(range(1, len(ids) + 1))},
        schema={"bot_id": pl.String, "final_rank": pl.Int32},
    ).join(names, on="bot_id", how="left", maintain_order="left")
    frame = (
        history.join(order, on="bot_id", how="inner").with_columns(name=pl.col("name_now")).drop("name_now")
    )
    frame = thin_snapshots(frame, max_rows=max_rows)
    return frame.sort("final_rank", "taken_at", "snapshot_id")


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
