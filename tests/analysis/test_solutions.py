"""solvelens.analysis.solutions: score distributions and LLM model shares of top-ranked solutions."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from solvelens import analysis as an
from solvelens.analysis.solutions import OTHER_MODELS, UNKNOWN_MODEL


def _solutions(rows: list[tuple[int, float, str | None]]) -> pl.DataFrame:
    return pl.DataFrame(
        rows, schema={"rank": pl.Int32, "score": pl.Float64, "llm_model": pl.String}, orient="row"
    )


def test_score_distribution_bins_and_groups() -> None:
    frame = _solutions([(1, 1600.0, "x"), (2, 1500.0, "y"), (4, 1400.0, None), (1, 1400.0, "x")])
    dist = an.score_distribution(frame, bins=2)
    assert dist["solutions"].sum() == 4
    assert dist.filter(pl.col("group") == "rank 1")["solutions"].to_list() == [1, 1]
    assert dist.filter(pl.col("group") == "rank 2-3")["bin"].to_list() == [1], "the max falls in the last bin"
    assert dist["bin_start"].min() == 1400.0 and dist["bin_end"].max() == 1600.0
    assert an.score_distribution(frame.clear()).is_empty()


def test_llm_share_of_top_ranked_solutions() -> None:
    frame = _solutions(
        [
            (1, 0.0, "gpt"),
            (1, 0.0, "gpt"),
            (1, 0.0, None),
            (2, 0.0, "claude"),
            (2, 0.0, "gpt"),
            (3, 0.0, "llama"),
        ]
    ).with_columns(problem_id=pl.Series(["p1", "p2", "p3", "p1", "p2", "p2"]))
    share = an.llm_model_share(frame, max_models=2)
    rows = {r["llm_model"]: r for r in share.iter_rows(named=True)}
    assert share["llm_model"].to_list()[0] == "gpt"
    assert rows["gpt"]["top_solutions"] == 2 and rows["gpt"]["top_share"] == 2 / 3
    assert rows["gpt"]["share"] == 3 / 6 and abs(rows["gpt"]["lift"] - (2 / 3) / (1 / 2)) < 1e-12
    assert rows[UNKNOWN_MODEL]["top_solutions"] == 1
    assert rows[OTHER_MODELS]["solutions"] == 2 and rows[OTHER_MODELS]["top_solutions"] == 0
    assert share["share"].sum() == 1.0


def test_on_the_generated_store(store_db: Path) -> None:
    store = an.load(store_db)
    solutions = store.solutions.collect()
    assert an.score_distribution(solutions)["solutions"].sum() == solutions.height
    share = an.llm_model_share(solutions)
    # one top-1 per problem, however many solutions tie for first
    assert share["top_solutions"].sum() == pytest.approx(solutions["problem_id"].n_unique())


def _tied_problem() -> pl.DataFrame:
    """One problem, scores 9, 7, 7, 5: competition ranks 1, 2, 2, 4 (models a, b, c, d)."""
    return pl.DataFrame(
        {
            "snapshot_id": [1] * 4,
            "problem_id": ["p"] * 4,
            "rank": [1, 2, 2, 4],
            "score": [9.0, 7.0, 7.0, 5.0],
            "llm_model": ["a", "b", "c", "d"],
        },
        schema_overrides={"rank": pl.Int32},
    )


def test_rank_percentile_and_top_k_credit_count_a_tie_half() -> None:
    out = an.with_rank_percentile(_tied_problem()).sort("llm_model")
    assert out["tied"].to_list() == [1, 2, 2, 1]
    # b and c beat d and half of each other: (1 + 0.5) / 3; the order of b and c changes nothing
    assert out["rank_percentile"].to_list() == [1.0, 0.5, 0.5, 0.0]
    assert out["top1"].to_list() == [1.0, 0.0, 0.0, 0.0]
    assert out["top3"].to_list() == [1.0, 1.0, 1.0, 0.0]
    tied_first = _tied_problem().with_columns(rank=pl.Series([1, 1, 3, 4], dtype=pl.Int32))
    both = an.with_rank_percentile(tied_first).sort("llm_model")
    assert both["top1"].to_list() == [0.5, 0.5, 0.0, 0.0], "a tie for first shares the one top-1"
    assert both["rank_percentile"].to_list() == pytest.approx([2.5 / 3, 2.5 / 3, 1 / 3, 0.0])
    three = _tied_problem().with_columns(rank=pl.Series([1, 2, 2, 2], dtype=pl.Int32))
    # positions 2..4 of which 2 and 3 are within the top 3
    assert an.with_rank_percentile(three).sort("llm_model")["top3"].to_list() == pytest.approx(
        [1, 2 / 3, 2 / 3, 2 / 3]
    )
    all_tied = _tied_problem().with_columns(rank=pl.Series([1, 1, 1, 1], dtype=pl.Int32))
    flat = an.with_rank_percentile(all_tied)
    assert flat["rank_percentile"].to_list() == [0.5] * 4 and flat["top1"].sum() == pytest.approx(1.0)


def test_score_groups_and_model_share_use_the_tie_rule() -> None:
    tied_first = _tied_problem().with_columns(rank=pl.Series([1, 1, 3, 4], dtype=pl.Int32))
    dist = an.score_distribution(tied_first, bins=1)
    assert dist.filter(pl.col("group") == "rank 1")["solutions"].to_list() == [2], "both tied are rank 1"
    share = {r["llm_model"]: r for r in an.llm_model_share(tied_first).iter_rows(named=True)}
    assert share["a"]["top_solutions"] == 0.5 and share["b"]["top_solutions"] == 0.5
    assert share["a"]["top_share"] == 0.5 and share["c"]["top_solutions"] == 0.0
