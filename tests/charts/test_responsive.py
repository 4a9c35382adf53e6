"""fit_container on the report's real chart builders: which specs Vega-Lite sizes by their box and which the
page's script sizes (stacked and faceted views)."""

from __future__ import annotations

import altair as alt
import polars as pl

from solvelens.charts import chart_spec
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
