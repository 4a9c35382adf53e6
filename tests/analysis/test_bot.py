"""solvelens.analysis.bot: find a bot, its history and summary, its solutions by problem and category."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import polars as pl
import pytest

from solvelens import analysis as an


@pytest.fixture(scope="module")
def store(store_db: Path) -> an.Frames:
    return an.load(store_db)


@pytest.fixture(scope="module")
def history(store: an.Frames) -> pl.DataFrame:
    return an.rank_history(store.leaderboard, store.snapshots)


def _outside_top_20(history: pl.DataFrame) -> tuple[str, str]:
    row = an.current_leaderboard(history).filter(pl.col("rank") > 20).row(0, named=True)
    return row["bot_id"], row["name"]


def test_find_bot_by_id_name_and_case_insensitive_name(store: an.Frames, history: pl.DataFrame) -> None:
    bot_id, name = _outside_top_20(history)
    assert an.find_bot(bot_id, history) == (bot_id, name)
    assert an.find_bot(name, history) == (bot_id, name)
    assert an.find_bot(name.upper(), history, store.bots) == (bot_id, name)


def test_find_bot_suggests_close_names(history: pl.DataFrame) -> None:
    _, name = _outside_top_20(history)
    with pytest.raises(an.BotNotFoundError, match="did you mean") as caught:
        an.find_bot(name[:-1] + "x", history)
    assert name in str(caught.value)
    with pytest.raises(an.BotNotFoundError, match="no bot named"):
        an.find_bot("zzzzzzzz", history)


def test_find_bot_finds_a_suspended_bot_through_its_profiles(store: an.Frames, history: pl.DataFrame) -> None:
    bots = store.bots.collect()
    suspended = bots.filter(pl.col("status") == "suspended")["bot_id"][0]
    name = bots.filter(pl.col("bot_id") == suspended)["name"][0]
    assert an.find_bot(name, history, store.bots) == (suspended, name)


def test_bot_history_covers_every_snapshot_with_percentile(store: an.Frames, history: pl.DataFrame) -> None:
    bot_id, _ = _outside_top_20(history)
    own = an.bot_history(history, bot_id, bots=store.bots)
    assert own.height == store.snapshot_count
    newest = own.tail(1).row(0, named=True)
    table = an.current_leaderboard(history).filter(pl.col("bot_id") == bot_id).row(0, named=True)
    assert newest["rank"] == table["rank"] and newest["rank"] > 20
    latest = history.filter(pl.col("snapshot_id") == newest["snapshot_id"])
    tied = latest.filter(pl.col("rank") == newest["rank"]).height
    assert newest["percentile"] == pytest.approx(
        (newest["ranked_bots"] - newest["rank"] - (tied - 1) / 2) / (newest["ranked_bots"] - 1)
    )
    assert own["total_solutions"].drop_nulls().len() == store.snapshot_count


def test_bot_summary_peak_time_in_top_and_changes(history: pl.DataFrame) -> None:
    leader = an.current_leaderboard(history, top=1).row(0, named=True)
    summary = an.bot_summary(history, leader["bot_id"])
    assert summary.rank == 1 and summary.peak_rank == 1 and summary.percentile == 1.0
    assert summary.time_in_top_n_s > 0
    assert summary.rank_changes["prev"] == leader["rank_change_prev"]
    assert summary.rank_changes["first"] == leader["rank_change_first"]
    own = an.bot_history(history, leader["bot_id"])
    assert summary.time_in_top_n_s == own.filter(pl.col("rank") <= 10)["held_s"].sum()


def test_bot_solutions_and_categories_next_to_the_median_bot(store: an.Frames, history: pl.DataFrame) -> None:
    bot_id, _ = _outside_top_20(history)
    solutions = an.bot_solutions(store.solutions, store.problems, bot_id)
    all_rows = store.solutions.collect().filter(pl.col("bot_id") == bot_id)
    assert solutions.height == all_rows.height > 0
    assert solutions["rank_percentile"].drop_nulls().is_between(0, 1).all()
    categories = an.bot_categories(store.solutions, store.problems, bot_id)
    assert categories["category"][0] == "all"
    assert categories["solutions"][0] == all_rows.height
    assert categories.filter(pl.col("category") != "all")["solutions"].sum() == all_rows.height
    assert categories["median_bot_percentile"].drop_nulls().is_between(0, 1).all()


def test_a_tied_bot_counts_half_in_the_percentile_whatever_the_listed_order() -> None:
    """Points 100, 90, 90, 80: ranks 1, 2, 2, 4; the tied pair listed the other way round next time."""
    times = pl.DataFrame(
        {"snapshot_id": [1, 2], "taken_at": [dt.datetime(2026, 1, d, tzinfo=dt.UTC) for d in (1, 2)]}
    )
    order = {1: ["a", "b", "c", "d"], 2: ["a", "c", "b", "d"]}
    points = {"a": 100, "b": 90, "c": 90, "d": 80}
    board = pl.DataFrame(
        [
            {
                "snapshot_id": sid,
                "rank": pos,
                "bot_id": bot,
                "name": bot,
                "points": points[bot],
                "elo": 1500.0,
            }
            for sid, bots in order.items()
            for pos, bot in enumerate(bots, start=1)
        ]
    )
    history = an.rank_history(board, times)
    for bot, rank, pct in (("a", 1, 1.0), ("b", 2, 0.5), ("c", 2, 0.5), ("d", 4, 0.0)):
        own = an.bot_history(history, bot)
        assert own["rank"].to_list() == [rank, rank], bot
        assert own["percentile"].to_list() == [pct, pct], bot
        assert own["tied"].to_list() == ([2, 2] if bot in "bc" else [1, 1])
        summary = an.bot_summary(history, bot)
        assert summary.rank_changes["prev"] == 0, "a tie swap is no move"
        assert summary.tied == (2 if bot in "bc" else 1)
