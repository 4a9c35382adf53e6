"""Platform statistics (``/stats`` figures) over time, one small panel per metric."""

from __future__ import annotations

import altair as alt
import polars as pl

from solvelens.charts.data import chart_data, span_days
from solvelens.charts.theme import PALETTE, si_axis, snapshot_tooltip, time_x


def platform_stats_chart(
    stats: pl.DataFrame, *, title: str = "Platform statistics", columns: int = 3, panel_width: int = 200
) -> alt.FacetChart:
    """Small multiples: each metric's value over time with its own y scale.

    Input: :func:`solvelens.analysis.platform_stats_over_time` (taken_at, metric, value).
    """
    span = span_days(stats)
    metrics = sorted(stats["metric"].unique().to_list())
    return (
        alt.Chart(chart_data(stats.select("taken_at", "metric", "value")))
        .mark_line(color=PALETTE[0], point=alt.OverlayMarkDef(size=12))
        .encode(
            x=time_x(span_days=span),
            y=alt.Y("value:Q", title=None, axis=si_axis(), scale=alt.Scale(zero=False)),
            tooltip=[
                alt.Tooltip("metric:N", title="Metric"),
                snapshot_tooltip(),
                alt.Tooltip("value:Q", title="Value", format=",.2~f"),
            ],
        )
        .properties(width=panel_width, height=110)
        .facet(facet=alt.Facet("metric:N", title=None, sort=metrics), columns=columns)
        .resolve_scale(y="independent")
        .properties(title=title)
    )
