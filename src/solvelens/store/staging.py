"""The staging area: fetched records written to local Parquet files before the store is opened.

The snapshot writer holds the DuckDB file only for one short transaction, so everything is fetched first into
a staging directory (one per run). Fetch steps write their resources concurrently, each to its own files, and
the writer reads them with DuckDB's ``read_parquet``. Memory stays bounded by bytes, not rows: records are
serialised to JSON as they arrive and flushed to a Parquet row group whenever the buffered raw JSON reaches
``flush_bytes`` (default 16 MiB), however long or short the records are.

The flow also stages what the previous snapshot knew (``previous_problems``, ``previous_bots``, read from the
store once by the flow), so the fetch steps decide what to refetch from staging alone and never open the
store.

Layout of a staging directory::

    run.json                      {"base_url", "taken_at" (ISO UTC), "started_at" (ISO UTC)}
    <resource>.parquet            one file per staged table (see STAGED_TABLES for columns)

Every table with a ``raw`` column also gets ``version_id``: the record version's 64-bit key (BLAKE2b of the
raw JSON bytes; for solutions of ``problem_id + "\n" + raw``; for problems of a canonical form in which a
tie switch of ``topSolution`` is no change, :mod:`solvelens.store.canonical`), computed here while fetching
so the writer holds the store file for less time.
    part-<name>.json              what one fetch step reported (:class:`solvelens.store.reports.StepReport`)

A ``.parquet`` file appears only when its writer closed cleanly (written as ``.tmp``, then renamed).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

import orjson
import pyarrow as pa
import pyarrow.parquet as pq

from solvelens.resources import RESOURCES
from solvelens.store.canonical import KEY_FORMS
from solvelens.store.reports import StepReport

#: Staged tables and their Arrow columns. ``raw`` is the record's JSON exactly as fetched (keys in order).
_RAW = [("version_id", pa.uint64()), ("raw", pa.string())]
_ARROW = {"string": pa.string(), "int32": pa.int32(), "int64": pa.int64(), "uint64": pa.uint64()}
STAGED_TABLES: dict[str, pa.Schema] = {
    # Every stored resource (solvelens.resources): its declared columns, then version_id and raw. Ranked
    # ones carry their position in the walk (1 = first); solutions their problem and competition rank.
    **{r.name: pa.schema([(c, _ARROW[t]) for c, t in r.staged_columns] + _RAW) for r in RESOURCES},
    # Every problem whose solution list was fetched this run (also those with no solutions).
    "solution_problems": pa.schema([("problem_id", pa.string())]),
    # Problems whose solutions were not refetched: their manifest carries over from the previous snapshot.
    "solution_carryover": pa.schema([("problem_id", pa.string()), ("manifest_id", pa.uint64())]),
    # Bots whose profile was not refetched: the stored profile version carries over.
    "bot_carryover": pa.schema([("bot_id", pa.string()), ("version_id", pa.uint64())]),
    # Written by the flow before the fetch steps run (see solvelens.store.readers.previous_state).
    "previous_problems": pa.schema(
        [
            ("problem_id", pa.string()),
            ("solution_count", pa.int64()),
            ("comparison_count", pa.int64()),
            ("manifest_id", pa.uint64()),
        ]
    ),
    "previous_bots": pa.schema(
        [("bot_id", pa.string()), ("listing_version_id", pa.uint64()), ("profile_version_id", pa.uint64())]
    ),
    # The bots named on each stored solution list, as named there, and the previous snapshot's id.
    "previous_solution_bots": pa.schema(
        [("problem_id", pa.string()), ("bot_id", pa.string()), ("bot_name", pa.string())]
    ),
    "previous_snapshot": pa.schema([("snapshot_id", pa.int64())]),
    # At most one row: the events this run found missed (see solvelens.flows.activity_gap).
    "activity_gap": pa.schema(
        [
            ("newest_stored_event_id", pa.string()),
            ("oldest_fetched_event_id", pa.string()),
            ("gap_from", pa.string()),
            ("gap_to", pa.string()),
            ("events_per_hour", pa.float64()),
            ("suggested_interval_s", pa.float64()),
        ]
    ),
    # The solutions whose comparisons were fetched: their listed comparisonCount, what the endpoint returned.
    "comparison_fetches": pa.schema(
        [
            ("solution_id", pa.string()),
            ("problem_id", pa.string()),
            ("comparison_count", pa.int64()),
            ("returned", pa.int64()),
        ]
    ),
    # Written by the flow (solvelens.store.readers.previous_state): the newest stored event (0 or 1 row) ...
    "previous_activity": pa.schema([("event_id", pa.string()), ("created_at", pa.string())]),
    # ... each solution's comparisonCount when its comparisons were last fetched ...
    "comparison_state": pa.schema([("solution_id", pa.string()), ("comparison_count", pa.int64())]),
    # ... the previous snapshot's solutions whose count moved since (for problems carried over) ...
    "pending_comparisons": pa.schema(
        [
            ("solution_id", pa.string()),
            ("problem_id", pa.string()),
            ("comparison_count", pa.int64()),
            ("last_count", pa.int64()),
        ]
    ),
    # ... the solutions whose vote list is trusted by its count, longest unread first (re-read in turn) ...
    "audit_comparisons": pa.schema(
        [("solution_id", pa.string()), ("problem_id", pa.string()), ("comparison_count", pa.int64())]
    ),
    # ... the stored votes naming each solution ...
    "stored_votes": pa.schema([("solution_id", pa.string()), ("stored", pa.int64())]),
    # ... and the ids of the comparisons stored (a vote seen again is no news).
    "stored_comparisons": pa.schema([("comparison_id", pa.string())]),
}
#: Buffered raw JSON bytes after which a staged table writes a Parquet row group.
DEFAULT_FLUSH_BYTES = 16 * 1024 * 1024
#: Key of an empty solution list (a manifest with no items).
EMPTY_MANIFEST_ID = 0


def version_key(raw: bytes, scope: str | None = None) -> int:
    """The 64-bit version key of a record's raw JSON bytes (within ``scope``, e.g. its problem id)."""
    data = raw if scope is None else scope.encode() + b"\n" + raw
    return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "little")


def _version_keys(raws: list[bytes], scopes: list[Any] | None) -> list[int]:
    """:func:`version_key` of each raw record (within its scope), without a call per record (half the
    CPU: this runs for every record fetched)."""
    blake2b, from_bytes = hashlib.blake2b, int.from_bytes
    if scopes is None:
        return [from_bytes(blake2b(v, digest_size=8).digest(), "little") for v in raws]
    if len(scopes) == len(raws) and len(set(scopes)) == 1:  # one solution list: one scope
        prefix = str(scopes[0]).encode() + b"\n"
        return [from_bytes(blake2b(prefix + v, digest_size=8).digest(), "little") for v in raws]
    return [version_key(v, s) for v, s in zip(raws, scopes, strict=True)]


def version_keys(
    raws: list[bytes], scopes: list[Any] | None = None, *, form: Callable[[bytes], bytes] | None = None
) -> list[int]:
    """The version keys the store gives records: :func:`version_key` of each raw JSON record (UTF-8 bytes,
    as stored in ``raw``) within its scope (``scopes``: one per record, e.g. a solution's problem id, or
    None), computed over ``form(raw)`` when a canonical form is given (``KEY_FORMS[table]``,
    :mod:`solvelens.store.canonical`). The one definition the staging and any bulk writer share: a record
    keyed elsewhere with another function would be stored again as a new version."""
    keyed = raws if form is None else [form(v) for v in raws]
    return _version_keys(keyed, scopes)


def dump_json(record: Any) -> bytes:
    """The record as compact UTF-8 JSON, keys in their original order (the stored ``raw``)."""
    return orjson.dumps(record)


def _encoded(values: list[Any]) -> list[bytes]:
    """Each staged ``raw`` value as UTF-8 JSON bytes: a record (a plain dict, the usual case, tested first)
    serialised by :func:`dump_json`'s ``orjson.dumps`` called directly (one call per record less), text
    encoded, bytes as given."""
    dumps = orjson.dumps
    return [
        dumps(v)
        if type(v) is dict
        else v.encode()
        if isinstance(v, str)
        else v
        if isinstance(v, bytes)
        else dumps(v)
        for v in values
    ]


class TableWriter:
    """Appends rows to one staged Parquet table; a context manager that publishes the file on clean exit.

    Columns are given as lists of equal length (``raw`` may hold dicts: they are serialised with
    :func:`dump_json`); ``version_id`` is computed, never given. Rows are buffered and written as a row group
    whenever the buffered raw JSON reaches ``flush_bytes`` bytes (tables without ``raw``: every 65,536 rows).
    """

    def __init__(
        self,
        path: Path,
        schema: pa.Schema,
        flush_bytes: int = DEFAULT_FLUSH_BYTES,
        key_form: Callable[[bytes], bytes] | None = None,
    ) -> None:
        self._path = path
        self._key_form = key_form  # the canonical form keys are computed over (solvelens.store.canonical)
        self._tmp = path.with_suffix(".parquet.tmp")
        self._schema = schema
        self._flush_bytes = flush_bytes
        self._buffer: dict[str, list[Any]] = {name: [] for name in schema.names}
        self._buffered_bytes = 0
        self._writer: pq.ParquetWriter | None = None
        self.rows = 0

    def append(self, **columns: list[Any]) -> None:
        """Append rows: one list per column of the table's schema but ``version_id``, all of equal length."""
        expected = set(self._schema.names) - {"version_id"}
        if set(columns) != expected:
            raise ValueError(f"columns {sorted(columns)} do not match {sorted(expected)}")
        for name, values in columns.items():
            if name == "raw":
                values = _encoded(values)
                keys = version_keys(values, columns.get("problem_id"), form=self._key_form)
                self._buffer["version_id"].extend(keys)
                self._buffered_bytes += sum(map(len, values))
            self._buffer[name].extend(values)
        n = len(next(iter(columns.values())))
        self.rows += n
        if "raw" not in columns:
            self._buffered_bytes += 256 * n  # flushes tables without raw JSON every 65,536 rows
        if self._buffered_bytes >= self._flush_bytes:
            self._flush()

    def _flush(self) -> None:
        arrays = []
        for field in self._schema:
            values = self._buffer[field.name]
            if field.name == "raw":
                # bytes -> string as a view, checked as UTF-8 (a .cast would import pyarrow.compute)
                raw = pa.array(values, type=pa.binary()).view(pa.string())
                raw.validate(full=True)
                arrays.append(raw)
            else:
                arrays.append(pa.array(values, type=field.type))
            self._buffer[field.name] = []
        self._buffered_bytes = 0
        if self._writer is None:
            self._writer = pq.ParquetWriter(self._tmp, self._schema, compression="snappy")
        self._writer.write_table(pa.Table.from_arrays(arrays, schema=self._schema))

    def close(self) -> None:
        """Flush and publish the file (an empty table still gets a file)."""
        if self._writer is None or self._buffer[self._schema.names[0]]:
            self._flush()
        assert self._writer is not None
        self._writer.close()
        os.replace(self._tmp, self._path)

    def discard(self) -> None:
        """Drop what was written (the table is not published)."""
        if self._writer is not None:
            self._writer.close()
        self._tmp.unlink(missing_ok=True)

    def __enter__(self) -> TableWriter:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if exc_type is None:
            self.close()
        else:
            self.discard()


@dataclass(frozen=True)
class RunInfo:
    """A staged run's ``run.json``: the platform's ``base_url``, the snapshot's ``taken_at`` and the run's
    ``started_at`` (ISO-8601 UTC strings)."""

    base_url: str
    taken_at: str
    started_at: str


class StagingArea:
    """A staging directory for one snapshot run (see the module docstring for its layout)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)

    def create(self, *, base_url: str, taken_at: str, started_at: str) -> StagingArea:
        """Create the directory and write ``run.json`` (times as ISO-8601 UTC strings)."""
        self.path.mkdir(parents=True, exist_ok=True)
        run = {"base_url": base_url, "taken_at": taken_at, "started_at": started_at}
        (self.path / "run.json").write_text(json.dumps(run), encoding="utf-8")
        return self

    def run_info(self) -> RunInfo:
        """``run.json`` (:class:`RunInfo`). Raises FileNotFoundError when not created."""
        return RunInfo(**json.loads((self.path / "run.json").read_text(encoding="utf-8")))

    def table_path(self, table: str) -> Path:
        """Path of a staged table's Parquet file (it may not exist)."""
        if table not in STAGED_TABLES:
            raise KeyError(f"unknown staged table {table!r}; known: {sorted(STAGED_TABLES)}")
        return self.path / f"{table}.parquet"

    def has_table(self, table: str) -> bool:
        """Whether the table was staged (its writer closed cleanly)."""
        return self.table_path(table).exists()

    def writer(self, table: str, flush_bytes: int = DEFAULT_FLUSH_BYTES) -> TableWriter:
        """A :class:`TableWriter` for ``table`` (use as a context manager)."""
        return TableWriter(self.table_path(table), STAGED_TABLES[table], flush_bytes, KEY_FORMS.get(table))

    def write_table(self, table: str, data: pa.Table) -> None:
        """Stage a whole Arrow table at once (columns as in :data:`STAGED_TABLES`, cast to them)."""
        path = self.table_path(table)
        tmp = path.with_suffix(".parquet.tmp")
        schema = STAGED_TABLES[table]
        data = data.select(schema.names)
        if not data.schema.equals(schema):  # a cast imports pyarrow.compute: only when the types differ
            data = data.cast(schema)
        pq.write_table(data, tmp)
        os.replace(tmp, path)

    def read_table(self, table: str) -> pa.Table | None:
        """A staged table as Arrow, or ``None`` when it was not staged."""
        path = self.table_path(table)
        if not path.exists():
            return None
        with pq.ParquetFile(path) as staged:  # not pq.read_table: its dataset layer imports pyarrow.compute
            return staged.read()

    def write_records(self, table: str, records: Iterable[Any], **columns: list[Any]) -> int:
        """Stage a whole table at once: ``records`` become ``raw``; returns the row count."""
        with self.writer(table) as w:
            raw = list(records)
            w.append(raw=raw, **columns)
        return len(raw)

    def write_report(self, report: StepReport) -> None:
        """Stage what one fetch step (or the flow) reported (``part-<step>.json``)."""
        path = self.path / f"part-{report.step}.json"
        path.write_text(json.dumps(report.to_json()), encoding="utf-8")

    def reports(self) -> dict[str, StepReport]:
        """Every staged report by step name, in name order."""
        out: dict[str, StepReport] = {}
        for p in sorted(self.path.glob("part-*.json")):
            report = StepReport.from_json(json.loads(p.read_text(encoding="utf-8")))
            out[report.step] = report
        return out

    def warnings(self) -> list[str]:
        """Every warning of every report, in step-name order."""
        return [w for report in self.reports().values() for w in report.warnings]
