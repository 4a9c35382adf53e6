"""solvelens.store.canonical and the writer's tie rule: a problem or bot profile whose only change is which
of several tied solutions is on top keeps its version; a solution list staged in another tie order is the
same manifest; two bots tied on points listed the other way round are no leaderboard move."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import duckdb
import orjson
import polars as pl

from solvelens.analysis import diff
from solvelens.flows.ranks import competition_ranks
from solvelens.store import StagingArea, read_frame, read_store_meta, write_snapshot
from solvelens.store.canonical import tie_free_form
from solvelens.store.schema import INTERNAL, SCHEMA_VERSION
from solvelens.store.staging import version_key
from tests.store.fakes import FakePlatform, make_platform, stage_run


def _key(record: dict[str, Any]) -> int:
    return version_key(tie_free_form(orjson.dumps(record)))


def test_which_tied_solution_is_on_top_is_not_part_of_the_key() -> None:
    a = {"id": "p", "solutionCount": 2, "topSolution": {"text": "A", "btScore": 1500.0, "botName": "x"}}
    b = {"id": "p", "solutionCount": 2, "topSolution": {"text": "B", "btScore": 1500.0, "botName": "y"}}
    assert _key(a) == _key(b)
    higher = copy.deepcopy(b)
    higher["topSolution"]["btScore"] = 1516.0
    assert _key(higher) != _key(a), "a new score at the top is a new version"
    more = copy.deepcopy(b)
    more["solutionCount"] = 3
    assert _key(more) != _key(a), "anything else still counts"
    bot = {
        "id": "b",
        "totalPoints": 10,
        "topSolutions": [{"id": "1", "btScore": 1500}, {"id": "2", "btScore": 1500}],
    }
    swapped = {**bot, "topSolutions": list(reversed(bot["topSolutions"]))}
    assert _key(bot) == _key(swapped)


def test_unknown_shapes_are_keyed_whole() -> None:
    plain = b'{"id":"p","title":"t"}'
    assert tie_free_form(plain) is plain
    no_score = {"id": "p", "topSolution": {"text": "A"}}
    other = {"id": "p", "topSolution": {"text": "B"}}
    assert _key(no_score) != _key(other), "without a score a tie cannot be recognised"
    assert tie_free_form(b'["topSolution"]') == b'["topSolution"]'
    assert _key({"id": "p", "topSolution": None}) != _key({"id": "p"})


def _tied_platform() -> FakePlatform:
    """Problem 0 has scores 1600, 1550, 1550, 1500, 1500; bots 0 and 1 tie on points."""
    plat = make_platform(problems=3, solutions_per_problem=5, bots=4)
    for sol, score in zip(
        plat.solutions[plat.problems[0]["id"]], [1600, 1550, 1550, 1500, 1500], strict=True
    ):
        sol["btScore"] = float(score)
    plat.problems[0]["topSolution"] = {"text": "first", "btScore": 1600.0, "botName": "bot-000"}
    plat.problems[1]["topSolution"] = {"text": "tied A", "btScore": 1500.0, "botName": "bot-001"}
    plat.bots[1]["totalPoints"] = plat.bots[0]["totalPoints"]
    return plat


def _stage(tmp_path: Path, plat: FakePlatform, taken_at: str) -> StagingArea:
    """Stage as the fetch step does: competition ranks over btScore, in the list order of ``plat``."""
    area = stage_run(tmp_path, plat, taken_at=taken_at)
    with area.writer("solutions") as sink:
        for p in plat.problems:
            sols = copy.deepcopy(plat.solutions[p["id"]])
            ranks, by_score = competition_ranks(sols)
            assert by_score
            sink.append(problem_id=[p["id"]] * len(sols), rank=ranks, raw=sols)
    return area


def test_a_tie_listed_in_another_order_is_the_same_snapshot(db: Path, tmp_path: Path) -> None:
    plat = _tied_platform()
    first = write_snapshot(db, _stage(tmp_path, plat, "2026-02-01T00:00:00Z"))
    pid = plat.problems[0]["id"]
    sols = plat.solutions[pid]
    sols[1], sols[2] = sols[2], sols[1]  # the two at 1550
    sols[3], sols[4] = sols[4], sols[3]  # the two at 1500
    plat.problems[1]["topSolution"] = {"text": "tied B", "btScore": 1500.0, "botName": "bot-002"}
    plat.bots[0], plat.bots[1] = plat.bots[1], plat.bots[0]  # listed the other way round on the leaderboard
    second = write_snapshot(db, _stage(tmp_path, plat, "2026-02-02T00:00:00Z"))
    assert second.new_versions == {k: 0 for k in second.new_versions}
    manifests = read_frame(
        db, f"SELECT count(DISTINCT manifest_id) AS n FROM {INTERNAL}.solution_manifest_items"
    )
    assert manifests["n"][0] == 3
    tie_swap = diff(db, first.snapshot_id, second.snapshot_id, min_move=1)  # what changed: the one diff
    assert tie_swap.is_empty(), "a tie swap is no change: no top changing hands, no leaderboard move"
    ranks = read_frame(
        db, "SELECT snapshot_id, rank FROM solutions WHERE problem_id = ? ORDER BY snapshot_id, rank", [pid]
    )
    assert ranks.filter(ranks["snapshot_id"] == first.snapshot_id)["rank"].to_list() == [1, 2, 2, 4, 4]
    assert ranks.filter(ranks["snapshot_id"] == second.snapshot_id)["rank"].to_list() == [1, 2, 2, 4, 4]
    # a real move still counts: bot 3 gains enough points to lead
    plat.bots[3]["totalPoints"] = 10_000
    third = write_snapshot(db, _stage(tmp_path, plat, "2026-02-03T00:00:00Z"))
    moves = diff(db, second.snapshot_id, third.snapshot_id, min_move=1).rank_moves
    assert moves.height == 4  # 4 -> 1; the tied pair 1 -> 2; 3 -> 4
    top = moves.row(0, named=True)
    assert (top["rank_before"], top["rank_after"]) == (4, 1)


def test_a_store_with_position_ranks_gets_competition_ranks_on_the_next_write(
    db: Path, platform: FakePlatform, tmp_path: Path
) -> None:
    """Written before ties were recognised (schema 2): positions 1..5 for five solutions all at 1500."""
    first = write_snapshot(db, stage_run(tmp_path, platform))  # the fakes stage positions
    unscored = platform.problems[1]["id"]
    con = duckdb.connect(str(db))
    try:
        con.execute(f"UPDATE {INTERNAL}.meta SET value = '2' WHERE key = 'schema_version'")
        con.execute(  # one list has a solution without a score: it keeps its positions
            f"""UPDATE {INTERNAL}.solutions_versions SET score = NULL
                WHERE solution_id = '{platform.solutions[unscored][0]["id"]}'"""
        )
    finally:
        con.close()
    before = read_frame(db, "SELECT problem_id, rank FROM solutions ORDER BY problem_id, rank")
    assert before.filter(pl.col("problem_id") == platform.problems[0]["id"])["rank"].to_list() == [
        1,
        2,
        3,
        4,
        5,
    ]
    write_snapshot(db, stage_run(tmp_path, platform, taken_at="2026-02-02T00:00:00Z"))
    old = read_frame(db, "SELECT problem_id, rank FROM solutions WHERE snapshot_id = ?", [first.snapshot_id])
    per_problem = old.group_by("problem_id").agg(pl.col("rank").sort())
    ranks = {r["problem_id"]: r["rank"] for r in per_problem.iter_rows(named=True)}
    assert ranks.pop(unscored) == [1, 2, 3, 4, 5]
    assert all(r == [1, 1, 1, 1, 1] for r in ranks.values()), "all tied at 1500: all share rank 1"
    assert read_store_meta(db)["schema_version"] == str(SCHEMA_VERSION)
