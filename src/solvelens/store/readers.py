"""Read-only access to the store: open, read into polars, close at once.

DuckDB lets no process open a file another process holds read-write, so readers (notebooks, reports, the CLI)
take the store's shared lock (waiting a bounded time while a writer commits), open the file with
``read_only=True``, read what they need into polars and close. Never keep a connection open across cells.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import duckdb
import polars as pl

from solvelens.store.errors import StoreNotFoundError
from solvelens.store.lock import store_lock
from solvelens.store.schema import INTERNAL, LINKS, PROBLEMS, PUBLIC_VIEWS

#: Default bounded wait for a reader while a writer holds the store, in seconds.
DEFAULT_READ_TIMEOUT_S = 60.0


@contextmanager
def open_readonly(
    db_path: str | os.PathLike[str], *, lock_timeout_s: float = DEFAULT_READ_TIMEOUT_S
) -> Iterator[duckdb.DuckDBPyConnection]:
    """A read-only DuckDB connection to the store (``TimeZone=UTC``), closed when the block ends.

    Holds the shared store lock meanwhile. Raises :class:`StoreNotFoundError` when the file does not exist
    and :class:`solvelens.store.lock.StoreLockTimeout` when a writer holds the store longer than
    ``lock_timeout_s`` seconds.
    """
    if not Path(db_path).exists():
        raise StoreNotFoundError(
            f"no snapshot store at {db_path}: run `solvelens snapshot --db {db_path}` first"
        )
    with store_lock(db_path, exclusive=False, timeout_s=lock_timeout_s):
        con = duckdb.connect(os.fspath(db_path), read_only=True)
        try:
            con.execute("SET TimeZone = 'UTC'")
            yield con
        finally:
            con.close()


def read_frame(
    db_path: str | os.PathLike[str],
    sql: str,
    params: list[Any] | dict[str, Any] | None = None,
    *,
    lock_timeout_s: float = DEFAULT_READ_TIMEOUT_S,
) -> pl.DataFrame:
    """Run one query on the store read-only and return its result as a polars DataFrame.

    Example: ``read_frame(db, "SELECT * FROM leaderboard WHERE snapshot_id = ?", [3])``. Columns and
    dtypes are those of the query (see the public views in ``docs/architecture.md``; TIMESTAMPTZ arrive as
    ``Datetime(time_zone="UTC")``, JSON as strings).
    """
    with open_readonly(db_path, lock_timeout_s=lock_timeout_s) as con:
        return con.sql(sql, params=params).pl()


def list_snapshots(db_path: str | os.PathLike[str], *, include_incomplete: bool = False) -> pl.DataFrame:
    """The snapshot log, newest last: the ``snapshots`` view's columns, plus ``changes`` (JSON).

    With ``include_incomplete`` the rows of snapshots that never completed (normally none: a failed write
    rolls back) are included as well.
    """
    where = "" if include_incomplete else "WHERE status = 'complete'"
    return read_frame(
        db_path,
        f"""SELECT snapshot_id, taken_at, base_url, status, started_at, finished_at, duration_s,
                   counts, warnings, drift, changes
            FROM {INTERNAL}.snapshot_log {where} ORDER BY snapshot_id""",
    )


def latest_solution_state(db_path: str | os.PathLike[str], base_url: str) -> dict[str, tuple[int, int, int]]:
    """Per problem of the newest complete snapshot of ``base_url``: (solutionCount, comparisonCount,
    solution manifest id).

    The snapshot flow uses it to skip problems whose counts did not change. Returns ``{}`` when there is no
    store file or no complete snapshot of that base URL. Problems with a null count are left out.
    """
    if not Path(db_path).exists():
        return {}
    with open_readonly(db_path) as con:
        tables = con.execute(
            "SELECT count(*) FROM duckdb_tables() WHERE schema_name = ? AND table_name = 'snapshot_log'",
            [INTERNAL],
        ).fetchall()
        if not tables[0][0]:
            return {}
        rows = con.execute(
            f"""WITH last AS (SELECT max(snapshot_id) AS sid FROM {INTERNAL}.snapshot_log
                              WHERE status = 'complete' AND base_url = ?)
                SELECT v.problem_id, v.solution_count, v.comparison_count, l.manifest_id
                FROM last
                JOIN {LINKS} l ON l.snapshot_id = last.sid AND l.resource = {PROBLEMS.code}
                JOIN {PROBLEMS.version_table} v ON v.version_id = l.version_id
                WHERE v.solution_count IS NOT NULL AND v.comparison_count IS NOT NULL
                  AND l.manifest_id IS NOT NULL""",
            [base_url],
        ).fetchall()
    return {str(p): (int(sc), int(cc), int(mid)) for p, sc, cc, mid in rows}


def store_info(db_path: str | os.PathLike[str]) -> dict[str, Any]:
    """Summary of the store: ``{"path", "file_bytes", "snapshots", "first_taken_at", "last_taken_at",
    "rows": {view: n}, "versions": {resource: n}}`` (times as ISO strings, counts over complete snapshots)."""
    with open_readonly(db_path) as con:
        snaps = con.execute("SELECT count(*), min(taken_at), max(taken_at) FROM snapshots").fetchall()[0]
        rows = {v: int(con.execute(f"SELECT count(*) FROM {v}").fetchall()[0][0]) for v in PUBLIC_VIEWS}
        versions = {
            name.removesuffix("_versions"): int(
                con.execute(f"SELECT count(*) FROM {INTERNAL}.{name}").fetchall()[0][0]
            )
            for (name,) in con.execute(
                "SELECT table_name FROM duckdb_tables() "
                "WHERE schema_name = ? AND table_name LIKE '%_versions' ORDER BY table_name",
                [INTERNAL],
            ).fetchall()
        }
    return {
        "path": os.fspath(db_path),
        "file_bytes": Path(db_path).stat().st_size,
        "snapshots": int(snaps[0]),
        "first_taken_at": snaps[1].isoformat() if snaps[1] else None,
        "last_taken_at": snaps[2].isoformat() if snaps[2] else None,
        "rows": rows,
        "versions": versions,
    }
