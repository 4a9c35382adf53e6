"""charts/arena.py: scores with intervals, the win-rate heatmap and rank over time, from a real arena fit
of the generated store's votes, each rendered to SVG offline; and rank over time (chart and caption) where
windows' fits diverge, from votes written for it."""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path

import polars as pl
import pytest
import vl_convert as vlc

from solvelens import analysis as an
from solvelens import charts as ch
from solvelens.analysis.arena import OUTCOME_SCHEMA
from solvelens.charts.arena import FIT_NOTES
from solvelens.report.sections import rank_over_time_caption


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
    return diverging_fit()


def diverging_fit() -> an.ArenaResult:
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


def _items(node: object, marktype: str, role: str) -> list[dict]:
    """The items of every ``marktype`` mark with ``role`` ("mark", "legend-symbol") under ``node`` of a
    vl-convert scenegraph."""
    if isinstance(node, list):
        return [item for child in node for item in _items(child, marktype, role)]
    if not isinstance(node, dict):
        return []
    own = node.get("marktype") == marktype and node.get("role") == role
    found = list(node.get("items", [])) if own else []
    return found + [
        item for key in ("scenegraph", "root", "items") for item in _items(node.get(key), marktype, role)
    ]


def _hollow(item: dict) -> bool:
    """Whether a symbol is drawn without its inside: no fill, a white one, or a fill of opacity 0."""
    fill = str(item.get("fill", "none")).lower()
    return fill in ("none", "transparent", "white", "#fff", "#ffffff") or item.get("fillOpacity", 1) == 0


_SNAPSHOT = re.compile(r"Snapshot \(UTC\): 2026-01-01 0(\d):00")


def test_rank_chart_draws_the_windows_whose_fit_is_not_measured_hollow_and_says_so(
    fits: an.ArenaResult,
) -> None:
    """The points as Vega draws them (vl-convert's scenegraph, offline): one per ranked model and window,
    filled where the window's fit was measured, hollow where it was not (separated or diverged), and a
    legend "Fit" whose symbols are drawn the same way; each outlined in its entry's colour (as the legend
    "Entry" and the line). Before: every point a filled circle."""
    spec = ch.chart_spec(ch.arena_rank_chart(fits.over_time))
    scene = vlc.vegalite_to_scenegraph(spec)
    points = _items(scene, "symbol", "mark")
    drawn = fits.over_time.filter(pl.col("rank").is_not_null())
    assert len(points) == drawn.height, "one point per ranked model and window"
    entries = next(g for g in _legends(scene) if g["title"] == "Entry")
    colours = {
        label: symbol["fill"] for label, symbol in zip(entries["labels"], entries["symbols"], strict=True)
    }
    for point in points:
        found = _SNAPSHOT.search(point["description"])
        assert found, point["description"]
        measured = WINDOW_FITS[int(found.group(1))] == "measured"
        assert _hollow(point) is not measured, (WINDOW_FITS[int(found.group(1))], point)
        entry = re.search(r"Entry: (\w+);", point["description"])
        assert entry and point.get("stroke") == colours[entry.group(1)], (
            "outlined in its entry's colour",
            point,
        )
    legend = next(g for g in _legends(scene) if g["title"] == "Fit")
    hollow = [_hollow(s) for s in legend["symbols"]]
    assert len(hollow) >= 2 and not hollow[0] and all(hollow[1:]), legend
    caption = rank_over_time_caption(fits)
    assert (
        "Filled points: snapshots whose fit was measured; hollow points: snapshots whose fit diverged"
        in caption
    )
    assert legend["labels"][0] == "measured" and len(set(legend["labels"])) == len(legend["labels"]), legend


def _legends(scene: dict) -> list[dict]:
    """Each legend of the scenegraph: its title, its entries' symbol items and label texts."""
    return [
        {
            "title": next((t["text"] for t in _items(legend, "text", "legend-title")), None),
            "symbols": _items(legend, "symbol", "legend-symbol"),
            "labels": [t["text"] for t in _items(legend, "text", "legend-label")],
        }
        for legend in _items(scene, "group", "legend")
    ]


def test_a_window_with_one_ranked_model_is_not_said_to_diverge_among_the_ranked(fits: an.ArenaResult) -> None:
    """Window 1 diverged with one model ranked (solo): there is no ranking among ranked models there, yet
    the caption counted it in "diverged among the ranked models: the ranks there only order them" ("At 2 of
    the 5") and its tooltip said "diverged among the ranked"."""
    caption = rank_over_time_caption(fits)
    assert "At 1 of the 5 snapshots the fit diverged among the ranked models" in caption, caption
    assert "At 1 of the 5 snapshots the fit diverged while at most one model was ranked" in caption, caption
    rows = _rows(ch.chart_spec(ch.arena_rank_chart(fits.over_time)), "fit_note")
    alone = [r["fit_note"] for r in rows if r["snapshot_id"] == 1]
    assert alone, rows
    assert all("among the ranked" not in note and "only model ranked" in note for note in alone), alone
    among = {r["fit_note"] for r in rows if r["snapshot_id"] == 5}
    assert among == {FIT_NOTES["diverged"]}, among


def test_the_caption_explains_hollow_points_only_when_one_is_drawn() -> None:
    """One window of 3 votes ("solo" beat a, b and c once each): no model has the votes to be ranked, so the
    fit is not measured there but the chart draws no point at all; the caption then says how the fit stood
    without "hollow points" (it said so of points never drawn). With the five windows of :func:`fits`,
    where hollow points are drawn, it says it."""
    outcomes = _votes([(1, [("solo", "a", 1), ("solo", "b", 1), ("solo", "c", 1)])])
    snapshots = pl.DataFrame(
        {"snapshot_id": [1], "taken_at": [T0 + dt.timedelta(hours=1)]},
        schema={"snapshot_id": pl.Int64, "taken_at": pl.Datetime("us", "UTC")},
    )
    result = an.fit_arena(outcomes, snapshots=snapshots, bootstrap=20, window_bootstrap=20)
    assert result.over_time["rank"].is_null().all() and (result.over_time["fit"] != "measured").all()
    caption = rank_over_time_caption(result)
    assert "At 1 of the 1 snapshots the fit diverged" in caption, caption
    assert "hollow points" not in caption, caption
    drawn = rank_over_time_caption(diverging_fit())
    assert "hollow points" in drawn and drawn.endswith('(the legend "Fit").'), drawn  # no stray quote
