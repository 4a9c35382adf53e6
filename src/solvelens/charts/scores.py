"""Solution score distributions and the LLM models behind the top-ranked solutions."""

from __future__ import annotations

import altair as alt
import polars as pl

from solvelens.charts.data import chart_data
from solvelens.charts.theme import DEFAULT_WIDTH, MUTED_COLOUR, PALETTE

_GROUPS = ["rank 1", "rank 2-3", "rank 4+"]


def score_distribution_chart(
    distribution: pl.DataFrame, *, title: str = "Solution scores", width: int = DEFAULT_WIDTH
) -> alt.Chart:
    """Stacked histogram of solution scores by rank group.

    Input: :func:`solvelens.analysis.score_distribution` (group, bin, bin_start, bin_end, solutions).
    """
    return (
        alt.Chart(chart_data(distribution))
        .mark_bar(cornerRadiusEnd=0)
        .encode(
            # Labels that would touch are dropped ("1,1001,150": an outlier's bin by the axis start).
            x=alt.X(
                "bin_start:Q",
                title="Score (Bradley-Terry)",
                scale=alt.Scale(zero=False),
                axis=alt.Axis(labelOverlap="greedy", labelSeparation=8, labelFlush=True),
            ),
            x2="bin_end:Q",
            y=alt.Y("sum(solutions):Q", stack="zero", title="Solutions"),
            color=alt.Color(
                "group:N",
                title="Rank in problem",
                sort=_GROUPS,
                scale=alt.Scale(domain=_GROUPS, range=PALETTE[:3]),
            ),
            order=alt.Order("group:N", sort="ascending"),
            tooltip=[
                alt.Tooltip("group:N", title="Rank group"),
                alt.Tooltip("bin_start:Q", title="From", format=".0f"),
                alt.Tooltip("bin_end:Q", title="To", format=".0f"),
                alt.Tooltip("solutions:Q", title="Solutions"),
            ],
        )
        .properties(title=title, width=width, height=240)
    )


def llm_share_chart(
    share: pl.DataFrame, *, title: str = "LLM models: top-ranked vs all solutions", width: int = DEFAULT_WIDTH
) -> alt.Chart:
    """Paired bars per LLM model: its share of top-ranked solutions next to its share of all solutions.

    Input: :func:`solvelens.analysis.llm_model_share` (llm_model, top_share, share, ...); models keep the
    input order.
    """
    order = share["llm_model"].to_list()
    long = share.select("llm_model", "top_share", "share").unpivot(
        index="llm_model", variable_name="measure", value_name="value"
    )
    long = long.with_columns(
        measure=pl.col("measure").replace_strict(
            {"top_share": "Top-ranked solutions", "share": "All solutions"}
        )
    )
    return (
        alt.Chart(chart_data(long))
        .mark_bar()
        .encode(
            y=alt.Y("llm_model:N", sort=order, title=None),
            yOffset=alt.YOffset("measure:N", sort=["Top-ranked solutions", "All solutions"]),
            x=alt.X("value:Q", title="Share", axis=alt.Axis(format=".0%")),
            color=alt.Color(
                "measure:N",
                title=None,
                scale=alt.Scale(
                    domain=["Top-ranked solutions", "All solutions"], range=[PALETTE[0], MUTED_COLOUR]
                ),
            ),
            tooltip=[
                alt.Tooltip("llm_model:N", title="Model"),
                alt.Tooltip("measure:N", title="Of"),
                alt.Tooltip("value:Q", title="Share", format=".1%"),
            ],
        )
        .properties(title=title, width=width, height=alt.Step(12))
    )
