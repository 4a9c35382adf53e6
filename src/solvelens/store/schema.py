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

from typing import TYPE_CHECKING

import duckdb

from solvelens.resources import INTERNAL_SCHEMA, RESOURCES, StoredResource
from solvelens.resources import Field as _Field
from solvelens.store.errors import SchemaVersionError
from solvelens.store.faults import rollback

if TYPE_CHECKING:
    from solvelens.store.reports import Declaration

#: Bumped when the internal tables change (2: ``snapshot_log.platform``; 3: ``snapshot_log.resources``, the
#: platform's model board and the history tables; 4: ``data_quality`` and ``vote_coverage``; 5:
#: ``model_counts`` and the leaderboard's competition ranks, :data:`WRITE_TIME_MIGRATION`; 6: the model
#: board's competition ranks over the average score; 7: ``model_counts``' figures as exact decimals,
#: :data:`EXACT_MODEL_COUNTS_MIGRATION`); older stores are migrated in place by :func:`ensure_schema`
#: (:data:`MIGRATIONS`).
SCHEMA_VERSION = 7
#: The DuckDB schema holding the internal tables (views live in ``main``).
INTERNAL = INTERNAL_SCHEMA
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


#: A typed column of a versioned table, and a stored resource: declared in :mod:`solvelens.resources`.
Field = _Field
Resource = StoredResource

#: The stored resources by name (:data:`solvelens.resources.RESOURCES`).
_BY_NAME: dict[str, Resource] = {r.name: r for r in RESOURCES}
PROBLEMS = _BY_NAME["problems"]
#: Solutions have no link rows of their own: a problem's link row names its solution manifest.
SOLUTIONS = _BY_NAME["solutions"]
CATEGORIES = _BY_NAME["categories"]
LEADERBOARD = _BY_NAME["leaderboard"]
BOTS = _BY_NAME["bots"]

#: Resources with one link row per record per snapshot (solutions hang off the problems' rows).
LINKED_RESOURCES: tuple[Resource, ...] = tuple(r for r in RESOURCES if r.linked and r.write != "solutions")
#: Linked resources whose link rows carry the position in the walk (``rank``).
RANKED_RESOURCES: tuple[Resource, ...] = tuple(r for r in LINKED_RESOURCES if r.ranked)
#: The views every store has had since schema version 1 (a reader of an older, unmigrated store needs these).
CORE_VIEWS: tuple[str, ...] = ("snapshots", *(r.name for r in RESOURCES if not r.optional))
#: The views over the history tables: never pruned (what the platform's feeds forgot stays).
HISTORY_VIEWS: tuple[str, ...] = ("activity", "activity_gaps", "comparisons", "comparison_coverage")
#: The views of the optional resources (schema version 3): absent from an older store until its next write.
OPTIONAL_VIEWS: tuple[str, ...] = (*(r.name for r in LINKED_RESOURCES if r.optional), *HISTORY_VIEWS)
#: The views of what a snapshot holds against what the platform announced (schema version 4).
QUALITY_VIEWS: tuple[str, ...] = ("data_quality", "vote_coverage")
#: The public view names, in the order of the architecture contract.
PUBLIC_VIEWS: tuple[str, ...] = CORE_VIEWS + OPTIONAL_VIEWS + QUALITY_VIEWS
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
#: "stored" | "not offered" | "not requested" | "unchanged", ...}`` by resource name,
#: see :mod:`solvelens.flows.optional`; NULL when written before schema version 3). ``requests``: each
#: optional list's request as sent (JSON ``{<resource>: {"path": str, "params": {...}}}``, e.g. the model
#: board's ``sort``; NULL when written before it was recorded; added to an older store by
#: :func:`ensure_schema` without a version bump, as every log column: :func:`_log_columns_ddl`).
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
    "requests": "JSON",
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


def platform_key(declared: Declaration | None, base_url: str) -> str:
    """The platform history rows belong to: the id the platform declared (``X-Platform-Id``, kept across
    ports), else the snapshot's base URL (the real platform declares none); as :data:`PLATFORM_KEY_SQL`."""
    ident = None if declared is None else declared.id
    return ident if ident else base_url


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
        MODEL_COUNTS_DDL,
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


def _stats_view(resource: Resource) -> str:
    """``/stats`` in long format: one row per metric of each snapshot's stats version."""
    return f"""CREATE OR REPLACE VIEW main.{resource.name} AS
            SELECT l.snapshot_id, sv.metric, sv.value
            FROM {LINKS} l
            JOIN {INTERNAL}.snapshot_log s ON s.snapshot_id = l.snapshot_id AND s.status = '{COMPLETE}'
            JOIN {INTERNAL}.stat_values sv ON sv.version_id = l.version_id
            WHERE l.resource = {resource.code}"""


def _solutions_view() -> str:
    s = INTERNAL
    solution_cols = ", ".join(
        "v.solution_id, v.problem_id, i.rank" if f.column == "solution_id" else f"v.{f.column}"
        for f in SOLUTIONS.fields
    )
    return f"""CREATE OR REPLACE VIEW main.{SOLUTIONS.name} AS
            SELECT l.snapshot_id, {solution_cols}, v.raw
            FROM {LINKS} l
            JOIN {s}.snapshot_log s ON s.snapshot_id = l.snapshot_id AND s.status = '{COMPLETE}'
            JOIN {s}.solution_manifest_items i ON i.manifest_id = l.manifest_id
            JOIN {SOLUTIONS.version_table} v ON v.version_id = i.version_id
            WHERE l.resource = {PROBLEMS.code}"""


def _resource_view(resource: Resource) -> str:
    """The public view of a declared resource with link rows of its own, by how it is written."""
    if resource.write == "stats":
        return _stats_view(resource)
    return _simple_view(resource, leading=", l.rank" if resource.ranked else "")


def _views_ddl() -> list[str]:
    resources = [
        _solutions_view() if r.write == "solutions" else _resource_view(r) for r in RESOURCES if r.linked
    ]
    return [
        f"""CREATE OR REPLACE VIEW main.snapshots AS
            SELECT {", ".join(SNAPSHOTS_VIEW_COLUMNS)}
            FROM {INTERNAL}.snapshot_log WHERE status = '{COMPLETE}'""",
        *resources,
        *_history_views_ddl(),
    ]


def _visible(column: str) -> str:
    """A history row is visible unless the snapshot named in ``column`` is still being written (a pruned
    snapshot's history stays)."""
    return (
        f"NOT EXISTS (SELECT 1 FROM {INTERNAL}.snapshot_log s "
        f"WHERE s.snapshot_id = {column} AND s.status <> '{COMPLETE}')"
    )


def _voter_columns(columns: list[str]) -> str:
    """The ``comparisons`` view's select list over ``comparison_records c`` and the newest names ``n``."""
    return ", ".join(
        "coalesce(n.name, c.voter_bot_name) AS voter_bot_name" if col == "voter_bot_name" else f"c.{col}"
        for col in columns
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
        # Votes answer the voter's current name (the platform's answer after a rename): the newest name the
        # store holds for the voter's bot id on the vote's platform, else the name of the vote's first read.
        # Only the voters' rows of ``bots`` are read (a year of hourly snapshots holds millions of bot rows).
        f"""CREATE OR REPLACE VIEW main.comparisons AS SELECT {_voter_columns(comparisons)}
            FROM {COMPARISON_RECORDS} c LEFT JOIN (
                SELECT {PLATFORM_KEY_SQL} AS platform, b.bot_id, arg_max(b.name, b.snapshot_id) AS name
                FROM main.bots b JOIN {INTERNAL}.snapshot_log USING (snapshot_id)
                WHERE b.name IS NOT NULL
                  AND b.bot_id IN (SELECT DISTINCT voter_bot_id FROM {COMPARISON_RECORDS})
                GROUP BY ALL
            ) n ON n.platform = c.platform AND n.bot_id = c.voter_bot_id
            WHERE {_visible("c.first_snapshot_id")}""",
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


#: Per snapshot and model, figures of the snapshot's solution lists that never change once it is written
#: (schema version 5), computed by the writer (:func:`model_counts_sql`) so a reader of a long history never
#: aggregates every solution row of every snapshot. The columns of
#: :attr:`solvelens.analysis.frames.Frames.model_counts` (its readers cast the figures to DOUBLE).
#:
#: The figures (``percentile_sum``, ``top1``, ``top3``) are exact decimals (:data:`FIGURE`, schema version
#: 7): each snapshot's are the previous snapshot's plus the changed lists' (:func:`model_counts_since_sql`),
#: a running sum over every hourly snapshot of a year. Summed as doubles, each addition rounded (18.25 read
#: 18.250000000000004 after 21 snapshots of a test store; ``benchmarks/model_counts_drift.py`` measures a
#: year). Each solution's value is a fraction (denominators ``2 (n - 1)`` and ``t``), rounded half up to 18
#: decimal places in integer arithmetic (:func:`_to_figure`); from there every sum and difference is exact,
#: so the running sum equals a full recount digit for digit, whatever the order or the number of steps. A
#: stored figure is within ``0.5e-18`` per solution of the exact fraction, far below a double's precision.
MODEL_COUNTS = f"{INTERNAL}.model_counts"
#: The SQL type of the model counts' figures: 38 digits, 18 after the point (DuckDB stores it as a 128-bit
#: integer; sums and integer multiples of it are exact, an overflow past 10^20 raises instead of rounding).
FIGURE = "DECIMAL(38, 18)"
MODEL_COUNTS_DDL = f"""CREATE TABLE IF NOT EXISTS {MODEL_COUNTS} (
    snapshot_id BIGINT NOT NULL, llm_model VARCHAR NOT NULL, solutions BIGINT, contested_solutions BIGINT,
    percentile_sum {FIGURE}, top1 {FIGURE}, top3 {FIGURE})"""


def _to_figure(numerator: str, denominator: str) -> str:
    """SQL of ``numerator / denominator`` (integer expressions, ``0 <= numerator``, ``0 < denominator``) as a
    :data:`FIGURE`, rounded half up to 18 decimal places: integer division in HUGEINT, then scaled by
    ``1e-18`` (a decimal product, exact). DuckDB divides decimals as doubles, so no ``/`` is used. A zero
    ``denominator`` gives NULL (a single solution's percentile, which the sums filter out)."""
    units = (
        f"(2 * ({numerator})::HUGEINT * 1000000000000000000 + ({denominator})) "
        f"// nullif(2 * ({denominator}), 0)"
    )
    return f"(({units})::DECIMAL(38, 0) * 0.000000000000000001::DECIMAL(19, 18))"


#: A contested solution's rank percentile ``(n - rank - (t - 1) / 2) / (n - 1)`` clamped to 0..1 (n solutions
#: in the list, t sharing its rank), as a :data:`FIGURE`.
_PERCENTILE = _to_figure("greatest(0, least(2 * (n - 1), 2 * (n - rank) - (t - 1)))", "2 * (n - 1)")
#: Sum of top-k credits of contested solutions (rank; n solutions in the list, t sharing the rank): the tie
#: shares the positions it spans (:func:`solvelens.analysis.solutions.top_k_credit`).
_TOP_CREDIT = "least(greatest({k} + 1 - rank, 0), t)"


def _figure_sum(value: str) -> str:
    """Sum of ``value`` (a :data:`FIGURE`) over the contested solutions (lists of >= 2), 0 when none."""
    return f"coalesce(sum({value}) FILTER (WHERE n >= 2), 0)::{FIGURE}"


def _per_list_sql(manifests: str) -> str:
    """The CTEs ``items`` and ``per_list``: per solution list (manifest) of ``manifests`` (a subquery of
    ``manifest_id``) and model (null as ``'unknown'``): solutions, contested, percentile_sum, top1, top3
    (:func:`model_counts_sql`)."""
    return f"""
        items AS (
            SELECT i.manifest_id, coalesce(v.llm_model, 'unknown') AS llm_model, i.rank,
                   count(*) OVER (PARTITION BY i.manifest_id) AS n,
                   count(*) OVER (PARTITION BY i.manifest_id, i.rank) AS t
            FROM {INTERNAL}.solution_manifest_items i JOIN {SOLUTIONS.version_table} v USING (version_id)
            WHERE i.manifest_id IN ({manifests})),
        per_list AS (
            SELECT manifest_id, llm_model, count(*) AS solutions,
                   count(*) FILTER (WHERE n >= 2) AS contested,
                   {_figure_sum(_PERCENTILE)} AS percentile_sum,
                   {_figure_sum(_to_figure(_TOP_CREDIT.format(k=1), "t"))} AS top1,
                   {_figure_sum(_to_figure(_TOP_CREDIT.format(k=3), "t"))} AS top3
            FROM items GROUP BY ALL)"""


def model_counts_sql(snapshots: str) -> str:
    """``SELECT`` of the :data:`MODEL_COUNTS` rows of the snapshots ``snapshots`` names (a condition on
    ``snapshot_id`` over the link rows; written or not): per snapshot and model (null as ``'unknown'``) the
    solutions, those in lists of at least two (contested), the sum of their rank percentiles
    ``(n - rank - (t - 1) / 2) / (n - 1)`` and of their top-1 and top-3 credits. Each distinct solution list
    (manifest) is aggregated once and summed over the snapshots listing it."""
    problems = f"FROM {LINKS} WHERE resource = {PROBLEMS.code} AND manifest_id IS NOT NULL AND ({snapshots})"
    return f"""
        WITH {_per_list_sql(f"SELECT manifest_id {problems}")}
        SELECT l.snapshot_id, p.llm_model, sum(p.solutions)::BIGINT, sum(p.contested)::BIGINT,
               sum(p.percentile_sum)::{FIGURE}, sum(p.top1)::{FIGURE}, sum(p.top3)::{FIGURE}
        FROM (SELECT snapshot_id, manifest_id {problems}) l JOIN per_list p USING (manifest_id)
        GROUP BY ALL"""


def model_counts_since_sql(sid: int, before: int) -> str:
    """``SELECT`` of the :data:`MODEL_COUNTS` rows of snapshot ``sid`` (written or not) from those stored for
    snapshot ``before``: its rows, plus the lists (manifests) ``sid`` lists more often, less those it lists
    less often, each aggregated as in :func:`model_counts_sql` (the same figures, digit for digit: they are
    exact decimals, :data:`MODEL_COUNTS`; a model left without solutions has no row). Only the lists that
    differ are read: an incremental snapshot carries most of its lists over from the one before. Correct
    for any ``before`` whose rows are stored (its link rows and model counts are written and pruned
    together)."""

    def listed(snapshot: int) -> str:
        return (
            f"SELECT manifest_id, count(*) AS c FROM {LINKS} WHERE resource = {PROBLEMS.code} "
            f"AND manifest_id IS NOT NULL AND snapshot_id = {int(snapshot)} GROUP BY ALL"
        )

    return f"""
        WITH diff AS (
            SELECT manifest_id, coalesce(now.c, 0) - coalesce(was.c, 0) AS d
            FROM ({listed(sid)}) now FULL JOIN ({listed(before)}) was USING (manifest_id)
            WHERE coalesce(now.c, 0) <> coalesce(was.c, 0)),
        {_per_list_sql("SELECT manifest_id FROM diff")}
        SELECT {int(sid)}::BIGINT, llm_model, sum(solutions)::BIGINT, sum(contested)::BIGINT,
               sum(percentile_sum)::{FIGURE}, sum(top1)::{FIGURE}, sum(top3)::{FIGURE}
        FROM (SELECT llm_model, solutions, contested_solutions AS contested, percentile_sum, top1, top3
              FROM {MODEL_COUNTS} WHERE snapshot_id = {int(before)}
              UNION ALL
              SELECT llm_model, d * solutions, d * contested, d * percentile_sum, d * top1, d * top3
              FROM per_list JOIN diff USING (manifest_id))
        GROUP BY ALL HAVING sum(solutions) <> 0"""


def competition_ranks_sql(resource: StoredResource, links: str) -> str:
    """``SELECT snapshot_id, version_id, competition`` over the link rows of ``links`` (a table or subquery
    with ``snapshot_id``, ``version_id``) of ``resource`` (one with ``rank_over``): the standard competition
    rank over that column, descending, within the snapshot (ties share the best rank: the bots' points 900,
    850, 850, 850, 700 -> 1, 2, 2, 2, 5; the models' average scores 1557.1, 1500, 1500 -> 1, 2, 2). A
    snapshot with a record without the column's value keeps the positions of its walk (it has no rows here).
    Raises ``ValueError`` for a resource without ``rank_over``."""
    if resource.rank_over is None:
        raise ValueError(f"{resource.name} declares no column to rank over (rank_over)")
    over, versions = resource.rank_over, resource.version_table
    return f"""
        SELECT l.snapshot_id, l.version_id,
               rank() OVER (PARTITION BY l.snapshot_id ORDER BY v.{over} DESC)::INTEGER AS competition
        FROM {links} l JOIN {versions} v USING (version_id)
        WHERE l.snapshot_id NOT IN (SELECT l2.snapshot_id FROM {links} l2
                                    JOIN {versions} v2 USING (version_id)
                                    WHERE v2.{over} IS NULL)"""


def rerank_links_sql(resource: StoredResource) -> str:
    """``UPDATE`` of every stored link row of ``resource`` to its competition rank
    (:func:`competition_ranks_sql`); rows already right are left alone (idempotent)."""
    links = f"(SELECT snapshot_id, version_id FROM {LINKS} WHERE resource = {resource.code})"
    return f"""UPDATE {LINKS} AS l SET rank = r.competition FROM ({competition_ranks_sql(resource, links)}) r
        WHERE l.resource = {resource.code} AND l.snapshot_id = r.snapshot_id
          AND l.version_id = r.version_id AND l.rank IS DISTINCT FROM r.competition"""


#: Migration 5: the model counts of every stored snapshot, and competition ranks (over points) in place of
#: the list positions older stores hold as leaderboard ranks (bots tied on points listed as 2, 3, 4 are
#: 2, 2, 2: the rank the report and the ``solutions`` view use).
_UNCOUNTED = f"snapshot_id NOT IN (SELECT snapshot_id FROM {MODEL_COUNTS})"
WRITE_TIME_MIGRATION: tuple[str, ...] = (
    MODEL_COUNTS_DDL,
    f"INSERT INTO {MODEL_COUNTS} {model_counts_sql(_UNCOUNTED)}",
    rerank_links_sql(LEADERBOARD),
)
MIGRATIONS[5] = WRITE_TIME_MIGRATION
#: Migration 6: competition ranks over the average score in place of the list positions older stores hold
#: as the platform model board's ranks (models tied at the lazy board's stale 1500, listed 6 and 7 in one
#: call and 7 and 6 in the next, are 6 and 6: the rank the report's platform column uses).
MIGRATIONS[6] = (rerank_links_sql(_BY_NAME["llm_leaderboard"]),)
#: Migration 7: the model counts' figures as exact decimals (:data:`MODEL_COUNTS`): every stored snapshot's
#: recounted from its lists (the doubles before held the rounding of every running sum since).
EXACT_MODEL_COUNTS_MIGRATION: tuple[str, ...] = (
    f"DROP TABLE IF EXISTS {MODEL_COUNTS}",
    MODEL_COUNTS_DDL,
    f"INSERT INTO {MODEL_COUNTS} {model_counts_sql('TRUE')}",
)
MIGRATIONS[7] = EXACT_MODEL_COUNTS_MIGRATION


def _log_columns_ddl() -> list[str]:
    """``ADD COLUMN IF NOT EXISTS`` of every snapshot log column but the key (idempotent): a column added
    since a store was written arrives with the next write, as a declared view does."""
    return [
        f"ALTER TABLE {INTERNAL}.snapshot_log ADD COLUMN IF NOT EXISTS {name} {sql_type}"
        for name, sql_type in SNAPSHOT_LOG_COLUMNS.items()
        if "PRIMARY KEY" not in sql_type and "NOT NULL" not in sql_type
    ]


def _log_columns_missing(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether the snapshot log lacks one of :data:`SNAPSHOT_LOG_COLUMNS`."""
    present = con.execute(
        "SELECT count(*) FROM duckdb_columns() WHERE schema_name = ? AND table_name = 'snapshot_log'",
        [INTERNAL],
    ).fetchall()[0][0]
    return int(present) < len(SNAPSHOT_LOG_COLUMNS)


def _views_missing(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether a public view is missing: a resource declared since the store was written
    (:mod:`solvelens.resources`) gets its table and view from the idempotent DDL, no version bump."""
    present = con.execute(
        "SELECT count(*) FROM duckdb_views() WHERE schema_name = 'main' AND view_name IN "
        f"({', '.join('?' for _ in PUBLIC_VIEWS)})",
        list(PUBLIC_VIEWS),
    ).fetchall()[0][0]
    return int(present) < len(PUBLIC_VIEWS)


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
        if version == SCHEMA_VERSION and not _views_missing(con) and not _log_columns_missing(con):
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
        for statement in _log_columns_ddl():
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
