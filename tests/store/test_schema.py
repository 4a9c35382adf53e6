"""The public views match the architecture contract exactly and show complete snapshots only."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from solvelens.store import PUBLIC_VIEWS, ensure_schema, open_readonly, write_snapshot
from solvelens.store.schema import (
    ACTIVITY_EVENTS,
    ACTIVITY_GAPS,
    COMPARISON_FETCHES,
    COMPARISON_RECORDS,
    INTERNAL,
    SCHEMA_VERSION,
    SchemaVersionError,
    snapshot_column,
)
from tests.fixtures.store import SCHEMA
from tests.store.fakes import FakePlatform, stage_run

_ALIASES = {"TIMESTAMP WITH TIME ZONE": "TIMESTAMPTZ"}


def test_views_have_exactly_the_contract_columns_and_types(db: Path, platform: FakePlatform, tmp_path: Path):
    write_snapshot(db, stage_run(tmp_path, platform))
    assert set(PUBLIC_VIEWS) == set(SCHEMA)
    with open_readonly(db) as con:
        main_views = {
            r[0]
            for r in con.execute("SELECT view_name FROM duckdb_views() WHERE schema_name = 'main'").fetchall()
        }
        assert main_views >= set(SCHEMA)
        for view, expected in SCHEMA.items():
            described = [(r[0], _ALIASES.get(r[1], r[1])) for r in con.execute(f"DESCRIBE {view}").fetchall()]
            assert described == expected, view


def test_only_complete_snapshots_are_visible(db: Path, platform: FakePlatform, tmp_path: Path):
    platform.vote(platform.problems[0])
    write_snapshot(db, stage_run(tmp_path, platform))
    con = duckdb.connect(str(db))
    # A row left in any status other than complete (e.g. by a future failed-run record) stays invisible.
    con.execute(
        f"INSERT INTO {INTERNAL}.snapshot_log (snapshot_id, taken_at, base_url, status) "
        "VALUES (99, now(), 'x', 'writing')"
    )
    con.execute(
        f"INSERT INTO {INTERNAL}.snapshot_links SELECT 99, resource, version_id, rank, manifest_id "
        f"FROM {INTERNAL}.snapshot_links WHERE snapshot_id = 1"
    )
    con.close()
    # ... and history rows a snapshot being written first saw stay invisible too.
    con = duckdb.connect(str(db))
    for table in (ACTIVITY_EVENTS, COMPARISON_RECORDS):
        con.execute(f"INSERT INTO {table} SELECT * REPLACE (99 AS first_snapshot_id) FROM {table} LIMIT 1")
    for table in (ACTIVITY_GAPS, COMPARISON_FETCHES):
        con.execute(
            f"INSERT INTO {table} (snapshot_id, solution_id, platform) VALUES (99, 'x', 'p')"
            if table == COMPARISON_FETCHES
            else f"INSERT INTO {table} (snapshot_id) VALUES (99)"
        )
    con.close()
    empty = {"bot_me", "activity_gaps", "comparison_coverage"}  # no key; no gap; every vote stored
    with open_readonly(db) as con:
        for view in PUBLIC_VIEWS:
            column = snapshot_column(view)
            ids = {r[0] for r in con.execute(f"SELECT DISTINCT {column} FROM {view}").fetchall()}
            assert ids == ({1} if view not in empty else set()), view


def test_ensure_schema_is_idempotent_and_refuses_newer_files(db: Path):
    con = duckdb.connect(str(db))
    ensure_schema(con)
    ensure_schema(con)
    assert con.execute(f"SELECT value FROM {INTERNAL}.meta").fetchall() == [(str(SCHEMA_VERSION),)]
    con.execute(f"UPDATE {INTERNAL}.meta SET value = '{SCHEMA_VERSION + 1}' WHERE key = 'schema_version'")
    with pytest.raises(SchemaVersionError, match=r"schema version"):
        ensure_schema(con)
    con.close()


def test_schema_is_created_whole_or_not_at_all(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A failure (or Ctrl-C) while the views are created leaves no tables and no version row behind, so the
    next writer creates the whole schema instead of trusting a version row without its views."""
    from solvelens.store import schema

    db = tmp_path / "store.duckdb"
    good = schema._views_ddl
    monkeypatch.setattr(
        schema, "_views_ddl", lambda: [*good()[:2], "CREATE VIEW broken AS SELECT * FROM nowhere"]
    )
    con = duckdb.connect(str(db))
    try:
        with pytest.raises(duckdb.Error):
            ensure_schema(con)
        assert con.execute(
            "SELECT count(*) FROM duckdb_tables() WHERE schema_name = ?", [INTERNAL]
        ).fetchall() == [(0,)]
        monkeypatch.setattr(schema, "_views_ddl", good)
        ensure_schema(con)
        views = {
            r[0] for r in con.execute("SELECT view_name FROM duckdb_views() WHERE NOT internal").fetchall()
        }
        assert set(PUBLIC_VIEWS) <= views
    finally:
        con.close()
