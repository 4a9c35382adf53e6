"""analysis/model_rankings.py: the arena, the platform's /llm-leaderboard and the percentile board side by
side, and the sentence on where they disagree."""

from __future__ import annotations

import polars as pl

from solvelens import analysis as an
from solvelens.analysis.arena import RANKING_SCHEMA
from solvelens.analysis.model_rankings import PLATFORM_COLUMNS, SIDE_BY_SIDE_SCHEMA
from solvelens.analysis.models import LEADERBOARD_SCHEMA


def _arena(rows: list[tuple[str, int, float]]) -> pl.DataFrame:
    return pl.DataFrame(
        [
            {"rank": r, "entry": m, "label": m, "score": s, "lower": s - 10, "upper": s + 10,
             "comparisons": 50, "wins": 25, "ranked": True}
            for m, r, s in rows
        ],
        schema=RANKING_SCHEMA,
    )  # fmt: skip


def _platform(models: list[str]) -> pl.DataFrame:
    return pl.DataFrame(
        [
            {"snapshot_id": 1, "rank": i, "model_name": m, "total_solutions": 10, "avg_bt_score": 1600.0 - i,
             "win_rate": 0.5, "total_comparisons": 20}
            for i, m in enumerate(models, start=1)
        ],
        schema=PLATFORM_COLUMNS,
    )  # fmt: skip


def _percentile(rows: list[tuple[str, int]]) -> pl.DataFrame:
    return pl.DataFrame(
        [{"llm_model": m, "rank": r, "ranked": True, "mean_percentile": 1 - r / 10} for m, r in rows],
        schema=LEADERBOARD_SCHEMA,
    )


def test_side_by_side_joins_the_three_rankings_in_the_arenas_order() -> None:
    table = an.side_by_side(
        _arena([("x", 1, 1600.0), ("y", 2, 1500.0)]), _platform(["y", "x", "z"]), _percentile([("x", 1)])
    )
    assert table.schema == pl.Schema(SIDE_BY_SIDE_SCHEMA)
    assert table.select("model", "arena_rank", "platform_rank", "percentile_rank").rows() == [
        ("x", 1, 2, 1),
        ("y", 2, 1, None),
        ("z", None, 3, None),
    ]


def test_the_sentence_names_who_each_ranking_puts_first_and_the_biggest_shift() -> None:
    table = an.side_by_side(
        _arena([("x", 1, 1600.0), ("y", 2, 1550.0), ("z", 3, 1500.0)]),
        _platform(["z", "y", "x"]),
        _percentile([("x", 1), ("y", 2)]),
    )
    sentence = an.disagreement(table)
    assert sentence.startswith(
        "They disagree on the top: the arena puts x first; the platform's /llm-leaderboard puts z first; "
        "the percentile leaderboard puts x first."
    )
    assert sentence.endswith(
        "differ most on x (arena rank 1 of 3, platform rank 3 of 3) and z (arena rank 3 of 3, "
        "platform rank 1 of 3)."
    )


def test_agreement_and_missing_sources() -> None:
    same = an.side_by_side(
        _arena([("x", 1, 1600.0), ("y", 2, 1500.0)]), _platform(["x", "y"]), _percentile([])
    )
    assert an.disagreement(same) == (
        "All 2 rankings put x first. The arena and the platform rank the models they share the same way."
    )
    alone = an.side_by_side(_arena([("x", 1, 1600.0)]), None, _percentile([]))
    assert an.disagreement(alone) == "" and alone["platform_rank"].is_null().all()


def test_shared_first_places_and_the_largest_shift_either_way() -> None:
    table = an.side_by_side(
        _arena([("a", 1, 1700.0), ("b", 2, 1600.0), ("c", 2, 1590.0), ("d", 4, 1400.0)]),
        _platform(["d", "c", "b", "a"]),
        _percentile([("a", 1), ("b", 1), ("c", 1), ("d", 1)]),
    )
    assert an.disagreement(table) == (
        "They disagree on the top: the arena puts a first; the platform's /llm-leaderboard puts d first; "
        "the percentile leaderboard ranks all 4 models equal. The arena and the platform differ most on a "
        "(arena rank 1 of 4, platform rank 4 of 4) and d (arena rank 4 of 4, platform rank 1 of 4)."
    )
    tied = an.side_by_side(
        _arena([("a", 1, 1700.0), ("b", 1, 1690.0), ("c", 3, 1500.0)]),
        None,
        _percentile([("a", 1), ("b", 1), ("c", 3)]),
    )
    assert an.disagreement(tied) == "All 2 rankings put a and b (tied) first."


def _tied_platform(scores: dict[str, float], listed: list[str]) -> pl.DataFrame:
    """The platform's board listing ``listed`` in that order (its position as ``rank``) with these scores."""
    return pl.DataFrame(
        [
            {"snapshot_id": 1, "rank": i, "model_name": m, "total_solutions": 10, "avg_bt_score": scores[m],
             "win_rate": 0.5, "total_comparisons": 20}
            for i, m in enumerate(listed, start=1)
        ],
        schema=PLATFORM_COLUMNS,
    )  # fmt: skip


def test_equal_platform_scores_share_a_rank_whatever_order_they_were_listed_in() -> None:
    scores = {"a": 1500.0, "b": 1500.0, "c": 1400.0}
    boards = [
        an.platform_leaderboard(_tied_platform(scores, order)) for order in (["a", "b", "c"], ["b", "a", "c"])
    ]
    assert boards[0].equals(boards[1])
    assert boards[0].select("model_name", "rank").rows() == [("a", 1), ("b", 1), ("c", 3)]
    arena = _arena([("a", 1, 1600.0), ("b", 2, 1500.0), ("c", 3, 1400.0)])
    sentences = {an.disagreement(an.side_by_side(arena, board, _percentile([]))) for board in boards}
    assert sentences == {
        "They disagree on the top: the arena puts a first; the platform's /llm-leaderboard puts a and b "
        "(tied) first. The arena and the platform differ most on b (arena rank 2 of 3, platform rank 1 of 3)."
    }


def test_the_sentence_only_names_ranks_and_counts_the_table_shows() -> None:
    """A model the platform lists and the arena does not rank is in the table: "of N" counts each source's
    ranked rows of the table, and the ranks named are the table's (the arena's shared ranks, not
    positions)."""
    arena = _arena([("a", 1, 1700.0), ("b", 1, 1650.0), ("c", 1, 1600.0), ("d", 4, 1400.0)])
    table = an.side_by_side(arena, _platform(["d", "a", "b", "c", "e"]), _percentile([]))
    sentence = an.disagreement(table)
    row = table.filter(pl.col("model") == "d").row(0, named=True)
    arena_n, platform_n = table["arena_rank"].count(), table["platform_rank"].count()
    shown = f"d (arena rank {row['arena_rank']} of {arena_n}, platform rank {row['platform_rank']} of "
    shown += f"{platform_n})"
    assert shown == "d (arena rank 4 of 4, platform rank 1 of 5)" and shown in sentence


def _snapshots(requests: list[str | None]) -> pl.DataFrame:
    import datetime as dt

    start = dt.datetime(2026, 3, 1, tzinfo=dt.UTC)
    return pl.DataFrame(
        {
            "snapshot_id": list(range(1, len(requests) + 1)),
            "taken_at": [start + dt.timedelta(hours=i) for i in range(len(requests))],
            "requests": requests,
        }
    )


def test_the_platform_sort_is_the_one_the_newest_snapshot_recorded_sending() -> None:
    from solvelens.analysis.model_rankings import platform_sort

    board = '{"llm_leaderboard": {"path": "/llm-leaderboard", "params": {"sort": "%s"}}}'
    # The newest snapshot that asked for the board names the sort; one that did not ({}) is skipped.
    assert platform_sort(_snapshots([board % "win_rate", board % "avg_score", "{}"])) == "avg_score"
    # Snapshots written before requests were recorded (null) name none: the report says so.
    assert platform_sort(_snapshots([None, None])) is None
    assert platform_sort(_snapshots([])) is None
    assert platform_sort(_snapshots([None, board % "best_score"]).lazy()) == "best_score"
