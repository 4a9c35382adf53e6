"""Top movers: the bots that rose or fell most in rank over a window."""

from __future__ import annotations

import altair as alt
import polars as pl

from solvelens.charts.data import chart_data
from solvelens.charts.theme import DEFAULT_WIDTH, DOWN_COLOUR, UP_COLOUR


def movers_chart(
    movers: pl.DataFrame, *, title: str = "Top movers", width: int = DEFAULT_WIDTH
) -> alt.LayerChart:
    """Diverging bars of rank change (right = up), labelled ``rank_start → rank_end``.

    Input: :func:`solvelens.analysis.top_movers` (bot_id, name, rank_start, rank_end, rank_change,
    points_gain, direction). Bars keep the input order (risers first, then fallers).
    """
    data = chart_data(movers.with_columns(label=pl.format("#{} → #{}", "rank_start", "rank_end")))
    order = movers["name"].to_list()
    base = alt.Chart(data).encode(
        y=alt.Y("name:N", sort=order, title=None),
        x=alt.X(
            "rank_change:Q", title="Places gained (+) or lost (−)", axis=alt.Axis(tickMinStep=1, format="d")
        ),
        tooltip=[
            alt.Tooltip("name:N", title="Bot"),
            alt.Tooltip("rank_start:Q", title="Rank before"),
            alt.Tooltip("rank_end:Q", title="Rank now"),
            alt.Tooltip("points_gain:Q", title="Points gained", format=","),
        ],
    )
    bars = base.mark_bar().encode(
        color=alt.Color(
            "direction:N",
            scale=alt.Scale(domain=["up", "down"], range=[UP_COLOUR, DOWN_COLOUR]),
            legend=None,
        )
    )
    # "width": the right edge of the plot, whatever width the chart is drawn at (it may fit its container).
    labels = base.mark_text(dx=11, align="left", fontSize=11, color="#3d444d").encode(
        text="label:N", x=alt.value("width")
    )
    return alt.LayerChart(layer=[bars, labels], title=title, width=width, height=max(120, 24 * len(order)))
