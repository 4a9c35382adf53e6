"""The model leaderboard as a ranked dot-and-interval chart (as the Chatbot Arena shows its intervals), and
each model's standing over time."""

from __future__ import annotations

import altair as alt
import polars as pl

from solvelens.charts.data import chart_data, span_days
from solvelens.charts.theme import DEFAULT_WIDTH, INK_COLOUR, MUTED_COLOUR, PALETTE, snapshot_tooltip, time_x

_METRIC_TITLES = {
    "mean_percentile": "Mean rank percentile within problem",
    "top1_rate": "Top-1 rate",
    "top3_rate": "Top-3 rate",
}


def model_leaderboard_chart(
    board: pl.DataFrame,
    *,
    metric: str = "mean_percentile",
    title: str = "Model leaderboard",
    width: int = DEFAULT_WIDTH,
) -> alt.LayerChart:
    """One row per model, best first: a dot at the estimate and a bar over its 95% bootstrap interval.

    Input: :func:`solvelens.analysis.model_leaderboard` (rank, llm_model, ranked, contested_solutions,
    ``metric``, ``metric``_lo, ``metric``_hi). Ranked models are blue with their rank in the label
    ("#1 gpt-4o"); models with too few solutions are grey, last, labelled "not ranked".
    """
    frame = board.filter(pl.col(metric).is_not_null()).with_columns(
        label=pl.when(pl.col("ranked"))
        .then(pl.format("#{}  {}", pl.col("rank"), pl.col("llm_model")))
        .otherwise(pl.format("{} (not ranked)", pl.col("llm_model"))),
        status=pl.when(pl.col("ranked")).then(pl.lit("ranked")).otherwise(pl.lit("too few solutions")),
    )
    order = frame["label"].to_list()
    data = chart_data(
        frame.select(
            "label",
            "llm_model",
            "status",
            "contested_solutions",
            "solutions",
            value=pl.col(metric),
            lo=pl.col(f"{metric}_lo"),
            hi=pl.col(f"{metric}_hi"),
        )
    )
    colour = alt.Color(
        "status:N",
        title=None,
        scale=alt.Scale(domain=["ranked", "too few solutions"], range=[PALETTE[0], MUTED_COLOUR]),
        legend=alt.Legend(orient="bottom"),
    )
    y = alt.Y("label:N", sort=order, title=None, axis=alt.Axis(labelColor=INK_COLOUR, labelLimit=260))
    tooltip = [
        alt.Tooltip("llm_model:N", title="Model"),
        alt.Tooltip("value:Q", title=_METRIC_TITLES.get(metric, metric), format=".1%"),
        alt.Tooltip("lo:Q", title="95% interval from", format=".1%"),
        alt.Tooltip("hi:Q", title="95% interval to", format=".1%"),
        alt.Tooltip("contested_solutions:Q", title="Solutions in contested problems", format=","),
    ]
    axis = alt.Axis(format=".0%", title=f"{_METRIC_TITLES.get(metric, metric)} (95% bootstrap interval)")
    interval = (
        alt.Chart(data)
        .mark_rule(strokeWidth=3, opacity=0.55)
        .encode(
            y=y, x=alt.X("lo:Q", axis=axis, scale=alt.Scale(zero=False, nice=True)), x2="hi:Q", color=colour
        )
    )
    dots = (
        alt.Chart(data)
        .mark_point(filled=True, size=90, opacity=1)
        .encode(y=y, x=alt.X("value:Q"), color=colour, tooltip=tooltip)
    )
    layers: list[alt.Chart] = [interval, dots]
    if metric == "mean_percentile":  # a model no better than its rivals sits at 50%
        chance = chart_data(pl.DataFrame({"x": [0.5], "note": ["50%: no better than the others"]}))
        layers.insert(
            0,
            alt.Chart(chance)
            .mark_rule(strokeDash=[4, 3], color=MUTED_COLOUR)
            .encode(x="x:Q", tooltip=alt.Tooltip("note:N", title="Reference")),
        )
    return alt.LayerChart(layer=layers, title=title, width=width, height=max(120, 28 * len(order)))


def model_trend_chart(
    trend: pl.DataFrame,
    *,
    metric: str = "mean_percentile",
    models: list[str] | None = None,
    title: str = "Models over time",
    width: int = DEFAULT_WIDTH,
) -> alt.Chart:
    """Lines of each model's ``metric`` at every snapshot.

    Input: :func:`solvelens.analysis.model_trend` (taken_at, llm_model, solutions, ``metric``). ``models``
    picks and orders the lines (e.g. the leaderboard's ranked models); default: every model.
    """
    frame = trend if models is None else trend.filter(pl.col("llm_model").is_in(models))
    order = models or sorted(frame["llm_model"].unique().to_list())
    span = span_days(frame)
    data = chart_data(frame.select("taken_at", "llm_model", "solutions", value=pl.col(metric)))
    return (
        alt.Chart(data)
        .mark_line(point=alt.OverlayMarkDef(size=14))
        .encode(
            x=time_x(span_days=span),
            y=alt.Y(
                "value:Q",
                title=_METRIC_TITLES.get(metric, metric),
                axis=alt.Axis(format=".0%"),
                scale=alt.Scale(zero=False),
            ),
            color=alt.Color("llm_model:N", sort=order, title="Model"),
            tooltip=[
                alt.Tooltip("llm_model:N", title="Model"),
                snapshot_tooltip(),
                alt.Tooltip("value:Q", title=_METRIC_TITLES.get(metric, metric), format=".1%"),
                alt.Tooltip("solutions:Q", title="Solutions", format=","),
            ],
        )
        .properties(title=title, width=width, height=240)
    )
