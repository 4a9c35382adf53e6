"""solvelens.charts: every builder yields a valid, themed Vega-Lite v6 spec; exports work offline."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from pathlib import Path

import altair as alt
import polars as pl
import pytest

from solvelens import analysis as an
from solvelens import charts as ch
from solvelens.charts.bump import LABEL_SPACING
from solvelens.charts.theme import INK_COLOUR


@pytest.fixture(scope="module")
def store(store_db: Path) -> an.Frames:
    return an.load(store_db)


@pytest.fixture(scope="module")
def builders(store: an.Frames) -> dict[str, Callable[[], alt.TopLevelMixin]]:
    history = an.leaderboard_history(store.leaderboard, store.snapshots)
    bump = an.bump_data(history)
    growth = an.category_growth(store.problem_counts, store.snapshots, store.categories)
    return {
        "bump": lambda: ch.rank_bump_chart(bump),
        "movers": lambda: ch.movers_chart(an.top_movers(history)),
        "trend": lambda: ch.points_trend_chart(
            bump, annotations=an.leader_changes(history), gaps=an.snapshot_gaps(store.snapshots)
        ),
        "categories": lambda: ch.category_area_chart(growth),
        "maturity": lambda: ch.category_maturity_chart(growth),
        "growth": lambda: ch.growth_chart(an.platform_growth(store.problem_counts, store.snapshots)),
        "activity": lambda: ch.activity_chart(
            an.platform_activity(an.bot_activity(store.bots, store.snapshots))
        ),
        "scores": lambda: ch.score_distribution_chart(an.score_distribution(store.solutions)),
        "llm": lambda: ch.llm_share_chart(an.llm_model_share(store.solutions)),
        "stats": lambda: ch.platform_stats_chart(
            an.platform_stats_over_time(store.platform_stats, store.snapshots)
        ),
        "coverage": lambda: ch.coverage_chart(an.snapshot_days(store.snapshots)),
        "models": lambda: ch.model_leaderboard_chart(an.model_leaderboard(store.solutions, n_boot=50)),
        "model_trend": lambda: ch.model_trend_chart(an.model_trend(store.model_counts, store.snapshots)),
        "bot_rank": lambda: ch.bot_rank_chart(an.bot_history(history, _leader(history))),
        "bot_points": lambda: ch.bot_points_chart(an.bot_history(history, _leader(history))),
        "bot_categories": lambda: ch.bot_category_chart(
            an.bot_categories(store.solutions, store.problems, _leader(history))
        ),
    }


def _leader(history: pl.DataFrame) -> str:
    return str(an.current_leaderboard(history, top=1)["bot_id"][0])


def _rows(spec: dict) -> list[int]:
    return [len(rows) for rows in spec.get("datasets", {}).values()]


@pytest.mark.parametrize(
    "name",
    [
        "bump",
        "movers",
        "trend",
        "categories",
        "maturity",
        "growth",
        "activity",
        "scores",
        "llm",
        "stats",
        "coverage",
        "models",
        "model_trend",
        "bot_rank",
        "bot_points",
        "bot_categories",
    ],
)
def test_builder_gives_a_themed_vega_lite_6_spec(builders: dict, name: str) -> None:
    spec = ch.chart_spec(builders[name]())
    assert spec["$schema"].startswith("https://vega.github.io/schema/vega-lite/v6")
    assert spec["config"]["font"] == ch.theme.FONT, "the solvelens theme is applied"
    rows = _rows(spec)
    assert rows and all(0 < n <= ch.MAX_ROWS for n in rows)
    text = json.dumps(spec)
    assert "+0000" not in text, "timestamps are ISO strings ending in Z"


def test_same_data_gives_the_same_spec(builders: dict) -> None:
    assert ch.chart_spec(builders["bump"]()) == ch.chart_spec(builders["bump"]())


def test_bump_chart_orders_series_by_final_rank(store: an.Frames) -> None:
    history = an.leaderboard_history(store.leaderboard, store.snapshots)
    bump = an.bump_data(history, top_n=5)
    spec = ch.chart_spec(ch.rank_bump_chart(bump))
    colour = spec["layer"][0]["encoding"]["color"]
    assert colour["sort"] == bump.sort("final_rank").unique("bot_id", maintain_order=True)["name"].to_list()
    assert spec["layer"][0]["encoding"]["y"]["scale"]["reverse"] is True


def test_chart_data_converts_times_and_enforces_the_row_limit() -> None:
    import datetime as dt

    frame = pl.DataFrame({"t": [dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.UTC)], "d": [dt.date(2026, 1, 2)]})
    out = ch.chart_data(frame)
    assert out.row(0) == ("2026-01-02T03:04:05Z", "2026-01-02")
    with pytest.raises(ch.TooManyRowsError, match="aggregate"):
        ch.chart_data(pl.DataFrame({"x": range(ch.MAX_ROWS + 1)}))


def test_save_html_is_offline_and_save_png_writes_a_png(builders: dict, tmp_path: Path) -> None:
    chart = builders["movers"]()
    html = ch.save_html(chart, tmp_path / "movers.html").read_text(encoding="utf-8")
    assert "cdn.jsdelivr" not in html and '<script src="http' not in html
    assert "vegaEmbed" in html
    png = ch.save_png(chart, tmp_path / "movers.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(png) > 10_000


def test_vega_javascript_bundle_exposes_globals() -> None:
    js = ch.vega_javascript()
    assert "window.vegaEmbed" in js[-2000:]
    assert "</script" not in js.lower()
    assert ch.vegalite_version().startswith("6.")


@pytest.mark.parametrize("name", ["bump", "maturity", "models", "bot_rank", "bot_categories", "growth"])
def test_new_and_changed_specs_render_to_svg(builders: dict, name: str) -> None:
    import vl_convert as vlc

    svg = vlc.vegalite_to_svg(ch.chart_spec(builders[name]()), vl_version=ch.vegalite_version())
    assert svg.startswith("<svg")


def test_end_labels_never_overlap_and_stay_near_their_lines() -> None:
    ranks = [1.0, 1.0, 1.0, 4.0, 5.0, 10.0, 10.0]  # ties share a rank: several labels per rank
    ys = ch.label_positions(ranks, top=10, height=240)
    assert all(b - a >= LABEL_SPACING - 1e-9 for a, b in itertools.pairwise(ys))
    assert ys[0] == pytest.approx(8.0), "rank 1 sits at the top"
    assert max(ys) <= 240


def test_rank_axis_is_limited_to_the_top_n_with_a_tick_at_1(builders: dict) -> None:
    spec = ch.chart_spec(builders["bump"]())
    y = spec["layer"][0]["encoding"]["y"]
    assert y["scale"]["domain"] == [1, 10] and y["scale"]["reverse"] is True
    assert y["axis"]["values"][0] == 1
    assert spec["layer"][0]["mark"]["interpolate"] == "step-after"
    assert ch.rank_ticks(20) == [1, 5, 10, 15, 20]
    assert spec["layer"][2]["mark"]["color"] == INK_COLOUR, "end labels in dark text"


def test_time_axis_uses_the_snapshots_resolution() -> None:
    minutes = ch.time_x(span_days=3 / 1440).to_dict()
    assert minutes["axis"]["format"] == "%H:%M"
    assert minutes["axis"]["tickCount"] == 3, "one tick a minute, never closer"
    hours = ch.time_x(span_days=0.5).to_dict()
    assert hours["axis"]["format"] == "%H:%M"
    assert ch.time_x(span_days=2).to_dict()["axis"]["format"] == "%b %d %H:%M"
    days = ch.time_x(span_days=30).to_dict()
    assert days["axis"]["format"] == "%b %d"


def test_si_ticks_have_no_shared_prefix_and_small_shares_get_a_fitted_axis() -> None:
    import vl_convert as vlc

    frame = pl.DataFrame({"x": [0, 1, 2], "y": [0, 200, 400]})
    chart = alt.Chart(frame).mark_line().encode(x="x:Q", y=alt.Y("y:Q", axis=ch.si_axis()))
    svg = vlc.vegalite_to_svg(ch.chart_spec(chart), vl_version=ch.vegalite_version())
    assert ">200<" in svg and "0k" not in svg and "0.2k" not in svg
    _axis, scale = ch.share_axis(0.08)
    assert scale.to_dict()["domain"][1] < 0.1
    assert ch.share_axis(0.01)[0].to_dict()["format"] == ".1~%"


def test_time_axes_over_simulated_dates_say_simulated_time(store_db: Path) -> None:
    """``Time (UTC)`` by default; ``Simulated time (UTC)`` inside ``simulated_time()`` (the report, for a
    platform that declared a simulated clock) and after a notebook's ``setup`` of such a store."""
    from solvelens.charts.theme import simulated_time, time_title, time_x, use_simulated_time
    from solvelens.notebook import setup

    assert time_x().to_dict()["title"] == "Time (UTC)"
    with simulated_time():
        assert time_x().to_dict()["title"] == "Simulated time (UTC)"
        assert time_title("one bar per hour") == "Simulated time (UTC, one bar per hour)"
    assert time_title() == "Time (UTC)"
    try:
        setup(store_db)  # the fixture store's platform declared a simulated clock
        assert time_x().to_dict()["title"] == "Simulated time (UTC)"
    finally:
        use_simulated_time(False)
    assert time_x().to_dict()["title"] == "Time (UTC)"
