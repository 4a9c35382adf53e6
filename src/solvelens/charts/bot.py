"""One bot's charts: points and Elo over time, and its solutions' standing per category next to the median
bot. (Its rank over time is :func:`solvelens.charts.bump.bot_rank_chart`.)"""

from __future__ import annotations

import altair as alt
import polars as pl

from solvelens.charts.data import chart_data, span_days
from solvelens.charts.theme import DEFAULT_WIDTH, MUTED_COLOUR, PALETTE, si_axis, snapshot_tooltip, time_x


def bot_points_chart(
    history: pl.DataFrame, *, title: str = "Points and Elo", width: int = DEFAULT_WIDTH
) -> alt.VConcatChart:
    """Two panels over time: the bot's points and its Elo.

    Input: :func:`solvelens.analysis.bot_history` (taken_at, points, elo).
    """
    span = span_days(history)
    data = chart_data(history.select("taken_at", "points", "elo"))
    panels = []
    for i, (column, label, axis) in enumerate(
        (("points", "Points", si_axis()), ("elo", "Elo", alt.Axis(format=",.0f")))
    ):
        panels.append(
            alt.Chart(data)
            .mark_line(color=PALETTE[i], point=alt.OverlayMarkDef(size=24, color=PALETTE[i]))
            .encode(
                x=time_x(span_days=span),
                y=alt.Y(f"{column}:Q", title=label, axis=axis, scale=alt.Scale(zero=False)),
                tooltip=[
                    snapshot_tooltip(),
                    alt.Tooltip(f"{column}:Q", title=label, format=",.0f"),
                ],
            )
            .properties(width=width, height=140)
        )
    return alt.vconcat(*panels, spacing=12).properties(title=title)


def bot_category_chart(
    categories: pl.DataFrame, *, name: str = "this bot", title: str = "", width: int = DEFAULT_WIDTH
) -> alt.LayerChart:
    """Per category: the bot's mean rank percentile within problem (blue dot) next to the median bot's
    (grey tick), with the bot's number of solutions in the label.

    Input: :func:`solvelens.analysis.bot_categories` (category, solutions, mean_percentile,
    median_bot_percentile).
    """
    frame = categories.filter(pl.col("mean_percentile").is_not_null()).with_columns(
        label=pl.format("{} ({})", pl.col("category"), pl.col("solutions"))
    )
    order = frame["label"].to_list()
    long = frame.select(
        "label",
        "category",
        "solutions",
        name=pl.col("mean_percentile"),
        median=pl.col("median_bot_percentile"),
    )
    long = long.unpivot(index=["label", "category", "solutions"], variable_name="who", value_name="value")
    long = long.with_columns(who=pl.col("who").replace_strict({"name": name, "median": "median bot"}))
    return alt.LayerChart(
        layer=[
            alt.Chart(chart_data(frame.select("label", "mean_percentile", "median_bot_percentile")))
            .mark_rule(color="#c9ced6")
            .encode(y=alt.Y("label:N", sort=order), x="mean_percentile:Q", x2="median_bot_percentile:Q"),
            alt.Chart(chart_data(long))
            .mark_point(filled=True, size=90, opacity=1)
            .encode(
                y=alt.Y("label:N", sort=order, title="Category (solutions)"),
                x=alt.X(
                    "value:Q",
                    title="Mean rank percentile within problem (100% = always best)",
                    axis=alt.Axis(format=".0%"),
                    scale=alt.Scale(domain=[0, 1]),
                ),
                color=alt.Color(
                    "who:N",
                    title=None,
                    scale=alt.Scale(domain=[name, "median bot"], range=[PALETTE[0], MUTED_COLOUR]),
                    legend=alt.Legend(orient="bottom"),
                ),
                tooltip=[
                    alt.Tooltip("category:N", title="Category"),
                    alt.Tooltip("who:N", title="Who"),
                    alt.Tooltip("value:Q", title="Mean percentile", format=".0%"),
                    alt.Tooltip("solutions:Q", title="Solutions of the bot"),
                ],
            ),
        ],
        title=title,
        width=width,
        height=max(100, 26 * len(order)),
    )
