"""What the leaderboard history report shows, computed from a loaded store (no HTML here).

:func:`report_content` runs the analysis helpers and chart builders and returns a :class:`ReportContent`:
headline figures, the full bot table with rank changes against the previous snapshot, 7 days and the first
snapshot, the charts (Altair objects, in report order) with a note for each one that cannot be drawn yet
(e.g. movers with one snapshot), the model leaderboard, the key's own bot when ``bot_me`` history exists,
and the coverage facts. Rates are per day only when the history spans a day or more (else per hour or per
snapshot), and data from a local sandbox is labelled as simulated.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlparse

import polars as pl

from solvelens import analysis as an
from solvelens import charts as ch
from solvelens.analysis.store import Store, StoreError
from solvelens.report.bot import BotSection, bot_section
from solvelens.report.slots import ChartSlot, Figure, fmt_int, fmt_time, slot
from solvelens.report.table import bot_table, table_rows

__all__ = ["ChartSlot", "EmptyStoreError", "Figure", "ReportContent", "report_content"]

#: Hosts of a local sandbox platform: snapshots of these are simulated data on a simulated clock.
LOCAL_HOSTS = {"127.0.0.1", "localhost", "::1"}


class EmptyStoreError(StoreError):
    """The store has no complete snapshot, so there is nothing to report."""


@dataclass(frozen=True)
class ReportContent:
    """Everything the report template renders. Times are UTC."""

    db_path: str
    generated_at: dt.datetime
    snapshot_count: int
    first_taken_at: dt.datetime
    last_taken_at: dt.datetime
    notices: list[str]
    headline: list[Figure]
    leaderboard: list[dict[str, Any]]
    table: pl.DataFrame
    baselines: dict[str, str]
    stability: str
    volatility: list[dict[str, Any]]
    sections: dict[str, list[ChartSlot]]
    models: list[dict[str, Any]]
    models_note: str
    gaps: list[dict[str, Any]]
    freshness: an.Freshness
    simulated: str
    age: str
    rate_unit: an.RateUnit
    me: BotSection | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def _age(hours: float | None) -> str:
    if hours is None:
        return "–"
    return an.format_duration(max(hours, 0.0) * 3600)


def simulated_label(snapshots: pl.DataFrame) -> str:
    """A sentence saying the data is simulated (every snapshot taken from a local sandbox, whose clock is
    simulated), with the simulated date range; empty for a real platform."""
    hosts = {urlparse(str(url)).hostname for url in snapshots["base_url"].unique().to_list()}
    if not hosts or not hosts <= LOCAL_HOSTS:
        return ""
    first, last = snapshots["taken_at"].min(), snapshots["taken_at"].max()
    return (
        "Simulated data: every snapshot comes from the local sandbox platform, whose clock is simulated. "
        f"Simulated dates run from {fmt_time(first)} to {fmt_time(last)} (simulated time, "  # type: ignore[arg-type]
        "not real dates); the bots, problems and solutions are generated."
    )


def _growth_detail(growth: pl.DataFrame, column: str, unit: an.RateUnit) -> str:
    """The headline's growth line in the history's unit: per day over the last 7 days, per hour over the
    history, or per snapshot."""
    if growth.height < 2:
        return ""
    frame = growth
    if unit.name == "day":
        frame = growth.filter(pl.col("taken_at") >= growth["taken_at"][-1] - dt.timedelta(days=7))
        if frame.height < 2:
            frame = growth.tail(2)
    span = frame["taken_at"][-1] - frame["taken_at"][0]
    change = float(frame[column][-1] - frame[column][0])
    if unit.name == "snapshot":
        steps = frame.height - 1
        return f"{change / steps:+,.1f} per snapshot ({steps} interval(s) over {an.format_duration(span)})"
    units = span.total_seconds() / (unit.seconds or 1.0)
    window = (
        "last 7 days"
        if unit.name == "day" and span >= dt.timedelta(days=7)
        else f"over {an.format_duration(span)}"
    )
    return f"{change / units:+,.1f} {unit.label} ({window})"


def _stability_text(volatility: pl.DataFrame, top_n: int, span: dt.timedelta) -> str:
    if volatility.is_empty() or span.total_seconds() == 0:
        return "Rank stability needs at least two snapshots."
    held = volatility.filter(pl.col("time_at_1_s") > 0).sort("time_at_1_s", descending=True)
    parts = []
    if held.height:
        top = held.row(0, named=True)
        parts.append(
            f"{top['name']} held #1 longest: {an.format_duration(top['time_at_1_s'])} of "
            f"{an.format_duration(span)} ({top['share_at_1']:.0%})"
        )
        if held.height > 1:
            parts.append(f"{held.height} bots held #1 at some point")
    current = volatility.filter(pl.col("rank_now") <= top_n)
    if current.height:
        most = current.sort(["volatility", "name"], descending=[True, False]).row(0, named=True)
        calm = current.filter(pl.col("moves") == 0).height
        parts.append(
            f"the most volatile of today's top {top_n} is {most['name']} "
            f"({most['volatility']:.2f} places per snapshot on average)"
        )
        parts.append(f"{calm} of them never changed rank")
    return "; ".join(parts) + "."


def _volatility_rows(volatility: pl.DataFrame) -> list[dict[str, Any]]:
    return [
        {
            "name": row["name"],
            "rank_now": "–" if row["rank_now"] is None else row["rank_now"],
            "best": row["best_rank"],
            "worst": row["worst_rank"],
            "volatility": f"{row['volatility']:.2f}",
            "moves": row["moves"],
            "at_1": an.format_duration(row["time_at_1_s"]) if row["time_at_1_s"] else "–",
            "share_at_1": "–"
            if not row["time_at_1_s"] or row["share_at_1"] is None
            else f"{row['share_at_1']:.0%}",
        }
        for row in volatility.iter_rows(named=True)
    ]


def _interval(row: dict[str, Any], metric: str) -> str:
    value, lo, hi = row[metric], row[f"{metric}_lo"], row[f"{metric}_hi"]
    if value is None:
        return "–"
    if lo is None or hi is None:
        return f"{value:.1%}"
    return f"{value:.1%} [{lo:.1%}, {hi:.1%}]"


def _model_rows(board: pl.DataFrame) -> list[dict[str, Any]]:
    return [
        {
            "rank": row["rank"] if row["ranked"] else "not ranked",
            "model": row["llm_model"],
            "solutions": f"{row['solutions']:,}",
            "contested": f"{row['contested_solutions']:,}",
            "percentile": _interval(row, "mean_percentile"),
            "top1": _interval(row, "top1_rate"),
            "top3": _interval(row, "top3_rate"),
            "ranked": row["ranked"],
        }
        for row in board.iter_rows(named=True)
    ]


def report_content(
    store: Store,
    *,
    top_n: int = 10,
    movers_window: dt.timedelta = dt.timedelta(days=7),
    now: dt.datetime | None = None,
    min_model_solutions: int = an.models.MIN_SOLUTIONS,
) -> ReportContent:
    """Compute the report's content from ``store`` (see :func:`solvelens.analysis.load`).

    ``top_n`` bots appear in the rank and trend charts; the table lists every ranked bot; changes compare
    the newest snapshot with the previous one, the one ``movers_window`` earlier and the first one. Models
    with fewer than ``min_model_solutions`` contested solutions are listed but not ranked. Raises
    :class:`EmptyStoreError` when the store has no complete snapshot.
    """
    if store.snapshot_count == 0:
        raise EmptyStoreError(
            f"store {store.path} has no complete snapshot: run `solvelens snapshot --db {store.path}` first"
        )
    generated = now or dt.datetime.now(dt.UTC)
    snapshots = store.snapshots.collect()
    history = an.rank_history(store.leaderboard, snapshots)
    fresh = an.freshness(snapshots, now=generated)
    unit = an.rate_unit(snapshots)
    span = an.history_span(snapshots)
    simulated = simulated_label(snapshots)
    multi = snapshots.height >= 2
    notices = []
    if simulated:
        notices.append(simulated)
    if not multi:
        notices.append(
            "The history is short: the store holds one snapshot, so rank history, movers and growth "
            "need more. Run `solvelens snapshot` again later (e.g. daily) to build the history."
        )
    elif span < dt.timedelta(days=7):
        notices.append(
            f"The history is short: {snapshots.height} snapshots over {an.format_duration(span)}, so rates "
            "are "
            f"{unit.label}"
            + (" (not extrapolated to a day)" if unit.name != "day" else "")
            + ". Trends firm up after a week or more of daily snapshots."
        )
    gaps = an.snapshot_gaps(snapshots)
    if gaps.height:
        notices.append(
            f"{fresh.missing_days} day(s) without a snapshot between the first and the newest snapshot; "
            "see Data freshness and coverage."
        )

    refs = an.reference_snapshots(history, window=movers_window)
    table = bot_table(history, store.leaderboard.collect(), window=movers_window)
    bump = an.bump_data(history, top_n=top_n)
    movers = an.top_movers(history, window=movers_window, n=5)
    volatility = an.rank_volatility(history, top_n=top_n)
    counts = store.problem_counts.collect()
    growth = an.platform_growth(counts, snapshots, unit=unit)
    categories = an.category_growth(counts, snapshots, store.categories, unit=unit)
    activity = an.platform_activity(an.bot_activity(store.bots, snapshots, unit=unit))
    solutions = store.solutions.collect()
    distribution = an.score_distribution(solutions)
    board = an.model_leaderboard(solutions, min_solutions=min_model_solutions)
    model_trend = an.model_trend(store.model_counts, snapshots)
    stats = an.platform_stats_over_time(store.platform_stats, snapshots, unit=unit)
    latest = an.latest_stats(store.platform_stats, snapshots)
    days = an.snapshot_days(snapshots)

    newest_growth = growth.tail(1).row(0, named=True)
    leader = table.row(0, named=True) if table.height else None
    tied = table.filter(pl.col("rank") == 1).height if table.height else 0
    age = "simulated clock" if simulated else f"{_age(fresh.age_hours)} old"
    headline = [
        Figure(
            "Leader" if tied < 2 else f"Leaders ({tied} tied)",
            leader["name"] if leader else "–",
            f"{fmt_int(leader['points'])} points" if leader else "no ranked bot",
        ),
        Figure("Ranked bots", fmt_int(table.height)),
        Figure("Problems", fmt_int(newest_growth["problems"]), _growth_detail(growth, "problems", unit)),
        Figure("Solutions", fmt_int(newest_growth["solutions"]), _growth_detail(growth, "solutions", unit)),
        Figure(
            "Snapshots",
            fmt_int(snapshots.height),
            f"over {an.format_duration(span)}" if multi else "one snapshot",
        ),
        Figure("Newest snapshot", fmt_time(fresh.last_taken_at), age),
    ]
    if "totalComparisons" in latest:
        headline.insert(4, Figure("Comparisons", fmt_int(latest["totalComparisons"])))

    one = "Needs at least two snapshots."
    window_text = an.format_duration(movers_window)
    if movers.height and movers["baseline"][0] == "first":
        movers_caption = (
            f"Biggest rank changes since the first snapshot (the history spans less than {window_text}); "
            "the same changes as the table's 'vs first' column."
        )
    else:
        movers_caption = (
            f"Biggest rank changes since the snapshot {window_text} before the newest one; the same changes "
            "as "
            "the table's 'vs 7 days' column. Tied bots share a rank, so a tie reordering is not a move."
        )
    ranked_models = board.filter(pl.col("ranked"))["llm_model"].to_list()[:8]
    sections: dict[str, list[ChartSlot]] = {
        "ranks": [
            slot(
                "rank_history",
                f"Today's top {top_n} over time",
                f"Ranks of today's top {top_n} bots at every snapshot (rank 1 at the top; a bot below rank "
                f"{top_n} leaves through the bottom edge). Bots with equal points share a rank. Hover a "
                "point for "
                "its values.",
                lambda: ch.rank_bump_chart(bump, title="", top=top_n),
                bump.height > 0,
                "No ranked bots in the store.",
            ),
            slot(
                "movers",
                "Top movers",
                movers_caption,
                lambda: ch.movers_chart(movers, title=""),
                movers.height > 0,
                one if not multi else "No bot changed rank in this window.",
            ),
            slot(
                "points_trend",
                "Points trend",
                f"Points of today's top {top_n} at every snapshot. Dashed lines: the #1 spot changed hands; "
                "shaded: no snapshots.",
                lambda: ch.points_trend_chart(
                    bump, annotations=an.leader_changes(history), gaps=gaps, title=""
                ),
                bump.height > 0 and multi,
                one,
            ),
        ],
        "models": [
            slot(
                "model_leaderboard",
                "Mean rank percentile with 95% intervals",
                "Mean rank percentile within problem of each model's solutions at the newest snapshot (100% "
                "= "
                "always the best solution of its problem), with 95% bootstrap intervals: 1,000 replicates "
                "resampling problems with replacement (seeded, so the same store gives the same intervals). "
                "Models share a rank while their intervals overlap (as on the Chatbot Arena leaderboard). "
                f"Models with fewer than {min_model_solutions} solutions in contested problems are grey and "
                "not "
                "ranked.",
                lambda: ch.model_leaderboard_chart(board, title=""),
                board.filter(pl.col("mean_percentile").is_not_null()).height > 0,
                "No solutions in contested problems (with at least two solutions) at the newest snapshot.",
            ),
            slot(
                "model_trend",
                "Models over time",
                "Mean rank percentile within problem of the ranked models at every snapshot.",
                lambda: ch.model_trend_chart(model_trend, models=ranked_models, title=""),
                multi and bool(ranked_models),
                one if not multi else "No ranked model.",
            ),
        ],
        "categories": [
            slot(
                "category_problems",
                "Problems per category",
                "All problems in each category (every status), stacked.",
                lambda: ch.category_area_chart(categories, title=""),
                categories.height > 0 and multi,
                one,
            ),
            slot(
                "category_maturity",
                "Maturity rate per category",
                "Share of each category's problems that have reached the mature status (axis fitted to the "
                "data).",
                lambda: ch.category_maturity_chart(categories, title=""),
                categories.height > 0 and multi,
                one,
            ),
        ],
        "growth": [
            slot(
                "platform_growth",
                f"Problems and solutions added {unit.label}",
                (
                    "Change since the previous snapshot divided by the time in between (so gaps do not "
                    f"show as spikes), {unit.label}."
                    if unit.name != "snapshot"
                    else "Change since the previous snapshot: the history spans less than an hour, so "
                    "nothing is extrapolated to an hour or a day."
                ),
                lambda: ch.growth_chart(growth, title=""),
                multi,
                one,
            ),
            slot(
                "bot_activity",
                "Bot activity",
                f"Solutions and votes {unit.label}, summed over bots, from changes in their profile "
                "counters.",
                lambda: ch.activity_chart(activity, title=""),
                activity.height > 0,
                one,
            ),
            slot(
                "platform_stats",
                "Platform statistics",
                "The platform's /stats figures at each snapshot.",
                lambda: ch.platform_stats_chart(stats, title=""),
                stats.height > 0,
                "The store has no platform statistics.",
            ),
        ],
        "solutions": [
            slot(
                "score_distribution",
                "Solution scores",
                "Scores of all solutions at the newest snapshot, by their rank within their problem.",
                lambda: ch.score_distribution_chart(distribution, title=""),
                distribution.height > 0,
                "No solutions in the newest snapshot.",
            ),
        ],
        "coverage": [
            slot(
                "coverage",
                "Snapshot coverage",
                "One cell per UTC day from the first to the newest snapshot; red days have no snapshot.",
                lambda: ch.coverage_chart(days, title=""),
                days.height > 0,
                "No snapshots.",
            ),
        ],
    }
    me = None
    own = store.bot_me.collect()
    if own.height:
        newest_me = own.join(snapshots.select("snapshot_id", "taken_at"), on="snapshot_id").sort("taken_at")
        row = newest_me.tail(1).row(0, named=True)
        me = bot_section(
            store,
            history,
            row["bot_id"],
            name=row["name"],
            profiles=own,
            prefix="me",
            top_n=top_n,
            window=movers_window,
        )
        sections["me"] = me.charts
    gap_rows = [
        {
            "from": fmt_time(row["gap_start"]),
            "to": fmt_time(row["gap_end"]),
            "days": f"{row['gap_days']:.1f}",
            "missed": row["missed"],
        }
        for row in gaps.iter_rows(named=True)
    ]
    baselines = {
        "prev": fmt_time(history.filter(pl.col("snapshot_id") == refs["prev"])["taken_at"].first())  # type: ignore[arg-type]
        if refs["prev"] is not None
        else "none (one snapshot)",
        "7d": fmt_time(history.filter(pl.col("snapshot_id") == refs["7d"])["taken_at"].first())  # type: ignore[arg-type]
        if refs["7d"] is not None
        else f"none: the history spans less than {window_text}",
        "first": fmt_time(snapshots["taken_at"][0]) if multi else "none (one snapshot)",
    }
    return ReportContent(
        db_path=str(store.path),
        generated_at=generated,
        snapshot_count=snapshots.height,
        first_taken_at=snapshots["taken_at"][0],
        last_taken_at=snapshots["taken_at"][-1],
        notices=notices,
        headline=headline,
        leaderboard=table_rows(table),
        table=table,
        baselines=baselines,
        stability=_stability_text(volatility, top_n, span),
        volatility=_volatility_rows(volatility),
        sections=sections,
        models=_model_rows(board),
        models_note=(
            f"{board.filter(~pl.col('ranked')).height} model(s) have fewer than {min_model_solutions} "
            "solutions in contested problems and are not ranked."
            if board.filter(~pl.col("ranked")).height
            else ""
        ),
        gaps=gap_rows,
        freshness=fresh,
        simulated=simulated,
        age=age,
        rate_unit=unit,
        me=me,
    )
