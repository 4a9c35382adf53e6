"""The platform's model families (``GET /llm-leaderboard/families``), the optional resource added through its
declaration alone (``solvelens.resources``): after a snapshot of a small sandbox, the ``llm_families`` view
holds every family with its number of models, and its ``data_quality`` row says how many were stored,
against plain SQL on the sandbox's database (frozen by stopping nothing: no simulated time passes).

The family rule is written here, not imported: a model's family is the leading letters of its name,
lower-cased (``other`` when it has none), as the sandbox documents it for ``/llm-leaderboard/families``."""

from __future__ import annotations

import re
import sqlite3
from collections import Counter
from pathlib import Path

import duckdb
import pytest

from solvelens.flows.steps import SnapshotPlan, run_snapshot
from tests.fixtures.sandbox import SandboxServer

_LEADING_LETTERS = re.compile(r"^[a-z]+")


def _families_by_sql(db_path: Path) -> dict[str, int]:
    """Each model family of the sandbox's solutions and its number of distinct models (plain SQL, then the
    family rule of the module docstring)."""
    con = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    try:
        models = [
            r[0] for r in con.execute("SELECT DISTINCT llm_model FROM solutions WHERE llm_model IS NOT NULL")
        ]
    finally:
        con.close()
    counts: Counter[str] = Counter()
    for name in models:
        found = _LEADING_LETTERS.match(str(name).lower())
        counts[found.group(0) if found else "other"] += 1
    return dict(counts)


@pytest.fixture(scope="module")
def families_snapshot(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, int]:
    """One snapshot of a small sandbox fetching the model families only: (store, sandbox db, snapshot id)."""
    from tests.fixtures.sandbox import start_sandbox

    folder = tmp_path_factory.mktemp("truth-families")
    server: SandboxServer = start_sandbox(folder / "sandbox.sqlite", seed=4, scale="small")
    try:
        db = folder / "store.duckdb"
        plan = SnapshotPlan(
            base_url=server.base_url, db_path=str(db), use_api_key=False, resources=["llm_families"]
        )
        summary = run_snapshot(plan)
    finally:
        server.stop()
    assert summary.resources["llm_families"] == "stored", summary.resources
    return db, folder / "sandbox.sqlite", summary.snapshot_id


def test_the_families_view_holds_every_family_with_its_model_count(families_snapshot: tuple[Path, Path, int]):
    db, sandbox_db, sid = families_snapshot
    expected = _families_by_sql(sandbox_db)
    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.execute(
            "SELECT json_extract_string(raw, '$.family'), CAST(json_extract(raw, '$.count') AS BIGINT) "
            "FROM llm_families WHERE snapshot_id = ?",
            [sid],
        ).fetchall()
        typed = con.execute(
            "SELECT family, model_count FROM llm_families WHERE snapshot_id = ?", [sid]
        ).fetchall()
    assert expected, "the sandbox has models"
    assert dict(rows) == expected
    assert dict(typed) == expected
    assert len(rows) == len(expected)  # each family once


def test_the_families_data_quality_row_counts_what_was_stored(families_snapshot: tuple[Path, Path, int]):
    db, sandbox_db, sid = families_snapshot
    expected = _families_by_sql(sandbox_db)
    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.execute(
            "SELECT scope, announced, stored, reason FROM data_quality "
            "WHERE snapshot_id = ? AND resource = 'llm_families'",
            [sid],
        ).fetchall()
        resources = con.execute(
            "SELECT resources->>'$.llm_families' FROM snapshots WHERE snapshot_id = ?", [sid]
        )
        status = resources.fetchall()[0][0]
    # The platform announces no total for its families (one answer, no pagination): announced is NULL.
    assert rows == [("", None, len(expected), None)]
    assert status == "stored"
