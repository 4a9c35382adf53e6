"""load_bot (one bot's rows read in DuckDB) gives the figures the full load gives: the bot's standing
(competition rank with ties, ranked bots, tied count), its profiles and the whole page, for every bot of a
synthetic history in the store's real format (tests/fixtures/history.py: bots tie on points), its list
positions made distinct (a tie listed at consecutive positions, as the platform lists it) and the newest
list reversed (not ordered by points: rank is the position); some bots list no points."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import duckdb
import polars as pl
import pytest
from polars.testing import assert_frame_equal

from solvelens import analysis as an
from solvelens.report import bot_page, bot_page_content
from solvelens.report.html import render_bot_html
from solvelens.store.schema import INTERNAL, LEADERBOARD, LINKS
from tests.fixtures.history import build_history

NOW = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("load-bot")
    path = build_history(folder / "history.duckdb", days=2, per_day=6, bots=30, problems=10)
    with duckdb.connect(str(path)) as con:
        con.execute(
            f"""UPDATE {LINKS} l SET rank = p.position FROM (
                    SELECT snapshot_id, version_id,
                        CASE WHEN snapshot_id = (SELECT max(snapshot_id) FROM {LINKS})
                        THEN row_number() OVER (PARTITION BY snapshot_id ORDER BY rank DESC, version_id)
                        ELSE row_number() OVER (PARTITION BY snapshot_id ORDER BY rank, version_id)
                        END AS position
                    FROM {LINKS} WHERE resource = {LEADERBOARD.code}) p
                WHERE l.resource = {LEADERBOARD.code} AND l.snapshot_id = p.snapshot_id
                    AND l.version_id = p.version_id"""
        )
        # Some bots list no points (a null between equal points breaks their tie).
        con.execute(
            f"UPDATE {INTERNAL}.leaderboard_versions SET points = NULL "
            "WHERE hash(bot_id) % 7 = 0 AND bot_id <> (SELECT min(bot_id) FROM "
            f"{INTERNAL}.leaderboard_versions)"
        )
    return path


def test_standing_and_page_equal_the_full_loads(store: Path) -> None:
    frames = an.load(store)
    drawn = frames.points.drawn(frames.snapshots.collect()) if frames.points else frames.snapshots.collect()
    history = an.leaderboard_history(frames.leaderboard, drawn)
    newest = history.filter(pl.col("snapshot_id") == history["snapshot_id"].max())
    assert newest["points"].is_duplicated().any()  # the reversed snapshot has ties
    assert history.group_by("snapshot_id", "rank").len()["len"].max() > 1  # and others share a rank
    assert history["points"].null_count()
    for bot_id in history["bot_id"].unique().sort():
        bot = an.load_bot(store, bot_id)
        assert bot.bot_id == bot_id
        assert_frame_equal(bot.standing, an.bot_standing(history, bot_id))
        full = render_bot_html(bot_page_content(frames, bot_id, now=NOW))
        assert render_bot_html(bot_page(bot, now=NOW)) == full, bot_id


def test_found_by_name_ignoring_case_and_unknown_names_close_matches(store: Path) -> None:
    frames = an.load(store)
    bot_id, name = frames.leaderboard.select("bot_id", "name").collect().row(0)
    assert (an.load_bot(store, name.upper()).bot_id, an.load_bot(store, name.upper()).name) == (bot_id, name)
    with pytest.raises(an.BotNotFoundError, match=r"did you mean: .*Bot 1"):
        an.load_bot(store, "Bot 1x")
    assert an.load_bot(store, f" {bot_id} ").bot_id == bot_id


def test_the_stored_competition_ranks_give_the_full_loads_standing(tmp_path: Path) -> None:
    """A store as the writer leaves it (competition ranks stored, every bot with points): load_bot reads the
    ranks as stored instead of ranking each snapshot, and gives the same standing, ties included."""
    store = build_history(tmp_path / "plain.duckdb", days=1, per_day=6, bots=15, problems=5)
    frames = an.load(store)
    history = an.leaderboard_history(frames.leaderboard, frames.snapshots)
    assert history.group_by("snapshot_id", "rank").len()["len"].max() > 1  # bots share a rank
    assert not history["points"].null_count()
    for bot_id in history["bot_id"].unique().sort():
        assert_frame_equal(an.load_bot(store, bot_id).standing, an.bot_standing(history, bot_id))
