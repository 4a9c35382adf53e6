"""The report's frames from the platform's own evidence: the arena ranking of the models (fitted to the stored
votes), the platform's ``/llm-leaderboard`` beside it, and the activity timeline. Each is optional: a store
written before these views existed, or a platform without the endpoints, gives a one-line note instead."""

from __future__ import annotations

from typing import Any

import polars as pl

from solvelens import analysis as an
from solvelens.analysis.arena import MIN_COMPARISONS, RANKING_SCHEMA, ArenaResult
from solvelens.analysis.frames import Frames

#: Notes shown instead of a section whose data is absent.
NO_VOTES = (
    "No arena ranking: no vote between two models is stored (a store written before votes were collected, "
    "or a platform that does not offer /solutions/{id}/comparisons)."
)
NO_ACTIVITY = (
    "No activity timeline: no event is stored (a store written before the feed was collected, or a platform "
    "that does not offer /activity)."
)


def evidence_frames(
    store: Frames, board: pl.DataFrame, *, min_comparisons: int = MIN_COMPARISONS
) -> dict[str, Any]:
    """``arena`` (:class:`ArenaResult` of the models, or None), ``arena_note`` (why not, or ""),
    ``platform_models`` (the newest stored ``/llm-leaderboard``; empty without one), ``model_table``
    (:func:`solvelens.analysis.side_by_side` with ``board``, the percentile leaderboard), ``timeline``
    (:func:`solvelens.analysis.activity_timeline`), ``activity_gaps``, ``activity_note``."""
    arena: ArenaResult | None = an.arena(store, by="model", min_comparisons=min_comparisons)
    if arena is not None and arena.is_empty():
        arena = None
    platform = an.platform_leaderboard(store.llm_leaderboard)
    ranking = arena.ranking if arena is not None else pl.DataFrame(schema=RANKING_SCHEMA)
    timeline = an.activity_timeline(store.activity)
    return {
        "arena": arena,
        "arena_note": "" if arena is not None else NO_VOTES,
        "platform_models": platform,
        "model_table": an.side_by_side(ranking, platform, board),
        "timeline": timeline,
        "activity_gaps": store.activity_gaps.collect(),
        "activity_note": "" if timeline.height else NO_ACTIVITY,
    }


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
