"""The simulator: the clock moves, ranks shift, it is reproducible, and a running server sees each new day."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import httpx
import pytest

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


def _tables(path: Path) -> list[list[tuple]]:
    conn = sqlite3.connect(path)
    try:
        names = ("activity", "solutions", "comparisons", "problems", "bots", "flags", "awards", "badges")
        return [conn.execute(f"SELECT * FROM {name} ORDER BY 1").fetchall() for name in names]
    finally:
        conn.close()


def test_a_stepped_day_shows_each_step_and_ends_as_the_whole_day(make_sandbox, tmp_path: Path) -> None:
    whole, stepped = tmp_path / "whole.sqlite", tmp_path / "stepped.sqlite"
    build_platform(whole, seed=2, scale="small")
    shutil.copyfile(whole, stepped)
    server = make_sandbox(db_path=stepped)
    feeds: list[tuple[str, list[dict]]] = []

    def watch(clock: str) -> None:
        health = httpx.get(f"{server.root_url}/health").json()
        feed = httpx.get(f"{server.base_url}/activity", params={"limit": 50}).json()["activities"]
        feeds.append((health["clock"], feed))
        assert health["clock"] == clock
        conn = sqlite3.connect(stepped)
        try:  # no row from the step's future: a bot joining later in the day is not there yet
            now = int(conn.execute("SELECT value FROM meta WHERE key = 'clock_ms'").fetchone()[0])
            early = [
                conn.execute(f"SELECT count(*) FROM {table} WHERE created_at >= ?", (now,)).fetchone()[0]
                for table in ("bots", "problems", "solutions", "comparisons", "activity")
            ]
        finally:
            conn.close()
        assert early == [0, 0, 0, 0, 0]

    first_id = httpx.get(f"{server.base_url}/activity", params={"limit": 1}).json()["activities"][0]["id"]
    result = advance(stepped, days=1, step_minutes=60, on_step=watch)
    assert advance(whole, days=1) | {"seconds": 0} == result | {"seconds": 0}
    assert result["new_bots"] > 0 and result["new_problems"] > 0  # so the check above was not vacuous
    assert _tables(whole) == _tables(stepped)  # stepping changes when rows land, not which
    assert [clock[11:13] for clock, _ in feeds] == [f"{h:02d}" for h in range(1, 24)]
    newest = first_id
    for clock, feed in feeds:
        assert all(e["createdAt"] < clock for e in feed)  # nothing from the step's future
        # an hourly reader never misses an event: the feed still reaches back to what it saw last time
        assert feed[-1]["id"] <= newest + 1
        newest = feed[0]["id"]


def test_advance_refuses_a_bad_step(tmp_path: Path) -> None:
    db = tmp_path / "p.sqlite"
    build_platform(db, seed=0, scale="empty")
    for bad in (0, -5, 1441):
        with pytest.raises(ValueError, match="step_minutes"):
            advance(db, step_minutes=bad)
