"""Altair chart builders (frame in, chart out) with one theme, and exporters (offline HTML, PNG, specs).

Each builder takes the output of a :mod:`solvelens.analysis` helper; data is aggregated there, so no chart
carries more than a few thousand rows (:data:`solvelens.charts.data.MAX_ROWS` is enforced).
"""

from solvelens.charts.activity import activity_timeline_chart
from solvelens.charts.arena import arena_rank_chart, arena_scores_chart, arena_win_rate_chart
from solvelens.charts.bot import bot_category_chart, bot_points_chart
from solvelens.charts.bump import bot_rank_chart, label_positions, rank_bump_chart, rank_ticks
from solvelens.charts.categories import category_area_chart, category_maturity_chart
from solvelens.charts.coverage import coverage_chart
from solvelens.charts.data import MAX_ROWS, TooManyRowsError, chart_data
from solvelens.charts.export import chart_spec, save_html, save_png, vega_javascript, vegalite_version
from solvelens.charts.growth import activity_chart, growth_chart
from solvelens.charts.models import model_leaderboard_chart, model_trend_chart
from solvelens.charts.movers import movers_chart
from solvelens.charts.platform import platform_stats_chart
from solvelens.charts.renderer import enable_notebook_charts
from solvelens.charts.scores import llm_share_chart, score_distribution_chart
from solvelens.charts.theme import (
    THEME_NAME,
    enable_theme,
    share_axis,
    si_axis,
    simulated_time,
    time_title,
    time_x,
)
from solvelens.charts.trends import points_trend_chart

__all__ = [
    "MAX_ROWS",
    "THEME_NAME",
    "TooManyRowsError",
    "activity_chart",
    "activity_timeline_chart",
    "arena_rank_chart",
    "arena_scores_chart",
    "arena_win_rate_chart",
    "bot_category_chart",
    "bot_points_chart",
    "bot_rank_chart",
    "category_area_chart",
    "category_maturity_chart",
    "chart_data",
    "chart_spec",
    "coverage_chart",
    "enable_notebook_charts",
    "enable_theme",
    "growth_chart",
    "label_positions",
    "llm_share_chart",
    "model_leaderboard_chart",
    "model_trend_chart",
    "movers_chart",
    "platform_stats_chart",
    "points_trend_chart",
    "rank_bump_chart",
    "rank_ticks",
    "save_html",
    "save_png",
    "score_distribution_chart",
    "share_axis",
    "si_axis",
    "simulated_time",
    "time_title",
    "time_x",
    "vega_javascript",
    "vegalite_version",
]
