"""The report's frames from the platform's own evidence: the arena ranking of the models (fitted to the stored
votes), the platform's ``/llm-leaderboard`` beside it, and the activity timeline. Each is optional: a store
written before these views existed, or a platform without the endpoints, gives a one-line note instead."""

from __future__ import annotations

import datetime as dt
from typing import Any

import polars as pl

from solvelens import analysis as an
from solvelens.analysis.arena import MIN_COMPARISONS, N_BOOT, RANKING_SCHEMA, WINDOW_BOOTSTRAP, ArenaResult
from solvelens.analysis.frames import Frames
from solvelens.analysis.model_rankings import PLATFORM_SORT_LABEL, platform_sort

#: Notes shown instead of a section whose data is absent.
NO_VOTES = (
    "No arena ranking: no vote between two models is stored (a store written before votes were collected, "
    "or a platform that does not offer /solutions/{id}/comparisons)."
)
OTHER_CLOCK = (
    "No activity timeline: the platform's events carry other dates than these snapshots (a platform on a "
    "simulated clock snapshotted with wall-clock times), and one report keeps one time axis. Snapshots "
    "stamped with the platform's time draw it."
)
NO_ACTIVITY = (
    "No activity timeline: no event is stored (a store written before the feed was collected, or a platform "
    "that does not offer /activity)."
)


def evidence_frames(
    store: Frames, board: pl.DataFrame, *, min_comparisons: int = MIN_COMPARISONS, bootstrap: int = N_BOOT
) -> dict[str, Any]:
    """``arena`` (:class:`ArenaResult` of the models, or None), ``arena_note`` (why not, or ""),
    ``platform_models`` (the newest stored ``/llm-leaderboard``; empty without one), ``model_table``
    (:func:`solvelens.analysis.side_by_side` with ``board``, the percentile leaderboard), ``timeline``
    (:func:`solvelens.analysis.activity_timeline`: rates per covered hour, the history ending at the newest
    snapshot), ``activity_gaps``, ``activity_note`` (why no timeline is drawn: no event stored, or the
    events on the platform's simulated clock while the snapshots carry wall-clock times), ``model_caption``
    (the three-rankings table's caption, naming the ``sort`` the snapshots recorded sending). The arena's
    intervals: ``bootstrap`` resamples (the windows over time: at most :data:`WINDOW_BOOTSTRAP`)."""
    arena: ArenaResult | None = an.arena(
        store,
        by="model",
        min_comparisons=min_comparisons,
        bootstrap=bootstrap,
        window_bootstrap=min(bootstrap, WINDOW_BOOTSTRAP),
    )
    if arena is not None and arena.is_empty():
        arena = None
    platform = an.platform_leaderboard(store.llm_leaderboard)
    ranking = arena.ranking if arena is not None else pl.DataFrame(schema=RANKING_SCHEMA)
    snapshots = store.snapshots.collect()
    timeline = an.activity_timeline(store.activity, gaps=store.activity_gaps, snapshots=snapshots)
    activity_note = "" if timeline.height else NO_ACTIVITY
    if timeline.height and _on_another_clock(snapshots, store.activity):
        activity_note = OTHER_CLOCK
    return {
        "arena": arena,
        "arena_note": "" if arena is not None else NO_VOTES,
        "platform_models": platform,
        "model_table": an.side_by_side(ranking, platform, board),
        "timeline": timeline,
        "activity_gaps": store.activity_gaps.collect(),
        "activity_note": activity_note,
        "model_caption": model_table_caption(platform_sort(snapshots)),
    }


def model_table_caption(sort: str | None) -> str:
    """The caption of the three-rankings table: each rank's rule as applied; ``sort``: the ``sort`` the
    snapshots recorded sending to ``/llm-leaderboard``
    (:func:`solvelens.analysis.model_rankings.platform_sort`; ``None``: not recorded)."""
    asked = f"requested with sort={sort}" if sort is not None else "its request's sort not recorded"
    return (
        "The arena (Bradley–Terry on the votes, 95% interval), the platform's own /llm-leaderboard "
        f"({asked}: ranked by its {PLATFORM_SORT_LABEL}, "
        "models with equal scores share a rank; no intervals) and the percentile leaderboard above (rank "
        "percentile within problem). Arena and percentile rank: 1 + the number of models whose interval "
        "lies entirely above the model's own."
    )


#: The caption before any snapshot is read (no request recorded).
MODEL_TABLE_CAPTION = model_table_caption(None)


#: How far (seconds) an event may lie outside the snapshots that could have first seen it and still be on
#: their clock (a snapshot's time is stamped once; events keep arriving while it runs).
CLOCK_SLACK_S = 300.0


def _on_another_clock(snapshots: pl.DataFrame, activity: pl.LazyFrame) -> bool:
    """Whether the stored events are on another clock than the snapshots (a platform's simulated dates
    beside wall-clock snapshot times): on one clock an event first seen by a snapshot happened before it
    and, unless that snapshot is the first, after the snapshot before it (the feed serves the newest events,
    so the earlier snapshot would have stored it). True when most events break that, by more than
    :data:`CLOCK_SLACK_S`."""
    order = snapshots.sort("taken_at", "snapshot_id").select(
        "snapshot_id", "taken_at", previous=pl.col("taken_at").shift(1)
    )
    events = (
        activity.select("created_at", "first_snapshot_id")
        .collect()
        .join(order, left_on="first_snapshot_id", right_on="snapshot_id")
    )
    if not events.height:
        return False
    slack = dt.timedelta(seconds=CLOCK_SLACK_S)
    inside = (pl.col("created_at") <= pl.col("taken_at") + slack) & (
        pl.col("previous").is_null() | (pl.col("created_at") > pl.col("previous") - slack)
    )
    return bool(events.select((~inside.fill_null(True)).mean()).item() > 0.5)


def _score(row: dict[str, Any]) -> str:
    if row["arena_score"] is None:
        return "–"
    return f"{row['arena_score']:,.0f} [{row['arena_lower']:,.0f}, {row['arena_upper']:,.0f}]"


def model_table_rows(table: pl.DataFrame) -> list[dict[str, Any]]:
    """Rows of the three-rankings table (:func:`solvelens.analysis.side_by_side`): model, arena_rank,
    arena_score ("1,532 [1,520, 1,545]"), platform_rank, platform_score (average BT score),
    platform_win_rate, percentile_rank, percentile; "–" where a source does not list the model."""

    def show(value: Any, fmt: str) -> str:
        return "–" if value is None else format(value, fmt)

    return [
        {
            "model": row["model"],
            "arena_rank": show(row["arena_rank"], "d"),
            "arena_score": _score(row),
            "platform_rank": show(row["platform_rank"], "d"),
            "platform_score": show(row["platform_avg_bt_score"], ",.0f"),
            "platform_win_rate": show(row["platform_win_rate"], ".1%"),
            "percentile_rank": show(row["percentile_rank"], "d"),
            "percentile": show(row["mean_percentile"], ".1%"),
        }
        for row in table.iter_rows(named=True)
    ]
