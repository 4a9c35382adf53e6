"""Faults of the machine under the store, told apart in one line each: a damaged store (cut short, a block
whose checksum does not match), a foreign file, a path that cannot be written, a full disk.

DuckDB reports all of them as ``duckdb.Error`` (``IOException`` or the base class) with a message;
:func:`store_fault` turns such an error, or an ``OSError``, into the store's exception naming the file and
what to do, or ``None`` when it is none of these faults (a bug keeps its own error). :func:`check_writable`
refuses, before anything is opened, a store a writer could not write (DuckDB writes its WAL beside the
file). :func:`read_every_block` reads every column of every table, so DuckDB verifies the checksum of every
block in use (``db check``).
"""

from __future__ import annotations

import contextlib
import errno
import os
from pathlib import Path

import duckdb

from solvelens.store.errors import (
    NotAStoreError,
    StoreBusyError,
    StoreDamagedError,
    StoreDiskFullError,
    StoreError,
    StoreUnwritableError,
)

#: The bytes at offset 8 of every DuckDB database file (its magic number).
DUCKDB_MAGIC = b"DUCK"
#: What to do with a damaged store (the end of :class:`StoreDamagedError`'s message).
DAMAGED_FIX = (
    "it was left unchanged: restore an earlier copy of it (a backup), or rebuild from your last Parquet "
    "export (`solvelens db export`), or start a new store with `solvelens snapshot --db NEW.duckdb`"
)
_DAMAGE = ("corrupt database file", "checksum", "could not read enough bytes", "block at location")
_FULL = ("no space left", "file too large", "disk quota", "disk is full")
_DENIED = ("permission denied", "read-only file system", "operation not permitted")
_FULL_ERRNO = {errno.ENOSPC, errno.EFBIG, errno.EDQUOT}
_DENIED_ERRNO = {errno.EACCES, errno.EPERM, errno.EROFS}


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def looks_like_duckdb(path: str | os.PathLike[str]) -> bool:
    """Whether the file at ``path`` starts like a DuckDB database file (its magic number at offset 8)."""
    try:
        with open(path, "rb") as f:
            head = f.read(12)
    except OSError:
        return False
    return head[8:12] == DUCKDB_MAGIC


def damaged(path: str | os.PathLike[str], detail: str) -> StoreDamagedError:
    """The :class:`StoreDamagedError` of the store at ``path`` (``detail``: what DuckDB found, one line)."""
    return StoreDamagedError(f"{os.fspath(path)} is damaged ({detail}); {DAMAGED_FIX}")


def unwritable(path: str | os.PathLike[str], what: str) -> StoreUnwritableError:
    """The :class:`StoreUnwritableError` of the store at ``path`` (``what``: the file or folder refused)."""
    return StoreUnwritableError(
        f"{os.fspath(path)}: {what} is not writable, so the store cannot be changed (left unchanged); "
        "make it writable (chmod u+w) or copy the store to a writable folder and pass --db the copy"
    )


def disk_full(path: str | os.PathLike[str], detail: str) -> StoreDiskFullError:
    """The :class:`StoreDiskFullError` of a write to the store at ``path`` (or beside it)."""
    folder = Path(path).resolve().parent
    return StoreDiskFullError(
        f"writing {os.fspath(path)} ran out of space ({detail}); the store was left unchanged: free space "
        f"on the disk of {folder} (`solvelens db compact` gives a store's free blocks back) and retry"
    )


def store_fault(path: str | os.PathLike[str], exc: BaseException) -> StoreError | None:
    """The store's exception for a DuckDB or OS error met opening, reading or writing the store at ``path``:
    :class:`StoreBusyError` (held outside the solvelens lock), :class:`StoreUnwritableError`,
    :class:`StoreDiskFullError`, :class:`StoreDamagedError` (a DuckDB file that cannot be read whole) or
    :class:`NotAStoreError` (not a DuckDB file); ``None`` when ``exc`` is none of these."""
    if isinstance(exc, StoreError):
        return exc
    if not isinstance(exc, (duckdb.Error, OSError)):
        return None
    text = str(exc).lower()
    code = exc.errno if isinstance(exc, OSError) else None
    if code in _FULL_ERRNO or any(k in text for k in _FULL):
        if "checkpoint" in text:  # the transaction is in the WAL already: durable, not yet in the file
            return StoreDiskFullError(
                f"writing {os.fspath(path)} ran out of space after the change was committed "
                f"({_first_line(exc)}): it is kept in {os.fspath(path)}.wal beside the store (do not delete "
                "that file) and folded into the store the next time it is opened once there is space"
            )
        return disk_full(path, _first_line(exc))
    if code in _DENIED_ERRNO or any(k in text for k in _DENIED):
        target = Path(path)
        what = "the file" if target.exists() and not os.access(target, os.W_OK) else "its folder"
        return unwritable(path, f"{what} ({_first_line(exc)})")
    if isinstance(exc, OSError):
        return None
    if "could not set lock" in text or "conflicting lock" in text:
        return StoreBusyError(
            f"the store {os.fspath(path)} is open in another process that does not use the solvelens lock; "
            "close it (DuckDB allows one read-write process per file) and retry"
        )
    if "could not read enough bytes" in text:
        size = Path(path).stat().st_size if Path(path).exists() else 0
        return damaged(path, f"cut short at {size:,} bytes, e.g. by a full disk or an interrupted copy")
    if any(k in text for k in _DAMAGE):
        return damaged(path, f"DuckDB: {_first_line(exc)}")
    if "not a valid duckdb database file" in text:
        if looks_like_duckdb(path):
            return damaged(path, f"DuckDB: {_first_line(exc)}")
        return NotAStoreError(
            f"{os.fspath(path)} is not a DuckDB file, so it is not a solvelens store (left unchanged); pass "
            "--db the path of a store written by `solvelens snapshot`, or a new path"
        )
    return None


def check_writable(path: str | os.PathLike[str]) -> None:
    """Raise :class:`StoreUnwritableError` when the existing store at ``path`` or its folder cannot be written
    by this process (a writer changes the file and writes ``<file>.wal`` beside it)."""
    target = Path(path)
    if not target.exists():
        return
    if not os.access(target, os.W_OK):
        raise unwritable(path, "the file")
    folder = target.resolve().parent
    if not os.access(folder, os.W_OK | os.X_OK):
        raise unwritable(path, f"its folder {folder}")


def read_every_block(con: duckdb.DuckDBPyConnection, path: str | os.PathLike[str]) -> int:
    """Read every column of every table of the open store, so DuckDB verifies the checksum of every block in
    use; return the number of tables read. Raises :class:`StoreDamagedError` naming the first damaged
    block (free blocks hold nothing and are not read)."""
    tables = con.execute(
        "SELECT schema_name, table_name FROM duckdb_tables() WHERE database_name = current_database() "
        "ORDER BY ALL"
    ).fetchall()
    try:
        for schema, table in tables:
            # hash of the whole row: every column is read (a bare count(*) would be answered from metadata)
            con.execute(f'SELECT bit_xor(hash(t)) FROM "{schema}"."{table}" AS t').fetchall()
    except duckdb.Error as exc:
        raise store_fault(path, exc) or damaged(path, f"DuckDB: {_first_line(exc)}") from exc
    return len(tables)


#: A DuckDB file begins with three 4 KiB headers (the main header and two database headers), then its blocks.
DUCKDB_HEADERS_BYTES = 3 * 4096


def check_whole_file(con: duckdb.DuckDBPyConnection, path: str | os.PathLike[str]) -> None:
    """Raise :class:`StoreDamagedError` when the file at ``path`` ends before a block the store uses: a store
    cut short by a full disk or an interrupted copy. A short file is otherwise found only when a read reaches
    a missing block, and a command reading only the first blocks would answer from a store that lost the rest.

    First the cheap test, metadata only: ``PRAGMA database_size`` (``block_size`` x ``total_blocks`` bytes
    after the headers) fits in the file. ``total_blocks`` also counts free blocks a checkpoint cut off the
    file's end, so a shorter file is then checked against the highest block any table segment
    (``pragma_storage_info``) or the catalog's metadata (``pragma_metadata_info``) uses (about 1 s for a
    year of hourly snapshots, paid only by a file shorter than its block count)."""
    row = con.execute(
        "SELECT block_size, total_blocks FROM pragma_database_size() WHERE database_name = current_database()"
    ).fetchone()
    if row is None or not row[1]:
        return
    block_size, size = int(row[0]), Path(path).stat().st_size
    if size >= DUCKDB_HEADERS_BYTES + block_size * int(row[1]):
        return
    needed = DUCKDB_HEADERS_BYTES + block_size * (_highest_block_used(con) + 1)
    if size < needed:
        raise damaged(
            path, f"cut short at {size:,} bytes of {needed:,}, e.g. by a full disk or an interrupted copy"
        )


def _highest_block_used(con: duckdb.DuckDBPyConnection) -> int:
    """The highest block id a table segment or the catalog's metadata uses (``-1`` when none)."""
    tables = con.execute(
        "SELECT schema_name, table_name FROM duckdb_tables() WHERE database_name = current_database()"
    ).fetchall()
    parts = ["SELECT max(block_id) AS b FROM pragma_metadata_info()"] + [
        f'SELECT max(block_id) AS b FROM pragma_storage_info(\'"{schema}"."{table}"\')'
        for schema, table in tables
    ]
    found = con.execute(f"SELECT max(b) FROM ({' UNION ALL '.join(parts)})").fetchone()
    return -1 if found is None or found[0] is None else int(found[0])


def commit_unwritten(exc: duckdb.Error) -> bool:
    """Whether a ``COMMIT`` that raised ``exc`` failed writing its WAL for want of space (a full disk, the
    file size limit, a quota): nothing of it is durable. ``False`` for a checkpoint that failed after the
    commit (the transaction is in the WAL: :func:`store_fault` says to keep it) and for any other error."""
    text = str(exc).lower()
    return any(k in text for k in _FULL) and "checkpoint" not in text


def rollback(con: duckdb.DuckDBPyConnection) -> None:
    """Roll back the open transaction after an error; a transaction DuckDB already ended (a COMMIT that failed
    writing its WAL on a full disk) is left as it is, so the error that ended it is the one raised."""
    with contextlib.suppress(duckdb.TransactionException):
        con.execute("ROLLBACK")
