"""Compacting the store: rewrite it into a fresh file and swap that in atomically, giving back free blocks.

DuckDB reuses the blocks that deletes, prunes and rewrites free, but never shrinks its file. :func:`compact`
takes the store's exclusive lock (as a writer does), checkpoints the store (so no WAL is left beside it),
creates ``.<name>.compact.tmp`` beside it with the same block size and this solvelens's schema (tables,
views, zstd raw JSON: the demo's store compacts from 41.7 MiB to 1.9 MiB), copies every table's
rows into it in one transaction (DuckDB ``ATTACH`` + ``INSERT ... BY NAME``), checks that every table holds
the same number of rows, ``fsync``s the new file and ``os.replace``s the store with it, then ``fsync``s the
folder.

A crash or ``kill -9`` at any point leaves a whole store at the path: before the replace the old file is
untouched (the temp file is removed by the next compaction), after it the new file is complete (it was
synced first). Readers and writers wait on the lock meanwhile.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import duckdb

from solvelens.store.connection import DEFAULT_LOCK_TIMEOUT_S, check_store_file, open_writer
from solvelens.store.errors import StoreError
from solvelens.store.faults import check_writable, store_fault
from solvelens.store.lock import store_lock
from solvelens.store.schema import RAW_COMPRESSION, ensure_schema
from solvelens.store.swap import fsync_path


def temp_path_for(db_path: str | os.PathLike[str]) -> Path:
    """The file a compaction writes before the swap: ``.<name>.compact.tmp`` beside the store."""
    path = Path(db_path)
    return path.with_name(f".{path.name}.compact.tmp")


def _sql_path(path: Path) -> str:
    return "'" + str(path).replace("'", "''") + "'"


def free_bytes(con: duckdb.DuckDBPyConnection, database: str | None = None) -> int:
    """Bytes of free blocks in an open database (``PRAGMA database_size``: free blocks x block size)."""
    rows = con.execute("SELECT database_name, block_size, free_blocks FROM pragma_database_size()").fetchall()
    for name, block_size, free in rows:
        if database is None or name == database:
            return int(block_size) * int(free)
    return 0


def _table_counts(con: duckdb.DuckDBPyConnection, database: str) -> dict[str, int]:
    tables = con.execute(
        "SELECT schema_name, table_name FROM duckdb_tables() WHERE database_name = ? ORDER BY ALL",
        [database],
    ).fetchall()
    return {
        f"{s}.{t}": int(con.execute(f'SELECT count(*) FROM "{database}"."{s}"."{t}"').fetchall()[0][0])
        for s, t in tables
    }


def _copy(db_path: Path, tmp: Path) -> None:
    """Copy the (checkpointed) store at ``db_path`` into a new file ``tmp`` created with the current schema
    (so the copy also gets today's column compression, e.g. zstd raw JSON), and check the row counts."""
    con = duckdb.connect()
    try:
        con.execute(f"ATTACH {_sql_path(db_path)} AS src (READ_ONLY)")
        block_size = con.execute(
            "SELECT block_size FROM pragma_database_size() WHERE database_name = 'src'"
        ).fetchall()[0][0]
        fresh_con = duckdb.connect(str(tmp), config={"default_block_size": str(block_size)})
        try:
            # The tables and views of this solvelens, in one transaction; raw JSON compressed with zstd.
            ensure_schema(fresh_con, raw_compression=RAW_COMPRESSION)
        finally:
            fresh_con.close()
        con.execute(f"ATTACH {_sql_path(tmp)} AS dst")
        fresh = _table_counts(con, "dst")
        con.execute("BEGIN TRANSACTION")
        for name in _table_counts(con, "src"):
            quoted = ".".join(f'"{part}"' for part in name.split("."))
            if name in fresh:
                con.execute(f"DELETE FROM dst.{quoted}")  # ensure_schema's own rows (schema_version)
                con.execute(f"INSERT INTO dst.{quoted} BY NAME SELECT * FROM src.{quoted}")
            else:  # a table this solvelens does not create (kept as it is)
                con.execute(f'CREATE SCHEMA IF NOT EXISTS dst."{name.split(".")[0]}"')
                con.execute(f"CREATE TABLE dst.{quoted} AS SELECT * FROM src.{quoted}")
        con.execute("COMMIT")
        before, after = _table_counts(con, "src"), _table_counts(con, "dst")
        if before != after:
            raise StoreError(
                f"compacting {db_path} copied different row counts ({before} -> {after}); the store was left "
                "unchanged"
            )
        con.execute("DETACH dst")
    finally:
        con.close()


def compact(
    db_path: str | os.PathLike[str], *, lock_timeout_s: float = DEFAULT_LOCK_TIMEOUT_S
) -> dict[str, Any]:
    """Rewrite the store into a fresh file and swap it in atomically (see the module docstring).

    Returns ``{"path": str, "before_bytes": int, "after_bytes": int, "reclaimed_bytes": int,
    "seconds": float}`` (file sizes in bytes, the WAL included before). Raises
    :class:`solvelens.store.errors.StoreNotFoundError`, :class:`solvelens.store.errors.NotAStoreError`
    (nothing changed), :class:`solvelens.store.errors.StoreLockTimeout` (another process held the store
    longer than ``lock_timeout_s`` seconds) and :class:`StoreError` when the copy fails (e.g. the disk is
    full) or does not match; the store is left unchanged then.
    """
    path = Path(db_path)
    check_store_file(path)
    check_writable(path)  # the copy is written beside the store, then replaces it
    t0 = time.perf_counter()
    tmp = temp_path_for(path)
    wal = path.with_name(path.name + ".wal")
    with store_lock(path, exclusive=True, timeout_s=lock_timeout_s):
        # Checkpoint (closing a read-write connection folds the WAL into the file) and check it is a store.
        with open_writer(path, existing=True, lock=False, verify=True):
            pass
        before = path.stat().st_size + (wal.stat().st_size if wal.exists() else 0)
        for stale in (tmp, tmp.with_name(tmp.name + ".wal")):
            stale.unlink(missing_ok=True)
        try:
            _copy(path, tmp)
            fsync_path(tmp)
            os.replace(tmp, path)
        except (duckdb.Error, OSError) as exc:
            tmp.unlink(missing_ok=True)
            fault = store_fault(path, exc)
            if fault is not None:
                raise fault from exc
            raise StoreError(
                f"compacting {path} failed ({type(exc).__name__}: {str(exc).splitlines()[0]}); the store was "
                f"left unchanged (check the free disk space beside it: the copy needs up to its size)"
            ) from exc
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        fsync_path(path.parent)
    after = path.stat().st_size
    return {
        "path": str(path),
        "before_bytes": before,
        "after_bytes": after,
        "reclaimed_bytes": before - after,
        "seconds": time.perf_counter() - t0,
    }
