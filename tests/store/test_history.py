"""The history tables (schema version 3): each event and vote stored once per platform, never pruned,
copied by compaction; a store of schema version 2 is read as it is and migrated by the next write."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pyarrow as pa

from solvelens import analysis as an
from solvelens.store import (
    compact,
    export_parquet,
    open_readonly,
    prune,
    read_frame,
    store_info,
    write_snapshot,
)
from solvelens.store.quality import data_quality, vote_coverage
from solvelens.store.reports import Declaration, StepReport
from solvelens.store.schema import (
    HISTORY_COLUMNS,
    INTERNAL,
    OPTIONAL_VIEWS,
    QUALITY_VIEWS,
    SCHEMA_VERSION,
)
from solvelens.store.staging import StagingArea
from tests.store.fakes import FakePlatform, make_platform, stage_run


def _declare(area: StagingArea, platform_id: str) -> StagingArea:
    area.write_report(StepReport.of("platform", {}, declared=Declaration(id=platform_id, clock="simulated")))
    return area


def test_events_and_votes_are_stored_once_per_platform_and_their_first_snapshot(
    db: Path, platform: FakePlatform, tmp_path: Path
):
    platform.vote(platform.problems[0])
    first = write_snapshot(db, _declare(stage_run(tmp_path, platform), "platform-a"))
    platform.vote(platform.problems[1])
    platform.add_problem(1)
    second = write_snapshot(
        db, _declare(stage_run(tmp_path, platform, taken_at="2026-02-02T00:00:00Z"), "platform-a")
    )
    assert first.counts["comparisons"] == 1 and second.counts["comparisons"] == 1
    assert second.counts["activity"] == 2  # the vote and the new problem's solution
    events = read_frame(db, "SELECT event_id, first_snapshot_id, metadata FROM activity")
    assert events.height == 52 == events["event_id"].n_unique()
    assert sorted(events.filter(events["first_snapshot_id"] == 2)["event_id"].cast(int)) == [102, 103]
    assert all(isinstance(json.loads(m), dict) for m in events["metadata"])  # sent as strings, parsed

    # Another platform whose serial ids collide: its events are its own.
    other = make_platform(seed=1)
    third = write_snapshot(
        db, _declare(stage_run(tmp_path, other, taken_at="2026-02-03T00:00:00Z"), "platform-b")
    )
    assert third.counts["activity"] == 50
    with open_readonly(db) as con:
        per_platform = con.execute(
            f"SELECT platform, count(*) FROM {INTERNAL}.activity_events GROUP BY ALL ORDER BY ALL"
        ).fetchall()
    assert per_platform == [("platform-a", 52), ("platform-b", 50)]
    resources = read_frame(db, "SELECT resources FROM snapshots ORDER BY snapshot_id")["resources"]
    assert [json.loads(r) for r in resources] == [
        dict.fromkeys(("activity", "comparisons", "llm_families", "llm_leaderboard"), "stored")
    ] * 3


def test_a_gap_and_the_coverage_of_capped_solutions_are_recorded(db: Path, tmp_path: Path):
    plat = make_platform(problems=2, solutions_per_problem=2)
    for _ in range(60):
        plat.vote(plat.problems[0])  # the same two solutions: 60 votes each, the endpoint returns 50
    area = stage_run(tmp_path, plat)
    gap = {
        "newest_stored_event_id": "3",
        "oldest_fetched_event_id": "15",
        "gap_from": "2026-01-01T00:03:00Z",
        "gap_to": "2026-01-01T00:15:00Z",
        "events_per_hour": 60.0,
        "suggested_interval_s": 1500.0,
    }
    area.write_table("activity_gap", pa.Table.from_pylist([gap]))
    result = write_snapshot(db, area)
    gaps = read_frame(db, "SELECT * FROM activity_gaps").to_dicts()
    assert len(gaps) == 1 and gaps[0]["snapshot_id"] == result.snapshot_id
    assert gaps[0]["oldest_fetched_event_id"] == "15" and gaps[0]["suggested_interval_s"] == 1500.0
    coverage = read_frame(db, "SELECT stored, comparison_count FROM comparison_coverage ORDER BY ALL")
    # Both lists return the same newest 50 votes: 50 of 60 stored.
    assert coverage.rows() == [(50, 60), (50, 60)]
    loaded = an.load(db)
    assert loaded.comparison_coverage.collect().height == 2
    assert loaded.comparisons.collect().height == 50
    assert loaded.activity_gaps.collect()["events_per_hour"].to_list() == [60.0]


def test_the_history_is_never_pruned_and_compaction_copies_it(
    db: Path, platform: FakePlatform, tmp_path: Path
):
    for day in range(1, 4):
        platform.vote(platform.problems[day])
        write_snapshot(db, stage_run(tmp_path, platform, taken_at=f"2026-02-0{day}T00:00:00Z"))
    before = {
        v: read_frame(db, f"SELECT * FROM {v}").sort(pl_cols(db, v)) for v in ("activity", "comparisons")
    }
    prune(db, keep=1)
    assert read_frame(db, "SELECT count(*) AS n FROM llm_leaderboard")["n"][0] == 3  # one snapshot's models
    compact(db)
    for view, frame in before.items():
        assert read_frame(db, f"SELECT * FROM {view}").sort(pl_cols(db, view)).equals(frame), view
    with open_readonly(db) as con:
        fetches = con.execute(
            f"SELECT count(DISTINCT snapshot_id) FROM {INTERNAL}.comparison_fetches"
        ).fetchall()
    assert fetches == [(3,)]  # what each snapshot fetched stays: the next one compares with it


def pl_cols(db: Path, view: str) -> list[str]:
    return [
        c for c in read_frame(db, f"SELECT * FROM {view} LIMIT 0").columns if c not in ("raw", "metadata")
    ]


def _make_v2(db: Path) -> None:
    """Turn a store written now into one as schema version 2 left it."""
    con = duckdb.connect(str(db))
    try:
        for view in OPTIONAL_VIEWS + QUALITY_VIEWS:
            con.execute(f"DROP VIEW main.{view}")
        con.execute("DROP VIEW main.snapshots")
        for table in HISTORY_COLUMNS:
            con.execute(f"DROP TABLE {table}")
        con.execute(f"DROP TABLE {INTERNAL}.llm_leaderboard_versions")
        con.execute(f"DELETE FROM {INTERNAL}.snapshot_links WHERE resource = 7")
        con.execute(f"ALTER TABLE {INTERNAL}.snapshot_log DROP COLUMN resources")
        con.execute(
            f"""CREATE VIEW main.snapshots AS SELECT snapshot_id, taken_at, base_url, status, started_at,
                finished_at, duration_s, counts, warnings, drift, platform
                FROM {INTERNAL}.snapshot_log WHERE status = 'complete'"""
        )
        con.execute(f"UPDATE {INTERNAL}.meta SET value = '2' WHERE key = 'schema_version'")
    finally:
        con.close()


def test_a_version_2_store_is_read_as_it_is_and_migrated_by_the_next_write(
    db: Path, platform: FakePlatform, tmp_path: Path
):
    write_snapshot(db, stage_run(tmp_path, platform))
    _make_v2(db)
    old = an.load(db)
    assert old.snapshot_count == 1 and old.activity.collect().height == 0  # no such views yet: empty
    assert "activity" not in store_info(db)["rows"]
    written = export_parquet(db, tmp_path / "export")
    assert "activity" not in written and written["problems"] == 20

    write_snapshot(db, stage_run(tmp_path, platform, taken_at="2026-02-02T00:00:00Z"))
    with open_readonly(db) as con:
        version = con.execute(f"SELECT value FROM {INTERNAL}.meta WHERE key = 'schema_version'").fetchall()
        rows = con.execute("SELECT snapshot_id, resources FROM snapshots ORDER BY 1").fetchall()
    assert version == [(str(SCHEMA_VERSION),)]
    assert rows[0][1] is None and json.loads(rows[1][1])["activity"] == "stored"  # unknown before 3
    assert an.load(db).activity.collect().height == 50


def test_a_version_3_store_gets_the_data_quality_tables_at_its_next_write(
    db: Path, platform: FakePlatform, tmp_path: Path
):
    """A store of schema version 3 (no data_quality / vote_coverage) reads as it is (the readers give an
    empty frame) and the next write adds the tables, with rows for the new snapshot only."""
    write_snapshot(db, stage_run(tmp_path, platform))
    con = duckdb.connect(str(db))
    try:
        for view in QUALITY_VIEWS:
            con.execute(f"DROP VIEW main.{view}")
            con.execute(f"DROP TABLE {INTERNAL}.{view}")
        con.execute(f"UPDATE {INTERNAL}.meta SET value = '3' WHERE key = 'schema_version'")
    finally:
        con.close()
    assert data_quality(db).is_empty() and vote_coverage(db) is None
    second = write_snapshot(db, stage_run(tmp_path, platform, taken_at="2026-02-02T00:00:00Z"))
    rows = data_quality(db)
    assert set(rows["snapshot_id"]) == {second.snapshot_id}
    assert {"problems", "solutions", "leaderboard"} <= set(rows["resource"])
    assert read_frame(db, "SELECT DISTINCT snapshot_id FROM data_quality")["snapshot_id"].to_list() == [
        second.snapshot_id
    ]
