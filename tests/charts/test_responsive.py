"""fit_container on the report's real chart builders: which specs Vega-Lite sizes by their box and which the
page's script sizes (stacked and faceted views)."""

from __future__ import annotations

from datetime import UTC, datetime

import altair as alt
import polars as pl

from solvelens.charts import chart_spec, model_leaderboard_chart, model_trend_chart, points_trend_chart
from solvelens.charts.responsive import FIT_KEY, STACK_MARGIN_PX, fit_container

FRAME = pl.DataFrame({"x": [1, 2, 3], "y": [3, 1, 2], "g": ["a", "b", "a"]})


def _single() -> alt.Chart:
    return alt.Chart(FRAME).mark_line().encode(x="x:Q", y="y:Q").properties(width=680)


def test_single_and_layered_views_take_the_container_width() -> None:
    single = fit_container(chart_spec(_single()))
    assert single["width"] == "container"
    assert single["autosize"] == {"type": "fit-x", "contains": "padding"}
    layered = fit_container(chart_spec(alt.layer(_single(), _single().mark_point()).properties(width=680)))
    assert layered["width"] == "container"
    assert all("width" not in layer for layer in layered["layer"])


def test_stacked_and_faceted_views_are_sized_by_the_page() -> None:
    stacked = fit_container(chart_spec(alt.vconcat(_single(), _single())))
    assert stacked["usermeta"][FIT_KEY] == {"kind": "stack", "margin": STACK_MARGIN_PX}
    assert all(view["width"] == 680 for view in stacked["vconcat"]), "numbers kept for the script"
    faceted = (
        alt.Chart(FRAME).mark_line().encode(x="x:Q", y="y:Q").properties(width=200).facet("g:N", columns=3)
    )
    spec = fit_container(chart_spec(faceted))
    assert spec["usermeta"][FIT_KEY] == {"kind": "columns", "panel": 200}
    assert "width" not in spec


def test_the_input_spec_is_not_changed() -> None:
    spec = chart_spec(_single())
    before = repr(spec)
    fit_container(spec)
    assert repr(spec) == before


def test_a_long_x_axis_title_is_drawn_on_two_lines_of_half_its_length():
    title = "Mean rank percentile within problem (100% = always best)"
    spec = {
        "layer": [
            {"mark": "rule", "encoding": {"x": {"field": "a", "type": "quantitative"}}},
            {
                "mark": "point",
                "encoding": {"x": {"field": "v", "type": "quantitative", "axis": {"title": title}}},
            },
        ]
    }
    fitted = fit_container(spec)
    lines = fitted["layer"][1]["encoding"]["x"]["axis"]["title"]
    assert lines == ["Mean rank percentile within", "problem (100% = always best)"]
    assert spec["layer"][1]["encoding"]["x"]["axis"]["title"] == title, "the builder's spec is not changed"
    short = {"mark": "point", "encoding": {"x": {"field": "v", "type": "quantitative", "title": "Points"}}}
    assert fit_container(short)["encoding"]["x"]["title"] == "Points"


def _trend_frames() -> tuple[pl.DataFrame, pl.DataFrame]:
    times = [datetime(2026, 1, d, tzinfo=UTC) for d in (1, 2, 3)]
    models = pl.DataFrame(
        {
            "taken_at": times * 2,
            "llm_model": ["gpt-4o"] * 3 + ["claude-sonnet-4"] * 3,
            "solutions": [10] * 6,
            "mean_percentile": [0.5, 0.55, 0.6, 0.4, 0.45, 0.5],
        }
    )
    bots = pl.DataFrame(
        {
            "taken_at": times * 2,
            "snapshot_id": [1, 2, 3] * 2,
            "bot_id": ["a"] * 3 + ["b"] * 3,
            "name": ["alpha"] * 3 + ["beta"] * 3,
            "rank": [1, 1, 2, 2, 2, 1],
            "points": [10, 20, 25, 5, 15, 30],
            "final_rank": [2] * 3 + [1] * 3,
        }
    )
    return models, bots


def test_a_legend_at_the_right_is_marked_for_the_page_to_move_below_the_plot_on_a_phone() -> None:
    """At 390 px a legend at the right took ~110 of ~350 px and squeezed "Models over time" to ~180 px:
    single and layered views whose legend Vega-Lite places at the right carry the page's hint; a legend
    whose builder placed it (the leaderboard's, at the bottom) or a chart without one carries none."""
    models, bots = _trend_frames()
    trend = fit_container(chart_spec(model_trend_chart(models)))
    hint = trend.get("usermeta", {}).get(FIT_KEY, {})
    assert hint.get("kind") == "legend", trend.get("usermeta")
    assert 390 < hint["narrow"] < 1000, "below the plot on a phone, at the right in the desktop's column"
    # a column holds its longest label, "claude-sonnet-4" (15 characters: ~96 px at 11 px), and its symbol
    assert 15 * 6.4 + 20 <= hint["column"] <= (390 - 2 * 12) / 2, "2 columns of these labels on a phone"
    long_names = models.with_columns(llm_model=pl.col("llm_model") + "-20250514")  # 24 characters
    wide = fit_container(chart_spec(model_trend_chart(long_names)))["usermeta"][FIT_KEY]["column"]
    assert wide >= 24 * 6.4 + 20 and wide > (390 - 2 * 12) / 2, "one column of the long names: none cut"
    points = fit_container(chart_spec(points_trend_chart(bots)))  # layered: lines, annotations
    assert points["usermeta"][FIT_KEY]["kind"] == "legend"
    assert FIT_KEY not in fit_container(chart_spec(_single())).get("usermeta", {}), "no legend"
    board = pl.DataFrame(
        {
            "rank": [1, 2],
            "llm_model": ["gpt-4o", "claude-sonnet-4"],
            "ranked": [True, True],
            "contested_solutions": [8, 9],
            "solutions": [10, 11],
            "mean_percentile": [0.6, 0.5],
            "mean_percentile_lo": [0.5, 0.4],
            "mean_percentile_hi": [0.7, 0.6],
        }
    )
    leaderboard = fit_container(chart_spec(model_leaderboard_chart(board)))
    assert FIT_KEY not in leaderboard.get("usermeta", {}), "its legend is at the bottom already"
    config_placed = chart_spec(model_trend_chart(models))
    config_placed["config"] = {**config_placed["config"], "legend": {"orient": "top"}}
    assert FIT_KEY not in fit_container(config_placed).get("usermeta", {})
