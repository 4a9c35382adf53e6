"""solvelens.report and `solvelens report`: one self-contained HTML file; short history; empty store."""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path

import duckdb
import polars as pl
import pytest
from typer.testing import CliRunner

from solvelens import analysis as an
from solvelens.cli import app
from solvelens.report import EmptyStoreError, build_bot_report, build_report, report_content
from tests.fixtures.store import StoreSpec, write_store

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
    "coverage",
    "model_leaderboard",
    "model_trend",
    "me_rank",
    "me_points",
    "me_categories",
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
    assert (
        report_html.count('<tr data-name="')
        == history.filter(pl.col("snapshot_id") == history["snapshot_id"].max()).height
    ), "every ranked bot has a row"
    assert "3 day(s) without a snapshot" in report_html
    assert "2026-01-17 06:02 UTC" in report_html, "the gap table names the last snapshot before the gap"
    assert "The history is short" not in report_html


def test_leaderboard_rows_show_rank_changes(store_db: Path) -> None:
    content = report_content(an.load(store_db), now=dt.datetime(2026, 2, 10, tzinfo=dt.UTC))
    moves = {row["move_prev_class"] for row in content.leaderboard}
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
    assert "per day" not in html
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


@pytest.fixture(scope="module")
def minutes_store_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three snapshots taken a minute apart (as against a real server), 65 bots."""
    db = write_store(
        tmp_path_factory.mktemp("minutes") / "solvelens.duckdb",
        StoreSpec(
            days=3,
            bots=65,
            gap_days=(),
            extra_snapshot_days=(),
            base_url="https://platform.example/api/v1",
            platform={},  # a real platform declares nothing
        ),
    )
    with duckdb.connect(str(db)) as con:
        con.execute(
            "UPDATE snapshots SET taken_at = TIMESTAMPTZ '2026-05-01 12:00:00+00' "
            "+ to_minutes(CAST(snapshot_id - 1 AS BIGINT))"
        )
    return db


def test_three_snapshots_a_minute_apart_never_extrapolate_to_a_day(
    minutes_store_db: Path, tmp_path: Path
) -> None:
    content = report_content(an.load(minutes_store_db), now=dt.datetime(2026, 5, 1, 12, 5, tzinfo=dt.UTC))
    assert content.rate_unit.name == "hour"
    html = build_report(minutes_store_db, tmp_path / "m.html").read_text(encoding="utf-8")
    assert "per day" not in html and "/ day" not in html
    assert not re.search(r"[+-][\d,.]+ per snapshot", html), "rates are per platform time, never per snapshot"
    specs = _specs(html)
    assert "platform_growth" not in specs, "a minute is too short to rate: no rate is drawn"
    assert "too short to rate" in html
    assert specs["rank_history"]["layer"][0]["encoding"]["x"]["axis"]["format"] == "%H:%M"
    assert "points_trend" in specs, "one day of snapshots still draws the trend"
    assert "Simulated data" not in html, "a real platform's snapshots are not labelled simulated"
    problems = next(f for f in content.headline if f.label == "Problems")
    assert problems.detail.startswith("too short to rate"), problems.detail


def test_simulated_data_is_labelled_with_its_simulated_dates(report_html: str) -> None:
    assert "Simulated data" in report_html
    assert "Simulated dates run from 2026-01-01" in report_html
    assert "days old" not in report_html, "no age against the wall clock for a simulated clock"
    # Every time axis over simulated dates says so (none says plain "Time (UTC").
    assert "Simulated time (UTC)" in report_html and '"Time (UTC' not in report_html


def test_a_real_platform_on_loopback_is_not_labelled_simulated(tmp_path: Path) -> None:
    """The label comes from what the platform declared (nothing, here), never from its 127.0.0.1 address."""
    spec = StoreSpec(days=10, bots=20, gap_days=(), base_url="http://127.0.0.1:8765/api/v1", platform={})
    db = write_store(tmp_path / "real.duckdb", spec)
    html = build_report(db, tmp_path / "r.html").read_text(encoding="utf-8")
    assert "Simulated data" not in html and "simulated clock" not in html
    assert "Simulated time" not in html and '"Time (UTC)"' in html
    assert " old</" in html or " old<" in html  # the newest snapshot's age against the wall clock
    bot = an.load(db).leaderboard.collect()["name"][0]
    page = build_bot_report(db, bot, tmp_path / "b.html").read_text(encoding="utf-8")
    assert "Simulated data" not in page and "Simulated time" not in page


def test_table_lists_every_bot_with_three_changes_and_a_csv_beside_it(store_db: Path, tmp_path: Path) -> None:
    out = build_report(store_db, tmp_path / "r.html")
    html = out.read_text(encoding="utf-8")
    csv = pl.read_csv(tmp_path / "r.csv")
    assert 'href="r.csv"' in html
    for column in ("rank_change_prev", "rank_change_7d", "rank_change_first", "bot_id", "name", "points"):
        assert column in csv.columns
    store = an.load(store_db)
    history = an.rank_history(store.leaderboard, store.snapshots)
    assert csv.height == an.current_leaderboard(history).height == html.count('<tr data-name="')
    for heading in ("vs previous", "vs 7 days", "vs first"):
        assert heading in html
    assert "data-sortable" in html and 'data-filter="bot-table"' in html


def test_your_bot_section_from_bot_me(report_html: str, store_db: Path) -> None:
    me = an.load(store_db).bot_me.collect()["name"][0]
    assert f"Your bot: {me}" in report_html


def test_model_leaderboard_shows_intervals(store_db: Path) -> None:
    content = report_content(an.load(store_db))
    ranked = [row for row in content.models if row["ranked"]]
    assert ranked and all("[" in row["percentile"] and "]" in row["percentile"] for row in ranked)
    spec = ch_spec(content, "model_leaderboard")
    marks = [layer["mark"]["type"] for layer in spec["layer"]]
    assert "rule" in marks and "point" in marks


def ch_spec(content, key: str) -> dict:
    from solvelens.charts import chart_spec

    slot = next(s for slots in content.sections.values() for s in slots if s.key == key)
    return chart_spec(slot.chart)


def test_report_bot_for_a_bot_outside_the_top_20(store_db: Path, tmp_path: Path) -> None:
    store = an.load(store_db)
    history = an.rank_history(store.leaderboard, store.snapshots)
    row = an.current_leaderboard(history).filter(pl.col("rank") > 20).row(0, named=True)
    out = tmp_path / "bot.html"
    result = CliRunner().invoke(
        app, ["report", "--db", str(store_db), "--bot", row["name"].upper(), "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    html = out.read_text(encoding="utf-8")
    assert f"Bot {row['name']}" in html and row["bot_id"] in html
    assert f"#{row['rank']}" in html
    specs = _specs(html)
    assert {"bot_rank", "bot_points", "bot_categories"} <= set(specs)
    assert "Solutions by problem" in html and "compared with the median bot" in html


def test_report_bot_unknown_name_is_one_line_with_suggestions(store_db: Path, tmp_path: Path) -> None:
    store = an.load(store_db)
    name = store.leaderboard.collect()["name"][0]
    result = CliRunner().invoke(
        app, ["report", "--db", str(store_db), "--bot", name[:-1] + "q", "--out", str(tmp_path / "x.html")]
    )
    assert result.exit_code == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "did you mean" in lines[0] and name in lines[0]
    assert not (tmp_path / "x.html").exists()


def test_build_bot_report_default_path_and_suspended_bot(store_db: Path, tmp_path: Path) -> None:
    bots = an.load(store_db).bots.collect()
    suspended = bots.filter(pl.col("status") == "suspended")["name"][0]
    out = build_bot_report(store_db, suspended, tmp_path / "s.html")
    assert "not on the leaderboard at the newest snapshot" in out.read_text(encoding="utf-8")


def test_a_dash_in_the_rank_change_columns_means_not_on_the_leaderboard_then(
    report_html: str, store_db: Path
) -> None:
    """The caption explains "–", and it stands exactly where the bot had no rank at the first snapshot
    (the truth from the store's leaderboard view, in SQL written here)."""
    import duckdb

    assert "– not on the leaderboard then" in report_html
    content = report_content(an.load(store_db), now=dt.datetime(2026, 2, 10, tzinfo=dt.UTC))
    con = duckdb.connect(str(store_db), read_only=True)
    ranked_first = {
        r[0]
        for r in con.execute(
            "SELECT bot_id FROM leaderboard WHERE rank IS NOT NULL "
            "AND snapshot_id = (SELECT min(snapshot_id) FROM snapshots)"
        ).fetchall()
    }
    con.close()
    for row in content.leaderboard:
        assert (row["move_first"] == "–") == (row["bot_id"] not in ranked_first), row
