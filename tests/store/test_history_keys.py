"""The synthetic history (``tests/fixtures/history.py``, issue 30) keys its rows as the writer does: a real
snapshot written onto a generated store, through the staging and the writer, stores only the records that
changed. Before, the generator keyed versions with MD5 and solution lists with its own ids, so the first real
snapshot re-stored every record once. Checked with SQL written here against the store's own tables."""

from __future__ import annotations

from pathlib import Path

import duckdb
import orjson

from solvelens.store import StagingArea, write_snapshot
from solvelens.store.reports import StepReport
from solvelens.store.schema import LINKS
from tests.fixtures.history import BASE_URL, PLATFORM_STATS, build_history

_VERSIONED = ("leaderboard", "bots", "problems", "solutions", "categories", "platform_stats")
_CHANGED = 3  # bots whose points change in the real snapshot


def _stored(db: Path) -> dict[str, int]:
    """Rows of each version table, solution list items and snapshots."""
    with duckdb.connect(str(db), read_only=True) as con:
        out = {
            t: con.execute(f"SELECT count(*) FROM solvelens_store.{t}_versions").fetchall()[0][0]
            for t in _VERSIONED
        }
        out["manifest_items"] = con.execute(
            "SELECT count(*) FROM solvelens_store.solution_manifest_items"
        ).fetchall()[0][0]
        out["snapshots"] = con.execute("SELECT count(*) FROM snapshots").fetchall()[0][0]
    return out


def _latest(db: Path) -> dict[str, list[tuple]]:
    """The newest snapshot's records as the platform sent them (raw JSON), each list in its order."""
    with duckdb.connect(str(db), read_only=True) as con:
        sid = con.execute("SELECT max(snapshot_id) FROM snapshots").fetchall()[0][0]

        def rows(sql: str) -> list[tuple]:
            return con.execute(sql, [sid]).fetchall()

        return {
            "leaderboard": rows(
                "SELECT raw FROM leaderboard WHERE snapshot_id = ? ORDER BY points DESC, bot_id"
            ),
            "bots": rows("SELECT raw FROM bots WHERE snapshot_id = ? ORDER BY bot_id"),
            "problems": rows("SELECT raw FROM problems WHERE snapshot_id = ? ORDER BY problem_id"),
            "solutions": rows(
                "SELECT problem_id, rank, raw FROM solutions WHERE snapshot_id = ? ORDER BY problem_id, rank"
            ),
            "categories": rows("SELECT raw FROM categories WHERE snapshot_id = ? ORDER BY slug"),
            "platform_stats": rows(
                f"SELECT v.raw FROM {LINKS} l JOIN {PLATFORM_STATS.version_table} v USING (version_id) "
                f"WHERE l.snapshot_id = ? AND l.resource = {PLATFORM_STATS.code}"
            ),
        }


def _stage(root: Path, latest: dict[str, list[tuple]]) -> StagingArea:
    """Stage the records as the fetch steps would, the first ``_CHANGED`` bots with 1 point more."""
    area = StagingArea(root / "staging").create(
        base_url=BASE_URL, taken_at="2030-01-01T00:00:00Z", started_at="2030-01-01T00:00:00Z"
    )
    changed: set[str] = set()
    board = [orjson.loads(r[0]) for r in latest["leaderboard"]]
    for entry in board[:_CHANGED]:
        entry["totalPoints"] += 1
        changed.add(entry["id"])
    area.write_records("leaderboard", board, rank=list(range(1, len(board) + 1)))
    bots = [orjson.loads(r[0]) for r in latest["bots"]]
    for bot in bots:
        if bot["id"] in changed:
            bot["totalPoints"] += 1
    area.write_records("bots", bots)
    area.write_records("problems", [orjson.loads(r[0]) for r in latest["problems"]])
    sols = latest["solutions"]
    with area.writer("solutions") as w, area.writer("solution_problems") as fetched:
        w.append(
            problem_id=[r[0] for r in sols], rank=[r[1] for r in sols], raw=[orjson.loads(r[2]) for r in sols]
        )
        fetched.append(problem_id=sorted({r[0] for r in sols}))
    with area.writer("solution_carryover") as w:
        w.append(problem_id=[], manifest_id=[])
    area.write_records("categories", [orjson.loads(r[0]) for r in latest["categories"]])
    area.write_records("platform_stats", [orjson.loads(r[0]) for r in latest["platform_stats"]])
    resources = {n: "not requested" for n in ("activity", "comparisons", "llm_families", "llm_leaderboard")}
    area.write_report(StepReport.of("test", {}, resources=resources))
    return area


def test_a_real_snapshot_on_a_generated_store_adds_only_the_changed_versions(tmp_path: Path):
    db = build_history(
        tmp_path / "history.duckdb", days=1, per_day=4, bots=30, problems=12, problems_per_day=1
    )
    before = _stored(db)
    latest = _latest(db)
    assert len(latest["platform_stats"]) == 1 and latest["solutions"] and latest["categories"]
    write_snapshot(db, _stage(tmp_path, latest))
    after = _stored(db)
    added = {name: after[name] - before[name] for name in before}
    assert added == {
        "leaderboard": _CHANGED,
        "bots": _CHANGED,
        "problems": 0,
        "solutions": 0,
        "categories": 0,
        "platform_stats": 0,
        "manifest_items": 0,
        "snapshots": 1,
    }
