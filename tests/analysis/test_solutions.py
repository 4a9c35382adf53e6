"""solvelens.analysis.solutions: score distributions and LLM model shares of top-ranked solutions."""

from __future__ import annotations

from pathlib import Path

import polars as pl

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
    )
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
    assert share["top_solutions"].sum() == solutions.filter(pl.col("rank") == 1).height
