"""Export the public views to Parquet partitioned by snapshot, for engines beyond one machine.

Layout: ``<out_dir>/<view>/snapshot_id=<n>/data_0.parquet`` (Hive partitioning), readable by DuckDB
(``read_parquet('<out_dir>/problems/*/*.parquet', hive_partitioning=true)``), Spark, Trino or polars.
"""

from __future__ import annotations

import os
from pathlib import Path

from solvelens.store.connection import open_readonly
from solvelens.store.schema import PUBLIC_VIEWS


def export_parquet(
    db_path: str | os.PathLike[str],
    out_dir: str | os.PathLike[str],
    *,
    views: tuple[str, ...] = PUBLIC_VIEWS,
    min_snapshot_id: int | None = None,
) -> dict[str, int]:
    """Write each view's rows (of complete snapshots, optionally only ``snapshot_id >= min_snapshot_id``) to
    ``out_dir/<view>/snapshot_id=<n>/*.parquet``, overwriting partitions already there.

    Returns rows written per view. Opens the store read-only (see :func:`open_readonly`). Raises
    ``ValueError`` for a name that is not a public view.
    """
    unknown = set(views) - set(PUBLIC_VIEWS)
    if unknown:
        raise ValueError(f"not public views: {sorted(unknown)}; choose from {list(PUBLIC_VIEWS)}")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written: dict[str, int] = {}
    where = "" if min_snapshot_id is None else f"WHERE snapshot_id >= {int(min_snapshot_id)}"
    with open_readonly(db_path) as con:
        for view in views:
            n = int(con.execute(f"SELECT count(*) FROM {view} {where}").fetchall()[0][0])
            written[view] = n
            if n == 0:
                continue
            target = (out / view).as_posix().replace("'", "''")
            con.execute(
                f"COPY (SELECT * FROM {view} {where}) TO '{target}' "
                "(FORMAT parquet, PARTITION_BY (snapshot_id), OVERWRITE_OR_IGNORE, COMPRESSION zstd)"
            )
    return written
