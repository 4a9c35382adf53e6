"""charts/arena.py: scores with intervals, the win-rate heatmap and rank over time, from a real arena fit
of the generated store's votes; each renders to SVG offline."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
import vl_convert as vlc

from solvelens import analysis as an
from solvelens import charts as ch


@pytest.fixture(scope="module")
def result(evidence_store_db: Path) -> an.ArenaResult:
    return an.arena(an.load(evidence_store_db), by="model", bootstrap=100, window_bootstrap=50, max_windows=5)


def _rows(spec: dict, field: str) -> list[dict]:
    """The rows of the spec's dataset that has ``field``."""
    return next(rows for rows in spec["datasets"].values() if rows and field in rows[0])


def _svg(chart: object) -> str:
    return vlc.vegalite_to_svg(ch.chart_spec(chart))  # type: ignore[arg-type]


def test_scores_chart_lists_ranked_entries_best_first_with_intervals(result: an.ArenaResult) -> None:
    spec = ch.chart_spec(ch.arena_scores_chart(result.ranking, top=3))
    rows = _rows(spec, "label")
    ranked = result.ranking.filter(pl.col("ranked"))
    assert [r["label"] for r in rows] == ranked["label"].head(3).to_list()
    assert all(r["lower"] <= r["score"] <= r["upper"] for r in rows)
    assert spec["layer"][1]["encoding"]["y"]["sort"] == [f"#{r['rank']}  {r['label']}" for r in rows]
    assert "<svg" in _svg(ch.arena_scores_chart(result.ranking))


def test_win_rate_heatmap_has_every_ordered_pair_of_the_top_entries(result: an.ArenaResult) -> None:
    top = 4
    spec = ch.chart_spec(ch.arena_win_rate_chart(result.win_rate, result.ranking, top=top))
    rows = _rows(spec, "p_a_wins")
    assert len(rows) == top * (top - 1)
    order = result.ranking.filter(pl.col("ranked"))["label"].head(top).to_list()
    assert spec["layer"][0]["encoding"]["y"]["sort"] == order
    assert "<svg" in _svg(ch.arena_win_rate_chart(result.win_rate, result.ranking))


def test_rank_chart_draws_the_newest_best_entries_at_each_window(result: an.ArenaResult) -> None:
    spec = ch.chart_spec(ch.arena_rank_chart(result.over_time, top=3))
    rows = _rows(spec, "label")
    assert {r["label"] for r in rows} == set(result.ranking.filter(pl.col("ranked"))["label"].head(3))
    top = result.ranking.filter(pl.col("ranked"))["entry"].head(3).to_list()
    ranked_then = result.over_time.filter(pl.col("entry").is_in(top) & pl.col("rank").is_not_null())
    # A window where an entry was not yet ranked (too few votes then) has no point of it.
    assert {r["snapshot_id"] for r in rows} == set(ranked_then["snapshot_id"])
    assert (
        len(rows) == ranked_then.height
        and result.over_time["snapshot_id"].max() in ranked_then["snapshot_id"]
    )
    y = spec["encoding"]["y"]
    assert y["scale"]["reverse"] is True and y["scale"]["domain"][0] == 0.5, "rank 1 at the top"
    assert y["axis"]["values"][0] == 1, "a tick at every rank"
    assert "<svg" in _svg(ch.arena_rank_chart(result.over_time))


def test_activity_timeline_stacks_actions_and_shades_gaps(evidence_store_db: Path) -> None:
    store = an.load(evidence_store_db)
    gaps = store.activity_gaps.collect()
    timeline = an.activity_timeline(store.activity)
    assert gaps.height == 1
    spec = ch.chart_spec(ch.activity_timeline_chart(timeline, gaps=gaps))
    text = json.dumps(spec)
    assert "events missed" in text and "Events per covered hour" in text and "one bar per hour" in text
    assert "<svg" in _svg(ch.activity_timeline_chart(timeline))
