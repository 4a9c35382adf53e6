"""The DuckDB snapshot store: schema, staging, atomic writer, read-only readers, Parquet export, pruning,
compaction.

Public schema: the views of ``docs/architecture.md`` ("Contract: the store's public schema"); only complete
snapshots are visible. Writers go through :func:`write_snapshot` (one transaction, exclusive lock);
readers use :func:`open_readonly` / :func:`read_frame` (read-only, shared lock, closed at once). Every way
of opening the file is in :mod:`solvelens.store.connection`; every error is a :class:`StoreError`.
"""

from solvelens.store.compact import compact
from solvelens.store.connection import open_readonly, open_writer
from solvelens.store.errors import (
    IncompleteStagingError,
    NotAStoreError,
    SchemaVersionError,
    SnapshotNotFoundError,
    StaleCarryoverError,
    StoreBusyError,
    StoreError,
    StoreInputError,
    StoreLockTimeout,
    StoreNotFoundError,
)
from solvelens.store.export import export_parquet
from solvelens.store.lock import lock_path_for, store_lock
from solvelens.store.meta import read_store_meta, write_store_meta
from solvelens.store.prune import delete_snapshot, prune
from solvelens.store.readers import (
    latest_solution_state,
    latest_taken_at,
    list_snapshots,
    read_frame,
    store_info,
)
from solvelens.store.schema import PUBLIC_VIEWS, SCHEMA_VERSION, ensure_schema
from solvelens.store.staging import StagingArea
from solvelens.store.writer import SnapshotResult, write_snapshot

__all__ = [
    "PUBLIC_VIEWS",
    "SCHEMA_VERSION",
    "IncompleteStagingError",
    "NotAStoreError",
    "SchemaVersionError",
    "SnapshotNotFoundError",
    "SnapshotResult",
    "StagingArea",
    "StaleCarryoverError",
    "StoreBusyError",
    "StoreError",
    "StoreInputError",
    "StoreLockTimeout",
    "StoreNotFoundError",
    "compact",
    "delete_snapshot",
    "ensure_schema",
    "export_parquet",
    "latest_solution_state",
    "latest_taken_at",
    "list_snapshots",
    "lock_path_for",
    "open_readonly",
    "open_writer",
    "prune",
    "read_frame",
    "read_store_meta",
    "store_info",
    "store_lock",
    "write_snapshot",
    "write_store_meta",
]
