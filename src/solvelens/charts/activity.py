"""The activity timeline: the platform's own events per hour, stacked by action, with the recorded holes of
the history shaded."""

from __future__ import annotations

import altair as alt
import polars as pl

from solvelens.charts.data import chart_data, span_days
from solvelens.charts.theme import DEFAULT_WIDTH, GAP_COLOUR, time_x


def activity_timeline_chart(
    timeline: pl.DataFrame,
    *,
    gaps: pl.DataFrame | None = None,
    title: str = "Platform activity",
    width: int = DEFAULT_WIDTH,
) -> alt.LayerChart:
    """Stacked bars of events per covered hour by action, one bar per time bucket (an hour, a day for
    long histories, a week beyond ~13 months: the axis title says which); ``gaps`` (gap_from, gap_to) are
    shaded as "events missed".

    Input: :func:`solvelens.analysis.activity_timeline` (start, action, events, events_per_hour,
    bucket_hours, covered_hours) and ``Frames.activity_gaps`` (gap_from, gap_to).
    """
    hours = float(timeline["bucket_hours"].max() or 1.0) if timeline.height else 1.0  # type: ignore[arg-type]
    bucket = "hour" if hours == 1 else "day" if hours == 24 else "week"
    data = chart_data(timeline.select("start", "action", "events", "events_per_hour", "covered_hours"))
    x = time_x("start", title=f"Time (UTC, one bar per {bucket})", span_days=span_days(timeline, "start"))
    bars = (
        alt.Chart(data)
        .mark_bar()
        .encode(
            x=x,
            y=alt.Y("events_per_hour:Q", title="Events per covered hour", stack="zero"),
            # Two columns: long action names ("solution_submitted") fit a phone's 390 px without clipping.
            color=alt.Color(
                "action:N", title="Action", legend=alt.Legend(orient="bottom", columns=2, labelLimit=0)
            ),
            tooltip=[
                alt.Tooltip("start:T", title=f"{bucket.capitalize()} from (UTC)", format="%Y-%m-%d %H:%M"),
                alt.Tooltip("action:N", title="Action"),
                alt.Tooltip("events:Q", title="Events", format=","),
                alt.Tooltip("covered_hours:Q", title="Hours covered", format=",.1f"),
                alt.Tooltip("events_per_hour:Q", title="Per covered hour", format=",.1f"),
            ],
        )
    )
    layers: list[alt.Chart] = [bars]
    if gaps is not None and gaps.height:
        holes = chart_data(
            gaps.select("gap_from", "gap_to").drop_nulls().with_columns(note=pl.lit("events missed"))
        )
        layers.insert(
            0,
            alt.Chart(holes)
            .mark_rect(color=GAP_COLOUR, opacity=0.7)
            .encode(
                x="gap_from:T",
                x2="gap_to:T",
                tooltip=[
                    alt.Tooltip("note:N", title="Recorded gap"),
                    alt.Tooltip("gap_from:T", title="From (UTC)", format="%Y-%m-%d %H:%M"),
                    alt.Tooltip("gap_to:T", title="To (UTC)", format="%Y-%m-%d %H:%M"),
                ],
            ),
        )
    return alt.LayerChart(layer=layers, title=title, width=width, height=220)
