"""Every way of opening the store: a writer (exclusive lock, read-write) or a reader (shared lock, read-only).

DuckDB lets no other process open a file one process holds read-write, not even read-only, and fails at once
instead of waiting. So every solvelens process first takes the store's advisory lock
(:mod:`solvelens.store.lock`): writers exclusively, readers shared, each with a bounded wait. A writer holds
the file only for one transaction; a reader reads what it needs and closes at once. Both set
``TimeZone=UTC``, so TIMESTAMPTZ values read back as UTC.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path

import duckdb

from solvelens.store.errors import NotAStoreError, StoreDamagedError, StoreNotFoundError
from solvelens.store.faults import check_whole_file, check_writable, read_every_block, store_fault
from solvelens.store.lock import store_lock
from solvelens.store.schema import INTERNAL, SMALL_BLOCK_SIZE, ensure_schema

#: DuckDB memory limit of a writer connection: big intermediate results spill to ``<db>.tmp/`` instead of
#: growing the process (a full large-scale snapshot must stay under 1 GB peak RSS).
WRITER_MEMORY_LIMIT = "512MB"
#: Default bounded wait for the writer lock, in seconds.
DEFAULT_LOCK_TIMEOUT_S = 60.0
#: Default bounded wait for a reader while a writer holds the store, in seconds.
DEFAULT_READ_TIMEOUT_S = 60.0


def _not_a_store(db_path: str | os.PathLike[str], what: str) -> NotAStoreError:
    return NotAStoreError(
        f"{os.fspath(db_path)} {what}, so it is not a solvelens store (left unchanged); pass --db the path "
        "of a store written by `solvelens snapshot`, or a new path"
    )


def connect_readwrite(
    db_path: str | os.PathLike[str], *, block_size: int = SMALL_BLOCK_SIZE
) -> duckdb.DuckDBPyConnection:
    """Open the store read-write with ``TimeZone=UTC`` and the writer memory limit; a new file is created
    with ``block_size`` (bytes).

    Call only while holding the exclusive store lock. Raises :class:`StoreBusyError` when another process
    holds the file outside the solvelens lock, :class:`NotAStoreError` when the file is not a DuckDB file,
    :class:`solvelens.store.errors.StoreDamagedError` when it is a DuckDB file that cannot be read whole,
    :class:`solvelens.store.errors.StoreUnwritableError` when the file or its folder is read-only.
    """
    Path(db_path).parent.mkdir(parents=True, exist_ok=True)
    check_writable(db_path)
    try:
        con = duckdb.connect(os.fspath(db_path), config={"default_block_size": str(block_size)})
    except duckdb.Error as exc:
        raise _fault(db_path, exc) from exc
    try:
        check_whole_file(con, db_path)
    except StoreDamagedError:
        con.close()
        raise
    con.execute("SET TimeZone = 'UTC'")
    con.execute(f"SET memory_limit = '{WRITER_MEMORY_LIMIT}'")
    return con


def _fault(db_path: str | os.PathLike[str], exc: duckdb.Error) -> Exception:
    """What a DuckDB error opening the file means (:func:`solvelens.store.faults.store_fault`); any other
    error opening it: the file is not a DuckDB file DuckDB can open."""
    return store_fault(db_path, exc) or _not_a_store(db_path, f"cannot be opened by DuckDB ({exc})")


@contextmanager
def _faults_named(db_path: str | os.PathLike[str], *, writing: bool) -> Iterator[None]:
    """A damaged block (and, ``writing``, a full disk or a refused write) met while the store is open raises
    the store's own exception (:func:`solvelens.store.faults.store_fault`); other errors pass unchanged (a
    reader's full disk or refused write concerns what it writes elsewhere, e.g. an export)."""
    try:
        yield
    except (duckdb.Error, OSError) as exc:
        fault = store_fault(db_path, exc)
        if fault is None or fault is exc or not (writing or isinstance(fault, StoreDamagedError)):
            raise
        raise fault from exc


def _count(con: duckdb.DuckDBPyConnection, sql: str, params: list[str] | None = None) -> int:
    return int(con.execute(sql, params or []).fetchall()[0][0])


def _has_solvelens_schema(con: duckdb.DuckDBPyConnection) -> bool:
    return bool(
        _count(
            con,
            "SELECT count(*) FROM duckdb_tables() WHERE schema_name = ? AND table_name = 'meta'",
            [INTERNAL],
        )
    )


def check_not_foreign(con: duckdb.DuckDBPyConnection, db_path: str | os.PathLike[str]) -> None:
    """Raise :class:`NotAStoreError` when the open file holds tables of something else (a store is never
    written into such a file); a store, or a DuckDB file with no tables at all, passes."""
    if _has_solvelens_schema(con):
        return
    if _count(con, "SELECT count(*) FROM duckdb_tables() WHERE NOT internal") or _count(
        con, "SELECT count(*) FROM duckdb_views() WHERE NOT internal"
    ):
        raise _not_a_store(db_path, "is a DuckDB file holding other tables")


def _check_readable_store(con: duckdb.DuckDBPyConnection, db_path: str | os.PathLike[str]) -> None:
    """A readable store has the public ``snapshots`` view (or table, in a store built by other tools)."""
    found = _count(
        con,
        "SELECT count(*) FROM information_schema.tables "
        "WHERE table_schema = 'main' AND table_name = 'snapshots'",
    )
    if not found:
        raise _not_a_store(db_path, "is a DuckDB file without the store's views (empty or foreign)")


@contextmanager
def open_writer(
    db_path: str | os.PathLike[str],
    *,
    lock_timeout_s: float = DEFAULT_LOCK_TIMEOUT_S,
    block_size: int = SMALL_BLOCK_SIZE,
    raw_compression: str | None = None,
    existing: bool = False,
    lock: bool = True,
    verify: bool = False,
) -> Iterator[duckdb.DuckDBPyConnection]:
    """Hold the exclusive store lock and a read-write connection with the schema ensured; close on exit.

    ``block_size`` (bytes) and ``raw_compression`` (the raw JSON columns', e.g.
    :data:`solvelens.store.schema.RAW_COMPRESSION`; ``None``: DuckDB's choice) only apply to a file (or
    tables) created now. ``existing``: the store must already
    exist (maintenance commands such as prune and delete never create one). A DuckDB file holding tables
    of something else is never changed. Raises :class:`solvelens.store.errors.StoreLockTimeout` when another
    writer holds the lock longer than ``lock_timeout_s`` seconds, :class:`StoreNotFoundError` (``existing``
    and no file), :class:`StoreBusyError`, :class:`NotAStoreError` (not a DuckDB file, another
    application's DuckDB file, or with ``existing`` a DuckDB file without a store) and
    :class:`solvelens.store.errors.SchemaVersionError`. ``lock=False``: the caller already holds the
    exclusive store lock (:func:`solvelens.store.lock.store_lock`). ``verify``: read every block in use
    before anything is written (:func:`solvelens.store.faults.read_every_block`): a damaged store raises
    :class:`solvelens.store.errors.StoreDamagedError` and is left as it is.
    """
    if existing:
        check_store_file(db_path)
    held = store_lock(db_path, exclusive=True, timeout_s=lock_timeout_s) if lock else nullcontext()
    with held, _faults_named(db_path, writing=True):
        con = connect_readwrite(db_path, block_size=block_size)
        try:
            check_not_foreign(con, db_path)
            if existing and not _has_solvelens_schema(con):
                raise _not_a_store(db_path, "is a DuckDB file without the store's tables (empty)")
            if verify:  # before anything is written, a schema migration included
                read_every_block(con, db_path)
            ensure_schema(con, raw_compression=raw_compression)
            yield con
        finally:
            con.close()


def check_store_file(db_path: str | os.PathLike[str]) -> None:
    """Raise :class:`StoreNotFoundError` for a missing path, :class:`NotAStoreError` for a directory."""
    path = Path(db_path)
    if not path.exists():
        raise StoreNotFoundError(
            f"no snapshot store at {db_path}: run `solvelens snapshot --db {db_path}` first"
        )
    if path.is_dir():
        raise _not_a_store(db_path, "is a directory")


@contextmanager
def open_readonly(
    db_path: str | os.PathLike[str],
    *,
    lock_timeout_s: float = DEFAULT_READ_TIMEOUT_S,
    require_store: bool = True,
) -> Iterator[duckdb.DuckDBPyConnection]:
    """A read-only DuckDB connection to the store (``TimeZone=UTC``), closed when the block ends.

    Holds the shared store lock meanwhile. Raises :class:`StoreNotFoundError` when the file does not exist,
    :class:`NotAStoreError` when it is not a DuckDB file or (with ``require_store``) has no ``snapshots``
    view (an empty or another application's DuckDB file),
    :class:`solvelens.store.errors.StoreLockTimeout` when a writer holds the store longer than
    ``lock_timeout_s`` seconds, and :class:`StoreBusyError` when a process outside the solvelens lock holds
    it read-write; a damaged block met while reading raises
    :class:`solvelens.store.errors.StoreDamagedError`.
    """
    check_store_file(db_path)
    with store_lock(db_path, exclusive=False, timeout_s=lock_timeout_s):
        try:
            con = duckdb.connect(os.fspath(db_path), read_only=True)
        except duckdb.Error as exc:
            raise _fault(db_path, exc) from exc
        with _faults_named(db_path, writing=False):
            try:
                check_whole_file(con, db_path)
                con.execute("SET TimeZone = 'UTC'")
                if require_store:
                    _check_readable_store(con, db_path)
                yield con
            finally:
                con.close()
