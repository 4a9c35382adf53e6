"""What the leaderboard history report shows, computed from a loaded store (no HTML here).

:func:`report_content` runs the analysis helpers and chart builders and returns a :class:`ReportContent`:
headline figures, the leaderboard table with rank changes, the charts (Altair objects, in report order)
with a note for each one that cannot be drawn yet (e.g. movers with one snapshot), and the coverage facts.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

import altair as alt
import polars as pl

from solvelens import analysis as an
from solvelens import charts as ch
from solvelens.analysis.store import Store, StoreError


class EmptyStoreError(StoreError):
    """The store has no complete snapshot, so there is nothing to report."""


@dataclass(frozen=True)
class Figure:
    """A headline figure: a label, its formatted value and an optional detail line."""

    label: str
    value: str
    detail: str = ""


@dataclass(frozen=True)
class ChartSlot:
    """One chart of the report: a stable key (used for the PNG name and the HTML id), a heading, a caption,
    and either the chart (untitled: the page's heading names it) or a note saying why it is missing."""

    key: str
    heading: str
    caption: str
    chart: alt.TopLevelMixin | None = None
    note: str = ""


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
    leaderboard_compared_to: str
    stability: str
    movers_window_days: int
    sections: dict[str, list[ChartSlot]]
    gaps: list[dict[str, Any]]
    freshness: an.Freshness
    extra: dict[str, Any] = field(default_factory=dict)


def _fmt_int(value: float | int | None) -> str:
    return "–" if value is None else f"{round(value):,}"


def _fmt_time(value: dt.datetime | None) -> str:
    return "–" if value is None else value.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")


def _age(hours: float | None) -> str:
    if hours is None:
        return "–"
    if hours < 1:
        return f"{max(hours * 60, 0):.0f} minutes"
    if hours < 48:
        return f"{hours:.1f} hours"
    return f"{hours / 24:.1f} days"


def _leaderboard_rows(table: pl.DataFrame) -> list[dict[str, Any]]:
    rows = []
    for row in table.iter_rows(named=True):
        change = row["rank_change"]
        if row["is_new"]:
            move, css = "new", "new"
        elif change is None:
            move, css = "", "same"
        elif change > 0:
            move, css = f"▲ {change}", "up"
        elif change < 0:
            move, css = f"▼ {-change}", "down"
        else:
            move, css = "–", "same"
        points_change = row["points_change"]
        rows.append(
            {
                "rank": row["rank"],
                "name": row["name"],
                "move": move,
                "move_class": css,
                "points": _fmt_int(row["points"]),
                "points_change": "" if points_change is None else f"{points_change:+,}",
                "elo": "–" if row["elo"] is None else f"{row['elo']:.0f}",
            }
        )
    return rows


def _slot(key: str, heading: str, caption: str, build: Any, ready: bool, note: str) -> ChartSlot:
    return ChartSlot(key, heading, caption, chart=build() if ready else None, note="" if ready else note)


def report_content(
    store: Store,
    *,
    top_n: int = 10,
    table_rows: int = 20,
    movers_window: dt.timedelta = dt.timedelta(days=7),
    now: dt.datetime | None = None,
) -> ReportContent:
    """Compute the report's content from ``store`` (see :func:`solvelens.analysis.load`).

    ``top_n`` bots appear in the bump and trend charts, ``table_rows`` in the leaderboard table; movers
    compare the newest snapshot with the one ``movers_window`` earlier. Raises :class:`EmptyStoreError` when
    the store has no complete snapshot.
    """
    if store.snapshot_count == 0:
        raise EmptyStoreError(
            f"store {store.path} has no complete snapshot: run `solvelens snapshot --db {store.path}` first"
        )
    generated = now or dt.datetime.now(dt.UTC)
    snapshots = store.snapshots.collect()
    history = an.leaderboard_history(store.leaderboard, snapshots)
    fresh = an.freshness(snapshots, now=generated)
    multi = snapshots.height >= 2
    notices = []
    if not multi:
        notices.append(
            "The history is short: the store holds one snapshot, so rank history, movers and growth per day "
            "need more. Run `solvelens snapshot` again later (e.g. daily) to build the history."
        )
    elif fresh.days_spanned < 7:
        notices.append(
            f"The history is short: {snapshots.height} snapshots over {fresh.days_spanned} day(s). "
            "Trends firm up after a week or more of daily snapshots."
        )
    gaps = an.snapshot_gaps(snapshots)
    if gaps.height:
        notices.append(
            f"{fresh.missing_days} day(s) without a snapshot between the first and the newest snapshot; "
            "see Data freshness and coverage."
        )

    table = an.current_leaderboard(history, top=table_rows)
    bump = an.bump_data(history, top_n=top_n)
    movers = an.top_movers(history, window=movers_window, n=5)
    stability = an.rank_stability(history, top_n=top_n)
    counts = store.problem_counts.collect()
    growth = an.platform_growth(counts, snapshots)
    categories = an.category_growth(counts, snapshots, store.categories)
    activity = an.platform_activity(an.bot_activity(store.bots, snapshots))
    solutions = store.solutions.collect()
    distribution = an.score_distribution(solutions)
    shares = an.llm_model_share(solutions)
    stats = an.platform_stats_over_time(store.platform_stats, snapshots)
    latest = an.latest_stats(store.platform_stats, snapshots)
    days = an.snapshot_days(snapshots)

    newest_growth = growth.tail(1).row(0, named=True)
    week = growth.filter(pl.col("taken_at") >= growth["taken_at"][-1] - dt.timedelta(days=7))
    week_days = (
        (week["taken_at"][-1] - week["taken_at"][0]).total_seconds() / 86400 if week.height > 1 else 0.0
    )
    week_problems = float(week["problems"][-1] - week["problems"][0]) if week.height > 1 else 0.0
    week_solutions = float(week["solutions"][-1] - week["solutions"][0]) if week.height > 1 else 0.0
    leader = table.row(0, named=True) if table.height else None
    changed_share = float(stability["changed"].cast(pl.Float64).mean() or 0.0) if stability.height else None  # type: ignore[arg-type]

    headline = [
        Figure(
            "Leader",
            leader["name"] if leader else "–",
            f"{_fmt_int(leader['points'])} points" if leader else "no ranked bot",
        ),
        Figure(
            "Ranked bots",
            _fmt_int(history.filter(pl.col("snapshot_id") == snapshots["snapshot_id"][-1]).height),
        ),
        Figure(
            "Problems",
            _fmt_int(newest_growth["problems"]),
            f"+{week_problems / week_days:.1f} per day (last 7 days)" if week_days else "",
        ),
        Figure(
            "Solutions",
            _fmt_int(newest_growth["solutions"]),
            f"+{week_solutions / week_days:.1f} per day (last 7 days)" if week_days else "",
        ),
        Figure(
            "Snapshots",
            _fmt_int(snapshots.height),
            f"{fresh.days_covered} of {fresh.days_spanned} days covered",
        ),
        Figure("Newest snapshot", _fmt_time(fresh.last_taken_at), f"{_age(fresh.age_hours)} old"),
    ]
    if "totalComparisons" in latest:
        headline.insert(4, Figure("Comparisons", _fmt_int(latest["totalComparisons"])))

    if changed_share is None:
        stability_text = "Rank stability needs at least two snapshots."
    else:
        leader_changes = int(stability["leader_changed"].sum())
        stability_text = (
            f"The top {top_n} changed (a bot entered, left or moved) between {changed_share:.0%} of "
            f"consecutive snapshots; the #1 spot changed hands {leader_changes} time(s)."
        )
    one = "Needs at least two snapshots."
    window_days = max(1, round(movers_window.total_seconds() / 86400))
    sections = {
        "ranks": [
            _slot(
                "rank_history",
                "Rank history",
                f"Ranks of today's top {top_n} bots at each day's newest snapshot (rank 1 at the top).",
                lambda: ch.rank_bump_chart(bump, title=""),
                bump.height > 0,
                "No ranked bots in the store.",
            ),
            _slot(
                "movers",
                "Top movers",
                f"Biggest rank changes since the snapshot {window_days} day(s) before the newest one "
                "(the oldest snapshot when the history is shorter).",
                lambda: ch.movers_chart(movers, title=""),
                movers.height > 0,
                one if not multi else "No bot changed rank in this window.",
            ),
            _slot(
                "points_trend",
                "Points trend",
                f"Points of today's top {top_n}. Dashed lines: the #1 spot changed hands; "
                "shaded: no snapshots.",
                lambda: ch.points_trend_chart(
                    bump, annotations=an.leader_changes(history), gaps=gaps, title=""
                ),
                bump.height > 0 and multi,
                one,
            ),
        ],
        "categories": [
            _slot(
                "category_problems",
                "Problems per category",
                "All problems in each category (every status), stacked.",
                lambda: ch.category_area_chart(categories, title=""),
                categories.height > 0 and multi,
                one,
            ),
            _slot(
                "category_maturity",
                "Maturity rate per category",
                "Share of each category's problems that have reached the mature status.",
                lambda: ch.category_maturity_chart(categories, title=""),
                categories.height > 0 and multi,
                one,
            ),
        ],
        "growth": [
            _slot(
                "platform_growth",
                "Problems and solutions per day",
                "Change since the previous snapshot divided by the days in between (so gaps do not show as "
                "spikes).",
                lambda: ch.growth_chart(growth, title=""),
                multi,
                one,
            ),
            _slot(
                "bot_activity",
                "Bot activity",
                "Solutions and votes per day, summed over bots, from changes in their profile counters.",
                lambda: ch.activity_chart(activity, title=""),
                activity.height > 0,
                one,
            ),
            _slot(
                "platform_stats",
                "Platform statistics",
                "The platform's /stats figures at each snapshot.",
                lambda: ch.platform_stats_chart(stats, title=""),
                stats.height > 0,
                "The store has no platform statistics.",
            ),
        ],
        "solutions": [
            _slot(
                "score_distribution",
                "Solution scores",
                "Scores of all solutions at the newest snapshot, by their rank within their problem.",
                lambda: ch.score_distribution_chart(distribution, title=""),
                distribution.height > 0,
                "No solutions in the newest snapshot.",
            ),
            _slot(
                "llm_share",
                "LLM models at the top",
                "Share of #1 solutions per model next to its share of all solutions.",
                lambda: ch.llm_share_chart(shares, title=""),
                shares.height > 0,
                "No solutions in the newest snapshot.",
            ),
        ],
        "coverage": [
            _slot(
                "coverage",
                "Snapshot coverage",
                "One cell per UTC day from the first to the newest snapshot; red days have no snapshot.",
                lambda: ch.coverage_chart(days, title=""),
                days.height > 0,
                "No snapshots.",
            ),
        ],
    }
    gap_rows = [
        {
            "from": _fmt_time(row["gap_start"]),
            "to": _fmt_time(row["gap_end"]),
            "days": f"{row['gap_days']:.1f}",
            "missed": row["missed"],
        }
        for row in gaps.iter_rows(named=True)
    ]
    compared = "the previous snapshot" if multi else "nothing (one snapshot)"
    return ReportContent(
        db_path=str(store.path),
        generated_at=generated,
        snapshot_count=snapshots.height,
        first_taken_at=snapshots["taken_at"][0],
        last_taken_at=snapshots["taken_at"][-1],
        notices=notices,
        headline=headline,
        leaderboard=_leaderboard_rows(table),
        leaderboard_compared_to=compared,
        stability=stability_text,
        movers_window_days=window_days,
        sections=sections,
        gaps=gap_rows,
        freshness=fresh,
    )
