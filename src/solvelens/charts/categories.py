"""Category trends: problems per category over time (stacked areas) and each category's maturity rate."""

from __future__ import annotations

import altair as alt
import polars as pl

from solvelens.charts.data import chart_data, span_days
from solvelens.charts.theme import DEFAULT_WIDTH, share_axis, si_axis, snapshot_tooltip, time_x


def _order(growth: pl.DataFrame) -> list[str]:
    """Category names by their newest problem count, largest first (ties on name)."""
    last = growth.sort("taken_at", "snapshot_id")["snapshot_id"][-1]  # two snapshots may share a time
    newest = growth.filter(pl.col("snapshot_id") == last)
    return newest.sort(["problems", "name"], descending=[True, False])["name"].to_list()


def category_area_chart(
    growth: pl.DataFrame, *, title: str = "Problems per category", width: int = DEFAULT_WIDTH
) -> alt.Chart:
    """Stacked areas of problems per category over time, largest category at the bottom.

    Input: :func:`solvelens.analysis.category_growth` (taken_at, category, name, problems, mature,
    maturity_rate).
    """
    span = span_days(growth)
    order = _order(growth)
    data = chart_data(
        growth.select("taken_at", "name", "problems", "mature", "maturity_rate").with_columns(
            stack=pl.col("name").replace_strict(order, list(range(len(order))))
        )
    )
    return (
        alt.Chart(data)
        .mark_area(opacity=0.9)
        .encode(
            x=time_x(span_days=span),
            y=alt.Y("problems:Q", stack="zero", title="Problems", axis=si_axis()),
            color=alt.Color("name:N", sort=order, title="Category"),
            order=alt.Order("stack:Q", sort="ascending"),
            tooltip=[
                alt.Tooltip("name:N", title="Category"),
                snapshot_tooltip(),
                alt.Tooltip("problems:Q", title="Problems"),
                alt.Tooltip("mature:Q", title="Mature"),
                alt.Tooltip("maturity_rate:Q", title="Maturity rate", format=".0%"),
            ],
        )
        .properties(title=title, width=width, height=300)
    )


def category_maturity_chart(
    growth: pl.DataFrame, *, title: str = "Share of mature problems per category", width: int = DEFAULT_WIDTH
) -> alt.Chart:
    """Lines of each category's maturity rate (mature / all problems) over time.

    Input: :func:`solvelens.analysis.category_growth`. The y axis is fitted to the largest rate (a
    maturity of a few percent is not squeezed into a 0-100% axis).
    """
    span = span_days(growth)
    order = _order(growth)
    axis, scale = share_axis(growth["maturity_rate"].max() if growth.height else None)  # type: ignore[arg-type]
    return (
        alt.Chart(chart_data(growth.select("taken_at", "name", "maturity_rate")))
        .mark_line(point=alt.OverlayMarkDef(size=14))
        .encode(
            x=time_x(span_days=span),
            y=alt.Y("maturity_rate:Q", title="Mature", axis=axis, scale=scale),
            color=alt.Color("name:N", sort=order, title="Category"),
            tooltip=[
                alt.Tooltip("name:N", title="Category"),
                snapshot_tooltip(),
                alt.Tooltip("maturity_rate:Q", title="Maturity rate", format=".1%"),
            ],
        )
        .properties(title=title, width=width, height=240)
    )
