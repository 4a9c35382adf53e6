"""Altair chart builders (frame in, chart out) with one theme, and exporters (offline HTML, PNG, specs).

Each builder takes the output of a :mod:`solvelens.analysis` helper; data is aggregated there, so no chart
carries more than a few thousand rows (:data:`solvelens.charts.data.MAX_ROWS` is enforced).
"""

from solvelens.charts.bump import rank_bump_chart
from solvelens.charts.categories import category_area_chart, category_maturity_chart
from solvelens.charts.coverage import coverage_chart
from solvelens.charts.data import MAX_ROWS, TooManyRowsError, chart_data
from solvelens.charts.export import chart_spec, save_html, save_png, vega_javascript, vegalite_version
from solvelens.charts.growth import activity_chart, growth_chart
from solvelens.charts.movers import movers_chart
from solvelens.charts.platform import platform_stats_chart
from solvelens.charts.scores import llm_share_chart, score_distribution_chart
from solvelens.charts.theme import THEME_NAME, enable_theme
from solvelens.charts.trends import points_trend_chart

__all__ = [
    "MAX_ROWS",
    "THEME_NAME",
    "TooManyRowsError",
    "activity_chart",
    "category_area_chart",
    "category_maturity_chart",
    "chart_data",
    "chart_spec",
    "coverage_chart",
    "enable_theme",
    "growth_chart",
    "llm_share_chart",
    "movers_chart",
    "platform_stats_chart",
    "points_trend_chart",
    "rank_bump_chart",
    "save_html",
    "save_png",
    "score_distribution_chart",
    "vega_javascript",
    "vegalite_version",
]
