"""The solvelens chart theme: one look for every chart (fonts, colours, sizes) and the shared time axis.

Importing this module registers the Altair theme ``"solvelens"``; :func:`enable_theme` makes it the active
theme and the export functions in :mod:`solvelens.charts.export` apply it while serialising, so charts look
the same in the report, in PNGs and in notebooks.
"""

from __future__ import annotations

import altair as alt

THEME_NAME = "solvelens"
FONT = "'Inter', 'Segoe UI', 'DejaVu Sans', Helvetica, Arial, sans-serif"
#: Categorical palette (Tableau 10: distinguishable, colour-blind friendly in most pairs).
PALETTE = [
    "#4e79a7",
    "#f28e2b",
    "#e15759",
    "#76b7b2",
    "#59a14f",
    "#edc948",
    "#b07aa1",
    "#ff9da7",
    "#9c755f",
    "#bab0ac",
]
UP_COLOUR = "#2e8b57"
DOWN_COLOUR = "#c0392b"
MUTED_COLOUR = "#8a8f98"
GAP_COLOUR = "#f4d6d6"
DEFAULT_WIDTH = 680
DEFAULT_HEIGHT = 300


def theme() -> alt.theme.ThemeConfig:
    """The theme's Vega-Lite config."""
    return {
        "config": {
            "font": FONT,
            "background": "#ffffff",
            "view": {"continuousWidth": DEFAULT_WIDTH, "continuousHeight": DEFAULT_HEIGHT, "stroke": None},
            "title": {"fontSize": 15, "fontWeight": 600, "anchor": "start", "color": "#1f2328", "offset": 10},
            "axis": {
                "labelFontSize": 11,
                "titleFontSize": 12,
                "titleFontWeight": 500,
                "labelColor": "#3d444d",
                "titleColor": "#3d444d",
                "gridColor": "#eceef1",
                "domainColor": "#c9ced6",
                "tickColor": "#c9ced6",
            },
            "legend": {"labelFontSize": 11, "titleFontSize": 12, "symbolSize": 80},
            "range": {"category": PALETTE},
            "line": {"strokeWidth": 2},
            "point": {"size": 30, "filled": True},
            "bar": {"cornerRadiusEnd": 2},
        }
    }


alt.theme.register(THEME_NAME, enable=False)(theme)


def enable_theme() -> None:
    """Make ``"solvelens"`` the active Altair theme (for notebooks; exports apply it on their own)."""
    alt.theme.enable(THEME_NAME)


def time_x(field: str = "taken_at", title: str | None = None) -> alt.X:
    """The shared time axis: a UTC time scale with day-level labels."""
    return alt.X(
        f"{field}:T",
        title=title,
        scale=alt.Scale(type="utc"),
        axis=alt.Axis(format="%b %d", labelAngle=0, tickCount=8),
    )
