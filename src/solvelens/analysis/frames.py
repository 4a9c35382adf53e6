"""The frames type of the analysis: :class:`Frames`, what one store file holds for one platform, in polars.

No DuckDB here: :mod:`solvelens.analysis.load` reads a store file into a :class:`Frames`; every other analysis
helper takes frames (or a :class:`Frames`) and never touches the file.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import polars as pl

from solvelens.analysis.points import HistoryPoints
from solvelens.store.errors import StoreError

__all__ = ["BotFrames", "EmptyStoreError", "Frames"]


class EmptyStoreError(StoreError):
    """The store has no complete snapshot, so there is nothing to analyse; the message names the store and
    ``solvelens snapshot``."""


@dataclass(frozen=True)
class Frames:
    """What :func:`solvelens.analysis.load.load` read from one store file: a bundle of polars frames, in
    memory; times are ``Datetime[us, UTC]``.

    Frames (columns; ``snapshot_id`` is Int64 everywhere):

    - ``snapshots``: snapshot_id, taken_at, base_url, status, started_at (the run's wall-clock start),
      duration_s Float64, platform String (JSON of
      what the platform declared, e.g. ``{"id": ..., "clock": "simulated"}``; ``{}`` none; null unknown),
      requests String (JSON of each optional list's request as sent, ``{<resource>: {"path", "params"}}``;
      null when not recorded) (sorted by taken_at)
    - ``leaderboard``: snapshot_id, rank Int32, bot_id, name, points Int64, elo Float64,
      total_solutions Int64, total_votes Int64, vote_accuracy Float64, status
    - ``bots``: snapshot_id, bot_id, name, status, total_points Int64, total_solutions Int64,
      total_votes Int64, vote_accuracy Float64, elo Float64, last_active_at, created_at
    - ``bot_me``: snapshot_id, bot_id, name, status, total_points, total_solutions, total_votes,
      vote_accuracy, elo
    - ``categories``: snapshot_id, slug, name, problem_count Int64
    - ``platform_stats``: snapshot_id, metric String, value Float64
    - ``problem_counts``: snapshot_id, category (String, null = uncategorised), status, author_type,
      problems Int64, solutions Int64, comparisons Int64 (problems aggregated per snapshot in DuckDB;
      the same shape as :func:`solvelens.analysis.growth.problem_counts` computes from ``problems``)
    - ``model_counts``: snapshot_id, llm_model (null as "unknown"), solutions Int64, contested_solutions
      Int64 (in problems with at least two solutions), percentile_sum Float64 (sum of their rank
      percentiles within problem, ``(n - rank - (t - 1) / 2) / (n - 1)`` with ``t`` solutions sharing the
      rank), top1 Float64, top3 Float64 (sums of top-1 / top-3 credits: a tie shares the positions it
      spans, see :mod:`solvelens.analysis.solutions`); aggregated per snapshot in DuckDB over EVERY
      selected snapshot, the input of :func:`solvelens.analysis.model_trend`
    - ``problems``: snapshot_id, problem_id, title, status, category, author_type, solution_count Int64,
      comparison_count Int64, created_at (the LATEST snapshot only)
    - ``solutions``: snapshot_id, solution_id, problem_id, rank Int32, score Float64, comparison_count Int64,
      win_count Int64, loss_count Int64, confidence_interval Float64, bot_id, bot_name, llm_model, created_at
      (the LATEST snapshot only)

    The optional resources (empty frames with these columns for a store without them, e.g. one written
    before schema version 3):

    - ``llm_leaderboard``: snapshot_id, rank Int32, model_name, model_version, model_family,
      total_solutions Int64, avg_bt_score Float64, best_bt_score Float64, total_wins Int64,
      total_comparisons Int64, win_rate Float64, top3_count Int64, first_place_count Int64, unique_bots Int64
      (the platform's own ``/llm-leaderboard``, every selected snapshot)
    - ``activity``: event_id, action, bot_id, bot_name, problem_id, problem_title, metadata (JSON text),
      created_at, first_snapshot_id Int64 (each event once; with ``since``/``last_days`` those first seen by
      a selected snapshot)
    - ``activity_gaps``: snapshot_id, newest_stored_event_id, oldest_fetched_event_id, gap_from, gap_to,
      events_per_hour Float64, suggested_interval_s Float64 (seconds): where the history missed events
      between two snapshots and the cadence that would have caught them
    - ``comparisons``: comparison_id, problem_id, solution_a_id, solution_b_id, winner ('a'|'b'|'skip'),
      voter_bot_id, voter_bot_name, created_at, first_snapshot_id Int64 (each vote once)
    - ``comparison_coverage``: snapshot_id, solution_id, problem_id, stored Int64, comparison_count Int64
      (solutions with more votes than the stored ones: the endpoint returns only the newest 50)
    - ``data_quality``: snapshot_id, resource, scope (a problem or solution id; "" for the whole list),
      announced Int64, stored Int64, reason: each list a snapshot stored with fewer (or more) records than
      the platform announced for it, and why (the store's ``data_quality`` view; empty before it existed)

    The ``raw`` JSON columns are not read.

    One platform only (:mod:`solvelens.analysis.platforms`): every frame above holds the snapshots of
    ``platform`` (its identity; ``platform_label`` names it), on one clock. ``all_snapshots`` has every
    complete snapshot of the store (same columns as ``snapshots``), ``other_platforms`` the store's other
    platforms (:func:`solvelens.analysis.platforms.platforms` rows) and ``clock_note`` says when snapshots of
    this platform on another clock were left out (``""`` otherwise).
    """

    path: Path
    snapshots: pl.LazyFrame
    leaderboard: pl.LazyFrame
    bots: pl.LazyFrame
    bot_me: pl.LazyFrame
    categories: pl.LazyFrame
    platform_stats: pl.LazyFrame
    problem_counts: pl.LazyFrame
    model_counts: pl.LazyFrame
    problems: pl.LazyFrame
    solutions: pl.LazyFrame
    snapshot_count: int
    latest_snapshot_id: int | None
    llm_leaderboard: pl.LazyFrame
    activity: pl.LazyFrame
    activity_gaps: pl.LazyFrame
    comparisons: pl.LazyFrame
    comparison_coverage: pl.LazyFrame
    data_quality: pl.LazyFrame
    platform: str | None = None
    platform_label: str = ""
    all_snapshots: pl.LazyFrame | None = None
    other_platforms: pl.DataFrame | None = None
    clock_note: str = ""
    #: Whether the store has the ``data_quality`` view (an empty frame then means nothing was short).
    has_data_quality: bool = False
    #: The snapshots the per-snapshot frames hold (:mod:`solvelens.analysis.points`): every snapshot of a
    #: history of at most 480, else a bounded selection and the rule a page states (``points.rule``).
    points: HistoryPoints | None = None

    def require_snapshots(self) -> None:
        """Raise :class:`EmptyStoreError` when the store has no complete snapshot."""
        if self.snapshot_count == 0:
            raise EmptyStoreError(
                f"store {self.path} has no complete snapshot: run `solvelens snapshot --db {self.path}` first"
            )


@dataclass(frozen=True)
class BotFrames:
    """What :func:`solvelens.analysis.load.load_bot` read for one bot's page: that bot's rows only (besides
    the newest snapshot's ``solutions`` / ``problems``, which the median bot needs); times UTC.

    - ``bot_id``, ``name``: the bot found (:func:`solvelens.analysis.find_bot`'s answer)
    - ``snapshots``: every snapshot of the window (as :attr:`Frames.snapshots`; sorted by taken_at)
    - ``points``: the snapshots the history draws (as :attr:`Frames.points`)
    - ``standing``: the bot at every drawn snapshot with a ranked bot
      (:data:`solvelens.analysis.bot.STANDING_COLUMNS`, the frame :func:`solvelens.analysis.bot_standing`
      computes from a full leaderboard history)
    - ``profiles``: its ``bots`` rows, else its ``bot_me`` rows, at the drawn snapshots (columns of
      :attr:`Frames.bot_me`)
    - ``solutions``, ``problems``: of the newest snapshot, every bot's (as :class:`Frames`)
    """

    path: Path
    bot_id: str
    name: str
    snapshots: pl.DataFrame
    points: HistoryPoints
    standing: pl.DataFrame
    profiles: pl.DataFrame
    solutions: pl.DataFrame
    problems: pl.DataFrame
