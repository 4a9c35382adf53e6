"""Rank bump chart: the top bots' ranks over time (rank 1 at the top)."""

from __future__ import annotations

import altair as alt
import polars as pl

from solvelens.charts.data import chart_data, span_days
from solvelens.charts.theme import DEFAULT_WIDTH, time_x


def rank_bump_chart(
    bump: pl.DataFrame, *, title: str = "Rank history of today's top bots", width: int = DEFAULT_WIDTH
) -> alt.LayerChart:
    """Lines of rank per bot over time, one colour per bot, labelled at the newest snapshot.

    Input: :func:`solvelens.analysis.bump_data` (snapshot_id, taken_at, bot_id, name, rank, points,
    final_rank). Series and legend are ordered by final_rank (ties already broken on bot_id), so the same
    data always gives the same chart.
    """
    span = span_days(bump)
    data = chart_data(
        bump.select("taken_at", "bot_id", "name", "rank", "points", "final_rank").sort(
            "final_rank", "taken_at"
        )
    )
    order = bump.sort("final_rank").unique("bot_id", keep="first", maintain_order=True)["name"].to_list()
    max_rank = int(bump.select(pl.col("rank").max()).item() or 1) if bump.height else 1
    colour = alt.Color("name:N", sort=order, title="Bot", legend=None)
    base = alt.Chart(data).encode(
        x=time_x(span_days=span),
        y=alt.Y(
            "rank:Q",
            title="Rank",
            scale=alt.Scale(reverse=True, domain=[1, max(max_rank, 2)], nice=False, zero=False),
            axis=alt.Axis(tickMinStep=1, format="d"),
        ),
        color=colour,
        detail="bot_id:N",
        tooltip=[
            alt.Tooltip("name:N", title="Bot"),
            alt.Tooltip("taken_at:T", title="Snapshot (UTC)", format="%Y-%m-%d %H:%M"),
            alt.Tooltip("rank:Q", title="Rank"),
            alt.Tooltip("points:Q", title="Points", format=","),
        ],
    )
    lines = base.mark_line(interpolate="monotone")
    points = base.mark_point()
    newest = data.filter(pl.col("taken_at") == pl.col("taken_at").max().over("bot_id"))
    labels = (
        alt.Chart(newest)
        .mark_text(align="left", dx=6, fontSize=11)
        .encode(x=time_x(span_days=span), y=alt.Y("rank:Q"), text="name:N", color=colour)
    )
    return alt.LayerChart(
        layer=[lines, points, labels], title=title, width=width, height=max(220, 26 * len(order))
    )
