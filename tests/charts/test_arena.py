"""charts/arena.py: scores with intervals, the win-rate heatmap and rank over time, from a real arena fit
of the generated store's votes, each rendered to SVG offline; and rank over time (chart and caption) where
windows' fits diverge, from votes written for it."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import polars as pl
import pytest
import vl_convert as vlc

from solvelens import analysis as an
from solvelens import charts as ch
from solvelens.analysis.arena import OUTCOME_SCHEMA
from solvelens.charts.arena import FIT_NOTES


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


T0 = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
#: The windows of :func:`fits` and how each fit stands (with the models ranked then).
WINDOW_FITS = {1: "diverged", 2: "measured", 3: "separated", 4: "measured", 5: "diverged"}


def _votes(parts: list[tuple[int, list[tuple[str, str, int]]]]) -> pl.DataFrame:
    """Decisive votes: per (snapshot, [(winner, loser, n)]), ``winner`` beat ``loser`` ``n`` times, first
    stored by that snapshot (taken ``snapshot`` hours after T0)."""
    rows = [(snap, won, lost) for snap, pairs in parts for won, lost, n in pairs for _ in range(n)]
    return pl.DataFrame(
        {
            "comparison_id": [f"c{i}" for i in range(len(rows))],
            "first_snapshot_id": [snap for snap, _, _ in rows],
            "created_at": [T0 + dt.timedelta(hours=snap) for snap, _, _ in rows],
            "entry_a": [won for _, won, _ in rows],
            "label_a": [won for _, won, _ in rows],
            "entry_b": [lost for _, _, lost in rows],
            "label_b": [lost for _, _, lost in rows],
            "winner": ["a"] * len(rows),
        },
        schema=OUTCOME_SCHEMA,
    )


@pytest.fixture(scope="module")
def fits() -> an.ArenaResult:
    """Five windows, one of each way a fit stands: (1) "solo" beat a, b and c 10 times each: solo alone is
    ranked (30 votes) and never lost, so the fit diverges with one ranked model; (2) the four play each
    other both ways (measured); (3) "rare" wins its 3 votes (separated: rare is not ranked); (4) rare loses
    one (measured); (5) "low" loses 40 votes and is ranked (diverged among the ranked models)."""
    four = ["solo", "a", "b", "c"]
    both_ways = [
        (w, lost, 6 + 3 * (i > j)) for i, w in enumerate(four) for j, lost in enumerate(four) if i != j
    ]
    outcomes = _votes(
        [
            (1, [("solo", "a", 10), ("solo", "b", 10), ("solo", "c", 10)]),
            (2, both_ways),
            (3, [("rare", "a", 1), ("rare", "b", 1), ("rare", "c", 1)]),
            (4, [("a", "rare", 1)]),
            (5, [("a", "low", 20), ("b", "low", 20)]),
        ]
    )
    snapshots = pl.DataFrame(
        {"snapshot_id": list(WINDOW_FITS), "taken_at": [T0 + dt.timedelta(hours=s) for s in WINDOW_FITS]},
        schema={"snapshot_id": pl.Int64, "taken_at": pl.Datetime("us", "UTC")},
    )
    result = an.fit_arena(outcomes, snapshots=snapshots, bootstrap=20, window_bootstrap=20)
    windows = result.over_time.group_by("snapshot_id").agg(pl.col("fit").first(), pl.col("ranked").sum())
    assert dict(windows.select("snapshot_id", "fit").rows()) == WINDOW_FITS, "the scenario as described"
    assert dict(windows.select("snapshot_id", "ranked").rows())[1] == 1, "one model ranked in window 1"
    return result


def test_a_window_with_one_ranked_model_is_not_said_to_diverge_among_the_ranked(fits: an.ArenaResult) -> None:
    """Window 1 diverged with one model ranked (solo): there is no ranking among ranked models there, yet
    the caption counted it in "diverged among the ranked models: the ranks there only order them" ("At 2 of
    the 5") and its tooltip said "diverged among the ranked"."""
    from solvelens.report.sections import rank_over_time_caption

    caption = rank_over_time_caption(fits)
    assert "At 1 of the 5 snapshots the fit diverged among the ranked models" in caption, caption
    assert "At 1 of the 5 snapshots the fit diverged while at most one model was ranked" in caption, caption
    rows = _rows(ch.chart_spec(ch.arena_rank_chart(fits.over_time)), "fit_note")
    alone = [r["fit_note"] for r in rows if r["snapshot_id"] == 1]
    assert alone, rows
    assert all("among the ranked" not in note and "only model ranked" in note for note in alone), alone
    among = {r["fit_note"] for r in rows if r["snapshot_id"] == 5}
    assert among == {FIT_NOTES["diverged"]}, among
