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
