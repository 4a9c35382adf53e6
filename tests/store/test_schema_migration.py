"""A store of schema version 1 (no ``snapshots.platform``) is read as "platform unknown" and migrated in place
by the next write."""

from __future__ import annotations

from pathlib import Path

import duckdb

from solvelens import analysis as an
from solvelens.store import open_readonly, write_snapshot
from solvelens.store.schema import INTERNAL, OPTIONAL_VIEWS, PUBLIC_VIEWS, QUALITY_VIEWS, SCHEMA_VERSION
from tests.store.fakes import FakePlatform, stage_run

_V1_VIEW = f"""CREATE OR REPLACE VIEW main.snapshots AS
    SELECT snapshot_id, taken_at, base_url, status, started_at, finished_at, duration_s,
           counts, warnings, drift
    FROM {INTERNAL}.snapshot_log WHERE status = 'complete'"""


def _make_v1(db: Path) -> None:
    """``db`` (written now) as a version-1 store: no ``snapshot_log.platform`` and none of the views added
    since (the optional resources' and history views of version 3, the quality views of version 4; the
    ``comparisons`` view reads ``snapshot_log.platform``)."""
    con = duckdb.connect(str(db))
    try:
        for view in (*OPTIONAL_VIEWS, *QUALITY_VIEWS):
            con.execute(f"DROP VIEW main.{view}")
        con.execute("DROP VIEW main.snapshots")
        con.execute(f"ALTER TABLE {INTERNAL}.snapshot_log DROP COLUMN platform")
        con.execute(_V1_VIEW)
        con.execute(f"UPDATE {INTERNAL}.meta SET value = '1' WHERE key = 'schema_version'")
    finally:
        con.close()


def test_a_version_1_store_is_read_as_unknown_and_migrated_by_the_next_write(
    db: Path, platform: FakePlatform, tmp_path: Path
):
    write_snapshot(db, stage_run(tmp_path, platform))
    _make_v1(db)
    old = an.load(db).snapshots.collect()
    assert old["platform"].to_list() == [None] and an.simulated_label(old) == ""

    write_snapshot(db, stage_run(tmp_path, platform, taken_at="2026-02-02T00:00:00Z"))
    with open_readonly(db) as con:
        assert con.execute(f"SELECT value FROM {INTERNAL}.meta WHERE key = 'schema_version'").fetchall() == [
            (str(SCHEMA_VERSION),)
        ]
        rows = con.execute("SELECT snapshot_id, platform FROM snapshots ORDER BY snapshot_id").fetchall()
        views = {
            v
            for (v,) in con.execute(
                "SELECT view_name FROM duckdb_views() WHERE schema_name = 'main'"
            ).fetchall()
        }
    assert [r[0] for r in rows] == [1, 2]
    assert rows[0][1] is None  # written before the column existed: unknown
    assert set(PUBLIC_VIEWS) <= views  # the views added since version 1 came with the write
