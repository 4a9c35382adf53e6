"""insert_rows: many rows in one statement, stored exactly as executemany stores them."""

from __future__ import annotations

import duckdb
import pytest

from solvelens.store.bulk import insert_rows

TYPES = ("UBIGINT NOT NULL", "VARCHAR", "DOUBLE", "BIGINT")
ROWS = [
    (2**64 - 1, "a", 1.0, None),
    (5, None, 2.5, -3),
    (2**63, "z'q", None, 7),
    (0, "", float("inf"), 0),
]


@pytest.fixture
def con() -> duckdb.DuckDBPyConnection:
    c = duckdb.connect()
    c.execute("CREATE TABLE t (a UBIGINT NOT NULL, b VARCHAR, c DOUBLE, d BIGINT)")
    c.execute("CREATE TABLE m (a UBIGINT NOT NULL, b VARCHAR, c DOUBLE, d BIGINT)")
    return c


def test_rows_land_in_order_with_the_values_executemany_stores(con: duckdb.DuckDBPyConnection) -> None:
    insert_rows(con, "t", TYPES, ROWS)
    con.executemany("INSERT INTO m VALUES (?, ?, ?, ?)", [list(r) for r in ROWS])
    got = con.execute("SELECT * FROM t").fetchall()
    assert got == ROWS
    assert got == con.execute("SELECT * FROM m").fetchall()


def test_no_rows_sends_nothing(con: duckdb.DuckDBPyConnection) -> None:
    insert_rows(con, "t", TYPES, [])
    assert con.execute("SELECT count(*) FROM t").fetchall() == [(0,)]


def test_a_row_of_another_length_is_refused(con: duckdb.DuckDBPyConnection) -> None:
    with pytest.raises(ValueError, match="must hold 4 values"):
        insert_rows(con, "t", TYPES, [(1, "a", 1.0, 2), (1, "a")])
    assert con.execute("SELECT count(*) FROM t").fetchall() == [(0,)]


def test_a_value_the_column_cannot_hold_inserts_nothing(con: duckdb.DuckDBPyConnection) -> None:
    with pytest.raises(duckdb.Error):
        insert_rows(con, "t", TYPES, [(1, "a", 1.0, 2), (None, "b", 2.0, 3)])  # NOT NULL
    assert con.execute("SELECT count(*) FROM t").fetchall() == [(0,)]
