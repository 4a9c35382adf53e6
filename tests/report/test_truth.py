"""The report's model table, its sentence and its activity chart checked against the platform's truth: a real
sandbox served over HTTP, real snapshots (a simulated day apart) into a real DuckDB file, and every figure
recomputed here with SQL on the sandbox's SQLite database, never with solvelens.analysis."""

from __future__ import annotations

import datetime as dt
import json
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest

from solvelens import analysis as an
from solvelens.charts import chart_spec
from solvelens.flows.steps import SnapshotPlan, run_snapshot
from solvelens.report import report_content
from solvelens.report.content import ReportContent
from solvelens.sandbox.ids import IdCodec
from solvelens.sandbox.simulate import advance
from tests.fixtures.sandbox import start_sandbox

#: The feed's window: ``GET /activity`` serves the newest 50 events.
FEED = 50
SEED = 3
DASH = "–"


def _sql(path: Path, query: str, *args: Any) -> list[tuple]:
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return con.execute(query, args).fetchall()
    finally:
        con.close()


def _when(ms: int) -> dt.datetime:
    return dt.datetime.fromtimestamp(ms / 1000, tz=dt.UTC)


def _feed_window(sandbox_db: Path, clock_ms: int) -> tuple[int, int]:
    """(oldest, newest) created_at (ms) of the events the feed served at ``clock_ms``: the 50 newest ids."""
    rows = _sql(
        sandbox_db,
        "SELECT min(created_at), max(created_at) FROM (SELECT created_at FROM activity WHERE created_at <= ? "
        "ORDER BY id DESC LIMIT ?)",
        clock_ms,
        FEED,
    )
    return int(rows[0][0]), clock_ms


@pytest.fixture(scope="module")
def driven(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """Three snapshots of a small sandbox, a simulated day apart, each stamped with the platform's clock;
    ``windows``: what the feed served at each snapshot (oldest event, snapshot time; ms)."""
    tmp = tmp_path_factory.mktemp("truth-report")
    server = start_sandbox(tmp / "sandbox.sqlite", seed=SEED, scale="small")
    db = tmp / "store.duckdb"
    windows = []
    try:
        for day in range(3):
            if day:
                advance(server.db_path, days=1)
            clock = int(_sql(server.db_path, "SELECT value FROM meta WHERE key = 'clock_ms'")[0][0])
            taken_at = _when(clock).isoformat().replace("+00:00", "Z")
            plan = SnapshotPlan(
                base_url=server.base_url, db_path=str(db), use_api_key=False, taken_at=taken_at
            )
            run_snapshot(plan)
            windows.append(_feed_window(server.db_path, clock))
        content = report_content(an.load(db))
        yield {"server": server, "db": db, "content": content, "windows": windows}
    finally:
        server.stop()


def _platform_truth(sandbox_db: Path) -> dict[str, int]:
    """The platform's model ranks by average solution score (as served: rounded to 4 places), equal scores
    sharing a rank, from the sandbox's solutions."""
    rows = _sql(
        sandbox_db,
        "SELECT llm_model, RANK() OVER (ORDER BY round(avg(bt_score), 4) DESC) FROM solutions "
        "WHERE llm_model IS NOT NULL GROUP BY llm_model",
    )
    return {model: int(rank) for model, rank in rows}


def test_the_platform_ranks_in_the_table_are_the_platforms_by_average_score(driven: dict[str, Any]) -> None:
    content: ReportContent = driven["content"]
    truth = _platform_truth(driven["server"].db_path)
    shown = {
        row["model"]: row["platform_rank"] for row in content.arena_models if row["platform_rank"] != DASH
    }
    assert shown == {model: str(rank) for model, rank in truth.items()}
    assert (
        "requested with sort=avg_score: ranked by its average solution score" in content.arena_models_caption
    )


def test_the_sentence_names_only_ranks_and_counts_the_table_shows(driven: dict[str, Any]) -> None:
    content: ReportContent = driven["content"]
    rows = {row["model"]: row for row in content.arena_models}
    arena_n = sum(row["arena_rank"] != DASH for row in rows.values())
    platform_n = sum(row["platform_rank"] != DASH for row in rows.values())
    named = re.findall(
        r"(\S+) \(arena rank (\d+) of (\d+), platform rank (\d+) of (\d+)\)", content.arena_disagreement
    )
    both = [r for r in rows.values() if DASH not in (r["arena_rank"], r["platform_rank"])]
    shifts = {r["model"]: abs(int(r["arena_rank"]) - int(r["platform_rank"])) for r in both}
    if max(shifts.values()) == 0:
        assert "rank the models they share the same way" in content.arena_disagreement
        return
    assert named, content.arena_disagreement
    truth = _platform_truth(driven["server"].db_path)
    for model, arena_rank, of_arena, platform_rank, of_platform in named:
        assert (rows[model]["arena_rank"], rows[model]["platform_rank"]) == (arena_rank, platform_rank)
        assert (int(of_arena), int(of_platform)) == (arena_n, platform_n)
        assert int(platform_rank) == truth[model]
        assert shifts[model] == max(shifts.values()), "the model named differs most in the table"


def _union(windows: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The feed's windows (ms) merged where they overlap."""
    merged: list[list[int]] = []
    for a, b in sorted(windows):
        if merged and a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    return [(a, b) for a, b in merged]


def _covered_s(lo_ms: int, hi_ms: int, seen: list[tuple[int, int]]) -> float:
    """Seconds of [lo, hi) inside the feed's (merged) windows."""
    return sum(max(min(hi_ms, b) - max(lo_ms, a), 0) for a, b in seen) / 1000


def test_activity_bars_are_events_per_covered_hour_of_the_platforms_feed(driven: dict[str, Any]) -> None:
    """Each bar (all actions of one hour) is the sandbox's events in the part of the hour some snapshot's
    feed window covered, divided by that part's hours; hours with under 6 covered minutes are skipped
    (their rate is floored)."""
    content: ReportContent = driven["content"]
    chart = next(s.chart for s in content.sections["activity"] if s.key == "activity_timeline")
    assert chart is not None
    spec = chart_spec(chart)
    rows = next(d for d in spec["datasets"].values() if d and "events_per_hour" in d[0])
    per_bar: dict[str, float] = {}
    for row in rows:
        per_bar[row["start"]] = per_bar.get(row["start"], 0.0) + row["events_per_hour"]
    windows = driven["windows"]
    assert len(windows) == 3 and windows[1][0] > windows[0][1], "the sandbox moved past the feed: a gap"
    seen = _union(windows)
    checked = 0
    for start_text, shown in per_bar.items():
        lo_ms = int(dt.datetime.fromisoformat(start_text.replace("Z", "+00:00")).timestamp() * 1000)
        hi_ms = lo_ms + 3_600_000
        covered = _covered_s(lo_ms, hi_ms, seen)
        if covered < 360:
            continue
        events = sum(
            _sql(
                driven["server"].db_path,
                "SELECT count(*) FROM activity WHERE created_at >= max(?, ?) AND created_at < min(?, ?)",
                lo_ms,
                a,
                hi_ms,
                b + 1,
            )[0][0]
            for a, b in seen
            if b >= lo_ms and a < hi_ms
        )
        assert shown == pytest.approx(events / (covered / 3600), rel=1e-9), start_text
        checked += 1
    assert checked >= 6
    assert "Events per covered hour" in json.dumps(spec)


def test_the_data_quality_table_is_the_views_and_the_platforms_vote_counts(driven: dict[str, Any]) -> None:
    """The report's data-quality rows are the store view's rows of the newest snapshot whose counts differ
    (read here with SQL on the DuckDB view), and every solution vote list it names announces the vote count
    the sandbox's own database holds for that solution."""
    content: ReportContent = driven["content"]
    with duckdb.connect(str(driven["db"]), read_only=True) as con:
        view = con.sql(
            "SELECT resource, coalesce(nullif(scope, ''), 'whole list'), announced, stored, "
            "stored - announced, coalesce(reason, '') FROM data_quality WHERE announced IS NOT NULL "
            "AND stored IS DISTINCT FROM announced AND snapshot_id = (SELECT snapshot_id FROM snapshots "
            "ORDER BY taken_at DESC LIMIT 1) ORDER BY resource, scope"
        ).fetchall()
    shown = [
        (r["resource"], r["scope"], int(r["announced"].replace(",", "")), int(r["stored"].replace(",", "")),
         int(r["difference"].replace(",", "")), r["reason"])
        for r in content.data_quality
    ]  # fmt: skip
    assert shown == view
    codec = IdCodec(SEED)
    server = driven["server"]
    checked = 0
    for resource, scope, announced, *_ in view:
        vote_list = resource == "comparisons" and scope != "whole list"
        solution = codec.decode("solution", scope) if vote_list else None
        if solution is None:
            continue
        rows = _sql(server.db_path, "SELECT comparison_count FROM solutions WHERE id = ?", solution)
        assert announced == rows[0][0], (scope, announced, rows)
        checked += 1
    capped = _sql(server.db_path, "SELECT count(*) FROM solutions WHERE comparison_count > 50")[0][0]
    assert checked >= min(capped, 1), (view, capped)
