"""``X-Platform-Time``: every answer of the sandbox (lists, errors, injected faults, ``/health``,
``/openapi.json``) carries its simulated now beside ``X-Platform-Clock: simulated``, equal to the clock stored
in its database (read here with SQL) and moving at once when another process moves that clock."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest


def stored_clock(db: Path) -> datetime:
    """The simulated clock as the sandbox's database holds it (``meta.clock_ms``: UTC ms since the epoch)."""
    conn = sqlite3.connect(db)
    try:
        (ms,) = conn.execute("SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'clock_ms'").fetchone()
    finally:
        conn.close()
    return datetime.fromtimestamp(0, UTC) + timedelta(milliseconds=ms)


def header_time(answer: httpx.Response) -> datetime:
    """``X-Platform-Time`` parsed (ISO 8601 UTC ending in ``Z``), after checking the clock it belongs to."""
    assert answer.headers["x-platform-clock"] == "simulated"
    value = answer.headers["x-platform-time"]
    assert value.endswith("Z"), value
    return datetime.fromisoformat(value)


@pytest.mark.parametrize("mode", ["platform", "hal"])
def test_every_answer_carries_the_stored_simulated_now(convention_sandbox, mode: str) -> None:
    server = convention_sandbox(mode, fault_schedule="503", fault_paths="/api/v1/stats")
    now = stored_clock(server.db_path)
    with httpx.Client(base_url=server.root_url, timeout=30) as client:
        answers = {
            "fault": client.get("/api/v1/stats"),  # the one scheduled fault: 503
            "list": client.get("/api/v1/leaderboard"),
            "missing": client.get("/api/v1/problems/no-such-problem"),
            "no key": client.get("/api/v1/tasks/next"),
            "no route": client.get("/api/v1/nowhere"),
            "bad parameter": client.get("/api/v1/leaderboard", params={"sort": "sideways"}),
            "health": client.get("/health"),
            "openapi": client.get("/openapi.json"),
        }
    statuses = {name: answer.status_code for name, answer in answers.items()}
    assert statuses["fault"] == 503 and statuses["list"] == 200 and statuses["no key"] == 401, statuses
    assert {name: header_time(answer) for name, answer in answers.items()} == dict.fromkeys(answers, now)
    assert datetime.fromisoformat(answers["health"].json()["clock"]) == now


def test_the_header_follows_the_clock_moved_by_another_process(convention_sandbox) -> None:
    server = convention_sandbox("platform")
    before = stored_clock(server.db_path)
    conn = sqlite3.connect(server.db_path)  # what `sandbox simulate` does from its own process
    with conn:
        conn.execute(
            "UPDATE meta SET value = CAST(value AS INTEGER) + 86400000 + 1234 WHERE key = 'clock_ms'"
        )
    conn.close()
    after = stored_clock(server.db_path)
    assert after - before == timedelta(days=1, milliseconds=1234)
    answer = httpx.get(f"{server.base_url}/categories", timeout=30)
    assert header_time(answer) == after
    assert answer.headers["x-platform-time"] == after.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
