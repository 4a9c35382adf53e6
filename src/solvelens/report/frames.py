"""The frames one leaderboard history report is computed from: read once from a loaded store, then shared by
the notices, the headline, the section builders and the small tables (:mod:`solvelens.report.content`)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

import polars as pl

from solvelens import analysis as an
from solvelens.analysis.frames import Frames
from solvelens.report.evidence import evidence_frames
from solvelens.report.table import bot_table


@dataclass(frozen=True)
class ReportFrames:
    """Every frame of one report (polars, in memory; times UTC), with the settings it was computed for.

    ``snapshots`` (sorted by time), ``history`` (:func:`solvelens.analysis.rank_history`), ``table`` (the
    bot table, :func:`solvelens.report.table.bot_table`), ``bump``, ``movers``, ``volatility``, ``counts``
    (problem counts), ``growth``, ``categories``, ``activity``, ``solutions`` (the newest snapshot's),
    ``distribution``, ``board`` (models), ``model_trend``, ``stats``, ``gaps``, ``days``; ``latest`` (the
    newest ``/stats`` figures), ``fresh``, ``unit`` (the rate unit), ``span`` (the history's length),
    ``refs`` (the baseline snapshot ids ``prev``/``7d``/``first``), ``rate_gaps`` (gaps no rate is taken
    across, :func:`solvelens.analysis.timescale.history_gaps`) and ``changes`` (the "What changed" diffs:
    ``prev`` and the movers' baseline ``7d`` or ``first`` -> :class:`solvelens.analysis.SnapshotDiff`, None
    when that baseline does not exist); the platform's own evidence
    (:func:`solvelens.report.evidence.evidence_frames`): ``arena``, ``arena_note``, ``platform_models``,
    ``model_table``, ``timeline``, ``activity_gaps``, ``activity_note``, ``model_caption``.
    """

    store: Frames
    generated: dt.datetime
    top_n: int
    window: dt.timedelta
    min_model_solutions: int
    bootstrap: int
    snapshots: pl.DataFrame
    history: pl.DataFrame
    fresh: an.Freshness
    unit: an.RateUnit
    span: dt.timedelta
    gaps: pl.DataFrame
    refs: dict[str, Any]
    table: pl.DataFrame
    bump: pl.DataFrame
    movers: pl.DataFrame
    volatility: pl.DataFrame
    counts: pl.DataFrame
    growth: pl.DataFrame
    categories: pl.DataFrame
    activity: pl.DataFrame
    solutions: pl.DataFrame
    distribution: pl.DataFrame
    board: pl.DataFrame
    model_trend: pl.DataFrame
    stats: pl.DataFrame
    latest: dict[str, float]
    days: pl.DataFrame
    rate_gaps: pl.DataFrame
    changes: dict[str, an.SnapshotDiff | None]
    arena: an.ArenaResult | None
    arena_note: str
    platform_models: pl.DataFrame
    model_table: pl.DataFrame
    timeline: pl.DataFrame
    activity_gaps: pl.DataFrame
    activity_note: str
    model_caption: str

    @property
    def multi(self) -> bool:
        """Whether the history holds at least two snapshots (what every change and trend needs)."""
        return self.snapshots.height >= 2

    @property
    def stored_votes(self) -> int:
        """The distinct votes (``comparison_id``) the store holds, from every snapshot so far."""
        votes = self.store.comparisons.select(pl.col("comparison_id").n_unique()).collect().item()
        return int(votes)

    @property
    def stated_votes(self) -> int | None:
        """The votes the platform states (the newest ``/stats totalComparisons``, the sum of the problems'
        counts: it undercounts votes whose counts never moved); None when no snapshot stored ``/stats``."""
        stated = self.latest.get("totalComparisons")
        return None if stated is None else int(stated)


def _history_frames(
    store: Frames, snapshots: pl.DataFrame, top_n: int, window: dt.timedelta
) -> dict[str, Any]:
    """Ranks over time and what is derived from them: the table, bump data, movers, volatility."""
    history = an.rank_history(store.leaderboard, snapshots)
    return {
        "history": history,
        "refs": an.reference_snapshots(history, window=window),
        "table": bot_table(history, store.leaderboard.collect(), window=window),
        "bump": an.bump_data(history, top_n=top_n),
        "movers": an.top_movers(history, window=window, n=5),
        "volatility": an.rank_volatility(history, top_n=top_n),
    }


def _platform_frames(
    store: Frames, snapshots: pl.DataFrame, unit: an.RateUnit, min_solutions: int, bootstrap: int
) -> dict[str, Any]:
    """Growth, activity, solutions, models and ``/stats`` over time, rates in ``unit``."""
    counts = store.problem_counts.collect()
    solutions = store.solutions.collect()
    return {
        "counts": counts,
        "growth": an.platform_growth(counts, snapshots, unit=unit),
        "categories": an.category_growth(counts, snapshots, store.categories, unit=unit),
        "activity": an.platform_activity(an.bot_activity(store.bots, snapshots, unit=unit)),
        "solutions": solutions,
        "distribution": an.score_distribution(solutions),
        "board": an.model_leaderboard(solutions, min_solutions=min_solutions, n_boot=bootstrap),
        "model_trend": an.model_trend(store.model_counts, snapshots),
        "stats": an.platform_stats_over_time(store.platform_stats, snapshots, unit=unit),
        "latest": an.latest_stats(store.platform_stats, snapshots),
    }


#: ``min_move`` of the report's "What changed" diffs.
MIN_MOVE = 3


def movers_baseline(refs: dict[str, Any]) -> str:
    """The baseline the movers chart (:func:`solvelens.analysis.top_movers`) compares with: ``7d`` when
    that snapshot exists, else ``first``."""
    return "7d" if refs.get("7d") is not None else "first"


def change_frames(
    store: Frames, refs: dict[str, Any], newest: int, *, top_n: int, min_move: int = MIN_MOVE
) -> dict[str, an.SnapshotDiff | None]:
    """The "What changed" diffs of the newest snapshot against ``prev`` and the movers' baseline (see
    :func:`movers_baseline`): the same pair as the movers chart, so the same rank moves."""
    out: dict[str, an.SnapshotDiff | None] = {}
    for key in ("prev", movers_baseline(refs)):
        ref = refs.get(key)
        out[key] = (
            None
            if ref is None
            else an.diff(store, ref, newest, platform=store.platform, top_n=top_n, min_move=min_move)
        )
    return out


def report_frames(
    store: Frames,
    *,
    top_n: int = 10,
    window: dt.timedelta = dt.timedelta(days=7),
    now: dt.datetime | None = None,
    min_model_solutions: int = an.models.MIN_SOLUTIONS,
    bootstrap: int = an.models.N_BOOT,
) -> ReportFrames:
    """Compute every frame of the report from ``store``; the model leaderboard's and the arena's intervals
    from ``bootstrap`` resamples. Raises :class:`solvelens.analysis.EmptyStoreError` when the store has no
    complete snapshot."""
    store.require_snapshots()
    generated = now or dt.datetime.now(dt.UTC)
    snapshots = store.snapshots.collect()
    unit = an.rate_unit(snapshots)
    # A long history's charts draw a bounded set of snapshots (the rule is a notice on the page).
    points = store.points or an.HistoryPoints(snapshots["snapshot_id"], complete=True)
    drawn = points.drawn(snapshots)
    history = _history_frames(store, drawn, top_n, window)
    refs = history["refs"] if history["history"].height else an.reference_snapshots(drawn, window=window)
    newest = int(snapshots["snapshot_id"][-1])
    platform = _platform_frames(store, drawn, points.rate_unit(unit), min_model_solutions, bootstrap)
    return ReportFrames(
        store=store,
        generated=generated,
        top_n=top_n,
        window=window,
        min_model_solutions=min_model_solutions,
        bootstrap=bootstrap,
        snapshots=snapshots,
        fresh=an.freshness(snapshots, now=generated),
        unit=unit,
        span=an.history_span(snapshots),
        gaps=an.snapshot_gaps(snapshots),
        days=an.snapshot_days(snapshots),
        rate_gaps=an.history_gaps(snapshots),
        changes=change_frames(store, refs, newest, top_n=top_n),
        **history,
        **platform,
        **evidence_frames(store, platform["board"], bootstrap=bootstrap),
    )
