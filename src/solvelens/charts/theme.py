"""The solvelens chart theme: one look for every chart (fonts, colours, sizes) and the shared time axis.

Importing this module registers the Altair theme ``"solvelens"``; :func:`enable_theme` makes it the active
theme and the export functions in :mod:`solvelens.charts.export` apply it while serialising, so charts look
the same in the report, in PNGs and in notebooks.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

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
#: Dark text for labels drawn on charts (readable on white, unlike pastel series colours).
INK_COLOUR = "#1f2328"
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
    """A tick interval that gives at most ~12 labels at the data's own resolution (UTC calendar units).

    Histories shorter than four days get a tick count instead of an interval (Vega-Lite accepts only the
    singular "minute"/"hour" intervals, which Vega's time scale does not know): Vega then picks minute or
    hour ticks itself; the count never asks for ticks closer than a minute.
    """
    if span_days is None:
        return 8
    if span_days < 4:
        minutes = span_days * 1440
        return max(1, min(8, int(minutes))) if minutes >= 1 else 1
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


def _time_format(span_days: float | None) -> str:
    if span_days is None or span_days >= 400:
        return "%b %d" if span_days is None else "%b %Y"
    if span_days >= 4:
        return "%b %d"
    if span_days >= 1:
        return "%b %d %H:%M"
    return "%H:%M" if span_days * 1440 >= 1 else "%H:%M:%S"


_SIMULATED: ContextVar[bool | None] = ContextVar("solvelens_simulated_time", default=None)
#: The default outside :func:`simulated_time` blocks (a notebook's kernel: :func:`use_simulated_time`).
_session_simulated = False


def use_simulated_time(simulated: bool) -> None:
    """For a whole session (a notebook's kernel, where a context variable set in one cell may not reach
    the next): the time axes say "Simulated time (UTC)" from now on when ``simulated``."""
    global _session_simulated
    _session_simulated = simulated


@contextmanager
def simulated_time(simulated: bool = True) -> Iterator[None]:
    """Within the block, the time axes built by :func:`time_x` (and titles from :func:`time_title`) say
    "Simulated time (UTC)": for the snapshots of a platform that declared a simulated clock, whose dates
    are not the wall clock's."""
    token = _SIMULATED.set(simulated)
    try:
        yield
    finally:
        _SIMULATED.reset(token)


def time_title(detail: str = "") -> str:
    """The time axis's title: ``Time (UTC)``, or ``Simulated time (UTC)`` inside :func:`simulated_time`;
    ``detail`` goes inside the brackets (``Time (UTC, one bar per hour)``)."""
    inside = "UTC" + (f", {detail}" if detail else "")
    simulated = _SIMULATED.get()
    if simulated is None:
        simulated = _session_simulated
    return f"Simulated time ({inside})" if simulated else f"Time ({inside})"


def time_x(field: str = "taken_at", title: str | None = None, *, span_days: float | None = None) -> alt.X:
    """The shared time axis: a UTC time scale labelled at the data's own resolution.

    ``span_days`` (the data's time span, see :func:`solvelens.charts.data.span_days`) picks the tick unit:
    minutes or hours (labels ``HH:MM``, with the date when the span crosses days) for histories shorter
    than a few days, calendar days, weeks or months beyond; without it Vega picks about 8 ticks. The
    default title says the times are UTC, and simulated inside :func:`simulated_time`.
    """
    ticks = _ticks(span_days)
    label = _time_format(span_days)
    return alt.X(
        f"{field}:T",
        title=title if title is not None else time_title(),
        scale=alt.Scale(type="utc", padding=10),
        axis=alt.Axis(format=label, labelAngle=0, tickCount=ticks, labelOverlap=True),  # type: ignore[arg-type]
    )


def snapshot_tooltip(field: str = "taken_at", title: str = "Snapshot (UTC)") -> alt.Tooltip:
    """The tooltip line of a snapshot time: ``2026-01-31 06:00`` in UTC (whatever the viewer's time zone)."""
    return alt.Tooltip(
        f"{field}:T", title=title, format="%Y-%m-%d %H:%M", timeUnit="utcyearmonthdatehoursminutes"
    )


#: Vega expression for SI-style tick labels without a shared prefix: 0, 200, 1.5k, 2M (never "0k", "0.2k").
SI_LABEL_EXPR = (
    "abs(datum.value) >= 1e9 ? format(datum.value / 1e9, '.3~r') + 'G' : "
    "abs(datum.value) >= 1e6 ? format(datum.value / 1e6, '.3~r') + 'M' : "
    "abs(datum.value) >= 1e3 ? format(datum.value / 1e3, '.3~r') + 'k' : "
    "format(datum.value, '.3~r')"
)


def si_axis(**kwargs: object) -> alt.Axis:
    """An axis whose labels use SI suffixes per tick (0, 500, 1k, 1.5k), never a shared prefix ("0k")."""
    return alt.Axis(labelExpr=SI_LABEL_EXPR, **kwargs)  # type: ignore[arg-type]


def share_axis(max_value: float | None, **kwargs: object) -> tuple[alt.Axis, alt.Scale]:
    """Axis and scale for shares (0..1) fitted to the data: up to the largest value (with headroom) instead
    of always 0-100%, with a format precise enough for small percentages (0.5%, 2%, 40%)."""
    top = max(float(max_value or 0.0), 1e-6)
    fmt = ".1~%" if top < 0.05 else ".0%"
    domain_top = min(1.0, top * 1.15)
    return alt.Axis(format=fmt, **kwargs), alt.Scale(domain=[0, domain_top], nice=True, zero=True)  # type: ignore[arg-type]
