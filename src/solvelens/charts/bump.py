"""Rank history: the top bots' ranks over time (rank 1 at the top), and one bot's rank over time."""

from __future__ import annotations

import altair as alt
import polars as pl

from solvelens.charts.data import chart_data, span_days
from solvelens.charts.theme import DEFAULT_WIDTH, INK_COLOUR, PALETTE, snapshot_tooltip, time_x

#: Vertical room one end label needs (px): labels are moved apart until they are at least this far apart.
LABEL_SPACING = 14
#: Padding (px) above rank 1 and below the last rank, so the end points are not cut by the plot's edge.
_PAD = 8


def rank_ticks(top: int) -> list[int]:
    """Rank axis ticks for ranks 1..top: every rank up to 10, else 1 and multiples of 5 (always 1)."""
    if top <= 10:
        return list(range(1, top + 1))
    step = 5 if top <= 40 else 10
    return [1, *range(step, top + 1, step)]


def label_positions(
    ranks: list[float], *, top: int, height: int, spacing: int = LABEL_SPACING
) -> list[float]:
    """Pixel y of end labels placed next to the lines' end ranks without overlapping.

    ``ranks`` are the labels' ranks in the order they should stack (top to bottom); ranks below ``top``
    are pinned at the bottom edge. Each label starts at its line's end (rank 1 at ``_PAD`` px, rank
    ``top`` at ``height - _PAD``), is pushed down until it is ``spacing`` px below the previous one, and
    the stack is pushed back up if it runs past the bottom. Returns one y per rank, in the same order.
    """
    span = max(top - 1, 1)
    wanted = [_PAD + (min(rank, top) - 1) / span * (height - 2 * _PAD) for rank in ranks]
    placed: list[float] = []
    for y in wanted:
        placed.append(max(y, placed[-1] + spacing) if placed else y)
    bottom = height - _PAD + spacing / 2
    for i in range(len(placed) - 1, -1, -1):
        limit = bottom if i == len(placed) - 1 else placed[i + 1] - spacing
        placed[i] = min(placed[i], limit)
    return placed


def rank_bump_chart(
    bump: pl.DataFrame,
    *,
    title: str = "Rank history of today's top bots",
    width: int = DEFAULT_WIDTH,
    top: int | None = None,
) -> alt.LayerChart:
    """Step lines of rank per bot over time, one colour per bot, with an end label per bot.

    Input: :func:`solvelens.analysis.bump_data` (snapshot_id, taken_at, bot_id, name, rank, points,
    final_rank). The y axis shows ranks 1..``top`` (default: the number of bots shown) with a tick at 1;
    a line leaving the top is cut at the bottom edge. End labels ("name #rank") are in dark text, placed
    next to each line's newest point and moved apart so they never overlap (a tie shares a rank, so
    several labels may belong to one rank). Lines hold their rank until the next snapshot (step lines:
    ranks are whole numbers, nothing happens between snapshots). Hover a point for its values.
    """
    span = span_days(bump)
    data = chart_data(
        bump.select("taken_at", "bot_id", "name", "rank", "points", "final_rank").sort(
            "final_rank", "taken_at"
        )
    )
    order = bump.sort("final_rank").unique("bot_id", keep="first", maintain_order=True)["name"].to_list()
    shown = max(top or len(order), 2)
    height = max(240, 24 * shown)
    colour = alt.Color(
        "name:N", sort=order, title="Bot", legend=None, scale=alt.Scale(range=PALETTE[: max(len(order), 1)])
    )
    x = time_x(span_days=span)
    y = alt.Y(
        "rank:Q",
        title="Rank",
        scale=alt.Scale(reverse=True, domain=[1, shown], nice=False, zero=False, padding=_PAD),
        axis=alt.Axis(values=rank_ticks(shown), format="d", grid=True),
    )
    tooltip = [
        alt.Tooltip("name:N", title="Bot"),
        snapshot_tooltip(),
        alt.Tooltip("rank:Q", title="Rank"),
        alt.Tooltip("points:Q", title="Points", format=","),
    ]
    base = alt.Chart(data).encode(x=x, y=y, color=colour, detail="bot_id:N", tooltip=tooltip)
    lines = base.mark_line(interpolate="step-after", clip=True, strokeWidth=2.2)
    points = base.mark_point(clip=True, size=36, filled=True)

    newest = (  # one label per bot, at its newest snapshot (two snapshots may share a time)
        bump.sort("taken_at", "snapshot_id")
        .unique("bot_id", keep="last", maintain_order=True)
        .sort("rank", "final_rank")
        .select("taken_at", "bot_id", "name", "rank", "points", "final_rank")
    )
    label_y = label_positions(newest["rank"].cast(pl.Float64).to_list(), top=shown, height=height)
    labels_frame = newest.with_columns(
        label_y=pl.Series(label_y, dtype=pl.Float64),
        label=pl.format("{}  #{}", pl.col("name"), pl.col("rank")),
        taken_at=pl.col("taken_at").max(),
    )
    labels = (
        alt.Chart(chart_data(labels_frame), name="rank_labels")
        .mark_text(align="left", baseline="middle", dx=10, fontSize=11, color=INK_COLOUR)
        .encode(x=x, y=alt.Y("label_y:Q", scale=None), text="label:N", tooltip=tooltip)
    )
    return alt.LayerChart(layer=[lines, points, labels], title=title, width=width, height=height)


def bot_rank_chart(
    history: pl.DataFrame, *, title: str = "Rank over time", width: int = DEFAULT_WIDTH
) -> alt.LayerChart:
    """One bot's rank over time (step line, rank 1 at the top), with the number of ranked bots as a grey
    band's lower edge so the rank reads against the field.

    Input: :func:`solvelens.analysis.bot_history` (taken_at, rank, ranked_bots, points, percentile).
    Snapshots where the bot was not ranked leave a gap.
    """
    span = span_days(history)
    data = chart_data(
        history.select("taken_at", "rank", "ranked_bots", "points", "percentile").with_columns(one=pl.lit(1))
    )
    worst = int(history["ranked_bots"].max() or 2) if history.height else 2  # type: ignore[arg-type]
    x = time_x(span_days=span)
    scale = alt.Scale(reverse=True, domain=[1, max(worst, 2)], nice=False, zero=False, padding=_PAD)
    field = (
        alt.Chart(data)
        .mark_area(color="#eef1f5", interpolate="step-after")
        .encode(
            x=x,
            y=alt.Y(
                "one:Q",
                scale=scale,
                title="Rank",
                axis=alt.Axis(format="d", values=rank_ticks(max(worst, 2))),
            ),
            y2="ranked_bots:Q",
            tooltip=[alt.Tooltip("ranked_bots:Q", title="Ranked bots")],
        )
    )
    line = (
        alt.Chart(data)
        .mark_line(interpolate="step-after", color=PALETTE[0], point=alt.OverlayMarkDef(size=30))
        .encode(
            x=x,
            y=alt.Y("rank:Q", scale=scale),
            tooltip=[
                snapshot_tooltip(),
                alt.Tooltip("rank:Q", title="Rank"),
                alt.Tooltip("ranked_bots:Q", title="of ranked bots"),
                alt.Tooltip("percentile:Q", title="Percentile", format=".0%"),
                alt.Tooltip("points:Q", title="Points", format=","),
            ],
        )
    )
    return alt.LayerChart(layer=[field, line], title=title, width=width, height=220)
