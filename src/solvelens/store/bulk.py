"""Many rows into a store table in one statement.

DuckDB's ``executemany`` runs the statement once per row (a few hundred microseconds each, and a snapshot's
write inserts its drift pairs, ``/stats`` metrics and ``data_quality`` rows this way). :func:`insert_rows`
sends each column as one typed list instead and unnests them in a single ``INSERT ... SELECT``: the rows
land in the given order, with the same values an ``executemany`` would store.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import duckdb

__all__ = ["insert_rows"]


def insert_rows(
    con: duckdb.DuckDBPyConnection, table: str, types: Sequence[str], rows: Sequence[Sequence[Any]]
) -> None:
    """Insert ``rows`` into ``table`` in one statement, in order.

    ``types``: the SQL type of each of the table's columns, in column order (``"VARCHAR"``, ``"UBIGINT"``;
    a constraint after the type, ``"BIGINT NOT NULL"``, is ignored); every row holds one value per type
    (``None`` for NULL). No rows: nothing is sent. Raises ``ValueError`` for a row of another length, and
    what DuckDB raises for a value its column's type cannot hold (nothing of the statement is inserted).
    """
    if not rows:
        return
    if any(len(row) != len(types) for row in rows):
        raise ValueError(f"every row inserted into {table} must hold {len(types)} values")
    columns = [list(column) for column in zip(*rows, strict=True)]
    select = ", ".join(f"unnest(?::{sql_type.split()[0]}[])" for sql_type in types)
    con.execute(f"INSERT INTO {table} SELECT {select}", columns)
