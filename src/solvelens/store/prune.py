"""Pruning: keep the newest N complete snapshots and drop record versions nothing references any more.

DuckDB reuses the freed blocks for later snapshots; it does not shrink the file.
"""

from __future__ import annotations

import os
from typing import Any

from solvelens.store.connection import DEFAULT_LOCK_TIMEOUT_S, open_writer
from solvelens.store.schema import INTERNAL, LINKED_RESOURCES, LINKS, SOLUTIONS


def prune(
    db_path: str | os.PathLike[str], *, keep: int, lock_timeout_s: float = DEFAULT_LOCK_TIMEOUT_S
) -> dict[str, Any]:
    """Delete all but the newest ``keep`` complete snapshots (by snapshot_id) in one transaction.

    Returns ``{"kept": [snapshot_id...], "removed_snapshots": n, "removed_versions": {resource: n},
    "removed_manifest_items": n}``. Takes the exclusive store lock like a writer (bounded wait of
    ``lock_timeout_s`` seconds). Raises ``ValueError`` for ``keep < 1``.
    """
    if keep < 1:
        raise ValueError("keep must be at least 1")
    s = INTERNAL
    items = f"{s}.solution_manifest_items"

    with open_writer(db_path, lock_timeout_s=lock_timeout_s) as con:

        def count(table: str) -> int:
            return int(con.execute(f"SELECT count(*) FROM {table}").fetchall()[0][0])

        con.execute("BEGIN TRANSACTION")
        try:
            kept = [
                int(r[0])
                for r in con.execute(
                    f"SELECT snapshot_id FROM {s}.snapshot_log WHERE status = 'complete' "
                    "ORDER BY snapshot_id DESC LIMIT ?",
                    [keep],
                ).fetchall()
            ]
            before = count(f"{s}.snapshot_log")
            keep_list = "(" + ", ".join(str(k) for k in kept) + ")" if kept else "(NULL)"
            for table in (LINKS, f"{s}.snapshot_log"):
                con.execute(f"DELETE FROM {table} WHERE snapshot_id NOT IN {keep_list}")
            removed = before - count(f"{s}.snapshot_log")
            items_before = count(items)
            con.execute(
                f"DELETE FROM {items} WHERE manifest_id NOT IN "
                f"(SELECT manifest_id FROM {LINKS} WHERE manifest_id IS NOT NULL)"
            )
            removed_items = items_before - count(items)
            removed_versions: dict[str, int] = {}
            references = {
                r.version_table: f"SELECT version_id FROM {LINKS} WHERE resource = {r.code}"
                for r in LINKED_RESOURCES
            }
            references[SOLUTIONS.version_table] = f"SELECT version_id FROM {items}"
            for version_table, ref in references.items():
                n = count(version_table)
                con.execute(f"DELETE FROM {version_table} WHERE version_id NOT IN ({ref})")
                name = version_table.split(".")[-1].removesuffix("_versions")
                removed_versions[name] = n - count(version_table)
            con.execute(
                f"DELETE FROM {s}.stat_values WHERE version_id NOT IN "
                f"(SELECT version_id FROM {s}.platform_stats_versions)"
            )
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise
        con.execute("CHECKPOINT")
    return {
        "kept": sorted(kept),
        "removed_snapshots": removed,
        "removed_versions": removed_versions,
        "removed_manifest_items": removed_items,
    }
