"""The store's advisory lock: one writer at a time, readers share.

DuckDB lets no other process open a file that one process holds read-write (not even read-only), and it
fails at once instead of waiting. So every solvelens process takes a ``flock`` on ``<db>.lock`` first:
writers take it exclusively, readers shared, and both wait a bounded time (polling) before giving up with
a message naming the lock file. ``flock`` locks belong to the open file, so they also serialise threads of
one process.
"""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from solvelens.store.errors import StoreLockTimeout

__all__ = ["POLL_INTERVAL_S", "StoreLockTimeout", "lock_path_for", "store_lock"]

#: How often a waiting process re-tries the lock, in seconds.
POLL_INTERVAL_S = 0.1


def lock_path_for(db_path: str | os.PathLike[str]) -> Path:
    """The lock file next to the database: ``<db_path>.lock``."""
    return Path(f"{os.fspath(db_path)}.lock")


@contextmanager
def store_lock(
    db_path: str | os.PathLike[str], *, exclusive: bool, timeout_s: float
) -> Iterator[Path | None]:
    """Hold the store lock of ``db_path`` (exclusive for a writer, shared for a reader) in a ``with``.

    Waits up to ``timeout_s`` seconds, then raises :class:`StoreLockTimeout`. Yields the lock path, or
    ``None`` for a reader whose directory is not writable (a read-only mount: readers then go unlocked).
    """
    path = lock_path_for(db_path)
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError:
        if exclusive:
            raise
        yield None
        return
    try:
        mode = fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH
        start = time.monotonic()
        while True:
            try:
                fcntl.flock(fd, mode | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                waited = time.monotonic() - start
                if waited >= timeout_s:
                    raise StoreLockTimeout(path, waited, exclusive, _read_holder(fd)) from None
                time.sleep(min(POLL_INTERVAL_S, max(timeout_s - waited, 0.0)))
        if exclusive:
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"pid {os.getpid()}\n".encode(), 0)
        try:
            yield path
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def _read_holder(fd: int) -> str | None:
    try:
        text = os.pread(fd, 64, 0).decode("ascii", "replace").strip()
    except OSError:
        return None
    return text or None
