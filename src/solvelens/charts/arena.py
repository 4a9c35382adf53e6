"""The arena ranking: scores with their intervals, the predicted win-rate heatmap, and rank over time.

Inputs are the frames of :class:`solvelens.analysis.ArenaResult` (``ranking``, ``win_rate``, ``over_time``).
Only ranked entries are drawn (an entry with too few comparisons has an interval too wide to read next to
the others); the builders take the best ``top`` of them.
"""

from __future__ import annotations

import altair as alt
import polars as pl

from solvelens.charts.data import chart_data, span_days
from solvelens.charts.theme import DEFAULT_WIDTH, INK_COLOUR, PALETTE, snapshot_tooltip, time_x

#: The tooltip's words for a window's ``fit`` (``ArenaResult.over_time``).
FIT_NOTES = {
    "measured": "measured",
    "separated": "diverged only for models not ranked then: ranks measured among the ranked",
    "diverged": "diverged among the ranked: ranks only order them",
}
#: The tooltip's words for a window whose fit diverged while one model was ranked (no ranking among ranked
#: models exists there; a window with none ranked has no point).
ALONE_NOTE = "diverged; the only model ranked then: rank 1 of 1, compared with no other ranked model"


def _top(ranking: pl.DataFrame, top: int) -> pl.DataFrame:
    """The best ``top`` ranked entries, in the ranking's order, with a display name ("#1  gpt-4o")."""
    return (
        ranking.filter(pl.col("ranked"))
        .head(top)
        .with_columns(name=pl.format("#{}  {}", pl.col("rank"), pl.col("label")))
    )


def arena_scores_chart(
    ranking: pl.DataFrame, *, top: int = 20, title: str = "Arena scores", width: int = DEFAULT_WIDTH
) -> alt.LayerChart:
    """One row per ranked entry, best first: a dot at the Bradley–Terry score (Elo scale) and a bar over
    its bootstrap interval; a dashed rule at 1500 (the mean ranked entry).

    Input: ``ArenaResult.ranking`` (rank, label, score, lower, upper, comparisons, wins, ranked).
    """
    frame = _top(ranking, top)
    order = frame["name"].to_list()
    data = chart_data(frame.select("name", "label", "rank", "score", "lower", "upper", "comparisons", "wins"))
    y = alt.Y("name:N", sort=order, title=None, axis=alt.Axis(labelColor=INK_COLOUR, labelLimit=260))
    tooltip = [
        alt.Tooltip("label:N", title="Entry"),
        alt.Tooltip("rank:Q", title="Rank"),
        alt.Tooltip("score:Q", title="Score (Elo scale)", format=",.0f"),
        alt.Tooltip("lower:Q", title="95% interval from", format=",.0f"),
        alt.Tooltip("upper:Q", title="95% interval to", format=",.0f"),
        alt.Tooltip("comparisons:Q", title="Comparisons", format=","),
        alt.Tooltip("wins:Q", title="Wins", format=","),
    ]
    x = alt.X(
        "lower:Q",
        title="Bradley–Terry score (Elo scale)",
        scale=alt.Scale(zero=False, nice=True),
    )
    interval = (
        alt.Chart(data)
        .mark_rule(strokeWidth=3, opacity=0.55, color=PALETTE[0])
        .encode(y=y, x=x, x2="upper:Q")
    )
    dots = (
        alt.Chart(data)
        .mark_point(filled=True, size=90, opacity=1, color=PALETTE[0])
        .encode(y=y, x="score:Q", tooltip=tooltip)
    )
    centre = (
        alt.Chart(chart_data(pl.DataFrame({"x": [1500.0], "note": ["1500: the mean ranked entry"]})))
        .mark_rule(strokeDash=[4, 3], color="#8a8f98")
        .encode(x="x:Q", tooltip=alt.Tooltip("note:N", title="Reference"))
    )
    return alt.LayerChart(
        layer=[centre, interval, dots], title=title, width=width, height=max(120, 26 * len(order))
    )


def arena_win_rate_chart(
    win_rate: pl.DataFrame,
    ranking: pl.DataFrame,
    *,
    top: int = 12,
    title: str = "Predicted win rates",
    width: int = DEFAULT_WIDTH,
) -> alt.LayerChart:
    """Heatmap of the fitted probability that the row's entry wins a vote against the column's, for the
    best ``top`` ranked entries (rows and columns in rank order), each cell labelled in percent.

    Input: ``ArenaResult.win_rate`` (entry_a, label_a, entry_b, label_b, p_a_wins) and ``ranking``.
    """
    frame = _top(ranking, top)
    order = frame["label"].to_list()
    cells = win_rate.filter(
        pl.col("entry_a").is_in(frame["entry"].to_list()) & pl.col("entry_b").is_in(frame["entry"].to_list())
    )
    data = chart_data(cells.select("label_a", "label_b", "p_a_wins"))
    side = max(240, min(width, 44 * len(order)))
    axis = alt.Axis(labelLimit=160, labelColor=INK_COLOUR)
    base = alt.Chart(data).encode(
        y=alt.Y("label_a:N", sort=order, title="Entry", axis=axis),
        x=alt.X("label_b:N", sort=order, title="against", axis=alt.Axis(labelAngle=-40, labelLimit=160)),
    )
    heat = base.mark_rect().encode(
        color=alt.Color(
            "p_a_wins:Q",
            title="P(row wins)",
            scale=alt.Scale(scheme="redblue", domain=[0, 1], domainMid=0.5),
            legend=alt.Legend(format=".0%"),
        ),
        tooltip=[
            alt.Tooltip("label_a:N", title="Entry"),
            alt.Tooltip("label_b:N", title="Against"),
            alt.Tooltip("p_a_wins:Q", title="Predicted win rate", format=".1%"),
        ],
    )
    text = base.mark_text(fontSize=10, color=INK_COLOUR).encode(text=alt.Text("p_a_wins:Q", format=".0%"))
    return alt.LayerChart(layer=[heat, text], title=title, width=side, height=side)


#: How a window's point is drawn, by how its fit stands: (the legend's label, the point's shape). Filled
#: where ``measured``, hollow otherwise; ``alone``: diverged with one model ranked (:data:`ALONE_NOTE`).
FIT_MARKS = {
    "measured": ("measured", "circle"),
    "separated": ("diverged, unranked only", "square"),
    "diverged": ("diverged among ranked", "diamond"),
    "alone": ("diverged, one ranked", "triangle-up"),
}


def _noted(over_time: pl.DataFrame) -> pl.DataFrame:
    """``over_time`` with fit_note (the tooltip's words) and fit_mark (the legend's label, :data:`FIT_MARKS`)
    String columns for each row's window."""
    alone = (pl.col("fit") == "diverged") & (pl.col("ranked").sum().over("snapshot_id") < 2)
    notes = pl.when(alone).then(pl.lit(ALONE_NOTE)).otherwise(pl.col("fit").replace_strict(FIT_NOTES))
    kind = pl.when(alone).then(pl.lit("alone")).otherwise(pl.col("fit"))
    labels = {key: label for key, (label, _) in FIT_MARKS.items()}
    return over_time.with_columns(
        fit_note=notes.cast(pl.String), fit_mark=kind.replace_strict(labels, return_dtype=pl.String)
    )


def _fit_points(frame: pl.DataFrame, labels: list[str]) -> alt.Chart:
    """The rank chart's points: each outlined in its entry's colour (``labels``: the chart's ``color`` order),
    filled where the window's fit was measured and hollow (fill opacity 0) where not, shaped by
    :data:`FIT_MARKS`; a legend "Fit" with its symbols filled and hollow like the points, unless every
    window was measured."""
    present = set(frame["fit_mark"].to_list())
    measured = FIT_MARKS["measured"][0]
    marks = [(label, shape) for label, shape in FIT_MARKS.values() if label in present]
    legend = alt.Legend(
        symbolFillColor=alt.ExprRef(f"datum.value === '{measured}' ? '{INK_COLOUR}' : '#ffffff'"),
        symbolStrokeColor=INK_COLOUR,
        symbolStrokeWidth=1.5,
    )
    return (
        alt.Chart()
        .mark_point(filled=True, size=50, strokeWidth=1.5, opacity=1)
        .encode(
            shape=alt.Shape(
                "fit_mark:N",
                title="Fit",
                scale=alt.Scale(domain=[m[0] for m in marks], range=[m[1] for m in marks]),
                legend=None if present <= {measured} else legend,
            ),
            fillOpacity=alt.condition(  # type: ignore[no-untyped-call]
                f"datum.fit_mark === '{measured}'", alt.value(1.0), alt.value(0.0)
            ),
            stroke=alt.Stroke("label:N", sort=labels, legend=None),  # the same colours as ``color``
        )
    )


def arena_rank_chart(
    over_time: pl.DataFrame,
    *,
    top: int = 10,
    title: str = "Arena rank over time",
    width: int = DEFAULT_WIDTH,
) -> alt.LayerChart:
    """Lines of each entry's arena rank at every snapshot window (rank 1 at the top), for the entries
    ranked best in the newest window (the newest snapshot's; at most ``top``). A point per entry and window:
    filled where the window's fit was measured, hollow and shaped by how it diverged where not (a legend
    "Fit", :data:`FIT_MARKS`). Entries sharing a rank overlap: the tooltip gives score and interval, and how
    that window's fit stands (:data:`FIT_NOTES`; :data:`ALONE_NOTE` where it diverged with one model ranked).

    Input: ``ArenaResult.over_time`` (snapshot_id, taken_at, entry, label, rank, score, lower, upper,
    comparisons, ranked, fit).
    """
    # The newest window, by snapshot: two snapshots taken at one time are two windows at the same taken_at.
    order = over_time.sort("taken_at", "snapshot_id", nulls_last=True)["snapshot_id"]
    newest = over_time.filter(pl.col("snapshot_id") == order[-1]) if order.len() else over_time
    keep = newest.filter(pl.col("ranked")).sort("rank", "score", descending=[False, True]).head(top)
    labels = keep["label"].to_list()
    frame = _noted(over_time).filter(
        pl.col("entry").is_in(keep["entry"].to_list()) & pl.col("rank").is_not_null()
    )
    data = chart_data(
        frame.select(
            "taken_at", "label", "rank", "score", "lower", "upper", "comparisons", "snapshot_id", "fit",
            "fit_note", "fit_mark",
        )
    )  # fmt: skip
    worst = int(frame["rank"].max() or 1)  # type: ignore[arg-type]
    return alt.layer(
        alt.Chart().mark_line(), _fit_points(frame, labels), data=data, title=title, width=width
    ).encode(
        x=time_x(span_days=span_days(frame)),
        y=alt.Y(
            "rank:Q",
            title="Arena rank",
            scale=alt.Scale(domain=[0.5, worst + 0.5], reverse=True, nice=False),
            axis=alt.Axis(values=list(range(1, worst + 1)), format="d"),
        ),
        color=alt.Color("label:N", sort=labels, title="Entry"),
        tooltip=[
            snapshot_tooltip(),
            alt.Tooltip("label:N", title="Entry"),
            alt.Tooltip("rank:Q", title="Rank"),
            alt.Tooltip("score:Q", title="Score (Elo scale)", format=",.0f"),
            alt.Tooltip("lower:Q", title="95% interval from", format=",.0f"),
            alt.Tooltip("upper:Q", title="95% interval to", format=",.0f"),
            alt.Tooltip("comparisons:Q", title="Comparisons so far", format=","),
            alt.Tooltip("fit_note:N", title="Fit"),
        ],
    )
