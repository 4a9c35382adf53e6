"""The store's advisory lock: one writer at a time, readers share.

DuckDB lets no other process open a file that one process holds read-write (not even read-only), and it
fails at once instead of waiting. So every solvelens process takes a ``flock`` on the store's lock file
first: writers take it exclusively, readers shared, and both wait a bounded time (polling) before giving up
with a message naming the lock file and its last writer. ``flock`` locks belong to the open file, so they
also serialise threads of one process.

Where the lock files live: in one folder, :func:`lock_dir` (``SOLVELENS_LOCK_DIR``, default
``<temp dir>/solvelens-locks``, shared by the machine's users: sticky and world-writable like ``/tmp``),
never beside the file given as ``--db``; the lock file of a store is named by a hash of the store's real
path, so every way of naming one store (relative, absolute, a symlink) takes one lock. A lock file is
removed when the last holder releases it: the releasing process takes it exclusively without waiting
(it fails while anyone else holds or waits on it) and unlinks it; a waiter that got a lock on a file
removed meanwhile sees that its file is no longer the one at the path and starts over, so two holders never
lock two different files.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import stat
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from solvelens.store.errors import StoreLockTimeout

__all__ = ["LOCK_DIR_ENV", "POLL_INTERVAL_S", "StoreLockTimeout", "lock_dir", "lock_path_for", "store_lock"]

#: How often a waiting process re-tries the lock, in seconds.
POLL_INTERVAL_S = 0.1
#: Environment variable naming the folder of the lock files.
LOCK_DIR_ENV = "SOLVELENS_LOCK_DIR"


def lock_dir() -> Path:
    """The folder holding every store's lock file: ``$SOLVELENS_LOCK_DIR``, else
    ``<tempfile.gettempdir()>/solvelens-locks`` (not created here)."""
    configured = os.environ.get(LOCK_DIR_ENV, "").strip()
    return Path(configured) if configured else Path(tempfile.gettempdir()) / "solvelens-locks"


def lock_path_for(db_path: str | os.PathLike[str]) -> Path:
    """The lock file of the store at ``db_path``: ``<lock_dir()>/<name>-<hash of the real path>.lock``
    (the name only helps a reader of the folder; the hash decides)."""
    real = os.path.realpath(os.fspath(db_path))
    digest = hashlib.sha256(real.encode("utf-8", "surrogateescape")).hexdigest()[:20]
    name = "".join(c if c.isalnum() or c in "._-" else "_" for c in Path(real).name)[:40]
    return lock_dir() / f"{name}-{digest}.lock"


def _make_lock_dir(folder: Path) -> None:
    if folder.is_dir():
        return
    with contextlib.suppress(FileExistsError):
        folder.mkdir(parents=True)
        if LOCK_DIR_ENV not in os.environ:  # the shared default: every user may lock there, as in /tmp
            os.chmod(folder, 0o1777)


def _open(path: Path) -> int:
    """Open (creating) the lock file, never following a symlink; read-only when another user made it."""
    flags = os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        fd = os.open(path, os.O_RDWR | flags, 0o666)
    except PermissionError:
        return os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    with contextlib.suppress(OSError):
        os.fchmod(fd, 0o666)  # another user's process may lock it too (it also removes it when released)
    return fd


def _is_current(fd: int, path: Path) -> bool:
    """Whether ``fd`` is still the file at ``path`` (not removed by a releasing holder meanwhile)."""
    try:
        here, there = os.fstat(fd), os.stat(path, follow_symlinks=False)
    except FileNotFoundError:
        return False
    return stat.S_ISREG(there.st_mode) and (here.st_dev, here.st_ino) == (there.st_dev, there.st_ino)


def _acquire(path: Path, exclusive: bool, timeout_s: float) -> int:
    """An open descriptor of ``path`` holding the lock; raises :class:`StoreLockTimeout`."""
    mode = fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH
    start = time.monotonic()
    while True:
        fd = _open(path)
        try:
            while True:
                try:
                    fcntl.flock(fd, mode | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    waited = time.monotonic() - start
                    if waited >= timeout_s:
                        raise StoreLockTimeout(path, waited, exclusive, _read_holder(fd)) from None
                    time.sleep(min(POLL_INTERVAL_S, max(timeout_s - waited, 0.0)))
        except BaseException:
            os.close(fd)
            raise
        if _is_current(fd, path):
            return fd
        os.close(fd)  # the holder removed it as we got it: lock the file now at the path


def _release(fd: int, path: Path) -> None:
    """Unlock and close ``fd``; the last holder removes the file (see the module docstring)."""
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            pass  # someone else holds or waits on it: they remove it
        else:
            if _is_current(fd, path):
                with contextlib.suppress(OSError):
                    path.unlink()
        fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


@contextmanager
def store_lock(
    db_path: str | os.PathLike[str], *, exclusive: bool, timeout_s: float
) -> Iterator[Path | None]:
    """Hold the store lock of ``db_path`` (exclusive for a writer, shared for a reader) in a ``with``.

    Waits up to ``timeout_s`` seconds, then raises :class:`StoreLockTimeout` (naming the lock file and the
    last writer's pid and store). Yields the lock path, or ``None`` for a reader when the lock folder cannot
    be written (readers then go unlocked); a writer raises the ``OSError``. The lock file is removed when
    the last holder releases it.
    """
    path = lock_path_for(db_path)
    try:
        _make_lock_dir(path.parent)
        fd = _acquire(path, exclusive, timeout_s)
    except StoreLockTimeout:
        raise
    except OSError:
        if exclusive:
            raise
        yield None
        return
    try:
        if exclusive:
            with contextlib.suppress(OSError):  # a read-only descriptor (another user's file): no note
                os.ftruncate(fd, 0)
                os.pwrite(fd, f"pid {os.getpid()}, store {os.path.realpath(db_path)}\n".encode(), 0)
        yield path
    finally:
        _release(fd, path)


def _read_holder(fd: int) -> str | None:
    try:
        text = os.pread(fd, 512, 0).decode("utf-8", "replace").strip()
    except OSError:
        return None
    return text or None
