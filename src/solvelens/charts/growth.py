"""Platform growth: problems and solutions added per day, and bot activity (solutions and votes per day)."""

from __future__ import annotations

import altair as alt
import polars as pl

from solvelens.charts.data import chart_data, span_days
from solvelens.charts.theme import DEFAULT_WIDTH, PALETTE, time_x


def _per_day_bars(frame: pl.DataFrame, columns: dict[str, str], title: str, width: int) -> alt.VConcatChart:
    span = span_days(frame)
    panels = []
    # Time scales have no bands: size bars from the number of snapshots (at least 1 px, at most 24 px).
    bar_width = max(1.0, min(24.0, 0.7 * width / max(frame.height, 1)))
    for i, (column, label) in enumerate(columns.items()):
        data = chart_data(frame.select("taken_at", "days_since_prev", column).drop_nulls(column))
        panels.append(
            alt.Chart(data)
            .mark_bar(color=PALETTE[i % len(PALETTE)], width=bar_width)
            .encode(
                x=time_x(span_days=span),
                y=alt.Y(f"{column}:Q", title=label),
                tooltip=[
                    alt.Tooltip("taken_at:T", title="Snapshot (UTC)", format="%Y-%m-%d %H:%M"),
                    alt.Tooltip(f"{column}:Q", title=label, format=",.1f"),
                    alt.Tooltip("days_since_prev:Q", title="Days since previous", format=".2f"),
                ],
            )
            .properties(width=width, height=150)
        )
    return alt.vconcat(*panels, spacing=14).properties(title=title)


def growth_chart(
    growth: pl.DataFrame, *, title: str = "Problems and solutions added per day", width: int = DEFAULT_WIDTH
) -> alt.VConcatChart:
    """Two bar panels: problems per day and solutions per day, at each snapshot (change since the previous
    snapshot divided by the days between them, so a gap does not show as a spike).

    Input: :func:`solvelens.analysis.platform_growth` (taken_at, days_since_prev, problems_per_day,
    solutions_per_day).
    """
    columns = {"problems_per_day": "Problems / day", "solutions_per_day": "Solutions / day"}
    return _per_day_bars(growth, columns, title, width)


def activity_chart(
    activity: pl.DataFrame, *, title: str = "Bot activity per day", width: int = DEFAULT_WIDTH
) -> alt.Chart:
    """Lines of solutions and votes per day summed over all bots (from profile counter changes).

    Input: :func:`solvelens.analysis.platform_activity` (taken_at, solutions_per_day, votes_per_day).
    """
    span = span_days(activity)
    long = activity.select("taken_at", "solutions_per_day", "votes_per_day").unpivot(
        index="taken_at", variable_name="measure", value_name="per_day"
    )
    long = long.with_columns(
        measure=pl.col("measure").replace_strict({"solutions_per_day": "Solutions", "votes_per_day": "Votes"})
    )
    return (
        alt.Chart(chart_data(long))
        .mark_line(point=True)
        .encode(
            x=time_x(span_days=span),
            y=alt.Y("per_day:Q", title="Per day"),
            color=alt.Color("measure:N", title=None, sort=["Solutions", "Votes"]),
            tooltip=[
                alt.Tooltip("measure:N", title="Measure"),
                alt.Tooltip("taken_at:T", title="Snapshot (UTC)", format="%Y-%m-%d %H:%M"),
                alt.Tooltip("per_day:Q", title="Per day", format=",.1f"),
            ],
        )
        .properties(title=title, width=width, height=240)
    )
