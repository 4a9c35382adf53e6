"""``solvelens.analysis.diff`` on generated stores (tests/fixtures/store.py): the pair it picks, its
definitions, agreement with the report's movers, and its errors. The sandbox driven through each kind of
change is tests/analysis/test_diff_sandbox.py."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import polars as pl
import pytest

from solvelens import analysis as an
from solvelens.analysis.diff import FRAMES, choose_pair, new_bots, problem_changes, top_solution_changes
from solvelens.analysis.pick import SnapshotSelectionError


def test_a_snapshot_diffed_with_itself_is_empty(store_db: Path):
    newest = an.read_snapshots(store_db)["snapshot_id"][-1]
    result = an.diff(store_db, int(newest), int(newest))
    assert result.is_empty()
    assert result.counts() == dict.fromkeys(FRAMES, 0)
    assert result.changes().is_empty()


def test_the_default_pair_is_the_two_newest_snapshots(store_db: Path):
    ids = an.read_snapshots(store_db)["snapshot_id"].to_list()
    result = an.diff(store_db)
    assert (result.a.snapshot_id, result.b.snapshot_id) == (ids[-2], ids[-1])
    assert not result.is_empty()
    # one positional: A; B defaults to the newest
    assert an.diff(store_db, ids[0]).b.snapshot_id == ids[-1]


def test_a_duration_names_the_same_baseline_as_the_report(store_db: Path):
    store = an.load(store_db)
    history = an.rank_history(store.leaderboard, store.snapshots)
    refs = an.reference_snapshots(history)
    assert an.diff(store_db, "7d").a.snapshot_id == refs["7d"]


def test_rank_moves_agree_with_the_movers_table(store_db: Path):
    store = an.load(store_db)
    history = an.rank_history(store.leaderboard, store.snapshots)
    movers = an.top_movers(history, n=100)
    refs = an.reference_snapshots(history)
    result = an.diff(store, refs["7d"], min_move=1, top_n=10)
    moves = result.rank_moves.select("bot_id", "rank_before", "rank_after", "move")
    expected = movers.select("bot_id", rank_before="rank_start", rank_after="rank_end", move="rank_change")
    assert moves.height == expected.height > 0
    assert moves.sort("bot_id").equals(expected.sort("bot_id"))
    # the table's "vs 7 days" column is the same change for every bot ranked at both
    table = an.current_leaderboard(history).filter(pl.col("rank_7d").is_not_null())
    by_bot = dict(zip(table["bot_id"], table["rank_change_7d"], strict=True))
    all_moves = an.diff(store, refs["7d"], min_move=1, top_n=10).rank_moves
    assert all(by_bot[b] == m for b, m in all_moves.select("bot_id", "move").iter_rows())


def test_min_move_and_top_n_filter(store_db: Path):
    wide = an.diff(store_db, "7d", min_move=1)
    narrow = an.diff(store_db, "7d", min_move=3)
    assert narrow.rank_moves.height <= wide.rank_moves.height
    assert (narrow.rank_moves["move"].abs() >= 3).all()
    top3 = an.diff(store_db, 1, top_n=3)
    for row in top3.top_entered.iter_rows(named=True):
        assert row["rank_after"] <= 3 and (row["rank_before"] is None or row["rank_before"] > 3)
    for row in top3.top_left.iter_rows(named=True):
        assert row["rank_before"] <= 3 and (row["rank_after"] is None or row["rank_after"] > 3)


def test_as_json_and_changes_hold_every_change(store_db: Path):
    result = an.diff(store_db, "7d")
    data = json.loads(json.dumps(result.as_json()))
    assert data["a"]["snapshot_id"] == result.a.snapshot_id and data["b"]["taken_at"].endswith("Z")
    assert data["counts"] == result.counts()
    assert all(len(data[name]) == n for name, n in result.rows().items())
    long = result.changes()
    assert long.columns == ["kind", "id", "name", "before", "after", "change"]
    assert long.height == sum(result.rows().values())


def test_problem_changes_on_hand_made_rows():
    rows = pl.DataFrame(
        {
            "snapshot_id": [1, 1, 1, 2, 2, 2],
            "problem_id": ["p1", "p2", "p3", "p1", "p2", "p4"],
            "title": ["one", "two", "three", "one", "two", "four"],
            "status": ["pending", "active", "pending", "active", "mature", "pending"],
            "category": ["x"] * 6,
            "solution_count": [0, 3, 0, 2, 4, 1],  # p2's count says 4 at snapshot 2, its list holds 3
            "listed_solutions": [0, 3, 0, 2, 3, 1],
        }
    )
    out = problem_changes(rows, 1, 2)
    assert out["problems_added"]["problem_id"].to_list() == ["p4"]
    assert out["problems_removed"].select("problem_id", "status").rows() == [("p3", "pending")]
    assert sorted(out["status_changes"].select("problem_id", "before", "after").rows()) == [
        ("p1", "pending", "active"),
        ("p2", "active", "mature"),
    ]
    assert sorted(out["solutions_added"].select("problem_id", "added").rows()) == [("p1", 2), ("p4", 1)]


def test_top_solution_changes_hands_only_when_no_holder_stays():
    top = pl.DataFrame(
        {
            "snapshot_id": [1, 2, 1, 2, 2, 1, 1, 2],
            "problem_id": ["p1", "p1", "p2", "p2", "p2", "p3", "p3", "p3"],
            "solution_id": ["s1", "s2", "s3", "s3", "s4", "s5", "s6", "s6"],
            "bot_id": ["x", "y", "x", "x", "y", "x", "y", "y"],
            "bot_name": ["bx", "by", "bx", "bx", "by", "bx", "by", "by"],
            "score": [1510.0, 1520.0, 1500.0, 1500.0, 1500.0, 1500.0, 1500.0, 1530.0],
            "rank": [1] * 8,
        }
    )
    problems = pl.DataFrame(
        {"snapshot_id": [2, 2, 2], "problem_id": ["p1", "p2", "p3"], "title": ["a", "b", "c"]}
    )
    out = top_solution_changes(top, problems, 1, 2)
    # p1: x -> y (changed hands); p2: x -> x and y tied (x keeps it); p3: x and y tied -> y alone (y kept it)
    assert out.select("problem_id", "before_bot", "after_bot").rows() == [("p1", "bx", "by")]


def test_new_bots_are_those_unseen_at_a():
    bots = pl.DataFrame(
        {"snapshot_id": [2, 2], "bot_id": ["old", "new"], "name": ["o", "n"], "status": ["active"] * 2}
    )
    board = pl.DataFrame({"snapshot_id": [1], "bot_id": ["old"]})
    history_b = pl.DataFrame(
        {"bot_id": ["new", "old"], "name": ["n", "o"], "rank": [1, 2], "points": [10, 5]},
        schema_overrides={"rank": pl.Int32},
    )
    out = new_bots(bots, board, history_b, 1)
    assert out.select("bot_id", "rank_after", "points_after").rows() == [("new", 1, 10)]


@pytest.mark.parametrize(
    ("a", "b", "needle"),
    [
        (99999, None, "no complete snapshot #99999"),
        ("2020-01-01", None, "no snapshot at or before 2020-01-01"),
        ("yesterday-ish", None, "names no snapshot"),
        ("400d", None, "the platform's first snapshot is"),
    ],
)
def test_bad_selections_name_the_fix(store_db: Path, a, b, needle):
    with pytest.raises(SnapshotSelectionError, match=needle):
        an.diff(store_db, a, b)


def test_one_snapshot_only_is_bad_input(single_snapshot_store_db: Path):
    with pytest.raises(SnapshotSelectionError, match="only this one snapshot"):
        an.diff(single_snapshot_store_db)


def test_times_pick_the_newest_snapshot_at_or_before(store_db: Path):
    every = an.read_snapshots(store_db)
    third = every.row(2, named=True)
    when = third["taken_at"] + dt.timedelta(minutes=1)
    _, a, b = choose_pair(every, when.isoformat(), None)
    assert a.snapshot_id == third["snapshot_id"] and b.snapshot_id == every["snapshot_id"][-1]
    _, a, _ = choose_pair(every, third["taken_at"].date().isoformat(), None)
    assert a.taken_at.date() == third["taken_at"].date()


def test_a_loaded_store_lends_its_drawn_rows_and_gives_the_same_diff(store_db: Path):
    """The diff of a loaded :class:`Frames` takes ``leaderboard`` and ``bots`` from memory when both
    snapshots are drawn, and reads them from the file otherwise: the same diff either way."""
    from dataclasses import replace

    from solvelens.analysis.diff import _held_rows
    from solvelens.analysis.points import HistoryPoints

    store = an.load(store_db)
    ids = store.snapshots.collect().sort("taken_at")["snapshot_id"].to_list()
    a, b = ids[0], ids[-1]
    held = _held_rows(store, a, b)
    assert set(held) == {"leaderboard", "bots"} and set(held["bots"]["snapshot_id"]) == {a, b}
    assert an.diff(store, a, b, min_move=1).as_json() == an.diff(store_db, a, b, min_move=1).as_json()
    newest_only = replace(store, points=HistoryPoints(pl.Series("snapshot_id", [b]), complete=False))
    assert _held_rows(newest_only, a, b) == {}
    assert an.diff(newest_only, a, b, min_move=1).as_json() == an.diff(store_db, a, b, min_move=1).as_json()
