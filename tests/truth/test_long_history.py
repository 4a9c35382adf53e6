"""A history longer than a chart can carry (issue 30): 25 days of hourly snapshots (600) in the store's real
format (:mod:`tests.fixtures.history`). The report draws a bounded set of snapshots by the rule it states --
every snapshot of the last 14 days, before that the last snapshot of each UTC day, plus the first -- and
every drawn point is the exact figure at its snapshot: checked against the store with SQL written here,
never with solvelens.analysis."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest

from solvelens import analysis as an
from solvelens.charts.data import MAX_ROWS
from solvelens.report import build_report
from tests.fixtures.history import build_history
from tests.truth.chart_checks import _SPECS, chart_rows

DAYS, PER_DAY, BOTS = 25, 24, 30
_TIME = "strftime(taken_at AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%SZ')"


@pytest.fixture(scope="module")
def long_history(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[duckdb.DuckDBPyConnection, str]]:
    folder = tmp_path_factory.mktemp("long-history")
    db = build_history(folder / "history.duckdb", days=DAYS, per_day=PER_DAY, bots=BOTS, problems=40)
    page = build_report(db, folder / "report.html").read_text(encoding="utf-8")
    con = duckdb.connect(str(db), read_only=True)
    con.execute("SET TimeZone = 'UTC'")
    try:
        yield con, page
    finally:
        con.close()


def _drawn_times(con: duckdb.DuckDBPyConnection) -> set[str]:
    """The rule the page states, in SQL: the last 14 days whole, the last snapshot of each older UTC day, the
    first snapshot."""
    rows = con.execute(
        f"""WITH s AS (SELECT taken_at FROM snapshots),
                 edge AS (SELECT max(taken_at) - INTERVAL 14 DAY AS cut, min(taken_at) AS first FROM s)
            SELECT {_TIME} FROM s, edge WHERE taken_at >= cut OR taken_at = first
            UNION SELECT {_TIME} FROM (SELECT max(taken_at) AS taken_at FROM s, edge WHERE taken_at < cut
                                       GROUP BY date_trunc('day', taken_at))"""
    ).fetchall()
    return {r[0] for r in rows}


def _by_key(rows: list[tuple[Any, ...]]) -> dict[tuple[Any, ...], Any]:
    return {tuple(r[:-1]): r[-1] for r in rows}


def test_the_page_states_the_rule_and_no_chart_exceeds_its_row_limit(long_history):
    con, page = long_history
    snapshots = con.execute("SELECT count(*) FROM snapshots").fetchall()[0][0]
    assert snapshots == DAYS * PER_DAY
    drawn = len(_drawn_times(con))
    assert drawn < snapshots
    assert f"charts draw {drawn:,} of {snapshots:,} snapshots" in page
    assert "every snapshot of the last 14 days, and before that the last snapshot of each day (UTC)" in page
    found = _SPECS.search(page)
    assert found
    for key, spec in json.loads(found.group(1)).items():
        rows = sum(len(d) for d in spec.get("datasets", {}).values())
        assert rows <= MAX_ROWS, key


def test_each_rank_point_is_the_bots_rank_and_points_at_its_snapshot(long_history):
    con, page = long_history
    shown = chart_rows(page, "rank_history", "bot_id", "taken_at", "rank", "points")
    assert shown
    assert {r["taken_at"] for r in shown} == _drawn_times(con)
    truth = _by_key(
        con.execute(
            f"SELECT bot_id, {_TIME}, rank, points, 0 FROM leaderboard JOIN snapshots USING (snapshot_id)"
        ).fetchall()
    )
    wrong = [r for r in shown if (r["bot_id"], r["taken_at"], r["rank"], r["points"]) not in truth]
    assert not wrong, wrong[:3]


def test_each_category_point_is_the_problem_count_at_its_snapshot(long_history):
    con, page = long_history
    shown = chart_rows(page, "category_problems", "name", "taken_at", "problems")
    assert {r["taken_at"] for r in shown} == _drawn_times(con)
    truth = _by_key(
        con.execute(
            f"""SELECT c.name, {_TIME}, count(p.problem_id)
                FROM categories c JOIN snapshots s USING (snapshot_id)
                LEFT JOIN problems p ON p.snapshot_id = c.snapshot_id AND p.category = c.slug GROUP BY ALL"""
        ).fetchall()
    )
    wrong = [r for r in shown if truth.get((r["name"], r["taken_at"])) != r["problems"]]
    assert not wrong, wrong[:3]


def test_each_model_trend_and_stats_point_is_the_figure_at_its_snapshot(long_history):
    con, page = long_history
    models = chart_rows(page, "model_trend", "llm_model", "taken_at", "solutions")
    assert {r["taken_at"] for r in models} == _drawn_times(con)
    counted = _by_key(
        con.execute(
            f"SELECT llm_model, {_TIME}, count(*) FROM solutions JOIN snapshots USING (snapshot_id) "
            "GROUP BY ALL"
        ).fetchall()
    )
    wrong = [r for r in models if counted.get((r["llm_model"], r["taken_at"])) != r["solutions"]]
    assert not wrong, wrong[:3]
    stats = chart_rows(page, "platform_stats", "metric", "taken_at", "value")
    assert {r["taken_at"] for r in stats} == _drawn_times(con)
    values = _by_key(
        con.execute(
            f"SELECT metric, {_TIME}, value FROM platform_stats JOIN snapshots USING (snapshot_id)"
        ).fetchall()
    )
    wrong = [r for r in stats if values.get((r["metric"], r["taken_at"])) != r["value"]]
    assert not wrong, wrong[:3]


def test_every_snapshot_can_still_be_read(long_history):
    """``load(every_snapshot=True)``: the whole history, for a notebook that wants it."""
    con, _ = long_history
    path = Path(con.execute("SELECT path FROM duckdb_databases() WHERE NOT internal").fetchall()[0][0])
    frames = an.load(path, every_snapshot=True)
    assert frames.leaderboard.select("snapshot_id").unique().collect().height == DAYS * PER_DAY
    bounded = an.load(path)
    assert bounded.points is not None and not bounded.points.complete
    assert bounded.snapshots.collect().height == DAYS * PER_DAY
