"""solvelens.flows.ranks and the tie rule end to end: over real HTTP, a sandbox that orders tied scores at
random on every call (``--tie-order shuffle``, as the real platform does) is snapshotted again and again with
nothing changed: no new version of anything, no new solution manifest, no rank move. A hand-built problem
(scores 1600, 1550, 1550, 1500) is stored with ranks 1, 2, 2, 4 and every measure follows the tie rule."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import polars as pl
import pytest

from solvelens import analysis as an
from solvelens.flows.ranks import competition_ranks, unscored_warning
from solvelens.flows.steps import SnapshotPlan, run_snapshot
from solvelens.report.bot import _solution_rows
from solvelens.sandbox.ids import IdCodec
from solvelens.sandbox.process import SandboxServer
from solvelens.store import read_frame

SEED = 0


def _scores(*values: Any) -> list[dict[str, Any]]:
    return [{"id": f"s{i}", "btScore": v} for i, v in enumerate(values)]


def test_competition_ranks_share_the_best_rank_in_any_order() -> None:
    assert competition_ranks(_scores(9, 7, 7, 5)) == ([1, 2, 2, 4], True)
    assert competition_ranks(_scores(7, 5, 9, 7)) == ([2, 4, 1, 2], True), "aligned with the input"
    assert competition_ranks(_scores(1500.0, 1500.0, 1500.0)) == ([1, 1, 1], True)
    assert competition_ranks(_scores(1500, 1500.0)) == ([1, 1], True), "1500 and 1500.0 are one score"
    assert competition_ranks([]) == ([], True)


def test_a_list_without_numeric_scores_keeps_positions_and_says_so() -> None:
    for bad in (None, "1500", True, float("nan")):
        assert competition_ranks(_scores(9, bad, 7)) == ([1, 2, 3], False)
    assert competition_ranks([{"id": "a"}, {"id": "b"}]) == ([1, 2], False)
    line = unscored_warning(["p1", "p2"])
    assert "2 problems" in line and "/problems/p1/solutions" in line and "positions" in line


def _hand_built_platform(path: Path) -> dict[str, Any]:
    """A small platform (seed 0) with one problem scored 1600, 1550, 1550, 1500, ... and one whose two best
    solutions tie (its ``topSolution`` switches between them); returns their public ids."""
    from solvelens.sandbox.generate import build_platform

    build_platform(path, seed=SEED, scale="small")
    codec = IdCodec(SEED)
    con = sqlite3.connect(path)
    try:
        by_size = con.execute(
            "SELECT problem_id FROM solutions s JOIN problems p ON p.id = s.problem_id "
            "WHERE p.status != 'rejected' GROUP BY problem_id HAVING count(*) >= 4 ORDER BY count(*) DESC, "
            "problem_id LIMIT 2"
        ).fetchall()
        (four,), (top_tie,) = by_size
        ids = [
            r[0] for r in con.execute("SELECT id FROM solutions WHERE problem_id = ? ORDER BY id", (four,))
        ]
        scores = [1600.0, 1550.0, 1550.0, 1500.0] + [1400.0 - i for i in range(len(ids) - 4)]
        con.executemany("UPDATE solutions SET bt_score = ? WHERE id = ?", list(zip(scores, ids, strict=True)))
        best = [
            r[0] for r in con.execute("SELECT id FROM solutions WHERE problem_id = ? ORDER BY id", (top_tie,))
        ]
        con.executemany("UPDATE solutions SET bt_score = 1700.0 WHERE id = ?", [(best[0],), (best[1],)])
        con.commit()
    finally:
        con.close()
    return {
        "four": codec.encode("problem", four),
        "four_solutions": [codec.encode("solution", i) for i in ids],
        "top_tie": codec.encode("problem", top_tie),
    }


@pytest.fixture
def shuffled(
    make_sandbox: Callable[..., SandboxServer], tmp_path: Path
) -> tuple[SandboxServer, dict[str, Any]]:
    """The hand-built platform served with ``tie_order="shuffle"``."""
    path = tmp_path / "ties.sqlite"
    ids = _hand_built_platform(path)
    return make_sandbox(db_path=path, tie_order="shuffle"), ids


def _orders(server: SandboxServer, path: str, key: Callable[[Any], Any], calls: int = 30) -> set[Any]:
    with httpx.Client(base_url=server.base_url, timeout=10) as client:
        return {key(client.get(path).json()) for _ in range(calls)}


def test_the_sandbox_shuffles_ties_on_every_call(shuffled: tuple[SandboxServer, dict[str, Any]]) -> None:
    server, ids = shuffled
    orders = _orders(
        server, f"/problems/{ids['four']}/solutions", lambda b: tuple(s["id"] for s in b["solutions"])
    )
    assert len(orders) == 2, "the two solutions tied at 1550 come back in both orders"
    assert {o[0] for o in orders} == {ids["four_solutions"][0]} and len({o[3] for o in orders}) == 1
    tops = _orders(server, f"/problems/{ids['top_tie']}", lambda b: b["topSolutions"][0]["id"])
    assert len(tops) == 2, "the problem's best solution switches between the two tied at 1700"


def _manifests(db: Path) -> int:
    return int(
        read_frame(
            db, "SELECT count(DISTINCT manifest_id) AS n FROM solvelens_store.solution_manifest_items"
        )["n"][0]
    )


def _ranks(db: Path, sid: int) -> set[tuple[str, str, int]]:
    frame = read_frame(db, "SELECT problem_id, solution_id, rank FROM solutions WHERE snapshot_id = ?", [sid])
    return set(frame.iter_rows())


def test_a_re_snapshot_of_shuffled_ties_changes_nothing(
    shuffled: tuple[SandboxServer, dict[str, Any]], tmp_path: Path
) -> None:
    server, ids = shuffled
    db = tmp_path / "store.duckdb"
    # budget "all": the first snapshot reads every vote list, so what the re-snapshots store new can only
    # come from the reshuffled ties (under the default budget they would backfill votes: new rows, no change)
    plan = SnapshotPlan(
        base_url=server.base_url, db_path=str(db), use_api_key=False, concurrency=4, budget="all"
    )
    first = run_snapshot(plan)
    assert first.warnings == []
    manifests, ranks = _manifests(db), _ranks(db, first.snapshot_id)
    for _ in range(3):  # every list refetched: ties come back in new orders
        again = run_snapshot(plan.model_copy(update={"full": True}))
        assert again.fetch["problems"].refetched == first.counts["problems"]
        assert again.new_versions == {k: 0 for k in again.new_versions}, again.new_versions
        assert _manifests(db) == manifests, "no new solution manifest"
        assert _ranks(db, again.snapshot_id) == ranks, "no solution changed rank"
        between = an.diff(db)  # the newest two snapshots: no top solution changed hands, no rank moved
        assert between.is_empty(), between.as_json()
    four = read_frame(
        db,
        "SELECT solution_id, rank FROM solutions WHERE snapshot_id = ? AND problem_id = ? ORDER BY rank",
        [first.snapshot_id, ids["four"]],
    )
    by_id = dict(four.iter_rows())
    assert [by_id[s] for s in ids["four_solutions"][:4]] == [1, 2, 2, 4]
    assert sorted(by_id.values())[:4] == [1, 2, 2, 4] and sorted(by_id.values())[4] == 5


def test_every_measure_follows_the_tie_rule_on_the_stored_snapshot(
    shuffled: tuple[SandboxServer, dict[str, Any]], tmp_path: Path
) -> None:
    server, ids = shuffled
    db = tmp_path / "store.duckdb"
    run_snapshot(SnapshotPlan(base_url=server.base_url, db_path=str(db), use_api_key=False))
    store = an.load(db)
    solutions = store.solutions.collect()
    ranked = an.with_rank_percentile(solutions)
    four = ranked.filter(pl.col("problem_id") == ids["four"])
    n = four.height
    got = {r["solution_id"]: r for r in four.iter_rows(named=True)}
    s = ids["four_solutions"]
    assert [got[x]["tied"] for x in s[:4]] == [1, 2, 2, 1]
    assert [got[x]["rank_percentile"] for x in s[:4]] == pytest.approx(
        [1.0, (n - 2.5) / (n - 1), (n - 2.5) / (n - 1), (n - 4) / (n - 1)]
    )
    assert [got[x]["top1"] for x in s[:4]] == [1.0, 0.0, 0.0, 0.0]
    assert [got[x]["top3"] for x in s[:4]] == [1.0, 1.0, 1.0, 0.0]
    # a bot's page: its solution tied at rank 2 is marked as a tie
    owner = solutions.filter(pl.col("solution_id") == s[1])["bot_id"][0]
    own = an.bot_solutions(solutions, store.problems, owner).filter(pl.col("problem_id") == ids["four"])
    tied_row = own.filter(pl.col("rank") == 2).head(1)
    assert tied_row["tied"].to_list() == [2]
    assert _solution_rows(tied_row, 1)[0]["rank"] == "2="
    top_tie = ranked.filter(pl.col("problem_id") == ids["top_tie"]).sort("rank").head(2)
    assert top_tie["rank"].to_list() == [1, 1] and top_tie["top1"].to_list() == [0.5, 0.5]
    # one top-1 per contested problem, whatever its ties
    contested = ranked.filter(pl.col("contested"))
    assert contested["top1"].sum() == pytest.approx(contested["problem_id"].n_unique())
    assert (contested.group_by("problem_id").agg(pl.col("top3").sum())["top3"] <= 3 + 1e-9).all()
    # the per-snapshot counts aggregated in DuckDB follow the same rule as the polars helpers
    counts = store.model_counts.collect().sort("llm_model")
    expected = (
        contested.group_by("llm_model")
        .agg(
            percentile_sum=pl.col("rank_percentile").sum(),
            top1=pl.col("top1").sum(),
            top3=pl.col("top3").sum(),
        )
        .sort("llm_model")
    )
    joined = counts.join(expected, on="llm_model", how="inner", suffix="_polars")
    assert joined.height == expected.height
    for col in ("percentile_sum", "top1", "top3"):
        assert joined[col].to_list() == pytest.approx(joined[f"{col}_polars"].to_list()), col
    board = an.model_leaderboard(solutions, min_solutions=1, n_boot=50)
    total_top1 = (board["top1_rate"] * board["contested_solutions"].cast(pl.Float64)).sum()
    assert total_top1 == pytest.approx(contested["problem_id"].n_unique())
