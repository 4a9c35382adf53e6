"""The data-quality table (store view ``data_quality``: announced vs stored per list) in the report and the
notebooks' setup line: the newest snapshot's rows as the view holds them (read back with SQL here), one
sentence in every case, and a store without the view says so instead of claiming every list complete."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pytest

from solvelens import analysis as an
from solvelens.notebook import setup
from solvelens.report import build_report, report_content


@pytest.fixture
def quality_db(store_db: Path, tmp_path: Path) -> Path:
    """The generated store (its ``data_quality`` table empty) with two lists short and one whole at the
    newest snapshot, one short at an older one."""
    path = tmp_path / "quality.duckdb"
    shutil.copyfile(store_db, path)
    with duckdb.connect(str(path)) as con:
        newest, older = (
            r[0] for r in con.sql("SELECT snapshot_id FROM snapshots ORDER BY taken_at DESC").fetchall()[:2]
        )
        con.executemany(
            "INSERT INTO data_quality VALUES (?, ?, ?, ?, ?, ?)",
            [
                (newest, "comparisons", "sol-17", 73, 50, "the platform serves the newest 50 votes only"),
                (newest, "leaderboard", "", 42, 41, "the total moved while the list was read"),
                (newest, "problems", "", 188, 188, None),
                (older, "problems", "", 9, 8, "older snapshot"),
            ],
        )
    return path


def _truth(path: Path) -> list[tuple]:
    with duckdb.connect(str(path), read_only=True) as con:
        return con.sql(
            "SELECT resource, coalesce(nullif(scope, ''), 'whole list'), announced, stored, "
            "stored - announced, reason FROM data_quality WHERE announced IS NOT NULL AND "
            "stored IS DISTINCT FROM announced AND snapshot_id = (SELECT snapshot_id FROM snapshots "
            "ORDER BY taken_at DESC LIMIT 1) ORDER BY resource, scope"
        ).fetchall()


def test_the_report_shows_the_newest_snapshots_lists_as_the_view_holds_them(
    quality_db: Path, tmp_path: Path
) -> None:
    content = report_content(an.load(quality_db))
    shown = [
        (r["resource"], r["scope"], int(r["announced"].replace(",", "")), int(r["stored"].replace(",", "")),
         int(r["difference"]), r["reason"])
        for r in content.data_quality
    ]  # fmt: skip
    truth = _truth(quality_db)
    assert shown == truth and len(truth) == 2
    missing = -sum(row[4] for row in truth)
    assert content.data_quality_line.startswith(f"{len(truth)} list(s) of snapshot #")
    assert f"({missing:,} record(s) missing in all)" in content.data_quality_line
    html = build_report(quality_db, tmp_path / "r.html").read_text(encoding="utf-8")
    assert 'id="data-quality-table"' in html and "the platform serves the newest 50 votes only" in html
    assert "older snapshot" not in html


def test_an_empty_view_says_every_list_is_complete_and_no_view_says_it_was_not_recorded(
    store_db: Path, tmp_path: Path
) -> None:
    content = report_content(an.load(store_db))
    assert content.data_quality == [] and content.data_quality_line.endswith(
        "holds as many records as the platform announced."
    )
    older = tmp_path / "before-schema-4.duckdb"
    shutil.copyfile(store_db, older)
    with duckdb.connect(str(older)) as con:
        con.execute("DROP TABLE data_quality")
    assert "predates the data-quality table" in report_content(an.load(older)).data_quality_line


def test_the_notebook_setup_prints_the_data_quality_line(
    quality_db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    setup(quality_db, interactive=False)
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].startswith("2 list(s) of snapshot #") and "24 record(s) missing in all" in lines[1]


def _missing_once(path: Path) -> int:
    """Records missing at the newest snapshot, each shortfall once: per resource, the largest of its whole
    list's shortfall, the ``/stats`` total counting the same records, and its parts' shortfalls summed."""
    with duckdb.connect(str(path), read_only=True) as con:
        row = con.execute(
            """
            WITH newest AS (SELECT snapshot_id FROM snapshots ORDER BY taken_at DESC LIMIT 1),
            q AS (
                SELECT CASE WHEN resource <> 'platform_stats' THEN resource
                            WHEN scope = 'totalComparisons' THEN 'comparisons'
                            WHEN scope = 'totalProblems' THEN 'problems'
                            WHEN scope = 'totalSolutions' THEN 'solutions'
                            WHEN scope = 'totalBots' THEN 'leaderboard' ELSE scope END AS counted,
                       resource = 'platform_stats' OR coalesce(scope, '') = '' AS whole,
                       greatest(announced - stored, 0) AS short
                FROM data_quality
                WHERE snapshot_id = (SELECT snapshot_id FROM newest) AND announced IS NOT NULL
            )
            SELECT sum(m) FROM (
                SELECT greatest(coalesce(max(short) FILTER (WHERE whole), 0),
                                coalesce(sum(short) FILTER (WHERE NOT whole), 0)) AS m
                FROM q GROUP BY counted
            )
            """
        ).fetchone()
    return int(row[0]) if row and row[0] is not None else 0


def test_a_shortfall_is_counted_once(quality_db: Path, tmp_path: Path) -> None:
    """The comparisons list and ``/stats totalComparisons`` are the same votes (issue 29: "1,974 record(s)
    missing" = 2 x 987); a solution's short list is part of the whole list's shortfall."""
    path = tmp_path / "twice.duckdb"
    shutil.copyfile(quality_db, path)
    with duckdb.connect(str(path)) as con:
        newest = con.execute("SELECT snapshot_id FROM snapshots ORDER BY taken_at DESC LIMIT 1").fetchone()[0]
        con.execute("DELETE FROM data_quality WHERE snapshot_id = ?", [newest])
        con.executemany(
            "INSERT INTO data_quality VALUES (?, ?, ?, ?, ?, ?)",
            [
                (newest, "comparisons", "", 1601, 614, "votes beyond the lists' reach"),
                (newest, "comparisons", "sol-3", 60, 50, "the platform serves the newest 50 votes only"),
                (newest, "platform_stats", "totalComparisons", 1601, 614, "votes beyond the lists' reach"),
                (newest, "problems", "", 203, 203, None),
                (newest, "platform_stats", "totalProblems", 210, 203, "the total moved"),
            ],
        )
    missing = _missing_once(path)
    assert missing == 994
    line = report_content(an.load(path)).data_quality_line
    assert f"({missing:,} record(s) missing in all)" in line, line
