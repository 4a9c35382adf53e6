"""polars helpers over the store's public views (pure functions on frames, documented columns).

Start with :func:`load` (opens the DuckDB file read-only, reads into polars, closes it), then pass its
frames to the helpers::

    frames = load("data/solvelens.duckdb")
    history = rank_history(frames.leaderboard, frames.snapshots)  # rank, points, Elo per bot and snapshot
    current_leaderboard(history)  # the newest snapshot, with changes vs prev / 7 days / first
    bot_id, name = find_bot("my-bot", history, frames.bots)
    bot_history(history, bot_id, bots=frames.bots)  # one bot at every snapshot
    model_leaderboard(frames.solutions)  # LLM models with bootstrap intervals
    arena(frames, by="model")  # Bradley–Terry on the stored votes, Elo scale, bootstrap intervals
    diff("data/solvelens.duckdb")  # what changed between the two newest snapshots (SnapshotDiff)

One platform at a time: :func:`load` reads the newest snapshot's platform (or ``platform=``); the store's
platforms are listed by :func:`platforms`.

Every helper's docstring lists its output columns and dtypes. Ranks: 1 = top, ties share a rank ("1224":
bots with equal points, solutions with equal scores); a positive rank change means the bot moved up. Every
measure on ranks (percentiles, top-1/top-3 rates) counts a tie as its expected value under a random order of
the tie (:mod:`solvelens.analysis.solutions`), so the order the platform lists a tie in moves nothing.
Rates are per day or per hour of platform time depending on how long the history spans (:func:`rate_unit`;
none over less than :data:`MIN_RATE_SPAN`);
each rate frame says which in its ``rate_unit`` column.
No rate is taken across a gap in the history (:func:`history_gaps`: an interval over 3 times the usual
one and over an hour): it is null there.
"""

from solvelens.analysis.activity import bot_activity, platform_activity
from solvelens.analysis.arena import ArenaResult, arena, fit_arena
from solvelens.analysis.bot import (
    BotNotFoundError,
    BotSummary,
    bot_categories,
    bot_history,
    bot_solutions,
    bot_standing,
    bot_summary,
    find_bot,
    standing_history,
    standing_summary,
)
from solvelens.analysis.clock import newest_is_simulated, simulated_label, simulated_snapshots
from solvelens.analysis.coverage import Freshness, freshness, snapshot_days, snapshot_gaps
from solvelens.analysis.diff import FRAMES as DIFF_FRAMES
from solvelens.analysis.diff import SnapshotDiff, diff
from solvelens.analysis.frames import BotFrames, EmptyStoreError, Frames
from solvelens.analysis.growth import category_growth, platform_growth, problem_counts
from solvelens.analysis.leaderboard import (
    BASELINE_LABELS,
    BASELINES,
    bump_data,
    current_leaderboard,
    daily_last,
    leader_changes,
    leaderboard_history,
    rank_history,
    rank_stability,
    reference_snapshots,
    thin_snapshots,
    top_bots,
    top_movers,
)
from solvelens.analysis.load import (
    NotAStoreError,
    StoreError,
    StoreNotFoundError,
    load,
    load_bot,
    read_snapshots,
)
from solvelens.analysis.model_rankings import disagreement, platform_leaderboard, side_by_side
from solvelens.analysis.models import model_leaderboard, model_trend
from solvelens.analysis.pick import SnapshotRef, SnapshotSelectionError
from solvelens.analysis.platform_stats import latest_stats, platform_stats_over_time
from solvelens.analysis.platforms import PlatformNotFoundError, PlatformSelection, platforms, select_platform
from solvelens.analysis.points import HistoryPoints, history_points
from solvelens.analysis.quality import data_quality_line, data_quality_of
from solvelens.analysis.solutions import llm_model_share, score_distribution, with_rank_percentile
from solvelens.analysis.stability import rank_volatility
from solvelens.analysis.timeline import activity_timeline
from solvelens.analysis.timescale import (
    GAP_FACTOR,
    MIN_RATE_SPAN,
    RateUnit,
    format_duration,
    format_time,
    gap_threshold_s,
    history_gaps,
    history_span,
    rate_unit,
    time_resolution,
    too_short,
)

__all__ = [
    "BASELINES",
    "BASELINE_LABELS",
    "DIFF_FRAMES",
    "GAP_FACTOR",
    "MIN_RATE_SPAN",
    "ArenaResult",
    "BotFrames",
    "BotNotFoundError",
    "BotSummary",
    "EmptyStoreError",
    "Frames",
    "Freshness",
    "HistoryPoints",
    "NotAStoreError",
    "PlatformNotFoundError",
    "PlatformSelection",
    "RateUnit",
    "SnapshotDiff",
    "SnapshotRef",
    "SnapshotSelectionError",
    "StoreError",
    "StoreNotFoundError",
    "activity_timeline",
    "arena",
    "bot_activity",
    "bot_categories",
    "bot_history",
    "bot_solutions",
    "bot_standing",
    "bot_summary",
    "bump_data",
    "category_growth",
    "current_leaderboard",
    "daily_last",
    "data_quality_line",
    "data_quality_of",
    "diff",
    "disagreement",
    "find_bot",
    "fit_arena",
    "format_duration",
    "format_time",
    "freshness",
    "gap_threshold_s",
    "history_gaps",
    "history_points",
    "history_span",
    "latest_stats",
    "leader_changes",
    "leaderboard_history",
    "llm_model_share",
    "load",
    "load_bot",
    "model_leaderboard",
    "model_trend",
    "newest_is_simulated",
    "platform_activity",
    "platform_growth",
    "platform_leaderboard",
    "platform_stats_over_time",
    "platforms",
    "problem_counts",
    "rank_history",
    "rank_stability",
    "rank_volatility",
    "rate_unit",
    "read_snapshots",
    "reference_snapshots",
    "score_distribution",
    "select_platform",
    "side_by_side",
    "simulated_label",
    "simulated_snapshots",
    "snapshot_days",
    "snapshot_gaps",
    "standing_history",
    "standing_summary",
    "thin_snapshots",
    "time_resolution",
    "too_short",
    "top_bots",
    "top_movers",
    "with_rank_percentile",
]
