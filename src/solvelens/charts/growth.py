"""Platform growth: problems and solutions added, and bot activity (solutions and votes), each as a rate in
the history's own unit of platform time (per day or per hour; see :mod:`solvelens.analysis.timescale`)."""

from __future__ import annotations

import altair as alt
import polars as pl

from solvelens.charts.data import chart_data, span_days
from solvelens.charts.theme import DEFAULT_WIDTH, PALETTE, si_axis, snapshot_tooltip, time_x


def _unit(frame: pl.DataFrame) -> str:
    """The frame's rate unit ("day" or "hour"; "day" for an empty frame)."""
    if frame.height and "rate_unit" in frame.columns:
        return str(frame["rate_unit"].drop_nulls().first() or "day")
    return "day"


def _rate_bars(frame: pl.DataFrame, columns: dict[str, str], title: str, width: int) -> alt.VConcatChart:
    span = span_days(frame)
    unit = _unit(frame)
    panels = []
    # Time scales have no bands: size bars from the number of snapshots (at least 1 px, at most 24 px).
    bar_width = max(1.0, min(24.0, 0.7 * width / max(frame.height, 1)))
    for i, (column, label) in enumerate(columns.items()):
        data = chart_data(
            frame.select("taken_at", "elapsed_s", column)
            .drop_nulls(column)
            .with_columns(elapsed_min=pl.col("elapsed_s") / 60)
        )
        panels.append(
            alt.Chart(data)
            .mark_bar(color=PALETTE[i % len(PALETTE)], width=bar_width)
            .encode(
                x=time_x(span_days=span),
                y=alt.Y(f"{column}:Q", title=f"{label} per {unit}", axis=si_axis()),
                tooltip=[
                    snapshot_tooltip(),
                    alt.Tooltip(f"{column}:Q", title=f"{label} per {unit}", format=",.1f"),
                    alt.Tooltip("elapsed_min:Q", title="Minutes since previous", format=",.0f"),
                ],
            )
            .properties(width=width, height=150)
        )
    return alt.vconcat(*panels, spacing=14).properties(title=title)


def growth_chart(
    growth: pl.DataFrame, *, title: str = "Problems and solutions added", width: int = DEFAULT_WIDTH
) -> alt.VConcatChart:
    """Two bar panels: problems and solutions added at each snapshot, as a rate in the frame's unit (the
    change since the previous snapshot divided by the time between them, so a gap does not show as a
    spike; per hour when the history spans less than a day; none over an interval too short to rate).
    Axis titles name the unit.

    Input: :func:`solvelens.analysis.platform_growth` (taken_at, elapsed_s, problems_rate,
    solutions_rate, rate_unit).
    """
    columns = {"problems_rate": "Problems", "solutions_rate": "Solutions"}
    return _rate_bars(growth, columns, title, width)


def activity_chart(
    activity: pl.DataFrame, *, title: str = "Bot activity", width: int = DEFAULT_WIDTH
) -> alt.Chart:
    """Lines of solutions and votes summed over all bots (from profile counter changes), as a rate in the
    frame's unit; the axis title names it. Null rates (a gap) are not drawn.

    Input: :func:`solvelens.analysis.platform_activity` (taken_at, solutions_rate, votes_rate, rate_unit).
    """
    span = span_days(activity)
    unit = _unit(activity)
    long = (
        activity.select("taken_at", "solutions_rate", "votes_rate")
        .unpivot(index="taken_at", variable_name="measure", value_name="rate")
        .drop_nulls("rate")  # no rate (a gap): no point, never a 0
    )
    long = long.with_columns(
        measure=pl.col("measure").replace_strict({"solutions_rate": "Solutions", "votes_rate": "Votes"})
    )
    return (
        alt.Chart(chart_data(long))
        .mark_line(point=True)
        .encode(
            x=time_x(span_days=span),
            y=alt.Y("rate:Q", title=f"Per {unit}", axis=si_axis()),
            color=alt.Color("measure:N", title=None, sort=["Solutions", "Votes"]),
            tooltip=[
                alt.Tooltip("measure:N", title="Measure"),
                snapshot_tooltip(),
                alt.Tooltip("rate:Q", title=f"Per {unit}", format=",.1f"),
            ],
        )
        .properties(title=title, width=width, height=240)
    )
