"""Changing the store on a copy and swapping it in, so a change that cannot be written leaves no trace.

A change committed to the store itself goes to its WAL first and into the file at the checkpoint; on a full
disk the commit can land in the WAL while the checkpoint fails, and DuckDB then applies the change the next
time the file is opened, although the command said it failed. :func:`change_on_a_copy` (``db prune``,
``db delete``) instead: takes the store's exclusive lock, checkpoints the store (reading every block, so a
damaged store is left as it is), copies the file to ``.<name>.<what>.tmp`` beside it, makes the change there
in one transaction and checkpoints it, ``fsync``\\ s the copy, ``os.replace``\\ s the store with it and
``fsync``\\ s the folder. Until the replace the store's bytes are untouched (a full disk, a crash or
``kill -9`` leave it as it was; the next call removes a stale copy), after it the store is whole and changed.
The cost: free space for one copy of the store beside it, and the time to copy it.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import duckdb

from solvelens.store.connection import check_store_file, open_writer
from solvelens.store.errors import StoreDiskFullError, StoreError
from solvelens.store.faults import check_writable, store_fault
from solvelens.store.lock import store_lock
from solvelens.store.units import mib

T = TypeVar("T")


def fsync_path(path: Path) -> None:
    """``fsync`` a file or a folder (after a replace, so the new name is durable)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def copy_path_for(db_path: str | os.PathLike[str], what: str) -> Path:
    """The copy :func:`change_on_a_copy` writes before the swap: ``.<name>.<what>.tmp`` beside the store."""
    path = Path(db_path)
    return path.with_name(f".{path.name}.{what}.tmp")


def _remove_copy(tmp: Path) -> None:
    for stale in (tmp, tmp.with_name(tmp.name + ".wal")):
        stale.unlink(missing_ok=True)


def _copy_failed(path: Path, tmp: Path, what: str, exc: BaseException) -> StoreError:
    """The one-line error of a copy, change or swap that failed (the store is untouched then)."""
    fault = store_fault(tmp, exc)
    if isinstance(exc, OSError) and exc.strerror:
        detail = exc.strerror  # without the two file names
    else:
        detail = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    size = mib(path.stat().st_size)
    if isinstance(fault, StoreDiskFullError):
        return StoreDiskFullError(
            f"{what} {path} ran out of space writing the copy it swaps in ({size}, beside the store: "
            f"{detail}); the store was left unchanged: free at least {size} on the disk of "
            f"{path.resolve().parent} and retry"
        )
    return StoreError(f"{what} {path} failed on its copy ({detail}); the store was left unchanged")


def change_on_a_copy(
    db_path: str | os.PathLike[str],
    change: Callable[[duckdb.DuckDBPyConnection], T],
    *,
    what: str,
    lock_timeout_s: float,
    check: Callable[[duckdb.DuckDBPyConnection], None] | None = None,
) -> T:
    """Run ``change(con)`` in one transaction on a copy of the store and swap the copy in (module docstring).

    ``what``: the verb naming the change in file names and messages (``"prune"``, ``"delete"``).
    ``check(con)``: run on the store itself before the copy is made (read only: e.g. raise
    :class:`solvelens.store.errors.SnapshotNotFoundError`, so a change that cannot apply copies nothing).
    Returns what ``change`` returns. Raises what :func:`solvelens.store.connection.open_writer` raises for
    the store (missing, not a store, damaged, busy, unwritable, lock held longer than ``lock_timeout_s``
    seconds), :class:`StoreDiskFullError` when the copy does not fit, or :class:`StoreError` when the
    change fails on the copy; the store's bytes are unchanged in each case.
    """
    path = Path(db_path)
    check_store_file(path)
    check_writable(path)  # the copy is written beside the store, then replaces it
    tmp = copy_path_for(path, what)
    with store_lock(path, exclusive=True, timeout_s=lock_timeout_s):
        # Fold a WAL into the file, check it is a store and read every block before anything is copied.
        with open_writer(path, existing=True, lock=False, verify=True) as con:
            if check is not None:
                check(con)
        _remove_copy(tmp)
        try:
            shutil.copyfile(path, tmp)
            with open_writer(tmp, existing=True, lock=False) as con:
                con.execute("BEGIN TRANSACTION")
                result = change(con)
                con.execute("COMMIT")
                con.execute("CHECKPOINT")
            fsync_path(tmp)
            os.replace(tmp, path)
        except (duckdb.Error, OSError, StoreError) as exc:
            _remove_copy(tmp)
            raise _copy_failed(path, tmp, what, exc) from exc
        except BaseException:
            _remove_copy(tmp)
            raise
        fsync_path(path.parent)
    return result
