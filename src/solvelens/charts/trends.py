"""Points trend of the top bots, annotated with leader changes and gaps in the snapshot series."""

from __future__ import annotations

import altair as alt
import polars as pl

from solvelens.charts.data import chart_data, span_days
from solvelens.charts.theme import DEFAULT_WIDTH, GAP_COLOUR, MUTED_COLOUR, si_axis, snapshot_tooltip, time_x

#: Time format of the gap tooltips.
_WHEN = "%Y-%m-%d %H:%M"


def _gap_layer(gaps: pl.DataFrame, span: float | None) -> alt.Chart:
    """Shaded bands over the gaps (gap_start, gap_end), "no snapshots" on hover."""
    band = chart_data(gaps.select("gap_start", "gap_end").with_columns(label=pl.lit("no snapshots")))
    return (
        alt.Chart(band)
        .mark_rect(color=GAP_COLOUR, opacity=0.7)
        .encode(
            x=time_x("gap_start", span_days=span),
            x2="gap_end:T",
            tooltip=[
                alt.Tooltip("label:N", title="Gap"),
                alt.Tooltip(
                    "gap_start:T", title="From", format=_WHEN, timeUnit="utcyearmonthdatehoursminutes"
                ),
                alt.Tooltip("gap_end:T", title="To", format=_WHEN, timeUnit="utcyearmonthdatehoursminutes"),
            ],
        )
    )


def _points_layer(trend: pl.DataFrame, span: float | None) -> alt.Chart:
    """One line of points per bot, coloured in final-rank order."""
    data = chart_data(
        trend.select("taken_at", "bot_id", "name", "rank", "points", "final_rank").sort(
            "final_rank", "taken_at"
        )
    )
    order = trend.sort("final_rank").unique("bot_id", keep="first", maintain_order=True)["name"].to_list()
    return (
        alt.Chart(data)
        .mark_line(point=alt.OverlayMarkDef(size=18))
        .encode(
            x=time_x(span_days=span),
            y=alt.Y("points:Q", title="Points", axis=si_axis(), scale=alt.Scale(zero=False)),
            color=alt.Color("name:N", sort=order, title="Bot"),
            detail="bot_id:N",
            tooltip=[
                alt.Tooltip("name:N", title="Bot"),
                snapshot_tooltip(),
                alt.Tooltip("points:Q", title="Points", format=","),
                alt.Tooltip("rank:Q", title="Rank"),
            ],
        )
    )


def _annotation_layers(trend: pl.DataFrame, annotations: pl.DataFrame, span: float | None) -> list[alt.Chart]:
    """Dashed rules at the annotations (taken_at, label) with staggered labels; labels in the right third of
    the plot extend to the left of their rule, so they stay inside."""
    start, end = trend["taken_at"].min(), trend["taken_at"].max()
    notes = (
        annotations.sort("taken_at")
        .select("taken_at", "label")
        .with_row_index("i")
        .with_columns(
            y_px=2 + 13 * (pl.col("i") % 3),  # stagger labels so neighbours do not overlap
            right=(pl.col("taken_at") - pl.lit(start)) > (pl.lit(end) - pl.lit(start)) * 2 / 3
            if start is not None and end is not None
            else pl.lit(False),
        )
    )
    layers = [
        alt.Chart(chart_data(notes))
        .mark_rule(strokeDash=[4, 3], color=MUTED_COLOUR)
        .encode(x=time_x(span_days=span))
    ]
    for right in (False, True):
        part = chart_data(notes.filter(pl.col("right") == right))
        if part.height:
            layers.append(
                alt.Chart(part)
                .mark_text(
                    align="right" if right else "left",
                    baseline="top",
                    dx=-3 if right else 3,
                    dy=2,
                    fontSize=10,
                    color="#3d444d",
                )
                .encode(x=time_x(span_days=span), y=alt.Y("y_px:Q", scale=None), text="label:N")
            )
    return layers


def points_trend_chart(
    trend: pl.DataFrame,
    *,
    annotations: pl.DataFrame | None = None,
    gaps: pl.DataFrame | None = None,
    title: str = "Points of the top bots",
    width: int = DEFAULT_WIDTH,
) -> alt.LayerChart:
    """Lines of points per bot over time.

    Inputs: ``trend`` as :func:`solvelens.analysis.bump_data` (taken_at, bot_id, name, points, final_rank);
    ``annotations`` (taken_at, label), e.g. :func:`solvelens.analysis.leader_changes`, drawn as dashed rules
    with their label; ``gaps`` (gap_start, gap_end), e.g. :func:`solvelens.analysis.snapshot_gaps`, drawn as
    shaded bands ("no snapshots").
    """
    span = span_days(trend)
    layers: list[alt.Chart] = []
    if gaps is not None and gaps.height:
        layers.append(_gap_layer(gaps, span))
    layers.append(_points_layer(trend, span))
    if annotations is not None and annotations.height:
        layers.extend(_annotation_layers(trend, annotations, span))
    return alt.LayerChart(layer=layers, title=title, width=width, height=320)
