"""Snapshot coverage: one cell per UTC day, coloured by how many snapshots it has (red: none)."""

from __future__ import annotations

import altair as alt
import polars as pl

from solvelens.charts.data import chart_data, span_days
from solvelens.charts.theme import DEFAULT_WIDTH, DOWN_COLOUR, PALETTE, time_x


def coverage_chart(
    days: pl.DataFrame, *, title: str = "Snapshot coverage", width: int = DEFAULT_WIDTH
) -> alt.Chart:
    """A strip of days (first to last snapshot day): blue with a snapshot, red without.

    Input: :func:`solvelens.analysis.snapshot_days` (day, snapshots, covered).
    """
    data = chart_data(
        days.with_columns(
            state=pl.when(pl.col("covered")).then(pl.lit("snapshot")).otherwise(pl.lit("missing")),
            day_end=pl.col("day") + pl.duration(days=1),
        )
    )
    return (
        alt.Chart(data)
        .mark_rect(stroke="#ffffff", strokeWidth=1)
        .encode(
            x=time_x("day", span_days=span_days(days, "day")),
            x2="day_end:T",
            color=alt.Color(
                "state:N",
                title=None,
                scale=alt.Scale(domain=["snapshot", "missing"], range=[PALETTE[0], DOWN_COLOUR]),
            ),
            tooltip=[
                alt.Tooltip("day:T", title="Day (UTC)", format="%Y-%m-%d", timeUnit="utcyearmonthdate"),
                alt.Tooltip("snapshots:Q", title="Snapshots"),
            ],
        )
        .properties(title=title, width=width, height=36)
    )
