"""polars helpers over the store's public views (pure functions on frames, documented columns).

Start with :func:`load` (opens the DuckDB file read-only, reads into polars, closes it), then pass its
frames to the helpers, e.g. ``leaderboard_history(store.leaderboard, store.snapshots)``.
"""

from solvelens.analysis.activity import bot_activity, platform_activity
from solvelens.analysis.coverage import Freshness, freshness, snapshot_days, snapshot_gaps
from solvelens.analysis.growth import category_growth, platform_growth, problem_counts
from solvelens.analysis.leaderboard import (
    bump_data,
    current_leaderboard,
    daily_last,
    leader_changes,
    leaderboard_history,
    rank_stability,
    thin_snapshots,
    top_bots,
    top_movers,
)
from solvelens.analysis.platform import latest_stats, platform_stats_over_time
from solvelens.analysis.solutions import llm_model_share, score_distribution
from solvelens.analysis.store import NotAStoreError, Store, StoreError, StoreNotFoundError, load

__all__ = [
    "Freshness",
    "NotAStoreError",
    "Store",
    "StoreError",
    "StoreNotFoundError",
    "bot_activity",
    "bump_data",
    "category_growth",
    "current_leaderboard",
    "daily_last",
    "freshness",
    "latest_stats",
    "leader_changes",
    "leaderboard_history",
    "llm_model_share",
    "load",
    "platform_activity",
    "platform_growth",
    "platform_stats_over_time",
    "problem_counts",
    "rank_stability",
    "score_distribution",
    "snapshot_days",
    "snapshot_gaps",
    "thin_snapshots",
    "top_bots",
    "top_movers",
]
