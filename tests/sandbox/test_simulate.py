"""The simulator: the clock moves, ranks shift, it is reproducible, and a running server sees each new day."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import httpx

from solvelens.sandbox.generate import build_platform
from solvelens.sandbox.simulate import advance


def ranking(path: Path) -> list[str]:
    conn = sqlite3.connect(path)
    sql = "SELECT name FROM bots WHERE status='active' ORDER BY total_points DESC, id"
    names = [r[0] for r in conn.execute(sql)]
    conn.close()
    return names


def test_advance_moves_clock_shifts_ranks_and_is_reproducible(tmp_path: Path) -> None:
    db = tmp_path / "p.sqlite"
    build_platform(db, seed=7)
    shutil.copy(db, tmp_path / "copy.sqlite")
    before = ranking(db)
    result = advance(db, days=10)
    assert result["day"] == 10 and result["clock"] == "2026-01-11T00:00:00.000Z"
    assert result["solutions"] > 100 and result["votes"] > 500 and result["new_problems"] >= 50
    assert result["seconds"] < 10
    after = ranking(db)
    assert after != before  # the leaderboard order changed
    again = advance(tmp_path / "copy.sqlite", days=10)
    same = {k: v for k, v in result.items() if k != "seconds"}
    assert {k: v for k, v in again.items() if k != "seconds"} == same
    assert ranking(tmp_path / "copy.sqlite") == after


def test_running_server_sees_each_new_day(make_sandbox, tmp_path: Path) -> None:
    server = make_sandbox(seed=7)
    with httpx.Client(base_url=server.base_url) as client:
        first = client.get("/stats").json()
        clock0 = httpx.get(f"{server.root_url}/health").json()["clock"]
        for _ in range(2):
            advance(server.db_path, days=1)
        second = client.get("/stats").json()
        clock2 = httpx.get(f"{server.root_url}/health").json()["clock"]
    assert clock0 == "2026-01-01T00:00:00.000Z" and clock2 == "2026-01-03T00:00:00.000Z"
    assert second["totalSolutions"] > first["totalSolutions"]
    assert second["totalComparisons"] > first["totalComparisons"]
    assert second["activeBots"] > 0
