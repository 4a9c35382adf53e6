"""The report's chart sections, one builder per section: frames in, chart slots out (each slot holds its
chart, or a note saying why it cannot be drawn yet).

:data:`SECTIONS` lists the builders in report order under the keys the page template uses; a new section is
one builder here, one entry in :data:`SECTIONS` and its block in ``templates/report.html.j2``.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import polars as pl

from solvelens import analysis as an
from solvelens import charts as ch
from solvelens.analysis.arena import DIVERGED, MEASURED, SEPARATED, WINDOW_BOOTSTRAP
from solvelens.report.changes import moves_frame
from solvelens.report.frames import ReportFrames
from solvelens.report.slots import ChartSlot, slot

#: The note of a chart that needs a second snapshot.
NEEDS_TWO = "Needs at least two snapshots."


def _movers_caption(f: ReportFrames) -> str:
    window = an.format_duration(f.window)
    if f.movers.height and f.movers["baseline"][0] == "first":
        return (
            f"Biggest rank changes since the first snapshot (the history spans less than {window}); "
            "the same changes as the table's 'vs first' column."
        )
    return (
        f"Biggest rank changes since the snapshot {window} before the newest one; the same changes as the "
        "table's 'vs 7 days' column. Tied bots share a rank, so a tie reordering is not a move."
    )


def rank_section(f: ReportFrames) -> list[ChartSlot]:
    """Today's top N over time, the top movers, the points trend."""
    top_n = f.top_n
    return [
        slot(
            "rank_history",
            f"Today's top {top_n} over time",
            f"Ranks of today's top {top_n} bots at every snapshot (rank 1 at the top; a bot below rank "
            f"{top_n} leaves through the bottom edge). Bots with equal points share a rank. Hover a point "
            "for its values.",
            lambda: ch.rank_bump_chart(f.bump, title="", top=top_n),
            f.bump.height > 0,
            "No ranked bots in the store.",
        ),
        slot(
            "movers",
            "Top movers",
            _movers_caption(f),
            lambda: ch.movers_chart(f.movers, title=""),
            f.movers.height > 0,
            NEEDS_TWO if not f.multi else "No bot changed rank in this window.",
        ),
        slot(
            "points_trend",
            "Points trend",
            f"Points of today's top {top_n} at every snapshot. Dashed lines: the #1 spot changed hands; "
            "shaded: no snapshots.",
            lambda: ch.points_trend_chart(
                f.bump, annotations=an.leader_changes(f.history), gaps=f.gaps, title=""
            ),
            f.bump.height > 0 and f.multi,
            NEEDS_TWO,
        ),
    ]


def changes_section(f: ReportFrames) -> list[ChartSlot]:
    """What changed since the previous snapshot, as a chart of its rank moves (the section's tables are
    :mod:`solvelens.report.changes`)."""
    prev = f.changes.get("prev")
    moves = moves_frame(prev) if prev is not None else None
    return [
        slot(
            "changes_moves",
            "Rank moves since the previous snapshot",
            f"Bots that moved {prev.min_move} places or more between the previous and the newest snapshot "
            "(competition ranks: a tie reordering is no move); the same moves as `solvelens diff`."
            if prev is not None
            else "",
            lambda: ch.movers_chart(moves, title=""),  # type: ignore[arg-type]
            moves is not None and moves.height > 0,
            NEEDS_TWO if prev is None else f"No bot moved {prev.min_move} places or more.",
        ),
    ]


def model_section(f: ReportFrames) -> list[ChartSlot]:
    """The model leaderboard with bootstrap intervals, and the ranked models over time."""
    ranked = f.board.filter(pl.col("ranked"))["llm_model"].to_list()[:8]
    return [
        slot(
            "model_leaderboard",
            "Mean rank percentile with 95% intervals",
            "Mean rank percentile within problem of each model's solutions at the newest snapshot (100% = "
            "always the best solution of its problem), with 95% bootstrap intervals: "
            f"{f.bootstrap:,} replicates resampling problems with replacement (seeded, so the same store "
            "gives the same intervals). "
            "A model's rank is 1 + the number of ranked models whose interval lies entirely above its own "
            "(as on the Chatbot Arena leaderboard), so models whose intervals overlap usually share a rank. "
            "Solutions with equal scores share a rank in their problem: a tied solution counts as beating "
            "half of those it ties with, and a tie shares the places it spans in the top-1 and top-3 rates "
            "(two solutions tied for first are half a top-1 each), so the order the platform lists a tie in "
            "moves no figure. "
            f"Models with fewer than {f.min_model_solutions} solutions in contested problems are grey and "
            "not ranked.",
            lambda: ch.model_leaderboard_chart(f.board, title=""),
            f.board.filter(pl.col("mean_percentile").is_not_null()).height > 0,
            "No solutions in contested problems (with at least two solutions) at the newest snapshot.",
        ),
        slot(
            "model_trend",
            "Models over time",
            "Mean rank percentile within problem of the ranked models at every snapshot.",
            lambda: ch.model_trend_chart(f.model_trend, models=ranked, title=""),
            f.multi and bool(ranked),
            NEEDS_TWO if not f.multi else "No ranked model.",
        ),
    ]


def separation_note(result: an.ArenaResult) -> str:
    """The sentence flagging a diverged fit (perfect separation, :attr:`ArenaResult.diverged`), or "".

    When the divergence reaches no ranked model (:attr:`ArenaResult.separated`, e.g. "unknown" with 3 votes,
    all won), it names those models and says the ranked scores are measured, with the most any of them moves
    when the separated models' votes are left out (:attr:`ArenaResult.separated_shift`, rounded up to a
    tenth of a point); otherwise it warns that the scores only order the models."""
    if not result.diverged:
        return ""
    named = []
    if result.never_lost:
        named.append(f"{', '.join(result.never_lost)} never lost")
    if result.never_won:
        named.append(f"{', '.join(result.never_won)} never won")
    if result.separated and result.separated_shift is not None:
        return _confined_note(result, named)
    who = f" ({'; '.join(named)})" if named else ""
    return (
        f"The fit diverges: the votes are perfectly separated{who}, so no finite Bradley–Terry scores fit "
        "them; the scores below are set by the weak prior alone and only order these models: read neither "
        "the gaps, the intervals nor the win rates as measured."
    )


def _confined_note(result: an.ArenaResult, named: list[str]) -> str:
    """:func:`separation_note` of a divergence confined to unranked models (``named``: "X never lost",
    "Y never won")."""
    many = len(result.separated) > 1
    separated = set(result.separated)
    if separated <= set(result.never_lost):
        why = " and never lost"
    elif separated <= set(result.never_won):
        why = " and never won"
    elif named:
        why = f" and one-sided ({'; '.join(named)})"
    else:
        why = " (their votes against the others are one-sided)"
    bound = math.ceil((result.separated_shift or 0.0) * 10) / 10
    names = ", ".join(result.separated)
    return (
        f"The fit diverges only for {names}, which {'are' if many else 'is'} not ranked "
        f"(fewer than {result.min_comparisons} votes){why}: no finite Bradley–Terry score fits "
        f"{'their' if many else 'its'} votes, so {'their scores are' if many else 'its score is'} set by the "
        "weak prior alone. The ranked models' scores are measured among themselves: leaving "
        f"{'those' if many else 'its'} votes out moves none of them by more than {bound:.1f} points."
    )


def evidence_note(stored: int | None, stated: int | None) -> str:
    """The sentence saying the arena moves as older votes arrive (issue 29: "fitted to 889 of 1,662 votes"),
    or "": ``stored`` the distinct votes the store holds, ``stated`` the votes the platform states (``/stats
    totalComparisons`` of the newest snapshot, the sum of the problems' counts); "" when either is unknown or
    the store holds at least as many as the platform states."""
    if stored is None or stated is None or stored >= stated:
        return ""
    return (
        f"The store holds {stored:,} of the {stated:,} votes the platform states ({stated - stored:,} not "
        "stored yet: read over the coming snapshots): the scores, intervals and ranks will move as those "
        "older votes arrive, though no model changed."
    )


def arena_caption(result: an.ArenaResult, *, stored: int | None = None, stated: int | None = None) -> str:
    """The arena chart's caption: the votes fitted and left out, the scale, the intervals, the ranks, the
    :func:`separation_note` of a diverged fit first and the :func:`evidence_note` (``stored`` of the
    ``stated`` votes; unknown when None) last."""
    left_out = f"{result.skips:,} skips, {result.same_entry:,} votes between two solutions of one model"
    if result.unmatched:
        left_out += f", {result.unmatched:,} votes on solutions no longer listed"
    body = (
        f"Bradley–Terry scores of the models fitted to {result.comparisons:,} stored votes between two "
        f"models' solutions (left out: {left_out}), on the Elo scale: 400 points = 10 to 1 odds, the mean "
        f"ranked model at 1500. Bars: 95% intervals from {result.bootstrap:,} bootstrap resamples of the "
        "votes (seeded: the same store gives the same intervals). Rank = 1 + the models whose interval lies "
        f"entirely above; models with fewer than {result.min_comparisons} votes are not ranked or drawn."
    )
    return " ".join(part for part in (separation_note(result), body, evidence_note(stored, stated)) if part)


def rank_over_time_caption(result: an.ArenaResult) -> str:
    """The rank-over-time chart's caption: what each point is, and at how many of the snapshots the fit
    diverged (``over_time``'s ``fit``): only for models not ranked then, named (the ranked models' ranks there
    are measured among themselves), among the ranked models (those ranks only order them), or while at most
    one model was ranked (no ranking among ranked models exists there); and, when the chart draws a hollow
    point (a ranked model in a window whose fit was not measured), what its filled and hollow points mean."""
    over = result.over_time
    text = (
        "The arena ranking as it stood at each snapshot (from every vote stored up to it), for today's "
        "best-ranked models; rank 1 at the top. Earlier snapshots use "
        f"{min(result.bootstrap, WINDOW_BOOTSTRAP)} resamples each."
    )
    if over.is_empty():
        return text
    windows = over.group_by("snapshot_id").agg(pl.col("fit").first(), ranked=pl.col("ranked").sum())
    total = windows.height
    separated = windows.filter(pl.col("fit") == SEPARATED).height
    diverged = windows.filter((pl.col("fit") == DIVERGED) & (pl.col("ranked") >= 2)).height
    alone = windows.filter((pl.col("fit") == DIVERGED) & (pl.col("ranked") < 2)).height
    if separated:
        names = ", ".join(over.filter("separated")["label"].unique().sort().to_list())
        text += (
            f" At {separated} of the {total} snapshots the fit diverged only for models not ranked then "
            f"({names}): the ranks there are measured among the ranked models (the tooltip says which)."
        )
    if diverged:
        text += (
            f" At {diverged} of the {total} snapshots the fit diverged among the ranked models: the ranks "
            "there only order them (no finite Bradley–Terry scores fit their votes; the tooltip says which)."
        )
    if alone:
        text += (
            f" At {alone} of the {total} snapshots the fit diverged while at most one model was ranked: no "
            "ranking among ranked models existed there to measure (a model ranked alone is rank 1, compared "
            "with no other)."
        )
    if over.filter((pl.col("fit") != MEASURED) & pl.col("rank").is_not_null()).height:  # a hollow point
        text += (
            " Filled points: snapshots whose fit was measured; hollow points: snapshots whose fit diverged, "
            'shaped by how (the legend "Fit").'
        )
    return text


#: The heatmap's models (the best-ranked) and the pairs a phone lists instead of it.
HEATMAP_TOP = 12
PHONE_PAIRS = 10


def strongest_pairs(
    result: an.ArenaResult, *, top: int = HEATMAP_TOP, shown: int = PHONE_PAIRS
) -> tuple[str, ...]:
    """What a phone shows instead of the win-rate heatmap: a heading, then the ``shown`` most one-sided
    pairs of the heatmap's models ("claude-sonnet-4 over mistral-large: 80%", the favourite's predicted win
    rate; each pair once, ties by name)."""
    entries = result.ranking.filter(pl.col("ranked")).head(top)["entry"].to_list()
    pairs = (
        result.win_rate.filter(
            pl.col("entry_a").is_in(entries)
            & pl.col("entry_b").is_in(entries)
            & (pl.col("entry_a") != pl.col("entry_b"))
            & (
                (pl.col("p_a_wins") > 0.5)
                | ((pl.col("p_a_wins") == 0.5) & (pl.col("entry_a") < pl.col("entry_b")))
            )
        )
        .sort(["p_a_wins", "label_a", "label_b"], descending=[True, False, False])
        .head(shown)
    )
    if pairs.is_empty():
        return ()
    heading = (
        f"The {pairs.height} most one-sided pairs of the {len(entries)} best-ranked models: the favourite's "
        "predicted win rate (a wider screen shows every pair as a heatmap)."
    )
    lines = [f"{r['label_a']} over {r['label_b']}: {r['p_a_wins']:.0%}" for r in pairs.iter_rows(named=True)]
    return (heading, *lines)


def arena_section(f: ReportFrames) -> list[ChartSlot]:
    """The arena ranking of the models (scores with intervals, win-rate heatmap, rank over time); nothing
    when no votes are stored (``f.arena_note`` says why)."""
    result = f.arena
    if result is None:
        return []
    ranked = result.ranking.filter(pl.col("ranked")).height
    windows = result.over_time["snapshot_id"].n_unique()
    return [
        slot(
            "arena_scores",
            "Arena scores with 95% intervals",
            arena_caption(result, stored=f.stored_votes, stated=f.stated_votes),
            lambda: ch.arena_scores_chart(result.ranking, title=""),
            ranked > 0,
            f"No model has {result.min_comparisons} votes yet.",
        ),
        slot(
            "arena_win_rate",
            "Predicted win rates",
            "The fitted probability that a solution of the row's model wins a vote against one of the "
            "column's, for the best-ranked models.",
            lambda: ch.arena_win_rate_chart(result.win_rate, result.ranking, top=HEATMAP_TOP, title=""),
            ranked > 1,
            "Needs at least two ranked models.",
            phone_list=strongest_pairs(result),
        ),
        slot(
            "arena_rank",
            "Arena rank over time",
            rank_over_time_caption(result),
            lambda: ch.arena_rank_chart(result.over_time, title=""),
            windows > 1 and ranked > 0,
            "Needs votes stored by at least two snapshots.",
        ),
    ]


def activity_section(f: ReportFrames) -> list[ChartSlot]:
    """The platform's own events per hour by action (the stored ``/activity`` history), its recorded gaps
    shaded; nothing when no event is stored (``f.activity_note`` says why)."""
    if f.activity_note:
        return []
    gaps = f.activity_gaps.height
    caption = (
        "Events of the platform's own feed (/activity) by action, from the history the snapshots kept (each "
        "event once), per covered hour: each bar's events divided by the hours of its bar the stored "
        "history covers (from its oldest event to the newest snapshot, gaps left out), never by hours "
        "nobody saw. "
        + (
            f"Shaded: {gaps} stretch(es) where snapshots came too rarely and events were missed."
            if gaps
            else "No gap recorded: every snapshot still saw the newest event it had stored before."
        )
    )
    return [
        slot(
            "activity_timeline",
            "Activity timeline",
            caption,
            lambda: ch.activity_timeline_chart(f.timeline, gaps=f.activity_gaps, title=""),
            True,
            "",
        )
    ]


def category_section(f: ReportFrames) -> list[ChartSlot]:
    """Problems per category and each category's maturity rate over time."""
    ready = f.categories.height > 0 and f.multi
    return [
        slot(
            "category_problems",
            "Problems per category",
            "All problems in each category (every status), stacked.",
            lambda: ch.category_area_chart(f.categories, title=""),
            ready,
            NEEDS_TWO,
        ),
        slot(
            "category_maturity",
            "Maturity rate per category",
            "Share of each category's problems that have reached the mature status (axis fitted to the "
            "data).",
            lambda: ch.category_maturity_chart(f.categories, title=""),
            ready,
            NEEDS_TWO,
        ),
    ]


def _rated(frame: pl.DataFrame, *columns: str) -> bool:
    """Whether any of ``columns`` of ``frame`` holds a rate (not every interval too short or a gap)."""
    return frame.height > 0 and any(frame[c].drop_nulls().len() > 0 for c in columns)


def _unrated(f: ReportFrames) -> str:
    """Why no interval of the history has a rate: each too short (or a gap)."""
    return (
        f"No rate: every interval between snapshots is under {an.format_duration(an.MIN_RATE_SPAN)} of "
        "platform time (too short to rate) or a gap."
    )


def growth_section(f: ReportFrames) -> list[ChartSlot]:
    """Problems and solutions added per unit of time, bot activity, the platform's ``/stats``."""
    unit = f.unit
    growth_caption = (
        "Change since the previous snapshot divided by the platform time in between (so gaps do not show "
        f"as spikes), {unit.label}; no rate over less than {an.format_duration(an.MIN_RATE_SPAN)} of "
        "platform time (too short to rate) or across a gap."
    )
    return [
        slot(
            "platform_growth",
            f"Problems and solutions added {unit.label}",
            growth_caption,
            lambda: ch.growth_chart(f.growth, title=""),
            f.multi and _rated(f.growth, "problems_rate", "solutions_rate"),
            NEEDS_TWO if not f.multi else _unrated(f),
        ),
        slot(
            "bot_activity",
            "Bot activity",
            f"Solutions and votes {unit.label}, summed over bots, from changes in their profile counters.",
            lambda: ch.activity_chart(f.activity, title=""),
            _rated(f.activity, "solutions_rate", "votes_rate"),
            NEEDS_TWO if f.activity.is_empty() else _unrated(f),
        ),
        slot(
            "platform_stats",
            "Platform statistics",
            "The platform's /stats figures at each snapshot.",
            lambda: ch.platform_stats_chart(f.stats, title=""),
            f.stats.height > 0,
            "The store has no platform statistics.",
        ),
    ]


def solution_section(f: ReportFrames) -> list[ChartSlot]:
    """The newest snapshot's solution scores by rank within their problem."""
    return [
        slot(
            "score_distribution",
            "Solution scores",
            "Scores of all solutions at the newest snapshot, by their rank within their problem (solutions "
            "with equal scores share the best rank: every solution tied for first is in rank 1).",
            lambda: ch.score_distribution_chart(f.distribution, title=""),
            f.distribution.height > 0,
            "No solutions in the newest snapshot.",
        ),
    ]


def coverage_section(f: ReportFrames) -> list[ChartSlot]:
    """One cell per UTC day of the history, days without a snapshot marked."""
    return [
        slot(
            "coverage",
            "Snapshot coverage",
            "One cell per UTC day from the first to the newest snapshot; red days have no snapshot.",
            lambda: ch.coverage_chart(f.days, title=""),
            f.days.height > 0,
            "No snapshots.",
        ),
    ]


#: The chart sections in report order: template key -> builder.
SECTIONS: dict[str, Callable[[ReportFrames], list[ChartSlot]]] = {
    "changes": changes_section,
    "ranks": rank_section,
    "models": model_section,
    "arena": arena_section,
    "categories": category_section,
    "growth": growth_section,
    "activity": activity_section,
    "solutions": solution_section,
    "coverage": coverage_section,
}


def chart_sections(frames: ReportFrames) -> dict[str, list[ChartSlot]]:
    """Every section of :data:`SECTIONS`, built from ``frames``."""
    return {key: build(frames) for key, build in SECTIONS.items()}
