"""What the report shows about one bot: headline figures, rank / points / Elo over time, its solutions'
ranks by problem and by category next to the median bot. Used for the page ``solvelens report --bot``
writes and for the main report's section on the API key's own bot (``bot_me``)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from solvelens import analysis as an
from solvelens import charts as ch
from solvelens.report.slots import ChartSlot, Figure, fmt_int, fmt_time, slot

#: Rows of the solutions-by-problem table (the best-ranked first); the rest are counted in a note.
MAX_SOLUTION_ROWS = 40


@dataclass(frozen=True)
class BotSection:
    """One bot's part of a page: figures, charts (keys prefixed with ``prefix``), solution rows."""

    bot_id: str
    name: str
    figures: list[Figure]
    charts: list[ChartSlot]
    solutions: list[dict[str, Any]]
    solutions_total: int
    categories: list[dict[str, Any]]
    note: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{value:.0%}"


def _change(value: int | None) -> str:
    if value is None:
        return "–"
    return f"▲ {value}" if value > 0 else (f"▼ {-value}" if value < 0 else "=")


def _figures(summary: an.BotSummary, own: pl.DataFrame, top_n: int) -> list[Figure]:
    """The bot's headline figures: rank, percentile, peak, time in the top N, points, Elo, rank changes and
    (when its profile has them) solutions / votes."""
    points = own["points"].drop_nulls()
    figures = [
        Figure(
            "Rank now",
            f"#{summary.rank}" if summary.rank is not None else "not ranked",
            (f"of {summary.ranked_bots} ranked bots" if summary.ranked_bots else "")
            + (f", tied on points with {summary.tied - 1} other(s)" if summary.tied > 1 else ""),
        ),
        Figure(
            "Percentile",
            _pct(summary.percentile),
            "share of the other ranked bots below it (a bot tied with it on points counts half)"
            if summary.percentile is not None
            else "",
        ),
        Figure(
            "Peak rank",
            f"#{summary.peak_rank}" if summary.peak_rank is not None else "–",
            f"first reached {fmt_time(summary.peak_at)}" if summary.peak_at else "never ranked",
        ),
        Figure(
            f"Time in the top {top_n}",
            (an.format_duration(summary.time_in_top_n_s) if summary.time_in_top_n_s else "never")
            if summary.span_s
            else "–",
            f"of {an.format_duration(summary.span_s)} of history" if summary.span_s else "one snapshot",
        ),
        Figure(
            "Points",
            fmt_int(points[-1]) if points.len() else "–",
            f"{summary.points_changes['prev']:+,} since the previous snapshot"
            if summary.points_changes["prev"] is not None
            else "",
        ),
        Figure("Elo", "–" if summary.elo is None else f"{summary.elo:.0f}"),
        Figure(
            "Rank change vs previous",
            _change(summary.rank_changes["prev"]),
            f"vs 7 days {_change(summary.rank_changes['7d'])} · vs first "
            f"{_change(summary.rank_changes['first'])}",
        ),
    ]
    if "total_solutions" in own.columns and own["total_solutions"].drop_nulls().len():
        figures.append(
            Figure(
                "Solutions / votes",
                f"{fmt_int(own['total_solutions'].drop_nulls()[-1])} / "
                f"{fmt_int(own['total_votes'].drop_nulls()[-1])}",
                "profile counters at the newest snapshot",
            )
        )
    return figures


def _charts(prefix: str, label: str, own: pl.DataFrame, categories: pl.DataFrame) -> list[ChartSlot]:
    """Rank over time, points and Elo, and the categories next to the median bot (keys ``<prefix>_...``)."""
    return [
        slot(
            f"{prefix}_rank",
            "Rank over time",
            "Its rank at every snapshot (rank 1 at the top); the grey band reaches down to the number of "
            "ranked bots at the time.",
            lambda: ch.bot_rank_chart(own, title=""),
            own["rank"].drop_nulls().len() > 0,
            "Not ranked in any snapshot.",
        ),
        slot(
            f"{prefix}_points",
            "Points and Elo",
            "Points and Elo at every snapshot.",
            lambda: ch.bot_points_chart(own, title=""),
            own.height >= 2 and own["points"].drop_nulls().len() > 0,
            "Needs at least two snapshots.",
        ),
        slot(
            f"{prefix}_categories",
            "By category, compared with the median bot",
            "Mean rank percentile within problem of its solutions at the newest snapshot (100% = always the "
            "best solution of its problem; a solution tied on score with others counts as beating half of "
            "them), per category, next to the median over all bots with solutions in that category. "
            "Problems with a single solution are left out.",
            lambda: ch.bot_category_chart(categories, name=label, title=""),
            categories.filter(pl.col("mean_percentile").is_not_null()).height > 0,
            "No solutions in contested problems (with at least two solutions) at the newest snapshot.",
        ),
    ]


def _solution_rows(solutions: pl.DataFrame, limit: int) -> list[dict[str, Any]]:
    """The ``limit`` best-standing solutions: title, category, rank, of, percentile, model."""
    return [
        {
            "title": row["title"] or row["problem_id"],
            "category": row["category"],
            "rank": f"{row['rank']}=" if (row.get("tied") or 1) > 1 else row["rank"],
            "of": row["solutions_in_problem"],
            "percentile": _pct(row["rank_percentile"]),
            "model": row["llm_model"],
        }
        for row in solutions.head(limit).iter_rows(named=True)
    ]


def _category_rows(categories: pl.DataFrame) -> list[dict[str, Any]]:
    """Per category: solutions, percentile, median, top1, median_top1 (the median bot's)."""
    return [
        {
            "category": row["category"],
            "solutions": row["solutions"],
            "percentile": _pct(row["mean_percentile"]),
            "median": _pct(row["median_bot_percentile"]),
            "top1": _pct(row["top1_rate"]),
            "median_top1": _pct(row["median_bot_top1_rate"]),
        }
        for row in categories.iter_rows(named=True)
    ]


def bot_section(
    store: an.Frames,
    history: pl.DataFrame,
    bot_id: str,
    *,
    name: str | None = None,
    profiles: pl.DataFrame | pl.LazyFrame | None = None,
    prefix: str = "bot",
    top_n: int = 10,
    window: dt.timedelta = an.leaderboard.WEEK,
    max_solution_rows: int = MAX_SOLUTION_ROWS,
) -> BotSection:
    """Compute the section of ``bot_id`` (found with :func:`solvelens.analysis.find_bot`); the table of
    its solutions by problem keeps the ``max_solution_rows`` best-standing ones.

    ``profiles`` (default ``store.bots``) supplies points and counters for snapshots where the bot was not
    ranked (``store.bot_me`` for the key's own bot). Durations are shown in days when the history spans a
    day or more, else in hours or minutes.
    """
    return standing_section(
        an.bot_standing(history, bot_id),
        store.solutions,
        store.problems,
        bot_id,
        name=name,
        profiles=profiles if profiles is not None else store.bots,
        prefix=prefix,
        top_n=top_n,
        window=window,
        max_solution_rows=max_solution_rows,
    )


def standing_section(
    standing: pl.DataFrame,
    solutions: pl.DataFrame | pl.LazyFrame,
    problems: pl.DataFrame | pl.LazyFrame,
    bot_id: str,
    *,
    name: str | None = None,
    profiles: pl.DataFrame | pl.LazyFrame,
    prefix: str = "bot",
    top_n: int = 10,
    window: dt.timedelta = an.leaderboard.WEEK,
    max_solution_rows: int = MAX_SOLUTION_ROWS,
) -> BotSection:
    """:func:`bot_section` from the bot's ``standing`` (:func:`solvelens.analysis.bot_standing`, or
    :func:`solvelens.analysis.load_bot`'s), the newest snapshot's ``solutions`` and ``problems``."""
    own = an.standing_history(standing, bot_id, bots=profiles, top_n=top_n)
    summary = an.standing_summary(standing, bot_id, name=name, top_n=top_n, window=window)
    mine = an.bot_solutions(solutions, problems, bot_id)
    categories = an.bot_categories(solutions, problems, bot_id)
    return BotSection(
        bot_id=bot_id,
        name=summary.name,
        figures=_figures(summary, own, top_n),
        charts=_charts(prefix, summary.name, own, categories),
        solutions=_solution_rows(mine, max_solution_rows),
        solutions_total=mine.height,
        categories=_category_rows(categories),
    )


@dataclass(frozen=True)
class BotPage:
    """Everything the bot page renders (times UTC)."""

    db_path: str
    generated_at: dt.datetime
    snapshot_count: int
    first_taken_at: dt.datetime
    last_taken_at: dt.datetime
    notices: list[str]
    simulated: str
    bot: BotSection


def bot_page_content(
    store: an.Frames,
    query: str,
    *,
    top_n: int = 10,
    window: dt.timedelta = an.leaderboard.WEEK,
    now: dt.datetime | None = None,
) -> BotPage:
    """The page of the bot ``query`` names (id, name, or name ignoring case; see
    :func:`solvelens.analysis.find_bot`), ranked or not, in the top 20 or far below.

    Raises :class:`solvelens.analysis.EmptyStoreError` for a store without a complete snapshot and
    :class:`solvelens.analysis.BotNotFoundError` (naming close matches) when no single bot matches.
    """
    store.require_snapshots()
    every = store.snapshots.collect()
    snapshots = store.points.drawn(every) if store.points is not None else every
    history = an.rank_history(store.leaderboard, snapshots)
    own = store.bot_me.collect()
    profiles = pl.concat([store.bots.collect().select(own.columns), own], how="vertical_relaxed").unique(
        ["snapshot_id", "bot_id"], keep="first"
    )
    bot_id, name = an.find_bot(query, history, profiles)
    bot = an.BotFrames(
        path=store.path,
        bot_id=bot_id,
        name=name,
        snapshots=every,
        points=store.points or an.HistoryPoints(every["snapshot_id"], complete=True),
        standing=an.bot_standing(history, bot_id),
        profiles=profiles,
        solutions=store.solutions.collect(),
        problems=store.problems.collect(),
    )
    return bot_page(bot, top_n=top_n, window=window, now=now)


def bot_page(
    bot: an.BotFrames,
    *,
    top_n: int = 10,
    window: dt.timedelta = an.leaderboard.WEEK,
    now: dt.datetime | None = None,
) -> BotPage:
    """The page of the bot :func:`solvelens.analysis.load_bot` read (the same page as
    :func:`bot_page_content`, from that bot's rows only)."""
    every = bot.snapshots
    snapshots = bot.points.drawn(every)
    simulated = an.simulated_label(snapshots)
    with ch.simulated_time(bool(simulated)):  # the time axes say "Simulated time (UTC)" then
        section = standing_section(
            bot.standing,
            bot.solutions,
            bot.problems,
            bot.bot_id,
            name=bot.name,
            profiles=bot.profiles,
            top_n=top_n,
            window=window,
        )
    notices = [simulated] if simulated else []
    if bot.points.rule:
        notices.append(bot.points.rule)
    if section.figures[0].value == "not ranked":
        notices.append(
            f"{bot.name} is not on the leaderboard at the newest snapshot (suspended, or not yet ranked)."
        )
    return BotPage(
        db_path=str(bot.path),
        generated_at=now or dt.datetime.now(dt.UTC),
        snapshot_count=every.height,
        first_taken_at=every["taken_at"][0],
        last_taken_at=every["taken_at"][-1],
        notices=notices,
        simulated=simulated,
        bot=section,
    )
