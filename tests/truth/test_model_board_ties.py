"""The store's model board rank is the competition rank over the average score, whatever order the platform
lists tied models in: on the lazily recalculated board (the sandbox's default, as the real platform), models
never recalculated sit tied at average score 1500, and ``--tie-order shuffle`` lists them in another order
on every call. Over HTTP against the sandbox; the truth is SQL over the sandbox's SQLite, written here."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

from solvelens.resources import resource
from solvelens.store.schema import INTERNAL, LINKS, ensure_schema
from tests.truth.scenario import Scenario, Snap
from tests.truth.store_views import view_rows

#: The model board's code in the store's link rows.
_BOARD_CODE = resource("llm_leaderboard").code

#: Per model written on any solution: its average score as served (4 decimals) on the lazy board (the
#: figure of its last recalculation, 1500 when never recalculated) and the competition rank over it.
_TRUTH_SQL = """
    WITH models AS (
        SELECT s.llm_model AS model,
               round(coalesce(json_extract(b.figures, '$.avgBtScore'), 1500.0), 4) AS avg_score
        FROM (SELECT DISTINCT llm_model FROM solutions WHERE llm_model IS NOT NULL) s
        LEFT JOIN llm_board b ON b.model = s.llm_model)
    SELECT model, avg_score, rank() OVER (ORDER BY avg_score DESC) AS competition FROM models"""


@pytest.fixture(scope="module")
def board(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Scenario, list[Snap]]]:
    """Seed 8, ties shuffled, three models new to the board (tied at the stale figures), three snapshots of
    the model board (three shuffles of the tie)."""
    scenario = Scenario.start(
        tmp_path_factory.mktemp("truth-model-ties"),
        seed=8,
        tie_order="shuffle",
        resources="llm_leaderboard",
    )
    try:
        scenario.new_models(("truth-model-a", "truth-model-b", "truth-model-c"))
        snaps = [scenario.snapshot(f"tie-{i}") for i in range(3)]
        yield scenario, snaps
    finally:
        scenario.stop()


def test_models_tied_on_the_average_score_share_their_competition_rank(
    board: tuple[Scenario, list[Snap]],
) -> None:
    scenario, snaps = board
    for snap in snaps:
        assert snap.exit_code == 0 and snap.snapshot_id is not None, snap.output
        with sqlite3.connect(Path(snap.truth)) as con:
            truth = {m: (a, r) for m, a, r in con.execute(_TRUTH_SQL)}
        tied = [m for m, (a, _) in truth.items() if a == 1500.0]
        assert {"truth-model-a", "truth-model-b", "truth-model-c"} <= set(tied), truth
        stored = {
            r["model_name"]: r["rank"] for r in view_rows(scenario.store, "llm_leaderboard", snap.snapshot_id)
        }
        assert stored == {m: r for m, (_, r) in truth.items()}, (snap.label, stored, truth)


def _truth_ranks(snap: Snap) -> dict[str, int]:
    with sqlite3.connect(Path(snap.truth)) as con:
        return {m: r for m, _, r in con.execute(_TRUTH_SQL)}


def test_the_migration_gives_old_snapshots_the_models_competition_ranks(
    board: tuple[Scenario, list[Snap]], tmp_path: Path
) -> None:
    """A store of schema version 5 holds listing positions as the model board's ranks: opened by this
    version, every snapshot's models get their competition ranks over the average score."""
    scenario, snaps = board
    old = tmp_path / "v5.duckdb"
    old.write_bytes(scenario.store.read_bytes())
    con = duckdb.connect(str(old))
    try:
        con.execute(
            f"""UPDATE {LINKS} AS l SET rank = p.position FROM (
                    SELECT snapshot_id, version_id, row_number() OVER (
                        PARTITION BY snapshot_id ORDER BY rank, version_id) AS position
                    FROM {LINKS} WHERE resource = {_BOARD_CODE}) p
                WHERE l.resource = {_BOARD_CODE} AND l.snapshot_id = p.snapshot_id
                  AND l.version_id = p.version_id"""
        )
        con.execute(f"UPDATE {INTERNAL}.meta SET value = '5' WHERE key = 'schema_version'")
    finally:
        con.close()
    before = {r["model_name"]: r["rank"] for r in view_rows(old, "llm_leaderboard", snaps[0].snapshot_id)}
    assert before != _truth_ranks(snaps[0])  # positions: the tied models 6, 7, 8
    con = duckdb.connect(str(old))
    try:
        ensure_schema(con)
    finally:
        con.close()
    for snap in snaps:
        stored = {r["model_name"]: r["rank"] for r in view_rows(old, "llm_leaderboard", snap.snapshot_id)}
        assert stored == _truth_ranks(snap), snap.label
