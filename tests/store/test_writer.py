"""The writer: typed columns + raw JSON, ranks, versions stored once, manifests carried over, changes."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from solvelens.analysis import diff
from solvelens.store import (
    IncompleteStagingError,
    StaleCarryoverError,
    latest_solution_state,
    read_frame,
    write_snapshot,
)
from solvelens.store.schema import INTERNAL
from solvelens.store.staging import StagingArea
from tests.store.fakes import BASE_URL, FakePlatform, make_platform, stage_run


def test_first_snapshot_holds_every_record_typed_and_raw(db: Path, platform: FakePlatform, tmp_path: Path):
    me = dict(platform.bots[3])
    result = write_snapshot(db, stage_run(tmp_path, platform, me=me, warnings=["problems: total mismatch"]))
    assert result.snapshot_id == 1
    assert result.counts == {
        "problems": 20,
        "solutions": 100,
        "categories": 8,
        "leaderboard": 10,
        "bots": 10,
        "platform_stats": 9,
        "bot_me": 1,
        "llm_leaderboard": 3,  # gpt-4o, claude-sonnet-4, unknown
        "llm_families": 3,  # gpt, claude, unknown
        "activity": 50,  # the feed's newest 50 of 100 events (first seen now)
        "comparisons": 0,  # no votes yet
    }
    assert result.warnings == ["problems: total mismatch"]

    snaps = read_frame(db, "SELECT * FROM snapshots")
    assert snaps["taken_at"].to_list() == [datetime(2026, 2, 1, tzinfo=UTC)]
    assert snaps["status"].to_list() == ["complete"]
    assert json.loads(snaps["counts"][0]) == result.counts
    assert json.loads(snaps["warnings"][0]) == ["problems: total mismatch"]

    problem = platform.problems[0]
    row = read_frame(db, "SELECT * FROM problems WHERE problem_id = ?", [problem["id"]]).row(0, named=True)
    assert row["title"] == problem["title"]
    assert row["author_type"] == problem["authorType"]
    assert row["solution_count"] == 5
    assert row["created_at"] == datetime(2026, 1, 15, 10, 30, tzinfo=UTC)
    assert json.loads(row["raw"]) == problem  # unknown fields (greenFlags, topSolution...) kept
    assert list(json.loads(row["raw"])) == list(problem)  # key order as sent

    sols = read_frame(db, "SELECT * FROM solutions WHERE problem_id = ? ORDER BY rank", [problem["id"]])
    assert sols["rank"].to_list() == [1, 2, 3, 4, 5]
    assert sols["solution_id"].to_list() == [s["id"] for s in platform.solutions[problem["id"]]]
    assert sols["score"].to_list() == [1500.0] * 5
    assert sols["bot_name"].to_list() == [s["botName"] for s in platform.solutions[problem["id"]]]

    board = read_frame(db, "SELECT rank, bot_id, points, elo FROM leaderboard ORDER BY rank")
    assert board["bot_id"].to_list() == [b["id"] for b in platform.ranked_bots()]
    assert board["points"].to_list() == [b["totalPoints"] for b in platform.ranked_bots()]
    assert board["elo"].to_list() == [1523.0] * 10

    cats = read_frame(db, "SELECT slug, name FROM categories ORDER BY slug")
    assert ("science_nature", "Science & Nature") in cats.rows()
    me_row = read_frame(db, "SELECT bot_id, name, total_points FROM bot_me").rows()
    assert me_row == [(me["id"], me["name"], me["totalPoints"])]
    stats = dict(read_frame(db, "SELECT metric, value FROM platform_stats").rows())
    assert stats["totalSolutions"] == 100.0


def test_unchanged_resnapshot_stores_no_new_versions(db: Path, platform: FakePlatform, tmp_path: Path):
    write_snapshot(db, stage_run(tmp_path, platform))
    # Full refetch: every record is staged again but matches a stored version.
    second = write_snapshot(db, stage_run(tmp_path, platform, taken_at="2026-02-02T00:00:00Z"))
    assert set(second.new_versions.values()) == {0}
    # Incremental: every problem carries its solution manifest over.
    carry = latest_solution_state(db, BASE_URL)
    assert len(carry) == 20
    third = write_snapshot(db, stage_run(tmp_path, platform, taken_at="2026-02-03T00:00:00Z", carry=carry))
    assert set(third.new_versions.values()) == {0}
    assert third.counts == second.counts
    assert diff(db, second.snapshot_id, third.snapshot_id).is_empty()  # what changed: analysis.diff's
    per_snapshot = read_frame(
        db, "SELECT snapshot_id, count(*) AS n, sum(score) AS s FROM solutions GROUP BY 1 ORDER BY 1"
    )
    assert per_snapshot["n"].to_list() == [100, 100, 100]
    assert per_snapshot["s"].n_unique() == 1
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute(f"SELECT count(*) FROM {INTERNAL}.solutions_versions").fetchall()[0][0] == 100
    assert (
        con.execute(f"SELECT count(DISTINCT manifest_id) FROM {INTERNAL}.solution_manifest_items").fetchall()[
            0
        ][0]
        == 20
    )
    con.close()


def test_changes_are_stored_as_new_versions_and_reported(db: Path, platform: FakePlatform, tmp_path: Path):
    write_snapshot(db, stage_run(tmp_path, platform))
    carry = latest_solution_state(db, BASE_URL)
    changed = platform.problems[2]
    platform.vote(changed)  # two solutions change score, the list is re-ranked
    platform.add_solution(platform.problems[5])
    new_problem = platform.add_problem(3)
    platform.bots[-1]["totalPoints"] = 5000  # the last bot jumps to rank 1
    result = write_snapshot(db, stage_run(tmp_path, platform, taken_at="2026-02-02T00:00:00Z", carry=carry))
    assert result.new_versions["solutions"] == 2 + 1 + 3
    assert result.new_versions["problems"] == 3
    changes = diff(db, 1, result.snapshot_id, min_move=1)  # what changed: analysis.diff's
    assert changes.problems_added["problem_id"].to_list() == [new_problem["id"]]
    assert changes.counts()["solutions_added"] == 4
    assert changes.rank_moves.height == 10
    top = changes.rank_moves.row(0, named=True)
    assert (top["name"], top["rank_before"], top["rank_after"]) == ("bot-009", 10, 1)
    ranks = read_frame(
        db,
        "SELECT snapshot_id, solution_id, rank, score FROM solutions WHERE problem_id = ? ORDER BY 1, rank",
        [changed["id"]],
    )
    second = ranks.filter(ranks["snapshot_id"] == 2)
    assert second["solution_id"].to_list() == [s["id"] for s in platform.solutions[changed["id"]]]
    assert second["score"].to_list()[0] == 1516.0
    assert ranks.filter(ranks["snapshot_id"] == 1)["score"].to_list() == [1500.0] * 5
    n = read_frame(
        db,
        "SELECT count(*) AS n FROM solutions WHERE snapshot_id = 2 AND problem_id = ?",
        [new_problem["id"]],
    )
    assert n["n"][0] == 3


def test_required_resources_missing_is_an_error_and_writes_nothing(
    db: Path, platform: FakePlatform, tmp_path: Path
):
    write_snapshot(db, stage_run(tmp_path, platform))
    with pytest.raises(IncompleteStagingError, match="categories"):
        write_snapshot(db, stage_run(tmp_path, platform, skip=("categories",)))
    assert read_frame(db, "SELECT count(*) AS n FROM snapshots")["n"][0] == 1


def test_stale_carryover_rolls_back(db: Path, tmp_path: Path):
    plat = make_platform(problems=3)
    write_snapshot(db, stage_run(tmp_path, plat))
    carry = {pid: (sc, cc, 12345) for pid, (sc, cc, _) in latest_solution_state(db, BASE_URL).items()}
    with pytest.raises(StaleCarryoverError, match="full refetch"):
        write_snapshot(db, stage_run(tmp_path, plat, carry=carry))
    assert read_frame(db, "SELECT count(*) AS n FROM snapshots")["n"][0] == 1
    # The next run starts cleanly.
    assert write_snapshot(db, stage_run(tmp_path, plat)).snapshot_id == 2


def test_drift_is_recorded_not_fatal(db: Path, platform: FakePlatform, tmp_path: Path):
    first = write_snapshot(db, stage_run(tmp_path, platform))
    assert first.drift == []
    platform.problems[0]["newField"] = {"a": 1}
    platform.problems[1]["solutionCount"] = "five"  # the platform changed a type
    for bot in platform.bots:
        del bot["globalElo"]  # a known field disappeared from the profiles
    result = write_snapshot(db, stage_run(tmp_path, platform, taken_at="2026-02-02T00:00:00Z"))
    drift = {(d["resource"], d["field"], d["change"]) for d in result.drift}
    assert ("problems", "newField", "added") in drift
    assert ("problems", "solutionCount", "type_changed") in drift
    assert ("bots", "globalElo", "missing") in drift
    assert ("leaderboard", "globalElo", "missing") not in drift  # the leaderboard rows still carry it
    stored = read_frame(db, "SELECT drift FROM snapshots WHERE snapshot_id = 2")["drift"][0]
    assert json.loads(stored) == result.drift
    row = read_frame(
        db,
        "SELECT solution_count, raw FROM problems WHERE snapshot_id = 2 AND problem_id = ?",
        [platform.problems[1]["id"]],
    ).row(0, named=True)
    assert row["solution_count"] is None  # not castable: NULL in the typed column ...
    assert json.loads(row["raw"])["solutionCount"] == "five"  # ... and kept in raw
    # The same shape again is not drift any more.
    again = write_snapshot(db, stage_run(tmp_path, platform, taken_at="2026-02-03T00:00:00Z"))
    assert [d for d in again.drift if d["change"] != "missing"] == []


def _stage_twice(area: StagingArea, table: str, row: int) -> None:
    """Stage one row of ``table`` a second time (a platform repeating an entry across pages)."""
    path = area.table_path(table)
    staged = pq.read_table(path)
    pq.write_table(pa.concat_tables([staged, staged.slice(row, 1)]), path)


def test_a_record_staged_twice_is_stored_once(db: Path, platform: FakePlatform, tmp_path: Path):
    # First snapshot: every staged bot is new, one of them staged twice.
    first = stage_run(tmp_path / "a", platform)
    _stage_twice(first, "bots", 0)
    result = write_snapshot(db, first)
    assert result.new_versions["bots"] == 10
    # Second snapshot: one bot changed (new) and staged twice, the others stored already.
    platform.bots[4]["totalPoints"] += 7
    second = stage_run(tmp_path / "b", platform, taken_at="2026-02-02T00:00:00Z")
    ids = [json.loads(r)["id"] for r in pq.read_table(second.table_path("bots")).column("raw").to_pylist()]
    _stage_twice(second, "bots", ids.index(platform.bots[4]["id"]))
    again = write_snapshot(db, second)
    assert again.new_versions["bots"] == 1
    con = duckdb.connect(str(db), read_only=True)
    try:  # SQL of this test: one stored version per distinct profile, none twice
        versions, distinct = con.execute(
            f"SELECT count(*), count(DISTINCT version_id) FROM {INTERNAL}.bots_versions"
        ).fetchall()[0]
        changed = con.execute(
            f"SELECT count(*) FROM {INTERNAL}.bots_versions WHERE bot_id = ?", [platform.bots[4]["id"]]
        ).fetchall()[0][0]
    finally:
        con.close()
    assert versions == distinct == 11
    assert changed == 2
