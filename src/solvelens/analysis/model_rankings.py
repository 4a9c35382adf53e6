"""Three rankings of the LLM models side by side: the arena (Bradley–Terry on the stored votes,
:mod:`solvelens.analysis.arena`), the platform's own ``GET /llm-leaderboard`` (stored view
``llm_leaderboard``: its figures, no intervals) and the percentile leaderboard (rank percentile within
problem, :func:`solvelens.analysis.model_leaderboard`), and one sentence on where they disagree.

The platform's order: what each snapshot asked is recorded with it (``snapshots.requests``, read by
:func:`platform_sort`: the newest snapshot's ``sort`` of ``/llm-leaderboard``), and the platform's rank
here is the competition rank of :data:`PLATFORM_SORT_COLUMN` (descending): models with equal
figures share a rank, whatever order the platform listed them in (a platform lists a tie in any order, and
may list it differently on every call). The sentence reads only the ranks the table shows.
"""

from __future__ import annotations

import json
from typing import Final

import polars as pl

FrameLike = pl.DataFrame | pl.LazyFrame

#: The stored resource of the platform's board (its request is recorded under this name), the stored
#: column its rank orders by, and how the report names that order.
PLATFORM_BOARD: Final = "llm_leaderboard"
PLATFORM_SORT_COLUMN: Final = "avg_bt_score"
PLATFORM_SORT_LABEL: Final = "average solution score"


def platform_sort(snapshots: FrameLike) -> str | None:
    """The ``sort`` the newest snapshot that recorded its ``/llm-leaderboard`` request sent (``snapshots``:
    :class:`~solvelens.analysis.frames.Frames`'s ``snapshots``, its ``requests`` JSON text), ``None`` when
    no snapshot recorded one (stores written before requests were recorded) or the request had no sort."""
    frame = snapshots.collect() if isinstance(snapshots, pl.LazyFrame) else snapshots
    if "requests" not in frame.columns or not frame.height:
        return None
    for text in reversed(frame.sort("taken_at", "snapshot_id")["requests"].to_list()):
        sent = json.loads(text).get(PLATFORM_BOARD) if text else None
        if sent is not None:
            sort = (sent.get("params") or {}).get("sort")
            return None if sort is None else str(sort)
    return None


#: The platform's board as :func:`side_by_side` reads it (``Frames.llm_leaderboard`` has these and more).
PLATFORM_COLUMNS: dict[str, pl.DataType] = {
    "snapshot_id": pl.Int64(),
    "rank": pl.Int32(),
    "model_name": pl.String(),
    "total_solutions": pl.Int64(),
    "avg_bt_score": pl.Float64(),
    "win_rate": pl.Float64(),
    "total_comparisons": pl.Int64(),
}
SIDE_BY_SIDE_SCHEMA: dict[str, pl.DataType] = {
    "model": pl.String(),
    "arena_rank": pl.Int32(),
    "arena_score": pl.Float64(),
    "arena_lower": pl.Float64(),
    "arena_upper": pl.Float64(),
    "platform_rank": pl.Int32(),
    "platform_avg_bt_score": pl.Float64(),
    "platform_win_rate": pl.Float64(),
    "percentile_rank": pl.Int32(),
    "mean_percentile": pl.Float64(),
}


def platform_leaderboard(llm_leaderboard: FrameLike) -> pl.DataFrame:
    """The platform's own model leaderboard at the newest snapshot that stored one (:data:`PLATFORM_COLUMNS`);
    empty when no snapshot stored it (an older store, or a platform without ``/llm-leaderboard``). Input:
    ``Frames.llm_leaderboard``.

    ``rank`` is the competition rank of :data:`PLATFORM_SORT_COLUMN`, descending (equal figures share a
    rank: "1 2 2 4"; a null figure ranks last), not the position the platform happened to list a model
    at; sorted by rank, then model name."""
    board = llm_leaderboard.lazy().select(list(PLATFORM_COLUMNS)).collect()
    newest = board.filter(pl.col("snapshot_id") == pl.col("snapshot_id").max())
    key = pl.col(PLATFORM_SORT_COLUMN).fill_null(float("-inf"))
    ranked = newest.with_columns(rank=key.rank("min", descending=True))
    return ranked.cast(PLATFORM_COLUMNS).sort("rank", "model_name")  # type: ignore[arg-type]


def side_by_side(
    arena: pl.DataFrame, platform: pl.DataFrame | None, percentile: pl.DataFrame
) -> pl.DataFrame:
    """One row per model ranked by the arena or listed by the platform (:data:`SIDE_BY_SIDE_SCHEMA`), in the
    arena's order, then the platform's.

    Inputs: ``ArenaResult.ranking`` of ``by="model"`` (ranked entries only are used), the platform's board
    (:func:`platform_leaderboard`; ``None`` or empty: its columns stay null) and
    :func:`solvelens.analysis.model_leaderboard` (ranked models only). Ranks are each source's own: the
    arena's and the percentile board's are 1 + the number of models whose interval lies entirely above
    (so overlapping models usually share a rank); the platform's is the rank of its
    :data:`PLATFORM_SORT_COLUMN` (equal figures share a rank).
    """
    ours = arena.filter(pl.col("ranked")).select(
        model="entry", arena_rank="rank", arena_score="score", arena_lower="lower", arena_upper="upper"
    )
    theirs = (platform if platform is not None else pl.DataFrame(schema=PLATFORM_COLUMNS)).select(
        model="model_name",
        platform_rank="rank",
        platform_avg_bt_score="avg_bt_score",
        platform_win_rate="win_rate",
    )
    pct = percentile.filter(pl.col("ranked")).select(
        model="llm_model", percentile_rank="rank", mean_percentile="mean_percentile"
    )
    joined = (
        ours.join(theirs, on="model", how="full", coalesce=True)
        .join(pct, on="model", how="left")
        .sort(["arena_score", "platform_rank", "model"], descending=[True, False, False], nulls_last=True)
    )
    return joined.select(list(SIDE_BY_SIDE_SCHEMA)).cast(SIDE_BY_SIDE_SCHEMA)  # type: ignore[arg-type]


def _first(frame: pl.DataFrame, column: str) -> str:
    """Who ``column`` puts first: a model, "a and b (tied)", "N models tied" or "all N models equal"
    ("" when it ranks none)."""
    ranked = frame.drop_nulls(column)
    if ranked.is_empty():
        return ""
    best = ranked[column].min()
    models = sorted(ranked.filter(pl.col(column) == best)["model"].to_list())
    if len(models) == 1:
        return models[0]
    if len(models) == ranked.height:
        return f"all {len(models)} models equal"
    if len(models) > 3:
        return f"{len(models)} models tied"
    return " and ".join(models) + " (tied)"


def disagreement(table: pl.DataFrame) -> str:
    """One sentence on where the three rankings of :func:`side_by_side` disagree: who each puts first and,
    between the arena and the platform, the model whose ranks in the table differ most ("" when there is
    nothing to compare). Every rank and count it names is one the table shows."""
    tops = {
        "the arena": _first(table, "arena_rank"),
        "the platform's /llm-leaderboard": _first(table, "platform_rank"),
        "the percentile leaderboard": _first(table, "percentile_rank"),
    }
    named = {name: first for name, first in tops.items() if first}
    if len(named) < 2:
        return ""
    if len(set(named.values())) == 1 and not next(iter(named.values())).startswith("all "):
        head = f"All {len(named)} rankings put {next(iter(named.values()))} first."
    else:
        parts = [
            f"{n} ranks {m}" if m.startswith("all ") else f"{n} puts {m} first" for n, m in named.items()
        ]
        head = "They disagree on the top: " + "; ".join(parts) + "."
    return head + _largest_shift(table)


def _largest_shift(table: pl.DataFrame) -> str:
    """The sentence "The arena and the platform differ most on M (arena rank 4 of 12, platform rank 9 of
    12)." from the ranks the table shows (``of N``: the models each source ranks in the table); "" when
    fewer than two models have both ranks."""
    both = table.drop_nulls(["arena_rank", "platform_rank"])
    if both.height < 2:
        return ""
    shifts = both.with_columns(shift=(pl.col("arena_rank") - pl.col("platform_rank")).abs())
    largest = shifts["shift"].max()
    if largest == 0:
        return " The arena and the platform rank the models they share the same way."
    worst = shifts.filter(pl.col("shift") == largest).sort("model")
    arena_n = table["arena_rank"].count()
    platform_n = table["platform_rank"].count()
    named = [
        f"{r['model']} (arena rank {r['arena_rank']} of {arena_n}, platform rank {r['platform_rank']} of "
        f"{platform_n})"
        for r in worst.head(2).iter_rows(named=True)
    ]
    more = f" and {worst.height - 2} other model(s) by as many places" if worst.height > 2 else ""
    return f" The arena and the platform differ most on {' and '.join(named)}{more}."
