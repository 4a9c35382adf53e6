"""Export the public views to Parquet partitioned by snapshot, for engines beyond one machine.

Layout: ``<out_dir>/<view>/snapshot_id=<n>/data_0.parquet`` (Hive partitioning; the history views
``activity`` and ``comparisons``, which hold each item once, by ``first_snapshot_id=<n>``), readable by DuckDB
(``read_parquet('<out_dir>/problems/*/*.parquet', hive_partitioning=true)``), Spark, Trino or polars, plus
``<out_dir>/solvelens-export.json``, the export's manifest::

    {"format": "solvelens-export", "version": 1, "complete": bool, "store": str, "exported_at": ISO UTC,
     "min_snapshot_id": int | null, "views": {view: rows}, "snapshot_ids": [int]}

A folder is exported into only when it is new, empty, or holds an earlier export (its manifest): then the
view folders that export wrote are replaced, so one folder never mixes two exports. The new export is
written into a hidden folder inside ``<out_dir>`` first; the manifest (temp file, then ``os.replace``) marks
the folder before the new views are moved into place and says ``"complete": true`` once they all are.
"""

from __future__ import annotations

import json
import os
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb

from solvelens.store.connection import open_readonly
from solvelens.store.errors import StoreError, StoreInputError
from solvelens.store.schema import CORE_VIEWS, PUBLIC_VIEWS, snapshot_column

#: The manifest file that marks a folder as written by :func:`export_parquet`.
MANIFEST = "solvelens-export.json"
_FORMAT = "solvelens-export"
_INCOMING = ".solvelens-export-incoming"


def read_export_manifest(out_dir: str | os.PathLike[str]) -> dict[str, Any] | None:
    """The manifest of the export in ``out_dir`` (shape in the module docstring), or ``None`` when the folder
    holds none. Raises :class:`StoreInputError` for a manifest that is not a solvelens export's."""
    path = Path(out_dir) / MANIFEST
    if not path.is_file():
        return None
    try:
        manifest: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        if manifest.get("format") != _FORMAT:
            raise ValueError(manifest.get("format"))
    except (ValueError, AttributeError) as exc:
        raise StoreInputError(
            f"{path} is not a solvelens export manifest ({exc}); pass --parquet a new or empty folder"
        ) from None
    return manifest


def check_export_target(out_dir: str | os.PathLike[str]) -> dict[str, Any] | None:
    """Check that ``out_dir`` may receive an export; returns the earlier export's manifest (or ``None``).

    Raises :class:`StoreInputError` when ``out_dir`` is a file, or a non-empty folder without a manifest
    (files solvelens did not write: they are never mixed with an export nor removed).
    """
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise StoreInputError(f"{out} is a file, not a folder; pass --parquet a new or empty folder")
    if not out.exists():
        return None
    manifest = read_export_manifest(out)
    if manifest is None and any(p.name != _INCOMING for p in out.iterdir()):
        raise StoreInputError(
            f"{out} is not empty and holds no earlier solvelens export ({MANIFEST}); pass --parquet a new "
            "or empty folder (an earlier export's folder is replaced)"
        )
    return manifest


def export_parquet(
    db_path: str | os.PathLike[str],
    out_dir: str | os.PathLike[str],
    *,
    views: tuple[str, ...] = PUBLIC_VIEWS,
    min_snapshot_id: int | None = None,
) -> dict[str, int]:
    """Write each view's rows (of complete snapshots, optionally only ``snapshot_id >= min_snapshot_id``) to
    ``out_dir/<view>/snapshot_id=<n>/*.parquet`` plus the manifest, replacing an earlier export there.

    Returns rows written per view (a view a store of an older schema does not have yet is left out, unless
    named in ``views``: then :class:`StoreInputError`). Opens the store read-only (:func:`open_readonly`).
    Raises
    ``ValueError`` for a name that is not a public view and :class:`StoreInputError` for a target that is
    a file or a non-empty folder holding no earlier export (see :func:`check_export_target`); nothing is
    written then.
    """
    unknown = set(views) - set(PUBLIC_VIEWS)
    if unknown:
        raise ValueError(f"not public views: {sorted(unknown)}; choose from {list(PUBLIC_VIEWS)}")
    out = Path(out_dir)
    written: dict[str, int] = {}
    since = None if min_snapshot_id is None else int(min_snapshot_id)
    where = "" if since is None else f"WHERE snapshot_id >= {since}"
    earlier = check_export_target(out)  # the cheap check first: a bad target fails before the store opens
    incoming = out / _INCOMING
    try:
        with open_readonly(db_path) as con:
            shutil.rmtree(incoming, ignore_errors=True)  # left by an interrupted export
            incoming.mkdir(parents=True)
            for view in _present(con, views):
                written[view] = _copy_view(con, view, since, incoming)
            ids = [
                int(r[0])
                for r in con.execute(f"SELECT snapshot_id FROM snapshots {where} ORDER BY 1").fetchall()
            ]
    except StoreError:  # the store's own (missing, damaged, busy): as it is
        shutil.rmtree(incoming, ignore_errors=True)
        raise
    except (duckdb.Error, OSError) as exc:  # writing the export: a full disk, a refused write
        shutil.rmtree(incoming, ignore_errors=True)
        raise _export_fault(out, exc) from exc
    except BaseException:
        shutil.rmtree(incoming, ignore_errors=True)
        raise
    manifest = {
        "format": _FORMAT,
        "version": 1,
        "complete": False,
        "store": os.path.abspath(db_path),
        "exported_at": datetime.now(UTC).isoformat().replace("+00:00", "Z"),
        "min_snapshot_id": min_snapshot_id,
        "views": written,
        "snapshot_ids": ids,
    }
    # The folder is marked first (a crash while swapping leaves a folder the next export recognises), then
    # completed once every view is in place.
    _write_manifest(out, manifest)
    _swap_in(out, incoming, earlier, written)
    _write_manifest(out, {**manifest, "complete": True})
    return written


def _export_fault(out: Path, exc: BaseException) -> StoreError:
    """Writing the export under ``out`` failed (a full disk, a refused write, ...): one line naming the
    folder, the cause and that the store and any earlier export there are unchanged."""
    detail = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return StoreError(
        f"exporting into {out} failed ({detail}); the store and any earlier export there are unchanged: free "
        "space (a full disk) or give --parquet a writable folder, and retry"
    )


def _present(con: Any, views: tuple[str, ...]) -> list[str]:
    """``views`` that the store has: a store of an older schema (not migrated by a write yet) lacks the
    newer ones, left out unless one was asked for by name (:class:`StoreInputError` then)."""
    have = {r[0] for r in con.execute("SELECT table_name FROM information_schema.tables").fetchall()}
    missing = [v for v in views if v not in have]
    if missing and (views != PUBLIC_VIEWS or any(v in CORE_VIEWS for v in missing)):
        raise StoreInputError(
            f"the store has no {', '.join(missing)} view (written by an older solvelens); the next snapshot "
            "adds it"
        )
    return [v for v in views if v in have]


def _copy_view(con: Any, view: str, since: int | None, incoming: Path) -> int:
    """COPY one view's rows (of snapshots >= ``since``) to ``incoming/<view>/<snapshot column>=<n>/``;
    returns the rows (0: nothing written)."""
    column = snapshot_column(view)
    where = "" if since is None else f"WHERE {column} >= {since}"
    n = int(con.execute(f"SELECT count(*) FROM {view} {where}").fetchall()[0][0])
    if n:
        target = (incoming / view).as_posix().replace("'", "''")
        con.execute(
            f"COPY (SELECT * FROM {view} {where}) TO '{target}' "
            f"(FORMAT parquet, PARTITION_BY ({column}), COMPRESSION zstd)"
        )
    return n


def _write_manifest(out: Path, manifest: dict[str, Any]) -> None:
    tmp = out / f".{MANIFEST}.tmp"
    tmp.write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, out / MANIFEST)


def _swap_in(out: Path, incoming: Path, earlier: dict[str, Any] | None, written: dict[str, int]) -> None:
    """Remove the view folders the earlier export wrote (only those), move the new ones into place."""
    for view in (earlier or {}).get("views", {}):
        if view in PUBLIC_VIEWS:
            shutil.rmtree(out / view, ignore_errors=True)
    for view in written:
        shutil.rmtree(out / view, ignore_errors=True)  # a view folder of this export's name
        if (incoming / view).exists():
            os.replace(incoming / view, out / view)
    shutil.rmtree(incoming, ignore_errors=True)
