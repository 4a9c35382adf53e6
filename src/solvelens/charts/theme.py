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


def _ticks(span_days: float | None) -> dict[str, object] | int:
    """A tick interval that gives at most ~10 labels without repeating a day (UTC calendar units)."""
    if span_days is None:
        return 8
    for limit, interval, step in (
        (10, "day", 1),
        (20, "day", 2),
        (70, "week", 1),
        (140, "week", 2),
        (400, "month", 1),
        (800, "month", 3),
    ):
        if span_days <= limit:
            return {"interval": interval, "step": step}
    return {"interval": "year", "step": 1}


def time_x(field: str = "taken_at", title: str | None = None, *, span_days: float | None = None) -> alt.X:
    """The shared time axis: a UTC time scale with day-level labels.

    ``span_days`` (the data's time span, see :func:`solvelens.charts.data.span_days`) picks calendar tick
    intervals so short histories do not repeat a day label; without it Vega picks about 8 ticks.
    """
    ticks = _ticks(span_days)
    label = "%b %Y" if isinstance(ticks, dict) and ticks["interval"] in ("month", "year") else "%b %d"
    return alt.X(
        f"{field}:T",
        title=title,
        scale=alt.Scale(type="utc"),
        axis=alt.Axis(format=label, labelAngle=0, tickCount=ticks),  # type: ignore[arg-type]
    )
