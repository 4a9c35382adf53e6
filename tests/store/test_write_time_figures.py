"""Figures fixed once a snapshot is written, computed by the writer (issues 29 and 30): the leaderboard's
competition ranks over points, and the per-snapshot model counts; a store of schema version 4 gets both for
its old snapshots from the migration. Checked with SQL written here against the store's own rows."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb

from solvelens.store import latest_solution_state, open_readonly, write_snapshot
from solvelens.store.schema import INTERNAL, LEADERBOARD, LINKS
from tests.store.fakes import BASE_URL, FakePlatform, stage_run


def _tie(platform: FakePlatform) -> None:
    """Bots 1, 2 and 3 tie on 995 points (list positions 2, 3, 4; competition ranks 2, 2, 2)."""
    for bot in platform.bots[1:4]:
        bot["totalPoints"] = 995


def _expected_ranks(con: duckdb.DuckDBPyConnection) -> list[tuple[int, str, int]]:
    """(snapshot_id, bot_id, 1 + bots of the snapshot with strictly more points)."""
    return con.execute(
        """SELECT a.snapshot_id, a.bot_id,
                  1 + (SELECT count(*) FROM leaderboard b
                       WHERE b.snapshot_id = a.snapshot_id AND b.points > a.points)
           FROM leaderboard a ORDER BY ALL"""
    ).fetchall()


def _ranks(con: duckdb.DuckDBPyConnection) -> list[tuple[int, str, int]]:
    return con.execute("SELECT snapshot_id, bot_id, rank FROM leaderboard ORDER BY ALL").fetchall()


def test_bots_tied_on_points_share_their_competition_rank(db: Path, platform: FakePlatform, tmp_path: Path):
    _tie(platform)
    write_snapshot(db, stage_run(tmp_path, platform))
    with open_readonly(db) as con:
        ranks = _ranks(con)
        assert ranks == _expected_ranks(con)
        tied = {r[2] for r in ranks if r[1] in {b["id"] for b in platform.bots[1:4]}}
    assert tied == {2}


def _make_v4(db: Path) -> None:
    """Undo what schema version 5 adds: list positions as leaderboard ranks, no model counts."""
    con = duckdb.connect(str(db))
    try:
        con.execute(
            f"""UPDATE {LINKS} AS l SET rank = p.position FROM (
                    SELECT snapshot_id, version_id, row_number() OVER (
                        PARTITION BY snapshot_id ORDER BY rank, version_id) AS position
                    FROM {LINKS} WHERE resource = {LEADERBOARD.code}) p
                WHERE l.resource = {LEADERBOARD.code} AND l.snapshot_id = p.snapshot_id
                  AND l.version_id = p.version_id"""
        )
        con.execute(f"DROP TABLE IF EXISTS {INTERNAL}.model_counts")
        con.execute(f"UPDATE {INTERNAL}.meta SET value = '4' WHERE key = 'schema_version'")
    finally:
        con.close()


def test_the_migration_gives_old_snapshots_competition_ranks_and_model_counts(
    db: Path, platform: FakePlatform, tmp_path: Path
):
    _tie(platform)
    write_snapshot(db, stage_run(tmp_path, platform))
    _make_v4(db)
    with open_readonly(db) as con:
        assert _ranks(con) != _expected_ranks(con)  # positions 2, 3, 4 before the migration
    write_snapshot(db, stage_run(tmp_path, platform, taken_at="2026-02-02T00:00:00Z"))
    with open_readonly(db) as con:
        assert _ranks(con) == _expected_ranks(con)
        stored = con.execute(
            f"SELECT snapshot_id, llm_model, solutions FROM {INTERNAL}.model_counts ORDER BY ALL"
        ).fetchall()
        counted = con.execute(
            "SELECT snapshot_id, coalesce(llm_model, 'unknown'), count(*) FROM solutions "
            "GROUP BY ALL ORDER BY ALL"
        ).fetchall()
    assert stored == counted and {r[0] for r in stored} == {1, 2}


def test_model_counts_are_written_with_the_snapshot(db: Path, platform: FakePlatform, tmp_path: Path):
    write_snapshot(db, stage_run(tmp_path, platform))
    with open_readonly(db) as con:
        stored = con.execute(
            f"""SELECT llm_model, solutions, contested_solutions, round(percentile_sum::DOUBLE, 9),
                       round(top1::DOUBLE, 9), round(top3::DOUBLE, 9)
                FROM {INTERNAL}.model_counts ORDER BY llm_model"""
        ).fetchall()
        # Independent SQL: per problem n solutions; a solution's percentile (n - rank - (t - 1) / 2) / (n - 1)
        # with t solutions sharing its rank; top-k credit: positions rank..rank+t-1 within k, shared by t.
        expected = con.execute(
            """WITH s AS (SELECT coalesce(a.llm_model, 'unknown') AS m, a.rank,
                   (SELECT count(*) FROM solutions b WHERE b.snapshot_id = a.snapshot_id
                       AND b.problem_id = a.problem_id) AS n,
                   (SELECT count(*) FROM solutions b WHERE b.snapshot_id = a.snapshot_id
                       AND b.problem_id = a.problem_id AND b.rank = a.rank) AS t
                   FROM solutions a)
               SELECT m, count(*), count(*) FILTER (WHERE n >= 2),
                   round(coalesce(sum((n - rank - (t - 1) / 2.0) / (n - 1)) FILTER (WHERE n >= 2), 0), 9),
                   round(coalesce(sum(CASE WHEN rank <= 1 THEN (least(1, rank + t - 1) - rank + 1) / t
                                       ELSE 0 END) FILTER (WHERE n >= 2), 0), 9),
                   round(coalesce(sum(CASE WHEN rank <= 3 THEN (least(3, rank + t - 1) - rank + 1) / t
                                       ELSE 0 END) FILTER (WHERE n >= 2), 0), 9)
               FROM s GROUP BY m ORDER BY m"""
        ).fetchall()
    assert stored == expected and stored


def _model_figures(con: duckdb.DuckDBPyConnection, table: str) -> list[tuple[Any, ...]]:
    """(snapshot_id, model, solutions, contested, percentile sum, top-1, top-3 credits; sums to 9 places) per
    snapshot and model of ``table``: the stored ``model_counts`` or the independent SQL over ``solutions``."""
    return con.execute(
        f"""SELECT snapshot_id, llm_model, solutions, contested_solutions, round(percentile_sum::DOUBLE, 9),
                   round(top1::DOUBLE, 9), round(top3::DOUBLE, 9)
            FROM {table} ORDER BY snapshot_id, llm_model"""
    ).fetchall()


#: Independent SQL: per snapshot and problem n solutions; a solution's percentile (n - rank - (t - 1) / 2) /
#: (n - 1) with t solutions sharing its rank; top-k credit: positions rank..rank+t-1 within k, shared by t.
_EXPECTED_MODEL_COUNTS = """(
    WITH s AS (SELECT a.snapshot_id, coalesce(a.llm_model, 'unknown') AS m, a.rank,
                      (SELECT count(*) FROM solutions b WHERE b.snapshot_id = a.snapshot_id
                          AND b.problem_id = a.problem_id) AS n,
                      (SELECT count(*) FROM solutions b WHERE b.snapshot_id = a.snapshot_id
                          AND b.problem_id = a.problem_id AND b.rank = a.rank) AS t
               FROM solutions a)
    SELECT snapshot_id, m AS llm_model, count(*) AS solutions,
           count(*) FILTER (WHERE n >= 2) AS contested_solutions,
           coalesce(sum((n - rank - (t - 1) / 2.0) / (n - 1)) FILTER (WHERE n >= 2), 0) AS percentile_sum,
           coalesce(sum(CASE WHEN rank <= 1 THEN (least(1, rank + t - 1) - rank + 1) / t ELSE 0 END)
                    FILTER (WHERE n >= 2), 0) AS top1,
           coalesce(sum(CASE WHEN rank <= 3 THEN (least(3, rank + t - 1) - rank + 1) / t ELSE 0 END)
                    FILTER (WHERE n >= 2), 0) AS top3
    FROM s GROUP BY ALL)"""


def test_model_counts_stay_those_of_each_snapshots_lists_as_lists_change(
    db: Path, platform: FakePlatform, tmp_path: Path
):
    """Snapshots whose lists are carried over, grow, reorder, vanish and lose every solution of a model:
    each snapshot's stored model counts are those of its own solution lists."""
    write_snapshot(db, stage_run(tmp_path, platform))
    carry = latest_solution_state(db, BASE_URL)
    write_snapshot(db, stage_run(tmp_path, platform, taken_at="2026-02-02T00:00:00Z", carry=carry))
    for problem in platform.problems[:3]:
        platform.add_solution(problem)
    platform.solutions[platform.problems[3]["id"]].reverse()
    platform.problems[3]["comparisonCount"] += 1  # its list is read again, in the new order
    platform.problems.pop(4)
    platform.add_problem(4)
    carry = latest_solution_state(db, BASE_URL)
    write_snapshot(db, stage_run(tmp_path, platform, taken_at="2026-02-03T00:00:00Z", carry=carry))
    for problem in platform.problems:  # every gpt-4o solution withdrawn: the model has no row after
        kept = [s for s in platform.solutions[problem["id"]] if s["llmModel"] != "gpt-4o"]
        problem["solutionCount"] = len(kept)
        platform.solutions[problem["id"]] = kept
    carry = latest_solution_state(db, BASE_URL)
    write_snapshot(db, stage_run(tmp_path, platform, taken_at="2026-02-04T00:00:00Z", carry=carry))
    with open_readonly(db) as con:
        stored = _model_figures(con, f"{INTERNAL}.model_counts")
        expected = _model_figures(con, _EXPECTED_MODEL_COUNTS)
    assert stored == expected
    assert {r[0] for r in stored} == {1, 2, 3, 4} and not [r for r in stored if r[:2] == (4, "gpt-4o")]
    assert [r for r in stored if r[1] == "gpt-4o" and r[0] < 4]  # it had rows before
