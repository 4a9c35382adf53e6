"""Export the public views to Parquet partitioned by snapshot, appending only the snapshots the target lacks,
to a local folder or any fsspec URL (``s3://bucket/prefix`` with the ``s3`` extra, s3fs).

Layout: ``<target>/<view>/snapshot_id=<n>/part-<run>-<i>.parquet`` (Hive partitioning; the history views
``activity`` and ``comparisons``, which hold each item once, by ``first_snapshot_id=<n>``), readable by
DuckDB, Spark, Trino or polars, plus ``<target>/solvelens-export.json``, the export's manifest (version 2)::

    {"format": "solvelens-export", "version": 2, "complete": true, "store": str, "exported_at": ISO UTC,
     "schema_version": int, "min_snapshot_id": int | null, "snapshot_ids": [int],
     "newest": {"snapshot_id": int, "taken_at": str, "base_url": str} | null,
     "appended": [int], "views": {view: rows}, "files": {view: [path relative to the target]}}

The manifest is the export: a reader reads the files it lists (:func:`export_files`), never a glob. Each run
writes new files under names of its own (``<run>``: the run's time, UTC), then the manifest (a local folder:
temporary file, then ``os.replace``; S3: one PUT, which readers see whole or not at all), and only then
removes the files no manifest lists any more. So a reader never sees half an export, and an export that is
interrupted (Ctrl-C, a full disk, a lost connection) leaves the previous manifest and every file it lists as
they were; the next run removes what the interrupted one left.

A run appends the complete snapshots of the store that the manifest does not list (``snapshot_ids``). It
rewrites the whole export instead (new files, then the manifest, then the old files removed) when the target
holds none yet, an export of manifest version 1, of another ``min_snapshot_id`` (``--since``), of another
schema version of the store (a migration may fill columns of stored snapshots), or an export whose newest
snapshot the store holds no more or holds with another time or platform (another store, or the snapshot was
deleted). A snapshot the store
no longer holds (pruned or deleted) leaves the export too (its files are unlisted, then removed; the history
views keep its rows, as the store does), unless ``keep_removed``: then the export keeps the history a store
pruned to stay small has let go.

A target is exported into only when it is new, empty, or holds an earlier export (its manifest): files
solvelens did not write are never mixed with an export nor removed.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from solvelens.store.connection import open_readonly
from solvelens.store.errors import StoreError, StoreInputError
from solvelens.store.schema import CORE_VIEWS, HISTORY_VIEWS, INTERNAL, PUBLIC_VIEWS, snapshot_column

if TYPE_CHECKING:
    import duckdb
    from fsspec import AbstractFileSystem

#: The manifest file that marks a folder as written by :func:`export_parquet`.
MANIFEST = "solvelens-export.json"
_FORMAT = "solvelens-export"
_VERSION = 2
_INCOMING = ".solvelens-export-incoming"


@dataclass(frozen=True)
class ExportResult:
    """What one :func:`export_snapshots` run did: ``written`` rows per view in this run (every view the store
    has, 0 for none), ``appended`` the snapshot ids it added, ``removed`` those it took out (the store holds
    them no more), ``rewritten`` whether it wrote the whole export anew, ``snapshot_ids`` every snapshot the
    export holds now, ``not_in_store`` those of them the store holds no more (kept: ``keep_removed``),
    ``manifest`` the manifest written (or the one already there, when nothing changed)."""

    written: dict[str, int]
    appended: list[int]
    removed: list[int]
    rewritten: bool
    snapshot_ids: list[int]
    not_in_store: list[int]
    manifest: dict[str, Any] = field(repr=False)


def _target(target: str | os.PathLike[str]) -> tuple[AbstractFileSystem, str]:
    """The fsspec filesystem and root path of ``target`` (a local path or a URL such as ``s3://b/p``).
    Options of a remote filesystem come from fsspec's configuration (``FSSPEC_S3_ENDPOINT_URL``, ...)."""
    from fsspec.core import url_to_fs

    text = os.fspath(target)
    try:
        fs, root = url_to_fs(text)
    except (ImportError, ValueError) as exc:
        raise StoreInputError(f"--parquet {text}: {exc}") from None
    return fs, str(root).rstrip("/")


def _is_local(fs: AbstractFileSystem) -> bool:
    protocol = fs.protocol
    return bool({"file", "local"} & set((protocol,) if isinstance(protocol, str) else protocol))


def read_export_manifest(target: str | os.PathLike[str]) -> dict[str, Any] | None:
    """The manifest of the export in ``target`` (a folder or URL; shape in the module docstring), or ``None``
    when it holds none. Raises :class:`StoreInputError` for a manifest that is not a solvelens export's."""
    fs, root = _target(target)
    return _read_manifest(fs, root)


def _read_manifest(fs: AbstractFileSystem, root: str) -> dict[str, Any] | None:
    path = f"{root}/{MANIFEST}"
    try:
        data = fs.cat_file(path)
    except (FileNotFoundError, IsADirectoryError):
        return None
    try:
        manifest: dict[str, Any] = json.loads(data)
        if manifest.get("format") != _FORMAT:
            raise ValueError(manifest.get("format"))
    except (ValueError, AttributeError) as exc:
        raise StoreInputError(
            f"{path} is not a solvelens export manifest ({exc}); pass --parquet a new or empty folder"
        ) from None
    return manifest


def export_files(target: str | os.PathLike[str]) -> dict[str, list[str]]:
    """For readers: each view's Parquet files of the export in ``target`` as full paths or URLs (``{view:
    [str]}``, Hive-partitioned by the view's snapshot column), from its manifest; read them with
    ``duckdb.read_parquet(files, hive_partitioning=true)`` or ``polars.scan_parquet(files,
    hive_partitioning=True)``. Raises :class:`StoreInputError` when ``target`` holds no export."""
    manifest = read_export_manifest(target)
    if manifest is None or "files" not in manifest:
        raise StoreInputError(f"{os.fspath(target)} holds no solvelens export of version {_VERSION}")
    base = os.fspath(target).rstrip("/")
    return {view: [f"{base}/{rel}" for rel in files] for view, files in manifest["files"].items()}


def open_export(target: str | os.PathLike[str]) -> duckdb.DuckDBPyConnection:
    """For readers: an in-memory DuckDB connection with one view per exported view (``problems``,
    ``leaderboard``, ...: the store's public views' columns, the snapshot column from the partition path)
    over the files the manifest of ``target`` lists; a remote target is read through its fsspec filesystem
    (no DuckDB extension needed). Raises :class:`StoreInputError` when ``target`` holds no export."""
    import duckdb

    files = export_files(target)
    con = duckdb.connect()
    fs, _ = _target(target)
    if not _is_local(fs):
        con.register_filesystem(fs)
    for view, paths in files.items():
        if paths:
            listed = ", ".join("'" + p.replace("'", "''") + "'" for p in paths)
            con.execute(
                f"CREATE VIEW {view} AS SELECT * FROM read_parquet([{listed}], hive_partitioning = true)"
            )
    return con


def check_export_target(target: str | os.PathLike[str]) -> dict[str, Any] | None:
    """Check that ``target`` may receive an export; returns the earlier export's manifest (or ``None``).

    Raises :class:`StoreInputError` when ``target`` is a file, or a non-empty folder without a manifest
    (files solvelens did not write: they are never mixed with an export nor removed).
    """
    fs, root = _target(target)
    return _check_target(fs, root, os.fspath(target))


def _check_target(fs: AbstractFileSystem, root: str, shown: str) -> dict[str, Any] | None:
    if fs.isfile(root):
        raise StoreInputError(f"{shown} is a file, not a folder; pass --parquet a new or empty folder")
    if not fs.isdir(root):
        return None
    manifest = _read_manifest(fs, root)
    names = {str(p).rstrip("/").rsplit("/", 1)[-1] for p in fs.ls(root, detail=False)}
    if manifest is None and names - {_INCOMING, f".{MANIFEST}.tmp"}:
        raise StoreInputError(
            f"{shown} is not empty and holds no earlier solvelens export ({MANIFEST}); pass --parquet a new "
            "or empty folder (an earlier export there is brought up to date)"
        )
    return manifest


def export_parquet(
    db_path: str | os.PathLike[str],
    out_dir: str | os.PathLike[str],
    *,
    views: tuple[str, ...] = PUBLIC_VIEWS,
    min_snapshot_id: int | None = None,
) -> dict[str, int]:
    """:func:`export_snapshots` returning only the rows written per view in this run."""
    return export_snapshots(db_path, out_dir, views=views, min_snapshot_id=min_snapshot_id).written


def export_snapshots(
    db_path: str | os.PathLike[str],
    target: str | os.PathLike[str],
    *,
    views: tuple[str, ...] = PUBLIC_VIEWS,
    min_snapshot_id: int | None = None,
    keep_removed: bool = False,
) -> ExportResult:
    """Bring the export in ``target`` (a folder or fsspec URL) up to date with the store: append each view's
    rows of the complete snapshots it lacks (only ``snapshot_id >= min_snapshot_id`` when given) and take out
    the snapshots the store no longer holds (unless ``keep_removed``), or write it anew (see the module
    docstring); then the manifest, then remove the files no manifest lists.

    Opens the store read-only (:func:`open_readonly`). Raises ``ValueError`` for a name that is not a public
    view; :class:`StoreInputError` for a target that is a file or a non-empty folder holding no export, or a
    view the store lacks named in ``views`` (nothing written then); :class:`StoreError` when the target
    cannot be written (the earlier export stays whole).
    """
    unknown = set(views) - set(PUBLIC_VIEWS)
    if unknown:
        raise ValueError(f"not public views: {sorted(unknown)}; choose from {list(PUBLIC_VIEWS)}")
    fs, root = _target(target)
    shown = os.fspath(target)
    earlier = _check_target(
        fs, root, shown
    )  # the cheap check first: a bad target fails before the store opens
    since = None if min_snapshot_id is None else int(min_snapshot_id)
    run = datetime.now(UTC)
    with ExitStack() as staged:
        with open_readonly(db_path) as con:  # closed before the upload: the writer waits only for the COPY
            present = _present(con, views)
            state = _store_state(con, since)
            rewrite = _must_rewrite(earlier, state) or (earlier or {}).get("min_snapshot_id") != since
            have = set() if rewrite or earlier is None else {int(i) for i in earlier["snapshot_ids"]}
            new_ids = [i for i in state["ids"] if i not in have]
            removed = [] if keep_removed else sorted(have - set(state["all_ids"]))
            if not rewrite and not new_ids and not removed and earlier is not None:
                return _result({v: 0 for v in present}, [], [], False, earlier, state["all_ids"])
            staging = staged.enter_context(_staging(fs, root))
            tag = run.strftime("%Y%m%dT%H%M%S%fZ")
            ids = None if rewrite else new_ids
            written = {v: _copy_view(con, v, ids, since, staging, tag) for v in present}
        try:
            new_files = _publish(fs, root, staging, new_ids if not rewrite else [])
        except OSError as exc:
            raise StoreError(
                f"could not write the export to {shown}: {exc}; the earlier export is whole"
            ) from exc
    old_files = {} if rewrite or earlier is None else _without(earlier["files"], removed)
    old_rows: dict[str, int] = {} if rewrite or earlier is None else dict(earlier.get("views", {}))
    if removed and earlier is not None:  # less the rows of the files taken out (read before they go)
        for view, n in _count_rows(fs, root, _only(earlier["files"], old_files)).items():
            old_rows[view] = int(old_rows.get(view, 0)) - n
    files = {v: sorted({*old_files.get(v, []), *new_files.get(v, [])}) for v in {*old_files, *present}}
    manifest = {
        "format": _FORMAT,
        "version": _VERSION,
        "complete": True,
        "store": os.path.abspath(db_path),
        "exported_at": run.isoformat().replace("+00:00", "Z"),
        "schema_version": state["schema_version"],
        "min_snapshot_id": since,
        "snapshot_ids": sorted((have - set(removed)) | set(new_ids)),
        "newest": state["newest"],
        "appended": new_ids,
        "views": {v: int(old_rows.get(v, 0)) + written.get(v, 0) for v in sorted(files)},
        "files": {v: files[v] for v in sorted(files)},
    }
    _write_manifest(fs, root, manifest)
    _remove_unlisted(fs, root, manifest)
    return _result(written, new_ids, removed, rewrite, manifest, state["all_ids"])


def _result(
    written: dict[str, int],
    appended: list[int],
    removed: list[int],
    rewritten: bool,
    manifest: dict[str, Any],
    store_ids: list[int],
) -> ExportResult:
    ids = [int(i) for i in manifest["snapshot_ids"]]
    kept = set(store_ids)
    not_in_store = [i for i in ids if i not in kept]
    return ExportResult(written, appended, removed, rewritten, ids, not_in_store, manifest)


def _partition_id(rel: str) -> str:
    """The snapshot id of a file's partition: ``problems/snapshot_id=3/part-....parquet`` -> ``"3"``."""
    parts = rel.split("/")
    return parts[1].split("=", 1)[-1] if len(parts) > 2 else ""


def _without(files: dict[str, list[str]], removed: list[int]) -> dict[str, list[str]]:
    """``files`` less those in the ``removed`` snapshots' partitions, but for the history views (the store
    keeps a removed snapshot's history rows too)."""
    gone = {str(i) for i in removed}
    return {
        view: [rel for rel in rels if view in HISTORY_VIEWS or _partition_id(rel) not in gone]
        for view, rels in files.items()
    }


def _only(files: dict[str, list[str]], kept: dict[str, list[str]]) -> dict[str, list[str]]:
    """The files of ``files`` that ``kept`` does not hold, per view."""
    return {view: sorted(set(rels) - set(kept.get(view, []))) for view, rels in files.items()}


def _count_rows(fs: AbstractFileSystem, root: str, files: dict[str, list[str]]) -> dict[str, int]:
    """Rows per view in ``files`` (relative to ``root``), from the Parquet footers."""
    import pyarrow.parquet as pq

    rows: dict[str, int] = {}
    for view, rels in files.items():
        rows[view] = 0
        for rel in rels:
            with fs.open(f"{root}/{rel}", "rb") as handle:
                rows[view] += int(pq.ParquetFile(handle).metadata.num_rows)
    return rows


def _store_state(con: Any, since: int | None) -> dict[str, Any]:
    """The store's complete snapshot ids (all, and ``>= since``), its newest snapshot and schema version."""
    rows = con.execute("SELECT snapshot_id, CAST(taken_at AS VARCHAR), base_url FROM snapshots ORDER BY 1")
    snaps = rows.fetchall()
    version = con.execute(f"SELECT value FROM {INTERNAL}.meta WHERE key = 'schema_version'").fetchall()
    newest = snaps[-1] if snaps else None
    return {
        "all_ids": [int(s[0]) for s in snaps],
        "ids": [int(s[0]) for s in snaps if since is None or s[0] >= since],
        "by_id": {int(s[0]): (s[1], s[2]) for s in snaps},
        "newest": None
        if newest is None
        else {"snapshot_id": newest[0], "taken_at": newest[1], "base_url": newest[2]},
        "schema_version": int(version[0][0]) if version else None,
    }


def _must_rewrite(earlier: dict[str, Any] | None, state: dict[str, Any]) -> bool:
    """Whether the earlier export cannot be appended to (module docstring): none, version 1, another
    schema version, or its newest snapshot is not the store's snapshot of that id."""
    if earlier is None or earlier.get("version") != _VERSION or "files" not in earlier:
        return True
    if earlier.get("schema_version") != state["schema_version"]:
        return True
    newest = earlier.get("newest")
    if newest is None:
        return False
    return state["by_id"].get(int(newest["snapshot_id"])) != (newest["taken_at"], newest["base_url"])


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


def _copy_view(con: Any, view: str, ids: list[int] | None, since: int | None, staging: Path, tag: str) -> int:
    """COPY one view's rows to ``staging/<view>/<snapshot column>=<n>/part-<tag>-<i>.parquet``: those of the
    snapshots ``ids``, or (``ids`` None: the whole export) every row with the column ``>= since``, the
    history of pruned snapshots included. Returns the rows (0: nothing written)."""
    column = snapshot_column(view)
    if ids is not None:
        if not ids:
            return 0
        where = f"WHERE {column} IN ({', '.join(str(int(i)) for i in ids)})"
    else:
        where = "" if since is None else f"WHERE {column} >= {int(since)}"
    n = int(con.execute(f"SELECT count(*) FROM {view} {where}").fetchall()[0][0])
    if n:
        out = (staging / view).as_posix().replace("'", "''")
        con.execute(
            f"COPY (SELECT * FROM {view} {where}) TO '{out}' "
            f"(FORMAT parquet, PARTITION_BY ({column}), COMPRESSION zstd, "
            f"FILENAME_PATTERN 'part-{tag}-{{i}}')"
        )
    return n


@contextmanager
def _staging(fs: AbstractFileSystem, root: str) -> Iterator[Path]:
    """A local folder to COPY into: inside a local target (the files are then moved, not copied), else a
    temporary folder. Removed afterwards, also when the run fails."""
    if _is_local(fs):
        staging = Path(root) / _INCOMING
        shutil.rmtree(staging, ignore_errors=True)  # left by an interrupted export
        staging.mkdir(parents=True)
        try:
            yield staging
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    else:
        with tempfile.TemporaryDirectory(prefix="solvelens-export-") as tmp:
            yield Path(tmp)


def _publish(fs: AbstractFileSystem, root: str, staging: Path, appended: list[int]) -> dict[str, list[str]]:
    """Move (local) or upload (remote) every staged file to its place under ``root``; before that, remove
    what an interrupted run left in the partitions of the ``appended`` snapshots (no manifest lists it).
    Returns ``{view: [relative path]}`` of the files placed."""
    placed: dict[str, list[str]] = {}
    if appended:
        _remove_unlisted(fs, root, None, only_ids={*appended})
    local = _is_local(fs)
    for path in sorted(p for p in staging.rglob("*.parquet")):
        rel = path.relative_to(staging).as_posix()
        dest = f"{root}/{rel}"
        if local:
            Path(dest).parent.mkdir(parents=True, exist_ok=True)
            os.replace(path, dest)
        else:
            fs.put_file(str(path), dest)
        placed.setdefault(rel.split("/", 1)[0], []).append(rel)
    return placed


def _write_manifest(fs: AbstractFileSystem, root: str, manifest: dict[str, Any]) -> None:
    """Write the manifest whole or not at all: a local temporary file then ``os.replace``; one PUT
    elsewhere (an object store shows an object whole or not at all)."""
    data = (json.dumps(manifest, indent=2) + "\n").encode("utf-8")
    if _is_local(fs):
        tmp = Path(root) / f".{MANIFEST}.tmp"
        tmp.write_bytes(data)
        os.replace(tmp, Path(root) / MANIFEST)
    else:
        fs.pipe_file(f"{root}/{MANIFEST}", data)


def _remove_unlisted(
    fs: AbstractFileSystem, root: str, manifest: dict[str, Any] | None, only_ids: set[int] | None = None
) -> None:
    """Remove the files under the view folders of ``root`` that ``manifest`` does not list (``None``: lists
    nothing), only in the partitions of ``only_ids`` when given. Files outside the public views' folders
    are never touched."""
    listed = {rel for files in (manifest or {}).get("files", {}).values() for rel in files}
    partitions = None if only_ids is None else {str(i) for i in only_ids}
    for view in PUBLIC_VIEWS:
        base = f"{root}/{view}"
        if not fs.isdir(base):
            continue
        for path in fs.find(base):
            rel = str(path)[len(root) + 1 :] if str(path).startswith(root) else str(path)
            if partitions is not None and _partition_id(rel) not in partitions:
                continue
            if rel not in listed:
                fs.rm_file(path)
        if _is_local(fs):
            _remove_empty_dirs(Path(base))


def _remove_empty_dirs(base: Path) -> None:
    for folder in sorted((p for p in base.rglob("*") if p.is_dir()), key=lambda p: -len(p.parts)):
        if not any(folder.iterdir()):
            folder.rmdir()
    if base.is_dir() and not any(base.iterdir()):
        base.rmdir()
