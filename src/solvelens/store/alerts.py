"""The alert rules' state: ``solvelens_store.alert_state``, one row per platform, rule and subject.

Columns: ``platform VARCHAR`` (the platform's identity: its declared id, else its base URL), ``rule VARCHAR``
(the rule's canonical text), ``subject VARCHAR`` (a bot or problem id; ``""`` for the rule itself),
``active BOOLEAN`` (a level condition held at the last evaluation), ``snapshot_id BIGINT`` (the snapshot
evaluated; NULL for a staleness check), ``updated_at TIMESTAMPTZ`` (UTC). Primary key (platform, rule,
subject). What the rows mean is decided by :mod:`solvelens.alerts.evaluate`; this module only reads and
upserts them, under the store's writer lock, in one transaction.

The table is created by :func:`solvelens.store.schema.ensure_schema` (schema 3) and, in a store of an older
schema, here on first use. Never holds a notification URL.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import duckdb

from solvelens.store.connection import DEFAULT_LOCK_TIMEOUT_S, open_readonly, open_writer
from solvelens.store.faults import rollback
from solvelens.store.schema import ALERT_STATE, ALERT_STATE_DDL, INTERNAL

__all__ = ["ALERT_STATE", "StateDecision", "read_alert_state", "update_alert_state"]

#: ``rows -> rows to upsert``: given the platform's stored rows (dicts with ``rule``, ``subject``, ``active``,
#: ``snapshot_id``), the rows to write (same keys).
StateDecision = Callable[[list[dict[str, Any]]], list[dict[str, Any]]]

_COLUMNS = ("rule", "subject", "active", "snapshot_id")


def _has_table(con: duckdb.DuckDBPyConnection) -> bool:
    found = con.execute(
        "SELECT count(*) FROM duckdb_tables() WHERE schema_name = ? AND table_name = 'alert_state'",
        [INTERNAL],
    ).fetchall()
    return bool(found[0][0])


def _rows(con: duckdb.DuckDBPyConnection, platform: str) -> list[dict[str, Any]]:
    result = con.execute(
        f"SELECT {', '.join(_COLUMNS)} FROM {ALERT_STATE} WHERE platform = ? ORDER BY rule, subject",
        [platform],
    ).fetchall()
    return [dict(zip(_COLUMNS, row, strict=True)) for row in result]


def read_alert_state(db_path: str | os.PathLike[str], platform: str) -> list[dict[str, Any]]:
    """The stored rows of ``platform`` (read-only; ``[]`` when the store has no alert state yet). Raises
    :class:`solvelens.store.StoreError` as :func:`solvelens.store.open_readonly` does."""
    with open_readonly(db_path) as con:
        return _rows(con, platform) if _has_table(con) else []


def update_alert_state(
    db_path: str | os.PathLike[str],
    platform: str,
    decide: StateDecision,
    *,
    lock_timeout_s: float = DEFAULT_LOCK_TIMEOUT_S,
    create: bool = False,
) -> list[dict[str, Any]]:
    """Under the writer lock, in one transaction: read ``platform``'s rows, call ``decide`` with them and
    upsert the rows it returns (``updated_at`` = now, UTC). Returns what ``decide`` returned. Reading and
    writing in one locked transaction means two processes evaluating the same snapshot fire its alerts once.

    Raises :class:`solvelens.store.StoreLockTimeout` when another writer holds the store longer than
    ``lock_timeout_s`` seconds, and the other errors of :func:`solvelens.store.open_writer` (the store must
    exist unless ``create``); a failure inside ``decide`` rolls back and is raised.
    """
    with open_writer(db_path, lock_timeout_s=lock_timeout_s, existing=not create) as con:
        con.execute(ALERT_STATE_DDL)
        con.execute("BEGIN TRANSACTION")
        try:
            rows = decide(_rows(con, platform))
            for row in rows:
                con.execute(
                    f"INSERT OR REPLACE INTO {ALERT_STATE} VALUES (?, ?, ?, ?, ?, now())",
                    [platform, *(row[c] for c in _COLUMNS)],
                )
            con.execute("COMMIT")
        except BaseException:
            rollback(con)
            raise
    return rows
