"""Removing snapshots: keep the newest N complete snapshots (:func:`prune`) or delete one
(:func:`delete_snapshot`), and drop the record versions nothing references any more.

Both run in one transaction on a copy of the store that then replaces it, under the exclusive store lock
(:func:`solvelens.store.swap.change_on_a_copy`): either the snapshot(s) and their unreferenced versions are
gone, or not one byte of the store changed (a full disk included: they need room for one copy of the
store). Every other snapshot keeps all its rows, so an incremental snapshot taken afterwards carries over
from the newest remaining snapshot of its platform. Snapshot ids are never reused (the highest deleted id is
kept in the store's ``meta`` table). DuckDB reuses the freed blocks for later snapshots; it does not shrink
the file.
"""

from __future__ import annotations

import os
from typing import Any

import duckdb

from solvelens.store.connection import DEFAULT_LOCK_TIMEOUT_S
from solvelens.store.errors import SnapshotNotFoundError
from solvelens.store.schema import (
    INTERNAL,
    LAST_DELETED_KEY,
    LINKED_RESOURCES,
    LINKS,
    MODEL_COUNTS,
    SOLUTIONS,
)
from solvelens.store.swap import change_on_a_copy

_LOG = f"{INTERNAL}.snapshot_log"
_ITEMS = f"{INTERNAL}.solution_manifest_items"


def _count(con: duckdb.DuckDBPyConnection, table: str) -> int:
    return int(con.execute(f"SELECT count(*) FROM {table}").fetchall()[0][0])


def _remove(con: duckdb.DuckDBPyConnection, where: str, params: list[Any]) -> dict[str, Any]:
    """Inside a transaction: delete the snapshots matching ``where`` (on ``snapshot_id``) with their links,
    then every manifest and record version no remaining link references. Returns the counts removed."""
    before = _count(con, _LOG)
    for table in (LINKS, MODEL_COUNTS, _LOG):
        con.execute(f"DELETE FROM {table} WHERE {where}", params)
    removed = before - _count(con, _LOG)
    items_before = _count(con, _ITEMS)
    con.execute(
        f"DELETE FROM {_ITEMS} WHERE manifest_id NOT IN "
        f"(SELECT manifest_id FROM {LINKS} WHERE manifest_id IS NOT NULL)"
    )
    removed_items = items_before - _count(con, _ITEMS)
    removed_versions: dict[str, int] = {}
    references = {
        r.version_table: f"SELECT version_id FROM {LINKS} WHERE resource = {r.code}" for r in LINKED_RESOURCES
    }
    references[SOLUTIONS.version_table] = f"SELECT version_id FROM {_ITEMS}"
    for version_table, ref in references.items():
        n = _count(con, version_table)
        con.execute(f"DELETE FROM {version_table} WHERE version_id NOT IN ({ref})")
        name = version_table.split(".")[-1].removesuffix("_versions")
        removed_versions[name] = n - _count(con, version_table)
    con.execute(
        f"DELETE FROM {INTERNAL}.stat_values WHERE version_id NOT IN "
        f"(SELECT version_id FROM {INTERNAL}.platform_stats_versions)"
    )
    return {
        "removed_snapshots": removed,
        "removed_versions": removed_versions,
        "removed_manifest_items": removed_items,
    }


def prune(
    db_path: str | os.PathLike[str], *, keep: int, lock_timeout_s: float = DEFAULT_LOCK_TIMEOUT_S
) -> dict[str, Any]:
    """Delete all but the newest ``keep`` complete snapshots (by snapshot_id) in one transaction.

    Returns ``{"kept": [snapshot_id...], "removed_snapshots": n, "removed_versions": {resource: n},
    "removed_manifest_items": n}``. Takes the exclusive store lock like a writer (bounded wait of
    ``lock_timeout_s`` seconds). Raises ``ValueError`` for ``keep < 1`` and a
    :class:`solvelens.store.StoreError` when the file is missing or not a store, and
    :class:`solvelens.store.errors.StoreDamagedError` (nothing changed) when a block of it is damaged: every
    block in use is read first; :class:`solvelens.store.errors.StoreDiskFullError` (not one byte changed)
    when there is no room beside the store for its copy.
    """
    if keep < 1:
        raise ValueError("keep must be at least 1")
    kept: list[int] = []

    def remove(con: duckdb.DuckDBPyConnection) -> dict[str, Any]:
        kept.extend(
            int(r[0])
            for r in con.execute(
                f"SELECT snapshot_id FROM {_LOG} WHERE status = 'complete' ORDER BY snapshot_id DESC LIMIT ?",
                [keep],
            ).fetchall()
        )
        keep_list = "(" + ", ".join(str(k) for k in kept) + ")" if kept else "(NULL)"
        return _remove(con, f"snapshot_id NOT IN {keep_list}", [])

    result = change_on_a_copy(db_path, remove, what="prune", lock_timeout_s=lock_timeout_s)
    return {"kept": sorted(kept), **result}


def delete_snapshot(
    db_path: str | os.PathLike[str], snapshot_id: int, *, lock_timeout_s: float = DEFAULT_LOCK_TIMEOUT_S
) -> dict[str, Any]:
    """Delete the snapshot ``snapshot_id`` (complete or not) and the record versions only it referenced, in
    one transaction; every other snapshot is kept whole.

    Returns ``{"snapshot_id", "taken_at" (ISO UTC), "base_url", "removed_snapshots": 1,
    "removed_versions": {resource: n}, "removed_manifest_items": n}``. Raises
    :class:`SnapshotNotFoundError` when there is no such snapshot (nothing changed) and a
    :class:`solvelens.store.StoreError` when the file is missing, not a store, or locked longer than
    ``lock_timeout_s`` seconds, and :class:`solvelens.store.errors.StoreDamagedError` (nothing changed)
    when a block of it is damaged: every block in use is read first;
    :class:`solvelens.store.errors.StoreDiskFullError` (not one byte changed) when there is no room beside
    the store for its copy.
    """
    row: list[Any] = []

    def find(con: duckdb.DuckDBPyConnection) -> None:
        row.extend(
            con.execute(
                f"SELECT taken_at, base_url FROM {_LOG} WHERE snapshot_id = ?", [snapshot_id]
            ).fetchall()
        )
        if not row:
            raise SnapshotNotFoundError(
                f"there is no snapshot {snapshot_id} in {os.fspath(db_path)}; "
                f"list them with `solvelens db snapshots --db {os.fspath(db_path)}`"
            )

    def remove(con: duckdb.DuckDBPyConnection) -> dict[str, Any]:
        result = _remove(con, "snapshot_id = ?", [snapshot_id])
        con.execute(
            f"""INSERT OR REPLACE INTO {INTERNAL}.meta VALUES ('{LAST_DELETED_KEY}',
                greatest(?, coalesce((SELECT value::BIGINT FROM {INTERNAL}.meta
                                      WHERE key = '{LAST_DELETED_KEY}'), 0))::VARCHAR)""",
            [snapshot_id],
        )
        return result

    result = change_on_a_copy(db_path, remove, what="delete", lock_timeout_s=lock_timeout_s, check=find)
    taken_at, base_url = row[0]
    return {"snapshot_id": snapshot_id, "taken_at": taken_at.isoformat(), "base_url": base_url, **result}
