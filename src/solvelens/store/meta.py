"""The store's own key/value metadata (``solvelens_store.meta``): the schema version, and marks such as who
made the store (the demo marks its stores so it replaces only those)."""

from __future__ import annotations

import os

from solvelens.store.connection import DEFAULT_LOCK_TIMEOUT_S, check_not_foreign, open_readonly, open_writer
from solvelens.store.schema import INTERNAL


def read_store_meta(db_path: str | os.PathLike[str]) -> dict[str, str]:
    """Every ``meta`` entry of the store as ``{key: value}``; ``{}`` for a DuckDB file without the store's
    tables. Raises :class:`solvelens.store.StoreError` when the file is missing, not a DuckDB file, holds
    another application's tables, or is busy."""
    with open_readonly(db_path, require_store=False) as con:
        check_not_foreign(con, db_path)
        found = con.execute(
            "SELECT count(*) FROM duckdb_tables() WHERE schema_name = ? AND table_name = 'meta'", [INTERNAL]
        ).fetchall()[0][0]
        if not found:
            return {}
        return {str(k): str(v) for k, v in con.execute(f"SELECT key, value FROM {INTERNAL}.meta").fetchall()}


def write_store_meta(
    db_path: str | os.PathLike[str], key: str, value: str, *, lock_timeout_s: float = DEFAULT_LOCK_TIMEOUT_S
) -> None:
    """Set ``meta[key] = value`` (creating the store with its schema when the file does not exist).
    Raises :class:`solvelens.store.StoreError` as :func:`solvelens.store.open_writer` does."""
    with open_writer(db_path, lock_timeout_s=lock_timeout_s) as con:
        con.execute(f"INSERT OR REPLACE INTO {INTERNAL}.meta VALUES (?, ?)", [key, value])
