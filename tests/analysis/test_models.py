"""solvelens.analysis.models: the model leaderboard with bootstrap intervals over problems, and its trend."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from solvelens import analysis as an


def _solutions(rows: list[tuple[str, int, str | None]]) -> pl.DataFrame:
    """(problem_id, rank, llm_model) rows of one snapshot."""
    return pl.DataFrame(
        [{"snapshot_id": 1, "problem_id": p, "rank": r, "llm_model": m} for p, r, m in rows],
        schema={"snapshot_id": pl.Int64, "problem_id": pl.String, "rank": pl.Int32, "llm_model": pl.String},
    )


def test_percentile_top1_top3_on_contested_problems_only() -> None:
    rows = []
    for i in range(40):  # "good" always wins against "bad"; "solo" only answers uncontested problems
        rows += [(f"p{i}", 1, "good"), (f"p{i}", 2, "bad")]
        rows += [(f"q{i}", 1, "solo")]
    board = an.model_leaderboard(_solutions(rows), min_solutions=30, n_boot=200)
    by_model = {r["llm_model"]: r for r in board.iter_rows(named=True)}
    assert by_model["good"]["mean_percentile"] == 1.0 and by_model["good"]["top1_rate"] == 1.0
    assert by_model["bad"]["mean_percentile"] == 0.0 and by_model["bad"]["top3_rate"] == 1.0
    assert by_model["good"]["rank"] == 1 and by_model["bad"]["rank"] == 2
    solo = by_model["solo"]
    assert solo["solutions"] == 40 and solo["contested_solutions"] == 0
    assert not solo["ranked"] and solo["rank"] is None and solo["mean_percentile"] is None
    assert board["llm_model"].to_list() == ["good", "bad", "solo"]


def test_intervals_contain_the_estimate_are_seeded_and_mark_small_models() -> None:
    rows = []
    for i in range(60):
        order = ["a", "b", "c"] if i % 3 else ["b", "a", "c"]
        rows += [(f"p{i}", rank, model) for rank, model in enumerate(order, start=1)]
    rows += [("p0", 4, None), ("p1", 4, "rare")]
    solutions = _solutions(rows)
    board = an.model_leaderboard(solutions, min_solutions=30, n_boot=300, seed=1)
    for row in board.filter(pl.col("ranked")).iter_rows(named=True):
        for metric in ("mean_percentile", "top1_rate", "top3_rate"):
            assert row[f"{metric}_lo"] <= row[metric] <= row[f"{metric}_hi"], (row["llm_model"], metric)
    a = board.filter(pl.col("llm_model") == "a").row(0, named=True)
    assert a["mean_percentile_lo"] < a["mean_percentile_hi"], "a real interval, not a point"
    assert board.equals(an.model_leaderboard(solutions, min_solutions=30, n_boot=300, seed=1))
    small = board.filter(~pl.col("ranked"))["llm_model"].to_list()
    assert set(small) == {"rare", "unknown"}, "models under min_solutions are listed, not ranked"
    # "c" is always last: statistically worse than both others
    assert board.filter(pl.col("llm_model") == "c")["rank"][0] == 3


def test_empty_solutions_give_an_empty_leaderboard() -> None:
    assert an.model_leaderboard(_solutions([])).is_empty()


def test_model_trend_matches_the_leaderboard_at_the_newest_snapshot(store_db: Path) -> None:
    store = an.load(store_db)
    trend = an.model_trend(store.model_counts, store.snapshots)
    assert trend["snapshot_id"].n_unique() == store.snapshot_count
    newest = trend.filter(pl.col("snapshot_id") == store.latest_snapshot_id)
    board = an.model_leaderboard(store.solutions, n_boot=50)
    expected = dict(board.select("llm_model", "mean_percentile").iter_rows())
    for model, value in newest.select("llm_model", "mean_percentile").iter_rows():
        assert value == pytest.approx(expected[model])
    assert newest["share"].sum() == pytest.approx(1.0)


def test_ties_count_half_and_share_the_places_they_span() -> None:
    """p1: two solutions tied for first (a, b); p2: ranks 1, 2, 2, 4 (a, b, c, d)."""
    frame = pl.DataFrame(
        {
            "snapshot_id": [1] * 6,
            "problem_id": ["p1", "p1", "p2", "p2", "p2", "p2"],
            "rank": [1, 1, 1, 2, 2, 4],
            "llm_model": ["a", "b", "a", "b", "c", "d"],
        },
        schema_overrides={"rank": pl.Int32},
    )
    board = an.model_leaderboard(frame, min_solutions=1, n_boot=20)
    got = {
        r["llm_model"]: (r["mean_percentile"], r["top1_rate"], r["top3_rate"])
        for r in board.iter_rows(named=True)
    }
    assert got == {
        "a": pytest.approx((0.75, 0.75, 1.0)),
        "b": pytest.approx((0.5, 0.25, 1.0)),
        "c": pytest.approx((0.5, 0.0, 1.0)),
        "d": pytest.approx((0.0, 0.0, 0.0)),
    }
    reordered = an.model_leaderboard(frame.reverse(), min_solutions=1, n_boot=20)
    assert reordered.sort("llm_model").equals(board.sort("llm_model")), (
        "the listed order of a tie moves nothing"
    )
