"""Read one of the store's optional views (``comparisons``, ``activity``, ``llm_leaderboard``) into polars,
read-only, telling "the store predates the view" (``None``) apart from "the view is empty" (an empty frame).

A store written before the platform's optional resources were collected (schema version < 3) has none of
these views; a platform that does not offer an endpoint leaves its view empty.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from solvelens.store import open_readonly


def read_view(
    db_path: str | Path,
    view: str,
    columns: dict[str, pl.DataType],
    *,
    where: str = "TRUE",
    lock_timeout_s: float = 60.0,
) -> pl.DataFrame | None:
    """``SELECT columns FROM view WHERE where`` from the store at ``db_path`` (read-only, shared lock), cast
    to ``columns``' dtypes; ``None`` when the store has no such view.

    Raises the store's errors of :func:`solvelens.store.open_readonly` (missing file, lock timeout, not a
    store).
    """
    with open_readonly(db_path, lock_timeout_s=lock_timeout_s) as con:
        names = {row[0] for row in con.sql("SELECT table_name FROM information_schema.tables").fetchall()}
        if view not in names:
            return None
        frame = con.sql(f"SELECT {', '.join(columns)} FROM {view} WHERE {where}").pl()
    return frame.cast(columns, strict=False)  # type: ignore[arg-type]
