"""The generator: reproducible from the seed, the real categories, rules-consistent figures."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest

from solvelens.sandbox import ranking
from solvelens.sandbox.generate import PlatformExistsError, build_platform

TABLES = (
    "categories",
    "humans",
    "bots",
    "problems",
    "solutions",
    "comparisons",
    "flags",
    "awards",
    "badges",
    "meta",
)


def digest(path: Path) -> dict[str, str]:
    conn = sqlite3.connect(path)
    try:
        out = {}
        for table in TABLES:
            rows = conn.execute(f"SELECT * FROM {table} ORDER BY 1, 2").fetchall()
            out[table] = hashlib.sha256(repr(rows).encode()).hexdigest()
        return out
    finally:
        conn.close()


def test_same_seed_same_database_other_seed_differs(tmp_path: Path) -> None:
    a = build_platform(tmp_path / "a.sqlite", seed=3)
    b = build_platform(tmp_path / "b.sqlite", seed=3)
    build_platform(tmp_path / "c.sqlite", seed=4)
    assert a["solutions"] == b["solutions"]
    assert digest(tmp_path / "a.sqlite") == digest(tmp_path / "b.sqlite")
    assert digest(tmp_path / "a.sqlite")["solutions"] != digest(tmp_path / "c.sqlite")["solutions"]
    assert 20 <= int(a["bots"]) <= 40 and 100 <= int(a["problems"]) <= 140  # type: ignore[call-overload]
    assert 500 <= int(a["solutions"]) <= 1200  # type: ignore[call-overload]


def test_never_overwrites_and_rejects_unknown_scale(tmp_path: Path) -> None:
    build_platform(tmp_path / "p.sqlite", scale="empty")
    with pytest.raises(PlatformExistsError):
        build_platform(tmp_path / "p.sqlite")
    with pytest.raises(ValueError, match="unknown scale"):
        build_platform(tmp_path / "q.sqlite", scale="huge")


def test_figures_follow_the_platform_rules(tmp_path: Path) -> None:
    build_platform(tmp_path / "p.sqlite", seed=1)
    conn = sqlite3.connect(tmp_path / "p.sqlite")
    statuses = dict(conn.execute("SELECT status, count(*) FROM problems GROUP BY status").fetchall())
    assert {"active", "pending", "rejected", "mature"} <= set(statuses)
    # skips change counts only, so comparisons >= wins + losses; CI follows 400/sqrt(n) after n votes
    for n, wins, losses, ci in conn.execute(
        "SELECT comparison_count, win_count, loss_count, confidence_interval FROM solutions"
    ):
        assert n >= wins + losses
        assert ci == pytest.approx(500.0 if n == 0 else ranking.confidence_interval(n - 1))
    # solution counts and comparison counts on problems match the rows
    mismatch = conn.execute(
        "SELECT count(*) FROM problems p WHERE p.solution_count != (SELECT count(*) FROM solutions s "
        "WHERE s.problem_id = p.id) OR p.comparison_count != (SELECT count(*) FROM comparisons c "
        "WHERE c.problem_id = p.id)"
    ).fetchone()[0]
    assert mismatch == 0
    # mature problems satisfy the maturity rule; points add up from the activity
    for (pid,) in conn.execute("SELECT id FROM problems WHERE status = 'mature'"):
        sols = conn.execute(
            "SELECT bt_score, confidence_interval, comparison_count FROM solutions WHERE problem_id = ?",
            (pid,),
        ).fetchall()
        assert len(sols) >= 3 and all(s[2] >= 5 for s in sols)
    for bot_id, points, sols, votes, flags, created in conn.execute(
        "SELECT id, total_points, total_solutions, total_votes, total_flags, total_problems_created FROM bots"
    ):
        awards = conn.execute(
            "SELECT coalesce(sum(points), 0) FROM awards WHERE bot_id = ?", (bot_id,)
        ).fetchone()[0]
        assert points == 5 * sols + 2 * votes + flags + 3 * created + awards
    # globalElo = rounded mean of the top-20 solution scores
    top_sql = "SELECT id, global_elo FROM bots ORDER BY total_solutions DESC LIMIT 1"
    bot_id, elo = conn.execute(top_sql).fetchone()
    scores = [r[0] for r in conn.execute("SELECT bt_score FROM solutions WHERE bot_id = ?", (bot_id,))]
    assert elo == round(sum(sorted(scores)[-20:]) / len(sorted(scores)[-20:]))
    conn.close()
