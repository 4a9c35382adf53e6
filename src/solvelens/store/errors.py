"""The store's exceptions: one tree under :class:`StoreError`; each message is one line naming the file
and the fix.

Readers (analysis, report, notebooks, ``solvelens db``) catch :class:`StoreError`; writers also meet
:class:`StoreLockTimeout` and :class:`StoreBusyError`.
"""

from __future__ import annotations

from pathlib import Path


class StoreError(Exception):
    """The store cannot be read or written; the message is one line naming the file and the fix."""


class StoreNotFoundError(StoreError, FileNotFoundError):
    """There is no store file at the given path (no snapshot was ever written there)."""


class NotAStoreError(StoreError):
    """The file exists but is not a DuckDB file with the public views of a solvelens store."""


class StoreDamagedError(StoreError):
    """The file is a DuckDB file but cannot be read whole: cut short (a full disk, an interrupted copy) or a
    block whose checksum does not match (exit 1). The file is left unchanged; the message names what to do
    (an earlier copy, the Parquet export)."""


class StoreDiskFullError(StoreError):
    """Writing the store (or its WAL, or a copy beside it) ran out of space or hit the file size limit
    (exit 1); what was stored before is unchanged."""


class StoreInputError(StoreError, ValueError):
    """Bad input to a store command, found before anything changed (an export target that is a file or a
    folder solvelens did not write, ``keep < 1``); the message names the problem and the fix (exit 2)."""


class StoreUnwritableError(StoreInputError):
    """A command that writes was given a store it cannot write: a read-only file, or a file in a read-only
    folder (DuckDB writes its WAL, and ``db compact`` its copy, beside the file) (exit 2)."""


class SnapshotNotFoundError(StoreError, LookupError):
    """No snapshot with the given id is in the store (``solvelens db delete``)."""


class SchemaVersionError(StoreError, RuntimeError):
    """The file was written by a newer, incompatible solvelens store schema."""


class IncompleteStagingError(StoreError, RuntimeError):
    """The staging directory lacks a required resource (a fetch step did not finish)."""


class StaleCarryoverError(StoreError, RuntimeError):
    """Carried-over record versions (solution lists, bot profiles) no longer exist in the store (pruned
    meanwhile); rerun the snapshot with a full refetch."""


class StoreBusyError(StoreError, RuntimeError):
    """The DuckDB file is held by a process outside the solvelens lock (e.g. an open DuckDB shell)."""


class StoreLockTimeout(StoreError, TimeoutError):
    """The store lock was not obtained within the timeout; ``lock_path`` names the lock file."""

    def __init__(self, lock_path: Path, waited_s: float, exclusive: bool, holder: str | None) -> None:
        self.lock_path = lock_path
        self.waited_s = waited_s
        who = f" (last writer: {holder})" if holder else ""
        action = "write to" if exclusive else "read"
        super().__init__(
            f"could not {action} the store: the lock {lock_path} is held by another solvelens process{who}; "
            f"waited {waited_s:.1f} s. Retry when it has finished."
        )
