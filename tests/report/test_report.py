"""solvelens.report and `solvelens report`: one self-contained HTML file; short history; empty store."""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from solvelens import analysis as an
from solvelens.cli import app
from solvelens.report import EmptyStoreError, build_report, report_content

CHART_KEYS = {
    "rank_history",
    "movers",
    "points_trend",
    "category_problems",
    "category_maturity",
    "platform_growth",
    "bot_activity",
    "platform_stats",
    "score_distribution",
    "llm_share",
    "coverage",
}


def _specs(html: str) -> dict:
    block = re.search(r'<script type="application/json" id="chart-specs">(.*?)</script>', html, re.S)
    assert block, "the chart specs block is present"
    return json.loads(block.group(1))


@pytest.fixture(scope="module")
def report_html(store_db: Path, tmp_path_factory: pytest.TempPathFactory) -> str:
    out = tmp_path_factory.mktemp("report") / "nested" / "report.html"
    assert build_report(store_db, out) == out
    return out.read_text(encoding="utf-8")


def test_report_is_one_self_contained_file(report_html: str) -> None:
    assert report_html.count("window.vegaEmbed=") == 1, "the Vega JavaScript is inlined exactly once"
    assert not re.search(r"<script[^>]+src=", report_html), "no external scripts"
    assert not re.search(r"<link[^>]+href=", report_html), "no external stylesheets"
    assert "cdn.jsdelivr" not in report_html
    specs = _specs(report_html)
    assert set(specs) == CHART_KEYS
    containers = set(re.findall(r'<div class="chart" id="chart-([a-z_]+)"', report_html))
    assert containers == CHART_KEYS
    for spec in specs.values():
        assert spec["$schema"].startswith("https://vega.github.io/schema/vega-lite/v6")


def test_report_sections_and_figures(report_html: str, store_db: Path) -> None:
    for heading in (
        "Leaderboard now",
        "Rank history",
        "Top movers",
        "Points trend",
        "Category trends",
        "Platform growth",
        "Data freshness and coverage",
    ):
        assert heading in report_html
    store = an.load(store_db)
    history = an.leaderboard_history(store.leaderboard, store.snapshots)
    leader = an.current_leaderboard(history, top=1)["name"][0]
    assert leader in report_html
    assert report_html.count("<tr>") >= 21, "a header row and 20 leaderboard rows (+ the gap table)"
    assert "3 day(s) without a snapshot" in report_html
    assert "2026-01-17 06:02 UTC" in report_html, "the gap table names the last snapshot before the gap"
    assert "The history is short" not in report_html


def test_leaderboard_rows_show_rank_changes(store_db: Path) -> None:
    content = report_content(an.load(store_db), now=dt.datetime(2026, 2, 10, tzinfo=dt.UTC))
    moves = {row["move_class"] for row in content.leaderboard}
    assert {"up", "down", "same"} <= moves
    assert content.leaderboard[0]["rank"] == 1
    assert content.freshness.age_hours is not None and content.freshness.age_hours < 24


def test_png_export_writes_every_chart(store_db: Path, tmp_path: Path) -> None:
    build_report(store_db, tmp_path / "r.html", png_dir=tmp_path / "png")
    written = {p.stem for p in (tmp_path / "png").glob("*.png")}
    assert written == CHART_KEYS
    assert all(p.read_bytes()[:4] == b"\x89PNG" for p in (tmp_path / "png").glob("*.png"))


def test_one_snapshot_says_the_history_is_short(single_snapshot_store_db: Path, tmp_path: Path) -> None:
    html = build_report(single_snapshot_store_db, tmp_path / "r.html").read_text(encoding="utf-8")
    assert "The history is short" in html
    specs = _specs(html)
    assert "rank_history" in specs and "movers" not in specs and "platform_growth" not in specs
    assert 'data-chart-note="movers"' in html
    assert "Needs at least two snapshots." in html


def test_empty_store_is_a_clear_error(empty_store_db: Path, tmp_path: Path) -> None:
    with pytest.raises(EmptyStoreError, match="solvelens snapshot"):
        build_report(empty_store_db, tmp_path / "r.html")
    assert not (tmp_path / "r.html").exists()


def test_cli_writes_the_report(store_db: Path, tmp_path: Path) -> None:
    out = tmp_path / "cli.html"
    result = CliRunner().invoke(app, ["report", "--db", str(store_db), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert str(out) in result.output
    assert out.stat().st_size > 900_000


def test_cli_reads_options_from_the_environment(store_db: Path, tmp_path: Path) -> None:
    out = tmp_path / "env.html"
    result = CliRunner().invoke(
        app, ["report"], env={"SOLVELENS_DB": str(store_db), "SOLVELENS_OUT": str(out)}
    )
    assert result.exit_code == 0, result.output
    assert out.exists()


@pytest.mark.parametrize("which", ["empty", "missing"])
def test_cli_fails_with_one_line_naming_the_db_and_the_fix(
    which: str, empty_store_db: Path, tmp_path: Path
) -> None:
    db = empty_store_db if which == "empty" else tmp_path / "missing.duckdb"
    result = CliRunner().invoke(app, ["report", "--db", str(db), "--out", str(tmp_path / "x.html")])
    assert result.exit_code == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert str(db) in lines[0] and "solvelens snapshot" in lines[0]
    assert "Traceback" not in result.output
