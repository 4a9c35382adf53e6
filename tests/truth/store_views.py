"""What a user reads from the store: the public views of a DuckDB snapshot store, opened read-only with
plain DuckDB SQL (no solvelens reader), as lists of dicts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb

Row = dict[str, Any]


def view_rows(store: Path, view: str, snapshot_id: int | None = None, where: str = "") -> list[Row]:
    """Rows of the public view ``view`` (every column but ``raw``), of ``snapshot_id`` when given, and
    filtered by the SQL condition ``where`` when given."""
    conditions = [c for c in (f"snapshot_id = {int(snapshot_id)}" if snapshot_id else "", where) if c]
    sql = f"SELECT * FROM {view}"
    if conditions:
        sql += " WHERE " + " AND ".join(conditions)
    con = duckdb.connect(str(store), read_only=True)
    try:
        cur = con.execute(sql)
        names = [d[0] for d in cur.description]
        rows = [dict(zip(names, r, strict=True)) for r in cur.fetchall()]
        for row in rows:
            row.pop("raw", None)
        return rows
    finally:
        con.close()


def scalar(store: Path, sql: str) -> Any:
    """The first column of the first row of ``sql`` on the store (read-only)."""
    con = duckdb.connect(str(store), read_only=True)
    try:
        row = con.execute(sql).fetchone()
        return None if row is None else row[0]
    finally:
        con.close()
