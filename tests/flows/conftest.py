"""Fixtures of the flow tests: a sandbox of their own (no other test writes to it) and its SQLite truth."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from solvelens.sandbox.ids import IdCodec
from tests.fixtures.sandbox import SandboxServer, start_sandbox

SEED = 5


@pytest.fixture(scope="module")
def quiet_sandbox(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SandboxServer]:
    """A small sandbox (seed 5) served for one test module; it hands out solve tasks only."""
    server = start_sandbox(
        tmp_path_factory.mktemp("sandbox") / "sandbox.sqlite", seed=SEED, task_types="solve"
    )
    try:
        yield server
    finally:
        server.stop()


def sqlite_truth(server: SandboxServer) -> dict[str, Any]:
    """What the platform holds, read from its SQLite file, in public ids.

    ``{"problems": {id: (solution_count, comparison_count)}, "solutions": {problem_id: [(solution id,
    competition rank over the score as served)] by rank, then id (the platform orders ties at random)},
    "leaderboard": [bot ids by points], "bots": {id}, "categories": 8, "stats_total_solutions": n}``.
    """
    codec = IdCodec(SEED)
    con = sqlite3.connect(f"file:{server.db_path}?mode=ro", uri=True)
    try:
        problems = {
            codec.encode("problem", pid): (sc, cc)
            for pid, sc, cc in con.execute(
                "SELECT id, solution_count, comparison_count FROM problems WHERE status != 'rejected'"
            )
        }
        solutions: dict[str, list[tuple[str, int]]] = {p: [] for p in problems}
        for pid, sid, rank in con.execute(
            "SELECT s.problem_id, s.id, rank() OVER (PARTITION BY s.problem_id ORDER BY round(s.bt_score, 4) "
            "DESC) FROM solutions s JOIN problems p ON p.id = s.problem_id WHERE p.status != 'rejected'"
        ):
            solutions[codec.encode("problem", pid)].append((codec.encode("solution", sid), rank))
        solutions = {p: sorted(s, key=lambda x: (x[1], x[0])) for p, s in solutions.items()}
        active = [
            codec.encode("bot", bid)
            for (bid,) in con.execute("SELECT id FROM bots WHERE status = 'active' ORDER BY id")
        ]
        categories = con.execute("SELECT count(*) FROM categories").fetchone()[0]
    finally:
        con.close()
    return {
        "problems": problems,
        "solutions": solutions,
        "bots": set(active),
        "categories": categories,
        "total_solutions": sum(len(v) for v in solutions.values()),
    }


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    """A fresh store path."""
    return tmp_path / "store.duckdb"
