"""solvelens.analysis.leaderboard: history, the leaderboard now, movers, stability, bump data."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import polars as pl
import pytest

from solvelens import analysis as an

T0 = dt.datetime(2026, 3, 1, 6, 0, tzinfo=dt.UTC)


def _history(
    ranks: dict[int, list[str]], *, step_days: float = 1.0, points: dict[int, list[int]] | None = None
) -> pl.DataFrame:
    """A hand-made history through :func:`an.leaderboard_history`: {snapshot_id: [bot ids in list order]};
    points fall with position unless ``points`` gives them per snapshot."""
    rows = []
    for sid, bots in ranks.items():
        for position, bot in enumerate(bots, start=1):
            rows.append(
                {
                    "snapshot_id": sid,
                    "bot_id": bot,
                    "name": bot.upper(),
                    "rank": position,
                    "points": points[sid][position - 1] if points else 1000 * sid - 10 * position,
                    "elo": 1500.0 - position,
                }
            )
    board = pl.DataFrame(
        rows,
        schema={
            "snapshot_id": pl.Int64,
            "bot_id": pl.String,
            "name": pl.String,
            "rank": pl.Int32,
            "points": pl.Int64,
            "elo": pl.Float64,
        },
    )
    snaps = pl.DataFrame(
        {
            "snapshot_id": list(ranks),
            "taken_at": [T0 + dt.timedelta(days=step_days * (sid - 1)) for sid in ranks],
        },
        schema={"snapshot_id": pl.Int64, "taken_at": pl.Datetime("us", "UTC")},
    )
    return an.leaderboard_history(board, snaps)


@pytest.fixture(scope="module")
def history(store_db: Path) -> pl.DataFrame:
    store = an.load(store_db)
    return an.leaderboard_history(store.leaderboard, store.snapshots)


def test_history_has_one_row_per_ranked_bot_per_snapshot(store_db: Path, history: pl.DataFrame) -> None:
    store = an.load(store_db)
    assert list(history.columns) == list(an.leaderboard.HISTORY_COLUMNS)
    assert history.height == store.leaderboard.collect().height
    assert history.select(pl.struct("snapshot_id", "bot_id").is_unique().all()).item()
    per_snapshot = history.group_by("snapshot_id").agg(
        ok=(pl.col("position").sort() == pl.int_range(1, pl.len() + 1)).all()
    )
    assert per_snapshot["ok"].all(), "positions are 1..n in every snapshot"
    # competition ranks: a bot's rank is the best position among the bots with its points
    best = history.group_by("snapshot_id", "points").agg(best=pl.col("position").min())
    joined = history.join(best, on=["snapshot_id", "points"])
    assert (joined["rank"] == joined["best"]).all()
    # The generator makes ranks cross: some bot changes rank somewhere.
    assert history.group_by("bot_id").agg(pl.col("rank").n_unique())["rank"].max() > 3


def test_current_leaderboard_compares_with_previous_snapshot() -> None:
    h = _history({1: ["a", "b", "c"], 2: ["b", "a", "d", "c"]})
    now = an.current_leaderboard(h)
    assert now["bot_id"].to_list() == ["b", "a", "d", "c"]
    assert now["rank_change_prev"].to_list() == [1, -1, None, -1]
    assert now["rank_change_first"].to_list() == [1, -1, None, -1]
    assert now["rank_change_7d"].to_list() == [None] * 4, "the history is shorter than 7 days"
    assert now["is_new"].to_list() == [False, False, True, False]
    assert now["points_change_prev"].to_list() == [
        1000 - 10 * 1 + 10 * 2,
        1000 - 10 * 2 + 10,
        None,
        1000 - 40 + 30,
    ]
    assert an.current_leaderboard(h, top=2).height == 2


def test_current_leaderboard_with_one_snapshot_has_no_changes() -> None:
    now = an.current_leaderboard(_history({1: ["a", "b"]}))
    assert now["rank_change_prev"].to_list() == [None, None]
    assert now["is_new"].to_list() == [False, False]
    assert an.current_leaderboard(_history({1: ["a"]}).clear()).is_empty()


def test_top_movers_over_a_window_with_deterministic_ties() -> None:
    h = _history(
        {
            1: ["a", "b", "c", "d", "e"],
            2: ["a", "c", "b", "d", "e"],
            8: ["e", "d", "a", "b", "c"],
        }
    )
    movers = an.top_movers(h, window=dt.timedelta(days=7), n=2)
    # compared with snapshot 1 (7 days before snapshot 8): e +4, d +2, a -2, b -2, c -2
    assert movers["bot_id"].to_list() == ["e", "d", "a", "b"]
    assert movers["rank_change"].to_list() == [4, 2, -2, -2]
    assert movers["direction"].to_list() == ["up", "up", "down", "down"]
    assert set(movers["baseline"]) == {"7d"}
    # a window longer than the history falls back to the oldest snapshot, and says so
    longer = an.top_movers(h, window=dt.timedelta(days=100), n=2)
    assert longer["bot_id"].to_list() == ["e", "d", "a", "b"]
    assert set(longer["baseline"]) == {"first"}
    # a one-day window compares with snapshot 2
    short = an.top_movers(h, window=dt.timedelta(days=1), n=5)
    assert set(short["bot_id"]) == {"e", "d", "a", "b", "c"}
    assert an.top_movers(_history({1: ["a", "b"]})).is_empty()


def test_rank_stability_counts_entries_exits_and_leader_changes() -> None:
    h = _history({1: ["a", "b", "c"], 2: ["a", "b", "c"], 3: ["b", "a", "c"], 4: ["b", "d", "a", "c"]})
    stability = an.rank_stability(h, top_n=2)
    assert stability["snapshot_id"].to_list() == [2, 3, 4]
    assert stability["changed"].to_list() == [False, True, True]
    assert stability["leader_changed"].to_list() == [False, True, False]
    assert stability["entered"].to_list() == [0, 0, 1]
    assert stability["left"].to_list() == [0, 0, 1]
    assert stability["moved"].to_list() == [0, 2, 0]


def test_leader_changes_list_each_new_number_one() -> None:
    h = _history({1: ["a", "b"], 2: ["b", "a"], 3: ["b", "a"], 4: ["a", "b"]})
    changes = an.leader_changes(h)
    assert changes["snapshot_id"].to_list() == [2, 4]
    assert changes["label"].to_list() == ["B takes #1", "A takes #1"]


def test_bump_data_is_deterministic_and_small(history: pl.DataFrame) -> None:
    bump = an.bump_data(history, top_n=10)
    assert bump["bot_id"].n_unique() == 10
    assert bump.height <= 4500
    newest = history.filter(pl.col("snapshot_id") == history["snapshot_id"].max()).sort("rank")
    assert bump.unique("bot_id").sort("final_rank")["bot_id"].to_list() == newest["bot_id"].head(10).to_list()
    # every snapshot (the history's own resolution): the day with two snapshots keeps both
    assert bump.group_by(pl.col("taken_at").dt.date(), "bot_id").len()["len"].max() == 2
    assert an.bump_data(history, top_n=10).equals(bump)


def test_two_snapshots_at_one_time_keep_their_order_in_the_chart_data() -> None:
    """Issue 29's sweep (points_trend / rank_history at ``report``): snapshots taken at one platform time
    (one right after a rename, then one after points moved) are drawn in snapshot order, so a line's last
    point at that time is the newer figure; sorting by (final_rank, taken_at) alone left them in any order."""
    ranks = {sid: [f"b{i:02d}" for i in range(12)] for sid in range(1, 9)}
    points = {sid: [1000 * sid - i for i in range(12)] for sid in ranks}
    h = _history(ranks, step_days=0, points=points).sample(fraction=1.0, shuffle=True, seed=7)
    for _ in range(20):
        bump = an.bump_data(h, top_n=10)
        for _, rows in bump.group_by("bot_id"):
            assert rows["snapshot_id"].to_list() == sorted(rows["snapshot_id"].to_list())
            assert rows["points"].is_sorted()


def test_ties_in_rank_break_on_bot_id() -> None:
    h = _history({1: ["b", "a"]}).with_columns(rank=pl.lit(1, dtype=pl.Int32), position=pl.lit(1, pl.Int32))
    assert an.top_bots(h, n=2) == ["a", "b"]
    assert an.leaderboard_history(
        h.select("snapshot_id", "bot_id", "name", "rank", "points", "elo"),
        h.select("snapshot_id", "taken_at").unique(),
    )["bot_id"].to_list() == ["a", "b"]


def test_equal_points_share_a_rank_1224() -> None:
    h = _history({1: ["a", "b", "c", "d"]}, points={1: [50, 40, 40, 10]})
    assert h["rank"].to_list() == [1, 2, 2, 4]
    assert h["position"].to_list() == [1, 2, 3, 4]


def test_a_tie_reordering_is_no_move() -> None:
    h = _history({1: ["a", "b", "c"], 2: ["a", "c", "b"]}, points={1: [50, 40, 40], 2: [60, 45, 45]})
    now = an.current_leaderboard(h)
    assert now["rank_change_prev"].to_list() == [0, 0, 0]
    assert an.top_movers(h).is_empty()
    assert an.rank_stability(h, top_n=3)["moved"].to_list() == [0]


def test_a_list_not_ordered_by_points_keeps_positions() -> None:
    h = _history({1: ["a", "b", "c"]}, points={1: [10, 40, 40]})
    assert h["rank"].to_list() == [1, 2, 3]


def test_shared_first_place_is_one_leader_change() -> None:
    h = _history({1: ["a", "b"], 2: ["a", "b"], 3: ["b", "a"]}, points={1: [9, 5], 2: [9, 9], 3: [9, 9]})
    changes = an.leader_changes(h)
    assert changes["snapshot_id"].to_list() == [2]
    assert changes["label"].to_list() == ["A and B share #1"]


def test_reference_snapshots_name_the_three_baselines() -> None:
    h = _history({sid: ["a"] for sid in range(1, 11)})
    assert an.reference_snapshots(h) == {"prev": 9, "7d": 3, "first": 1}
    assert an.reference_snapshots(_history({1: ["a"]})) == {"prev": None, "7d": None, "first": None}


def test_rank_volatility_and_time_at_number_one() -> None:
    h = _history({1: ["a", "b", "c"], 2: ["b", "a", "c"], 3: ["b", "a", "c"], 4: ["a", "b", "c"]})
    vol = an.rank_volatility(h, top_n=3)
    rows = {r["bot_id"]: r for r in vol.iter_rows(named=True)}
    assert rows["a"]["days_at_1"] == 1.0 and rows["b"]["days_at_1"] == 2.0  # the newest snapshot adds none
    assert rows["a"]["share_at_1"] == 1 / 3
    assert rows["a"]["moves"] == 2 and rows["a"]["volatility"] == 2 / 3
    assert rows["c"]["moves"] == 0 and rows["c"]["volatility"] == 0.0
    assert vol["bot_id"].to_list() == ["a", "b", "c"], "sorted by the newest rank"


def test_thin_snapshots_respects_the_row_budget() -> None:
    bots = [f"bot{i:03d}" for i in range(50)]
    h = _history({sid: bots for sid in range(1, 201)})
    thinned = an.thin_snapshots(h, max_rows=4000)
    assert thinned.height <= 4000
    assert thinned["snapshot_id"].max() == 200, "the newest snapshot is always kept"
    assert an.thin_snapshots(h, max_rows=20_000).height == h.height


def test_helpers_accept_an_empty_store(empty_store_db: Path) -> None:
    store = an.load(empty_store_db)
    history = an.leaderboard_history(store.leaderboard, store.snapshots)
    assert history.is_empty() and history.schema["taken_at"] == pl.Datetime("us", "UTC")
    assert an.current_leaderboard(history).is_empty()
    assert an.top_movers(history).is_empty()
    assert an.rank_stability(history).is_empty()
    assert an.rank_volatility(history).is_empty()
    assert an.bump_data(history).is_empty()
    assert an.leader_changes(history).is_empty()
