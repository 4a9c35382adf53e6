"""The atomic snapshot writer: one staged run -> one snapshot, written in ONE DuckDB transaction.

The writer takes the store's exclusive lock (:mod:`~solvelens.store.lock`), opens the file read-write,
inserts the snapshot row, the new record versions and the snapshot's links, flips the row's status to
``complete`` and commits -- all in one transaction -- then closes the file. A crash or ``kill -9`` before
the commit leaves nothing visible (DuckDB writes a transaction to its WAL only at commit) and the next run
starts cleanly.

Deduplication: a record version is stored once, keyed by a 64-bit BLAKE2b of its raw JSON (solutions: of
``problem_id + "\\n" + raw``; problems: of a canonical form, see :mod:`solvelens.store.canonical`; computed
while staging). A problem's ranked solution list is stored once as a manifest keyed by the MD5 of its
version ids ordered by (rank, version id): ranks are competition ranks over the score (ties share a rank,
:mod:`solvelens.flows.ranks`), so the same solutions listed in another tie order are the same manifest.
An unchanged re-snapshot adds only link rows, whatever order the platform gave its ties.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb

from solvelens.resources import RESOURCES
from solvelens.store.bulk import insert_rows
from solvelens.store.connection import DEFAULT_LOCK_TIMEOUT_S, open_writer
from solvelens.store.drift import compare_fields, observed_fields
from solvelens.store.errors import IncompleteStagingError, StaleCarryoverError
from solvelens.store.faults import commit_unwritten, rollback
from solvelens.store.history import write_history
from solvelens.store.lock import store_lock
from solvelens.store.metrics import flatten_metrics
from solvelens.store.quality import snapshot_quality
from solvelens.store.schema import (
    BOTS,
    COMPLETE,
    INTERNAL,
    LARGE_BLOCK_SIZE,
    LARGE_STORE_STAGED_BYTES,
    LAST_DELETED_KEY,
    LINKS,
    MODEL_COUNTS,
    PROBLEMS,
    RAW_COMPRESSION,
    SMALL_BLOCK_SIZE,
    SOLUTIONS,
    ZSTD_STAGED_BYTES,
    Resource,
    competition_ranks_sql,
    model_counts_since_sql,
    model_counts_sql,
)
from solvelens.store.staging import EMPTY_MANIFEST_ID, RunInfo, StagingArea

#: Staged tables a snapshot cannot do without (declared ``required``: :mod:`solvelens.resources`).
REQUIRED_TABLES: tuple[str, ...] = tuple(r.name for r in RESOURCES if r.required)
#: Manifest id of an empty solution list.
EMPTY_MANIFEST_SQL = str(EMPTY_MANIFEST_ID)


def manifest_id_sql(version: str, rank: str) -> str:
    """The SQL aggregate giving a solution list's manifest id (UBIGINT: the lower 64 bits of the MD5 of its
    items' version ids in rank order, equal ranks by version id) over the columns ``version`` and ``rank``
    of its items; NULL for no items. The one definition the writer and any bulk writer share."""
    return f"md5_number_lower(string_agg({version}::VARCHAR, ',' ORDER BY {rank}, {version}))"


_ITEMS = f"{INTERNAL}.solution_manifest_items"


@dataclass
class SnapshotResult:
    """What one write produced.

    ``counts``: rows per public view for this snapshot (every required resource of
    :mod:`solvelens.resources`, ``solutions`` and the one read with the API key; an optional one, and
    the history views ``activity`` and ``comparisons`` (items first seen by this snapshot), when
    staged). ``new_versions``:
    record versions added per resource (history: items stored new). ``drift``: entries as in
    :mod:`solvelens.store.drift` (what changed since the previous snapshot is
    :func:`solvelens.analysis.diff`'s, read from the store). Times are ISO-8601 UTC strings; ``duration_s``
    (seconds) runs from the staged ``started_at`` to the commit; ``write_s`` is how long the file was held;
    ``file_bytes`` is the file size after close; ``timings`` the seconds spent per phase of the write (for
    benchmarks).
    """

    snapshot_id: int
    taken_at: str
    base_url: str
    started_at: str
    finished_at: str
    duration_s: float
    write_s: float
    counts: dict[str, int]
    new_versions: dict[str, int]
    warnings: list[str]
    drift: list[dict[str, Any]]
    file_bytes: int
    timings: dict[str, float]
    data_quality: list[dict[str, Any]] = field(default_factory=list)
    vote_coverage: dict[str, Any] | None = None

    def as_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict of every field."""
        return asdict(self)


def _typed_select(resource: Resource) -> str:
    """Typed columns from ``j`` (the ``from_json`` struct); timestamps parsed from their strings."""
    cols = []
    for f in resource.fields:
        expr = f'j."{f.key}"'
        cols.append(f"TRY_CAST({expr} AS TIMESTAMPTZ)" if f.sql_type == "TIMESTAMPTZ" else expr)
    return ", ".join(cols)


def _struct_spec(resource: Resource) -> str:
    spec = {f.key: ("VARCHAR" if f.sql_type == "TIMESTAMPTZ" else f.sql_type) for f in resource.fields}
    return json.dumps(spec).replace("'", "''")


#: Above this many new versions, drift is computed on a sample of them.
DRIFT_SAMPLE_ROWS = 20_000


#: ``json_group_structure(raw::JSON)`` spelled out over the raw text: DuckDB's macro casts every record to
#: JSON (a parse) and back to text, joins them into one array and casts that to JSON (a second parse) before
#: ``json_structure`` parses it a third time. The records are joined as they are here (``json_structure``
#: still rejects malformed JSON; a NULL is a JSON ``null``, as in the macro): the same structure, for half
#: the CPU of a medium first snapshot's drift check.
_GROUP_STRUCTURE = "json_extract(json_structure('[' || string_agg(coalesce(raw, 'null'), ',') || ']'), 0)"


def _structure_sql(n_new: int, rows: str) -> str:
    """``json_group_structure`` of the new versions ``rows`` (:data:`_GROUP_STRUCTURE`): all of them when
    few, else a reservoir sample of :data:`DRIFT_SAMPLE_ROWS` (a field or type confined to a few records of
    a large batch may then go unnoticed; large batches are mostly first snapshots, where nothing counts as
    drift anyway)."""
    if n_new <= DRIFT_SAMPLE_ROWS:
        return f"SELECT {_GROUP_STRUCTURE}::VARCHAR FROM {rows}"
    return (
        f"SELECT {_GROUP_STRUCTURE}::VARCHAR FROM (SELECT raw FROM {rows}) "
        f"USING SAMPLE reservoir({DRIFT_SAMPLE_ROWS} ROWS) REPEATABLE (7)"
    )


def _parquet(path: Path) -> str:
    """``read_parquet('<path>')`` with the path quoted for SQL."""
    return "read_parquet('" + str(path).replace("'", "''") + "')"


class _Transaction:
    """The body of one snapshot write (runs inside BEGIN ... COMMIT on ``con``)."""

    def __init__(self, con: duckdb.DuckDBPyConnection, staging: StagingArea, snapshot_id: int) -> None:
        self.con = con
        self.staging = staging
        self.sid = snapshot_id
        self.counts: dict[str, int] = {}
        self.new_versions: dict[str, int] = {}
        self.drift: list[dict[str, Any]] = []

    def scalar(self, sql: str, params: list[Any] | None = None) -> Any:
        rows = self.con.execute(sql, params or []).fetchall()
        return rows[0][0] if rows else None

    def insert_new_versions(self, resource: Resource, keys: str, source: str, extra_cols: str = "") -> None:
        """Store the versions named in temp table ``keys`` (``version_id`` column) that are not stored yet,
        reading their raw JSON from ``source`` (a query over the staged Parquet, streamed: raw JSON is never
        held in a temp table). Records drift and the count of new versions."""
        con = self.con
        con.execute(
            f"CREATE OR REPLACE TEMP TABLE new_keys AS SELECT DISTINCT version_id FROM {keys} "
            f"ANTI JOIN {resource.version_table} USING (version_id)"
        )
        n_new = int(self.scalar("SELECT count(*) FROM new_keys"))
        self.new_versions[resource.name] = n_new
        if not n_new:  # an unchanged re-snapshot: nothing more to count
            return
        staged = int(self.scalar(f"SELECT count(*) FROM {keys}"))
        if n_new == staged:  # every staged row is new and none repeats (a first snapshot): read them all
            new_rows = source
        else:
            new_rows = f"(SELECT * FROM {source} SEMI JOIN new_keys USING (version_id))"
            repeated = (
                f"SELECT count(*) - count(DISTINCT version_id) FROM {keys} "
                "SEMI JOIN new_keys USING (version_id)"
            )
            if self.scalar(repeated):
                new_rows = f"(SELECT DISTINCT ON (version_id) * FROM {new_rows})"  # a record staged twice
        self.record_drift(resource, observed_fields(self.scalar(_structure_sql(n_new, new_rows))))
        if resource.fields:
            con.execute(
                f"INSERT INTO {resource.version_table} "
                f"SELECT version_id{extra_cols}, {_typed_select(resource)}, raw::JSON FROM "
                f"(SELECT *, from_json(raw, '{_struct_spec(resource)}') AS j FROM {new_rows})"
            )
        else:
            con.execute(f"INSERT INTO {resource.version_table} SELECT version_id, raw::JSON FROM {new_rows}")

    def record_drift(self, resource: Resource, observed: dict[str, str]) -> None:
        known: dict[str, set[str]] = {}
        for fld, json_type in self.con.execute(
            f"SELECT field, json_type FROM {INTERNAL}.field_types WHERE resource = ?", [resource.name]
        ).fetchall():
            known.setdefault(fld, set()).add(json_type)
        entries, new_pairs = compare_fields(resource.name, observed, known, resource.known_keys)
        self.drift.extend(entries)
        insert_rows(
            self.con,
            f"{INTERNAL}.field_types",
            ("VARCHAR", "VARCHAR", "VARCHAR", "BIGINT"),
            [(resource.name, f, t, self.sid) for f, t in new_pairs],
        )

    def stage(self, resource: Resource) -> bool:
        """Load the staged keys into temp table ``stage`` (version_id, rank) and store new versions; False
        when the resource was not staged (an error for required ones)."""
        path = self.staging.table_path(resource.name)
        if not path.exists():
            if resource.name in REQUIRED_TABLES:
                raise IncompleteStagingError(f"the staged run has no {resource.name!r} table ({path})")
            return False
        rank = "rank" if resource.ranked else "NULL::INTEGER AS rank"
        parquet = _parquet(path)
        self.con.execute(f"CREATE OR REPLACE TEMP TABLE stage AS SELECT version_id, {rank} FROM {parquet}")
        self.insert_new_versions(resource, "stage", f"(SELECT version_id, raw FROM {parquet})")
        self.counts[resource.name] = int(self.scalar("SELECT count(*) FROM stage"))
        return True

    def write_linked(self, resource: Resource) -> None:
        """Stage, deduplicate and link one resource (one link row per record). A resource with ``rank_over``
        (the leaderboard: points; the model board: average score) is linked with the competition rank over
        that column (ties share the best rank; the walk's positions when a record lacks it):
        :func:`~solvelens.store.schema.competition_ranks_sql`, computed once here because it never changes
        afterwards."""
        if not self.stage(resource):
            return
        if resource.rank_over is not None:
            staged = f"(SELECT {self.sid}::BIGINT AS snapshot_id, version_id FROM stage)"
            self.con.execute(
                f"""UPDATE stage SET rank = r.competition FROM ({competition_ranks_sql(resource, staged)}) r
                    WHERE stage.version_id = r.version_id"""
            )
        self.con.execute(
            f"INSERT INTO {LINKS} (snapshot_id, resource, version_id, rank) "
            f"SELECT ?, {resource.code}, version_id, rank FROM stage",
            [self.sid],
        )

    def write_model_counts(self) -> None:
        """The snapshot's per-model counts (:data:`~solvelens.store.schema.MODEL_COUNTS`), from its problems'
        link rows: computed once, when the snapshot is written; from the newest earlier complete snapshot of
        the same base URL and the solution lists that differ from its own
        (:func:`~solvelens.store.schema.model_counts_since_sql`), else from every list."""
        before = self.scalar(
            f"""SELECT max(snapshot_id) FROM {_LOG} WHERE status = 'complete' AND snapshot_id < ?
                AND base_url = (SELECT base_url FROM {_LOG} WHERE snapshot_id = ?)""",
            [self.sid, self.sid],
        )
        if before is None:
            self.con.execute(f"INSERT INTO {MODEL_COUNTS} {model_counts_sql(f'snapshot_id = {self.sid}')}")
        else:
            self.con.execute(f"INSERT INTO {MODEL_COUNTS} {model_counts_since_sql(self.sid, int(before))}")

    def write_bots(self) -> None:
        """Bot profiles: the fetched ones (as :meth:`write_linked`) plus the carried-over stored versions of
        bots whose profile was not refetched (staged ``bot_carryover``)."""
        self.write_linked(BOTS)
        carry_path = self.staging.table_path("bot_carryover")
        if not carry_path.exists():
            return
        con = self.con
        con.execute(
            "CREATE OR REPLACE TEMP TABLE stage_bot_carry AS SELECT DISTINCT version_id "
            f"FROM {_parquet(carry_path)} ANTI JOIN stage USING (version_id)"
        )
        missing = self.scalar(
            f"SELECT count(*) FROM stage_bot_carry ANTI JOIN {BOTS.version_table} USING (version_id)"
        )
        if missing:
            raise StaleCarryoverError(
                f"{missing} carried-over bot profiles were pruned from the store meanwhile; "
                "rerun the snapshot with a full refetch (--full)"
            )
        con.execute(
            f"INSERT INTO {LINKS} (snapshot_id, resource, version_id) "
            f"SELECT ?, {BOTS.code}, version_id FROM stage_bot_carry",
            [self.sid],
        )
        self.counts[BOTS.name] = self.counts.get(BOTS.name, 0) + int(
            self.scalar("SELECT count(*) FROM stage_bot_carry")
        )

    def write_problems(self) -> None:
        """Problems: link rows naming each problem's solution manifest (from :meth:`write_solutions`), then
        the snapshot's solutions counted (:meth:`count_solutions`) and its per-model counts written
        (:meth:`write_model_counts`)."""
        self.stage(PROBLEMS)
        self.con.execute(
            f"""INSERT INTO {LINKS} (snapshot_id, resource, version_id, manifest_id)
                SELECT ?, {PROBLEMS.code}, st.version_id, pm.manifest_id
                FROM stage st JOIN {PROBLEMS.version_table} v ON v.version_id = st.version_id
                LEFT JOIN problem_manifests pm ON pm.problem_id = v.problem_id""",
            [self.sid],
        )
        self.count_solutions()
        self.write_model_counts()

    def write_stats(self, resource: Resource) -> None:
        """``/stats``: link rows plus the flattened metric rows of each new version."""
        self.write_linked(resource)
        rows = self.con.execute(
            f"""SELECT DISTINCT v.version_id, v.raw::VARCHAR,
                       EXISTS (SELECT 1 FROM {INTERNAL}.stat_values sv WHERE sv.version_id = v.version_id)
                FROM stage st JOIN {resource.version_table} v USING (version_id)"""
        ).fetchall()
        metric_rows: list[list[Any]] = []
        count = 0
        for version_id, raw, stored in rows:
            metrics = flatten_metrics(json.loads(raw))
            count += len(metrics)
            if not stored:
                metric_rows.extend([version_id, name, value] for name, value in metrics)
        insert_rows(self.con, f"{INTERNAL}.stat_values", ("UBIGINT", "VARCHAR", "DOUBLE"), metric_rows)
        self.counts[resource.name] = count

    def write_solutions(self) -> None:
        """New solution versions and manifests; fills temp table ``problem_manifests`` (problem_id,
        manifest_id) for the fetched and the carried-over problems."""
        con = self.con
        sol_path = self.staging.table_path("solutions")
        fetched_path = self.staging.table_path("solution_problems")
        carry_path = self.staging.table_path("solution_carryover")
        if sol_path.exists() and fetched_path.exists():
            parquet = _parquet(sol_path)
            con.execute(
                "CREATE OR REPLACE TEMP TABLE stage_sol AS "
                f"SELECT problem_id, rank, version_id FROM {parquet}"
            )
            con.execute(
                "CREATE OR REPLACE TEMP TABLE stage_fetched AS "
                f"SELECT DISTINCT problem_id FROM {_parquet(fetched_path)}"
            )
            self.insert_new_versions(
                SOLUTIONS,
                "stage_sol",
                f"(SELECT version_id, problem_id, raw FROM {parquet})",
                extra_cols=", problem_id",
            )
        else:
            con.execute(
                "CREATE OR REPLACE TEMP TABLE stage_sol "
                "(problem_id VARCHAR, rank INTEGER, version_id UBIGINT)"
            )
            con.execute("CREATE OR REPLACE TEMP TABLE stage_fetched (problem_id VARCHAR)")
            self.new_versions[SOLUTIONS.name] = 0
        con.execute(
            f"""CREATE OR REPLACE TEMP TABLE problem_manifests AS
                SELECT f.problem_id,
                       coalesce({manifest_id_sql("s.version_id", "s.rank")},
                                {EMPTY_MANIFEST_SQL}) AS manifest_id
                FROM stage_fetched f LEFT JOIN stage_sol s ON s.problem_id = f.problem_id
                GROUP BY f.problem_id"""
        )
        con.execute(
            f"""INSERT INTO {_ITEMS}
                SELECT m.manifest_id, s.rank, s.version_id
                FROM (SELECT * FROM problem_manifests
                      ANTI JOIN (SELECT DISTINCT manifest_id FROM {_ITEMS}) USING (manifest_id)) m
                JOIN stage_sol s ON s.problem_id = m.problem_id"""
        )
        if carry_path.exists():
            con.execute(
                "CREATE OR REPLACE TEMP TABLE stage_carry AS SELECT problem_id, manifest_id "
                f"FROM {_parquet(carry_path)} ANTI JOIN stage_fetched USING (problem_id)"
            )
            missing = self.scalar(
                f"""SELECT count(*) FROM stage_carry c WHERE c.manifest_id <> {EMPTY_MANIFEST_SQL}
                    AND NOT EXISTS (SELECT 1 FROM {_ITEMS} i WHERE i.manifest_id = c.manifest_id)"""
            )
            if missing:
                raise StaleCarryoverError(
                    f"{missing} carried-over solution lists were pruned from the store meanwhile; "
                    "rerun the snapshot with a full refetch (--full)"
                )
            con.execute("INSERT INTO problem_manifests SELECT problem_id, manifest_id FROM stage_carry")

    def count_solutions(self) -> None:
        self.counts["solutions"] = int(
            self.scalar(
                f"""SELECT count(*) FROM {LINKS} l JOIN {_ITEMS} i ON i.manifest_id = l.manifest_id
                    WHERE l.snapshot_id = ? AND l.resource = {PROBLEMS.code}""",
                [self.sid],
            )
        )

    def drop_temp(self) -> None:
        for name in (
            "stage",
            "new_keys",
            "stage_sol",
            "stage_fetched",
            "problem_manifests",
            "stage_carry",
            "stage_bot_carry",
        ):
            self.con.execute(f"DROP TABLE IF EXISTS temp.{name}")


def _iso(ts: datetime) -> str:
    return ts.astimezone(UTC).isoformat().replace("+00:00", "Z")


def _declared_platform(area: StagingArea) -> str | None:
    """What the platform declared about itself (the ``platform`` step's report: ``declared``, a JSON object
    with ``id``, ``clock`` and ``time`` when given; plus ``"taken_at": "platform"`` when the snapshot's time
    is the platform's, a report's ``taken_at``) as JSON text; ``None`` when the run staged neither."""
    reports = area.reports()
    platform = reports.get("platform")
    declared = None if platform is None or platform.declared is None else platform.declared.as_json()
    taken_at = next((r.taken_at for r in reports.values() if r.taken_at), None)
    if taken_at:
        declared = {**(declared or {}), "taken_at": taken_at}
    return None if declared is None else json.dumps(declared)


_LOG = f"{INTERNAL}.snapshot_log"


def _begin_snapshot(con: Any, area: StagingArea, run: RunInfo) -> int:
    """Insert the run's snapshot row (status ``writing``) in the open transaction; return its new id."""
    # Ids are never reused, also after `solvelens db delete` removed the newest snapshot (an exported Parquet
    # partition snapshot_id=<n> always means one snapshot).
    sid = int(
        con.execute(
            f"""SELECT greatest(coalesce(max(snapshot_id), 0), coalesce((SELECT max(value::BIGINT)
                    FROM {INTERNAL}.meta WHERE key = '{LAST_DELETED_KEY}'), 0)) + 1 FROM {_LOG}"""
        ).fetchall()[0][0]
    )
    con.execute(
        f"INSERT INTO {_LOG} (snapshot_id, taken_at, base_url, status, started_at, platform) "
        "VALUES (?, ?::TIMESTAMPTZ, ?, 'writing', ?::TIMESTAMPTZ, ?::JSON)",
        [sid, run.taken_at, run.base_url, run.started_at, _declared_platform(area)],
    )
    return sid


def _phase(tx: _Transaction, resource: Resource) -> Callable[[], Any]:
    """What writes one declared resource (by its ``write`` kind); history resources are written together."""
    if resource.write == "solutions":
        return tx.write_solutions
    if resource.write == "problems":
        return tx.write_problems
    if resource.write == "bots":
        return tx.write_bots
    if resource.write == "stats":
        return lambda: tx.write_stats(resource)
    return lambda: tx.write_linked(resource)


def _write_phases(tx: _Transaction) -> dict[str, float]:
    """Write every staged resource in the declared order (:mod:`solvelens.resources`: ``phase``), then the
    history; return each phase's seconds."""
    ordered = sorted((r for r in RESOURCES if r.write != "history"), key=lambda r: r.phase)
    phases: list[tuple[str, Callable[[], Any]]] = [(r.name, _phase(tx, r)) for r in ordered]
    phases += [
        ("history", lambda: write_history(tx.con, tx.staging, tx.sid, tx.counts, tx.new_versions)),
        ("drop_temp", tx.drop_temp),
    ]
    timings: dict[str, float] = {}
    for name, phase in phases:
        started = time.perf_counter()
        phase()
        timings[name] = time.perf_counter() - started
    for r in RESOURCES:  # a linked resource not staged (no API key, not offered) stores 0 rows
        if r.linked and not r.optional:
            tx.counts.setdefault(r.name, 0)
    return timings


def _mark_complete(
    con: Any, sid: int, run: RunInfo, tx: _Transaction, warnings: list[str]
) -> tuple[datetime, float]:
    """Mark snapshot ``sid`` complete with its counts, warnings and drift (still inside the transaction;
    ``changes``, a column of older versions, stays NULL); return when it finished (UTC) and its duration in
    seconds since the run started."""
    finished = datetime.now(UTC)
    started = datetime.fromisoformat(run.started_at.replace("Z", "+00:00"))
    duration_s = max((finished - started).total_seconds(), 0.0)
    con.execute(
        f"""UPDATE {_LOG} SET status = ?, finished_at = ?::TIMESTAMPTZ, duration_s = ?,
            counts = ?::JSON, warnings = ?::JSON, drift = ?::JSON
            WHERE snapshot_id = ?""",
        [
            COMPLETE,
            _iso(finished),
            duration_s,
            json.dumps(tx.counts),
            json.dumps(warnings),
            json.dumps(tx.drift),
            sid,
        ],
    )
    return finished, duration_s


def write_snapshot(
    db_path: str | os.PathLike[str],
    staging: StagingArea | str | os.PathLike[str],
    *,
    lock_timeout_s: float = DEFAULT_LOCK_TIMEOUT_S,
) -> SnapshotResult:
    """Write the staged run as one complete snapshot, atomically, and return what was written.

    ``staging`` is a :class:`StagingArea` (or its directory) holding ``run.json`` and the staged tables; the
    staged tables of the resources declared ``required`` (:data:`REQUIRED_TABLES`) must be there.

    Raises :class:`solvelens.store.lock.StoreLockTimeout` (another writer held the lock longer than
    ``lock_timeout_s`` seconds), :class:`StoreBusyError`, :class:`IncompleteStagingError`,
    :class:`StaleCarryoverError` and :class:`solvelens.store.errors.StoreDiskFullError`. On any error nothing
    of this snapshot is visible; a commit that failed (a full disk) also leaves no ``<db>.wal`` it began
    (removed under the store's lock, after the file is closed; a WAL that was there before is kept).
    """
    area = staging if isinstance(staging, StagingArea) else StagingArea(staging)
    run = area.run_info()
    missing = [t for t in REQUIRED_TABLES if not area.has_table(t)]
    if missing:
        raise IncompleteStagingError(f"the staged run in {area.path} lacks {', '.join(missing)}")
    warnings = area.warnings()
    staged_bytes = sum(p.stat().st_size for p in area.path.glob("*.parquet"))
    block_size = LARGE_BLOCK_SIZE if staged_bytes >= LARGE_STORE_STAGED_BYTES else SMALL_BLOCK_SIZE
    compression = RAW_COMPRESSION if staged_bytes >= ZSTD_STAGED_BYTES else None
    wal = Path(f"{os.fspath(db_path)}.wal")
    unwritten = ownable = False  # the COMMIT failed to write its WAL; no WAL was beside the store before it
    with store_lock(db_path, exclusive=True, timeout_s=lock_timeout_s):
        try:
            with open_writer(db_path, lock=False, block_size=block_size, raw_compression=compression) as con:
                t0 = time.perf_counter()
                ownable = not wal.exists()  # a WAL now holds changes committed before (a migration's): kept
                con.execute("BEGIN TRANSACTION")
                try:
                    sid = _begin_snapshot(con, area, run)
                    tx = _Transaction(con, area, sid)
                    timings = _write_phases(tx)
                    finished, duration_s = _mark_complete(con, sid, run, tx, warnings)
                    started_phase = time.perf_counter()
                    try:
                        con.execute("COMMIT")
                    except duckdb.Error as exc:
                        unwritten = commit_unwritten(exc)
                        raise
                    timings["commit"] = time.perf_counter() - started_phase
                except BaseException:
                    rollback(con)
                    raise
                quality, coverage = snapshot_quality(con, sid)
                started_phase = time.perf_counter()
        except BaseException:
            if unwritten and ownable:  # the failed commit's own WAL (a full disk): the store is as it was
                wal.unlink(missing_ok=True)
            raise
    timings["close"] = time.perf_counter() - started_phase
    write_s = time.perf_counter() - t0
    return SnapshotResult(
        snapshot_id=sid,
        taken_at=run.taken_at,
        base_url=run.base_url,
        started_at=run.started_at,
        finished_at=_iso(finished),
        duration_s=duration_s,
        write_s=write_s,
        counts=tx.counts,
        new_versions=tx.new_versions,
        warnings=warnings,
        drift=tx.drift,
        file_bytes=Path(db_path).stat().st_size,
        timings=timings,
        data_quality=quality,
        vote_coverage=coverage,
    )
