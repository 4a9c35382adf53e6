"""The DuckDB snapshot store's schema: internal versioned tables and the public views.

Storage model (what makes an unchanged re-snapshot cheap):

- ``solvelens_store.snapshot_log``: one row per snapshot run (status ``complete`` once whole).
- ``solvelens_store.<resource>_versions``: each distinct record version stored once, keyed by
  ``version_id UBIGINT`` = a 64-bit BLAKE2b of the record's raw JSON (computed while staging, see
  :func:`solvelens.store.staging.version_key`), with typed columns extracted from the known camelCase fields
  and the raw JSON (zstd-compressed in large and compacted stores, see :data:`RAW_COMPRESSION`).
- ``solvelens_store.snapshot_links``: which versions each snapshot saw, for every resource in ONE narrow
  table (``resource`` code, ``version_id``, leaderboard ``rank``, a problem's solution ``manifest_id``), so an
  unchanged re-snapshot appends to two tables only (this and the log).
- Solutions are referenced per problem as a whole: ``solution_manifest_items`` holds each distinct ranked
  list of solution versions once (``manifest_id`` = hash of the version ids ordered by rank, then version
  id; rank = the competition rank over the score, ties share a rank: :mod:`solvelens.flows.ranks`; the
  positions stores of schema 2 held are rewritten by the next write, :data:`RERANK_MANIFESTS_SQL`). A
  problem's link row names its manifest, so unchanged solutions cost nothing beyond that row.
- ``stat_values``: ``/stats`` flattened to (metric, value) per stats version.
- ``field_types``: every (resource, top-level field, JSON type) seen so far, for drift detection.
- History kept once per item, not per snapshot (schema version 3), each row naming the platform it came from
  (``platform``: the declared ``X-Platform-Id``, else the base URL) and the snapshot that first saw it:
  ``activity_events`` (each ``/activity`` event once, by platform and event id), ``activity_gaps`` (one row
  per snapshot that found events missed), ``comparison_records`` (each pairwise vote once, by platform and
  comparison id) and ``comparison_fetches`` (per snapshot, the solutions whose ``/comparisons`` were fetched:
  the listed ``comparisonCount`` then, what the endpoint returned, how many are stored). These are never
  pruned: the feed they came from forgets them.
- Exactness, per snapshot (schema version 4): ``data_quality`` (announced against stored for every list of
  the snapshot, and each gap the platform cannot fill: resource, scope, announced, stored, reason) and
  ``vote_coverage`` (votes stored against announced, the vote lists left for later snapshots under the
  optional resources' budget): :mod:`solvelens.store.quality`.

The public schema (``docs/architecture.md``, "Contract: the store's public schema") is a set of views in
the ``main`` schema over these tables; every view shows only rows of snapshots whose status is ``complete``.
A new file gets 16 KiB blocks when its first snapshot is small (so small stores also grow by small steps)
and DuckDB's default 256 KiB blocks when it is large (bulk writes are much faster with them).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import duckdb

from solvelens.store.errors import SchemaVersionError
from solvelens.store.faults import rollback

#: Bumped when the internal tables change (2: ``snapshot_log.platform``; 3: ``snapshot_log.resources``, the
#: ``llm_leaderboard`` resource and the history tables; 4: ``data_quality`` and ``vote_coverage``); older
#: stores are migrated in place by
#: :func:`ensure_schema` (:data:`MIGRATIONS`).
SCHEMA_VERSION = 4
#: The DuckDB schema holding the internal tables (views live in ``main``).
INTERNAL = "solvelens_store"
#: The table linking snapshots to record versions (all resources).
LINKS = f"{INTERNAL}.snapshot_links"
#: ``meta`` key holding the highest snapshot id ever deleted (ids are never reused).
LAST_DELETED_KEY = "last_deleted_snapshot_id"
#: Status of a snapshot whose rows are all written (the only status the public views show).
COMPLETE = "complete"
#: Block size of new store files, in bytes: small blocks keep a store growing by small steps (a snapshot
#: rewrites the last block of each table it appends to, and DuckDB keeps freed blocks inside the file) ...
SMALL_BLOCK_SIZE = 16384
#: ... while a very big first snapshot gets DuckDB's default blocks, where a few freed blocks are a small
#: share of the file.
LARGE_BLOCK_SIZE = 262144
#: Staged bytes (Parquet) of a first snapshot from which a new file uses LARGE_BLOCK_SIZE. The medium sandbox
#: (50,991 solutions) stages 7.1 MB: with small blocks and zstd its file is 7.4 MB and an unchanged
#: re-snapshot adds 2.4% (large blocks: 9.4 MB and +11.1%), its write ~0.15 s slower (1.1 s against 1.0 s).
LARGE_STORE_STAGED_BYTES = 64 * 1024 * 1024
#: Staged bytes of a first snapshot from which a new file's raw JSON columns get :data:`RAW_COMPRESSION`.
ZSTD_STAGED_BYTES = 4 * 1024 * 1024


@dataclass(frozen=True)
class Field:
    """A typed column extracted from a record's top-level JSON key ``key`` and cast to ``sql_type``."""

    column: str
    key: str
    sql_type: str


@dataclass(frozen=True)
class Resource:
    """A versioned resource: its public view name, its code in ``snapshot_links`` and its typed columns."""

    name: str
    code: int
    fields: tuple[Field, ...]

    @property
    def version_table(self) -> str:
        """Fully qualified name of the table of distinct record versions."""
        return f"{INTERNAL}.{self.name}_versions"

    @property
    def known_keys(self) -> tuple[str, ...]:
        """The JSON keys this store extracts into typed columns."""
        return tuple(f.key for f in self.fields)


def _f(column: str, key: str, sql_type: str = "VARCHAR") -> Field:
    return Field(column, key, sql_type)


_BOT_COUNTERS = (
    _f("total_points", "totalPoints", "BIGINT"),
    _f("total_solutions", "totalSolutions", "BIGINT"),
    _f("total_votes", "totalVotes", "BIGINT"),
    _f("vote_accuracy", "voteAccuracy", "DOUBLE"),
    _f("elo", "globalElo", "DOUBLE"),
)

PROBLEMS = Resource(
    "problems",
    1,
    (
        _f("problem_id", "id"),
        _f("title", "title"),
        _f("status", "status"),
        _f("category", "category"),
        _f("author_type", "authorType"),
        _f("solution_count", "solutionCount", "BIGINT"),
        _f("comparison_count", "comparisonCount", "BIGINT"),
        _f("created_at", "createdAt", "TIMESTAMPTZ"),
    ),
)
#: Solutions have no link rows of their own: a problem's link row names its solution manifest.
SOLUTIONS = Resource(
    "solutions",
    0,
    (
        _f("solution_id", "id"),
        _f("score", "btScore", "DOUBLE"),
        _f("comparison_count", "comparisonCount", "BIGINT"),
        _f("win_count", "winCount", "BIGINT"),
        _f("loss_count", "lossCount", "BIGINT"),
        _f("confidence_interval", "confidenceInterval", "DOUBLE"),
        _f("bot_id", "botId"),
        _f("bot_name", "botName"),
        _f("llm_model", "llmModel"),
        _f("created_at", "createdAt", "TIMESTAMPTZ"),
    ),
)
CATEGORIES = Resource(
    "categories",
    2,
    (_f("slug", "slug"), _f("name", "displayName"), _f("problem_count", "activeProblems", "BIGINT")),
)
LEADERBOARD = Resource(
    "leaderboard",
    3,
    (
        _f("bot_id", "id"),
        _f("name", "name"),
        _f("points", "totalPoints", "BIGINT"),
        _f("elo", "globalElo", "DOUBLE"),
        _f("total_solutions", "totalSolutions", "BIGINT"),
        _f("total_votes", "totalVotes", "BIGINT"),
        _f("vote_accuracy", "voteAccuracy", "DOUBLE"),
        _f("status", "status"),
    ),
)
BOTS = Resource(
    "bots",
    4,
    (
        _f("bot_id", "id"),
        _f("name", "name"),
        _f("status", "status"),
        *_BOT_COUNTERS,
        _f("last_active_at", "lastActiveAt", "TIMESTAMPTZ"),
        _f("created_at", "createdAt", "TIMESTAMPTZ"),
    ),
)
PLATFORM_STATS = Resource("platform_stats", 5, ())
BOT_ME = Resource(
    "bot_me",
    6,
    (_f("bot_id", "id"), _f("name", "name"), _f("status", "status"), *_BOT_COUNTERS),
)
#: ``GET /llm-leaderboard`` (optional): the platform's own model ranking; rank = position in the walk.
LLM_LEADERBOARD = Resource(
    "llm_leaderboard",
    7,
    (
        _f("model_name", "modelName"),
        _f("model_version", "modelVersion"),
        _f("model_family", "modelFamily"),
        _f("total_solutions", "totalSolutions", "BIGINT"),
        _f("avg_bt_score", "avgBtScore", "DOUBLE"),
        _f("best_bt_score", "bestBtScore", "DOUBLE"),
        _f("total_wins", "totalWins", "BIGINT"),
        _f("total_comparisons", "totalComparisons", "BIGINT"),
        _f("win_rate", "winRate", "DOUBLE"),
        _f("top3_count", "top3Count", "BIGINT"),
        _f("first_place_count", "firstPlaceCount", "BIGINT"),
        _f("unique_bots", "uniqueBots", "BIGINT"),
    ),
)

#: Resources with one link row per record per snapshot (solutions hang off the problems' rows).
LINKED_RESOURCES: tuple[Resource, ...] = (
    PROBLEMS,
    CATEGORIES,
    LEADERBOARD,
    BOTS,
    PLATFORM_STATS,
    BOT_ME,
    LLM_LEADERBOARD,
)
#: Linked resources whose link rows carry the position in the walk (``rank``).
RANKED_RESOURCES: tuple[Resource, ...] = (LEADERBOARD, LLM_LEADERBOARD)
#: The views every store has had since schema version 1 (a reader of an older, unmigrated store needs these).
CORE_VIEWS: tuple[str, ...] = (
    "snapshots",
    "problems",
    "solutions",
    "categories",
    "leaderboard",
    "bots",
    "platform_stats",
    "bot_me",
)
#: The views of the optional resources (schema version 3): absent from an older store until its next write.
OPTIONAL_VIEWS: tuple[str, ...] = (
    "llm_leaderboard",
    "activity",
    "activity_gaps",
    "comparisons",
    "comparison_coverage",
)
#: The views of what a snapshot holds against what the platform announced (schema version 4).
QUALITY_VIEWS: tuple[str, ...] = ("data_quality", "vote_coverage")
#: The public view names, in the order of the architecture contract.
PUBLIC_VIEWS: tuple[str, ...] = CORE_VIEWS + OPTIONAL_VIEWS + QUALITY_VIEWS
#: The views over the history tables: never pruned (what the platform's feeds forgot stays).
HISTORY_VIEWS: tuple[str, ...] = ("activity", "activity_gaps", "comparisons", "comparison_coverage")
#: The column naming a view's snapshot where it is not ``snapshot_id``: the views holding each item once
#: name the snapshot that first saw it.
SNAPSHOT_COLUMN: dict[str, str] = {"activity": "first_snapshot_id", "comparisons": "first_snapshot_id"}


def snapshot_column(view: str) -> str:
    """The column of ``view`` naming its snapshot (``snapshot_id``; ``first_snapshot_id`` for the history
    views ``activity`` and ``comparisons``)."""
    return SNAPSHOT_COLUMN.get(view, "snapshot_id")


#: The snapshot log's columns and SQL types. ``platform``: what the platform declared about itself (JSON
#: ``{"id": str, "clock": "simulated" | ...}`` from its ``X-Platform-Id`` / ``X-Platform-Clock`` response
#: headers; ``{}`` when it declared nothing, as the real platform; NULL when unknown: not read, or written
#: before schema version 2). ``resources``: what became of each optional resource (JSON ``{"activity":
#: "stored" | "not offered" | "not requested" | "unchanged", "comparisons": ..., "llm_leaderboard": ...}``,
#: see :mod:`solvelens.flows.optional`; NULL when written before schema version 3).
SNAPSHOT_LOG_COLUMNS: dict[str, str] = {
    "snapshot_id": "BIGINT PRIMARY KEY",
    "taken_at": "TIMESTAMPTZ NOT NULL",
    "base_url": "VARCHAR NOT NULL",
    "status": "VARCHAR NOT NULL",
    "started_at": "TIMESTAMPTZ",
    "finished_at": "TIMESTAMPTZ",
    "duration_s": "DOUBLE",
    "counts": "JSON",
    "warnings": "JSON",
    "drift": "JSON",
    "changes": "JSON",
    "platform": "JSON",
    "resources": "JSON",
}
#: The columns of the public ``snapshots`` view (the log's, without ``changes``).
SNAPSHOTS_VIEW_COLUMNS: tuple[str, ...] = tuple(c for c in SNAPSHOT_LOG_COLUMNS if c != "changes")
#: Statements that bring a store of schema version ``n - 1`` to ``n`` (run in one transaction before the
#: idempotent DDL; every one must be harmless on a store that already has what it adds).
MIGRATIONS: dict[int, tuple[str, ...]] = {
    2: (f"ALTER TABLE {INTERNAL}.snapshot_log ADD COLUMN IF NOT EXISTS platform JSON",),
    3: (f"ALTER TABLE {INTERNAL}.snapshot_log ADD COLUMN IF NOT EXISTS resources JSON",),
}


#: The compression of the raw JSON columns of a store whose first snapshot staged at least
#: :data:`ZSTD_STAGED_BYTES`, or rewritten by ``solvelens db compact``: zstd halves a medium store against
#: DuckDB's default (dictionary/FSST) and is cheaper to write (10.8 MB against 21.5 MB; closing 0.15 s
#: against 0.28 s; with small blocks the default costs the medium first snapshot ~1.5 CPU s more); the
#: demo's store compacts to 1.9 MiB against 22.5 MiB. Small new stores keep DuckDB's default, under which
#: an unchanged re-snapshot adds a smaller share of the first snapshot's (larger) file.
RAW_COMPRESSION = "zstd"


#: History tables (schema version 3), kept once per item (see the module docstring). ``platform``: the
#: declared ``X-Platform-Id`` of the snapshot that wrote the row, else its base URL. Ids are VARCHAR whatever
#: their JSON type (the real platform's event ids are serial integers).
ACTIVITY_EVENTS = f"{INTERNAL}.activity_events"
ACTIVITY_GAPS = f"{INTERNAL}.activity_gaps"
COMPARISON_RECORDS = f"{INTERNAL}.comparison_records"
COMPARISON_FETCHES = f"{INTERNAL}.comparison_fetches"
#: Exactness tables (schema version 4), one set of rows per snapshot (:mod:`solvelens.store.quality`).
DATA_QUALITY = f"{INTERNAL}.data_quality"
VOTE_COVERAGE = f"{INTERNAL}.vote_coverage"
HISTORY_COLUMNS: dict[str, dict[str, str]] = {
    ACTIVITY_EVENTS: {
        "platform": "VARCHAR NOT NULL",
        "event_id": "VARCHAR NOT NULL",
        "action": "VARCHAR",
        "bot_id": "VARCHAR",
        "bot_name": "VARCHAR",
        "problem_id": "VARCHAR",
        "problem_title": "VARCHAR",
        "metadata": "JSON",  # the event's metadata parsed (the real platform sends a JSON string)
        "created_at": "TIMESTAMPTZ",
        "raw": "JSON NOT NULL",
        "first_snapshot_id": "BIGINT NOT NULL",
    },
    ACTIVITY_GAPS: {
        "snapshot_id": "BIGINT NOT NULL",
        "newest_stored_event_id": "VARCHAR",  # the newest event stored before this snapshot ...
        "oldest_fetched_event_id": "VARCHAR",  # ... not among the feed's events, the oldest of which is this
        "gap_from": "TIMESTAMPTZ",  # createdAt of the newest stored event: events after it ...
        "gap_to": "TIMESTAMPTZ",  # ... and before this one (the oldest fetched) may be missing
        "events_per_hour": "DOUBLE",  # measured over the fetched page (platform time)
        "suggested_interval_s": "DOUBLE",  # a snapshot at least this often keeps the history complete
    },
    COMPARISON_RECORDS: {
        "platform": "VARCHAR NOT NULL",
        "comparison_id": "VARCHAR NOT NULL",
        "problem_id": "VARCHAR",  # the problem of the solution whose comparisons listed it
        "solution_a_id": "VARCHAR",
        "solution_b_id": "VARCHAR",
        "winner": "VARCHAR",  # 'a' | 'b' | 'skip'
        "voter_bot_id": "VARCHAR",
        "voter_bot_name": "VARCHAR",
        "created_at": "TIMESTAMPTZ",
        "raw": "JSON NOT NULL",
        "first_snapshot_id": "BIGINT NOT NULL",
    },
    COMPARISON_FETCHES: {
        "snapshot_id": "BIGINT NOT NULL",
        "platform": "VARCHAR NOT NULL",
        "solution_id": "VARCHAR NOT NULL",
        "problem_id": "VARCHAR",
        "comparison_count": "BIGINT",  # the solution's comparisonCount as listed in this snapshot
        "returned": "BIGINT",  # comparisons the endpoint returned (the real platform: the 50 most recent)
        "stored": "BIGINT",  # distinct comparisons of the solution stored after this snapshot
    },
    DATA_QUALITY: {
        "snapshot_id": "BIGINT NOT NULL",
        "resource": "VARCHAR NOT NULL",  # a view name (problems, solutions, leaderboard, comparisons, ...)
        "scope": "VARCHAR NOT NULL",  # a problem or solution id, a /stats metric, or '' for the whole list
        "announced": "BIGINT",  # records the platform announced (a total, a count, a /stats figure)
        "stored": "BIGINT",  # records the snapshot holds
        "reason": "VARCHAR",  # why they differ; NULL when they agree
    },
    VOTE_COVERAGE: {
        "snapshot_id": "BIGINT NOT NULL",
        "announced": "BIGINT",  # votes the listed problems' comparisonCount announce
        "stored": "BIGINT",  # distinct votes of those problems stored after the snapshot
        "requests": "BIGINT",  # /comparisons requests this snapshot sent
        "budget": "BIGINT",  # requests the budget allowed the comparisons (NULL: --budget all)
        "lists_pending": "BIGINT",  # vote lists left for later snapshots (their count moved, not read yet)
        "snapshots_to_go": "BIGINT",  # predicted snapshots until none is pending (NULL: never at this budget)
        "audited": "BIGINT",  # lists trusted by their counts re-read this snapshot
        "audit_cycle": "BIGINT",  # snapshots in which every trusted list is re-read at this share
    },
}


#: SQL (over ``snapshot_log``) of the platform a snapshot's history rows belong to: see :func:`platform_key`.
PLATFORM_KEY_SQL = "coalesce(platform->>'$.id', base_url)"


def platform_key(declared: Mapping[str, Any] | None, base_url: str) -> str:
    """The platform history rows belong to: the id the platform declared (``X-Platform-Id``, kept across
    ports), else the snapshot's base URL (the real platform declares none); as :data:`PLATFORM_KEY_SQL`."""
    ident = declared.get("id") if isinstance(declared, Mapping) else None
    return str(ident) if ident else base_url


def _history_ddl() -> list[str]:
    return [
        f"CREATE TABLE IF NOT EXISTS {table} ({', '.join(f'{c} {t}' for c, t in columns.items())})"
        for table, columns in HISTORY_COLUMNS.items()
    ]


def _version_table_ddl(resource: Resource, extra: str = "", compression: str | None = None) -> str:
    cols = "".join(f", {f.column} {f.sql_type}" for f in resource.fields)
    using = f" USING COMPRESSION {compression}" if compression else ""
    return (
        f"CREATE TABLE IF NOT EXISTS {resource.version_table} "
        f"(version_id UBIGINT NOT NULL{extra}{cols}, raw JSON NOT NULL{using})"
    )


#: The alert rules' state (:mod:`solvelens.store.alerts`): per platform, rule and subject, whether a level
#: condition held and the last snapshot evaluated. Not versioned with the snapshots; new in schema 3 (also
#: created on first use in older stores).
ALERT_STATE = f"{INTERNAL}.alert_state"
ALERT_STATE_DDL = f"""CREATE TABLE IF NOT EXISTS {ALERT_STATE} (
    platform VARCHAR NOT NULL, rule VARCHAR NOT NULL, subject VARCHAR NOT NULL, active BOOLEAN NOT NULL,
    snapshot_id BIGINT, updated_at TIMESTAMPTZ NOT NULL, PRIMARY KEY (platform, rule, subject))"""


def _tables_ddl(compression: str | None = None) -> list[str]:
    s = INTERNAL
    ddl = [
        f"CREATE SCHEMA IF NOT EXISTS {s}",
        f"CREATE TABLE IF NOT EXISTS {s}.meta (key VARCHAR PRIMARY KEY, value VARCHAR)",
        f"CREATE TABLE IF NOT EXISTS {s}.snapshot_log "
        f"({', '.join(f'{name} {sql_type}' for name, sql_type in SNAPSHOT_LOG_COLUMNS.items())})",
        f"""CREATE TABLE IF NOT EXISTS {LINKS} (
            snapshot_id BIGINT NOT NULL, resource UTINYINT NOT NULL, version_id UBIGINT NOT NULL,
            rank INTEGER, manifest_id UBIGINT)""",
        f"""CREATE TABLE IF NOT EXISTS {s}.field_types (
            resource VARCHAR NOT NULL, field VARCHAR NOT NULL, json_type VARCHAR NOT NULL,
            first_snapshot_id BIGINT NOT NULL)""",
        _version_table_ddl(SOLUTIONS, extra=", problem_id VARCHAR", compression=compression),
        f"""CREATE TABLE IF NOT EXISTS {s}.solution_manifest_items (
            manifest_id UBIGINT NOT NULL, rank INTEGER NOT NULL, version_id UBIGINT NOT NULL)""",
        f"""CREATE TABLE IF NOT EXISTS {s}.stat_values (
            version_id UBIGINT NOT NULL, metric VARCHAR, value DOUBLE)""",
        ALERT_STATE_DDL,
    ]
    ddl.extend(_version_table_ddl(resource, compression=compression) for resource in LINKED_RESOURCES)
    ddl.extend(_history_ddl())
    return ddl


def _links_of(resource: Resource) -> str:
    """``FROM`` clause: link rows of ``resource`` in complete snapshots joined to their versions as ``v``."""
    return (
        f"FROM {LINKS} l "
        f"JOIN {INTERNAL}.snapshot_log s ON s.snapshot_id = l.snapshot_id AND s.status = '{COMPLETE}' "
        f"JOIN {resource.version_table} v ON v.version_id = l.version_id "
        f"WHERE l.resource = {resource.code}"
    )


def _simple_view(resource: Resource, leading: str = "") -> str:
    cols = "".join(f", v.{f.column}" for f in resource.fields)
    return (
        f"CREATE OR REPLACE VIEW main.{resource.name} AS "
        f"SELECT l.snapshot_id{leading}{cols}, v.raw {_links_of(resource)}"
    )


def _views_ddl() -> list[str]:
    s = INTERNAL
    solution_cols = ", ".join(
        "v.solution_id, v.problem_id, i.rank" if f.column == "solution_id" else f"v.{f.column}"
        for f in SOLUTIONS.fields
    )
    return [
        f"""CREATE OR REPLACE VIEW main.snapshots AS
            SELECT {", ".join(SNAPSHOTS_VIEW_COLUMNS)}
            FROM {s}.snapshot_log WHERE status = '{COMPLETE}'""",
        _simple_view(PROBLEMS),
        f"""CREATE OR REPLACE VIEW main.solutions AS
            SELECT l.snapshot_id, {solution_cols}, v.raw
            FROM {LINKS} l
            JOIN {s}.snapshot_log s ON s.snapshot_id = l.snapshot_id AND s.status = '{COMPLETE}'
            JOIN {s}.solution_manifest_items i ON i.manifest_id = l.manifest_id
            JOIN {SOLUTIONS.version_table} v ON v.version_id = i.version_id
            WHERE l.resource = {PROBLEMS.code}""",
        _simple_view(CATEGORIES),
        _simple_view(LEADERBOARD, leading=", l.rank"),
        _simple_view(BOTS),
        f"""CREATE OR REPLACE VIEW main.platform_stats AS
            SELECT l.snapshot_id, sv.metric, sv.value
            FROM {LINKS} l
            JOIN {s}.snapshot_log s ON s.snapshot_id = l.snapshot_id AND s.status = '{COMPLETE}'
            JOIN {s}.stat_values sv ON sv.version_id = l.version_id
            WHERE l.resource = {PLATFORM_STATS.code}""",
        _simple_view(BOT_ME),
        _simple_view(LLM_LEADERBOARD, leading=", l.rank"),
        *_history_views_ddl(),
    ]


def _visible(column: str) -> str:
    """A history row is visible unless the snapshot named in ``column`` is still being written (a pruned
    snapshot's history stays)."""
    return (
        f"NOT EXISTS (SELECT 1 FROM {INTERNAL}.snapshot_log s "
        f"WHERE s.snapshot_id = {column} AND s.status <> '{COMPLETE}')"
    )


def _history_views_ddl() -> list[str]:
    activity = [c for c in HISTORY_COLUMNS[ACTIVITY_EVENTS] if c != "platform"]
    comparisons = [c for c in HISTORY_COLUMNS[COMPARISON_RECORDS] if c != "platform"]
    gaps = list(HISTORY_COLUMNS[ACTIVITY_GAPS])
    return [
        f"""CREATE OR REPLACE VIEW main.activity AS SELECT {", ".join(activity)}
            FROM {ACTIVITY_EVENTS} WHERE {_visible("first_snapshot_id")}""",
        f"""CREATE OR REPLACE VIEW main.activity_gaps AS SELECT {", ".join(gaps)}
            FROM {ACTIVITY_GAPS} WHERE {_visible("snapshot_id")}""",
        f"""CREATE OR REPLACE VIEW main.comparisons AS SELECT {", ".join(comparisons)}
            FROM {COMPARISON_RECORDS} WHERE {_visible("first_snapshot_id")}""",
        *(
            f"""CREATE OR REPLACE VIEW main.{table.split(".")[-1]} AS SELECT * FROM {table}
                WHERE snapshot_id IN (SELECT snapshot_id FROM {INTERNAL}.snapshot_log
                                      WHERE status = '{COMPLETE}')"""
            for table in (DATA_QUALITY, VOTE_COVERAGE)
        ),
        f"""CREATE OR REPLACE VIEW main.comparison_coverage AS
            SELECT snapshot_id, solution_id, problem_id, stored, comparison_count
            FROM {COMPARISON_FETCHES} WHERE stored < comparison_count AND {_visible("snapshot_id")}""",
    ]


#: Migration 3 (with the other version-3 steps): stores written before ties were recognised hold list
#: positions as solution ranks; every stored list whose solutions all have a score gets the competition
#: ranks over it instead (:mod:`solvelens.flows.ranks`: ties share the best rank). Lists with a solution
#: without a score keep their positions, as a snapshot would store them now. Manifest ids stay.
RERANK_MANIFESTS_SQL = f"""
    UPDATE {INTERNAL}.solution_manifest_items AS i SET rank = r.competition
    FROM (SELECT i.manifest_id, i.version_id,
                 rank() OVER (PARTITION BY i.manifest_id ORDER BY v.score DESC) AS competition
          FROM {INTERNAL}.solution_manifest_items i JOIN {SOLUTIONS.version_table} v USING (version_id)
          WHERE i.manifest_id NOT IN (
              SELECT i2.manifest_id FROM {INTERNAL}.solution_manifest_items i2
              JOIN {SOLUTIONS.version_table} v2 USING (version_id) WHERE v2.score IS NULL)) r
    WHERE i.manifest_id = r.manifest_id AND i.version_id = r.version_id AND i.rank <> r.competition"""
MIGRATIONS[3] = (*MIGRATIONS.get(3, ()), RERANK_MANIFESTS_SQL)


def ensure_schema(con: duckdb.DuckDBPyConnection, *, raw_compression: str | None = None) -> None:
    """Create the internal tables and the public views when missing, and migrate a store of an older
    schema version in place (:data:`MIGRATIONS`, then the views again); idempotent, changes nothing
    otherwise.

    ``raw_compression``: the compression of the raw JSON columns of tables created now (e.g.
    :data:`RAW_COMPRESSION`; ``None``: DuckDB's choice).

    Must run on a read-write connection. Raises :class:`SchemaVersionError` when the file carries a newer
    ``schema_version`` than this code knows.
    """
    exists = con.execute(
        "SELECT count(*) FROM duckdb_tables() WHERE schema_name = ? AND table_name = 'meta'", [INTERNAL]
    ).fetchall()[0][0]
    version = 0
    if exists:
        row = con.execute(f"SELECT value FROM {INTERNAL}.meta WHERE key = 'schema_version'").fetchall()
        version = int(row[0][0]) if row else 0
        if version > SCHEMA_VERSION:
            raise SchemaVersionError(
                f"the store was written by schema version {row[0][0]}; "
                f"this solvelens knows up to {SCHEMA_VERSION}"
            )
        if version == SCHEMA_VERSION:
            return
    # One transaction: a process interrupted here leaves either no schema or all of it (never a version row
    # without its views, which the early return above would then keep forever).
    con.execute("BEGIN TRANSACTION")
    try:
        for statement in _tables_ddl(raw_compression):
            con.execute(statement)
        for step in range(version + 1, SCHEMA_VERSION + 1) if exists else ():
            for statement in MIGRATIONS.get(step, ()):
                con.execute(statement)
        con.execute(
            f"INSERT OR REPLACE INTO {INTERNAL}.meta VALUES ('schema_version', ?)", [str(SCHEMA_VERSION)]
        )
        for statement in _views_ddl():
            con.execute(statement)
        con.execute("COMMIT")
    except BaseException:
        rollback(con)
        raise
