"""The report's arena and activity sections: drawn from a store holding the platform's votes, activity and
model board; one line each (no crash) for a store without them."""

from __future__ import annotations

import json
import re
from pathlib import Path

import polars as pl
import pytest

from solvelens import analysis as an
from solvelens.report import build_report, report_content
from solvelens.report.evidence import NO_ACTIVITY, NO_VOTES, OTHER_CLOCK
from tests.fixtures.evidence import MODEL_STRENGTH
from tests.fixtures.store import FEW_RESAMPLES as FEW

EVIDENCE_CHARTS = {"arena_scores", "arena_win_rate", "arena_rank", "activity_timeline"}


def _specs(html: str) -> dict:
    block = re.search(r'<script type="application/json" id="chart-specs">(.*?)</script>', html, re.S)
    assert block
    return json.loads(block.group(1))


@pytest.fixture(scope="module")
def evidence_html(evidence_store_db: Path, tmp_path_factory: pytest.TempPathFactory) -> str:
    out = tmp_path_factory.mktemp("evidence-report") / "report.html"
    build_report(evidence_store_db, out, bootstrap=FEW)
    return out.read_text(encoding="utf-8")


def test_the_arena_section_draws_scores_win_rates_and_rank_over_time(evidence_html: str) -> None:
    specs = _specs(evidence_html)
    assert set(specs) >= EVIDENCE_CHARTS
    assert 'id="arena"' in evidence_html and 'id="activity"' in evidence_html
    assert "Three model rankings" in evidence_html
    assert NO_VOTES not in evidence_html and NO_ACTIVITY not in evidence_html
    scores = json.dumps(specs["arena_scores"])
    assert "claude-sonnet-4" in scores and "Elo scale" in scores


def test_the_model_table_puts_the_three_rankings_side_by_side(evidence_store_db: Path) -> None:
    content = report_content(an.load(evidence_store_db))
    rows = {row["model"]: row for row in content.arena_models}
    # Every generated model is ranked by the arena, listed by the platform and by the percentile board.
    assert set(MODEL_STRENGTH) <= set(rows)
    best = max(MODEL_STRENGTH, key=MODEL_STRENGTH.__getitem__)
    assert rows[best]["arena_rank"] == "1", "the strongest model of the generated votes is first"
    assert re.fullmatch(r"[\d,]+ \[[\d,]+, [\d,]+\]", rows[best]["arena_score"])
    assert all(row["platform_rank"] != "–" for name, row in rows.items() if name in MODEL_STRENGTH)
    # The generated platform board orders by average solution score, unrelated to the votes: the sentence
    # names who each ranking puts first.
    sentence = content.arena_disagreement
    assert sentence.startswith(("They disagree on the top:", "All 3 rankings put"))
    assert "the arena puts claude-sonnet-4" in sentence or sentence.startswith("All 3 rankings put claude")


def test_the_activity_timeline_shades_the_recorded_gap(evidence_html: str) -> None:
    spec = json.dumps(_specs(evidence_html)["activity_timeline"])
    assert "events missed" in spec and "vote_cast" in spec
    assert "1 stretch(es) where snapshots came too rarely" in evidence_html


def test_a_store_without_the_views_says_so_in_one_line_each(store_db: Path) -> None:
    content = report_content(an.load(store_db))
    assert content.arena_note == NO_VOTES and content.activity_note == NO_ACTIVITY
    assert content.sections["arena"] == [] and content.sections["activity"] == []
    assert content.arena_models == []


def test_empty_views_say_the_platform_may_not_offer_the_endpoints(
    evidence_store_db: Path, tmp_path: Path
) -> None:
    import shutil

    import duckdb

    path = tmp_path / "empty-evidence.duckdb"
    shutil.copyfile(evidence_store_db, path)
    con = duckdb.connect(str(path))
    con.execute("DELETE FROM comparisons; DELETE FROM activity; DELETE FROM llm_leaderboard")
    con.close()
    out = tmp_path / "report.html"
    build_report(path, out)
    html = out.read_text(encoding="utf-8")
    assert NO_VOTES in html and NO_ACTIVITY in html
    assert not EVIDENCE_CHARTS & set(_specs(html))


def test_arena_rankings_over_time_cover_every_window(evidence_store_db: Path) -> None:
    result = an.arena(an.load(evidence_store_db), by="model", bootstrap=100, window_bootstrap=50)
    windows = result.over_time.group_by("snapshot_id").agg(pl.col("comparisons").sum()).sort("snapshot_id")
    assert windows.height == 12 and windows["comparisons"].is_sorted()
    assert result.unmatched == 0 and result.skips > 0


def test_events_on_another_clock_than_the_snapshots_are_not_drawn_on_their_axis(
    evidence_store_db: Path, tmp_path: Path
) -> None:
    """A platform's simulated dates beside wall-clock snapshot times (a hand-served sandbox snapshotted
    without the platform's time): the events lie 200 days before the snapshots that first stored them; the
    report keeps one time axis and says why the timeline is missing."""
    import shutil

    import duckdb

    path = tmp_path / "other-clock.duckdb"
    shutil.copyfile(evidence_store_db, path)
    with duckdb.connect(str(path)) as con:
        con.execute("UPDATE activity SET created_at = created_at - INTERVAL 200 DAY")
    content = report_content(an.load(path), bootstrap=FEW)
    assert content.activity_note == OTHER_CLOCK and content.sections["activity"] == []
    assert report_content(an.load(evidence_store_db), bootstrap=FEW).activity_note == ""
