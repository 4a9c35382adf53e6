"""Read-only access to the store: open, read into polars, close at once.

DuckDB lets no process open a file another process holds read-write, so readers (notebooks, reports, the CLI)
take the store's shared lock (waiting a bounded time while a writer commits), open the file with
``read_only=True``, read what they need into polars and close. Never keep a connection open across cells.
"""

from __future__ import annotations

import os
from collections.abc import Collection
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa

if TYPE_CHECKING:
    import duckdb
    import polars as pl

from solvelens.store.connection import DEFAULT_READ_TIMEOUT_S, check_not_foreign, open_readonly
from solvelens.store.faults import read_every_block
from solvelens.store.schema import (
    ACTIVITY_EVENTS,
    BOTS,
    COMPARISON_FETCHES,
    COMPARISON_RECORDS,
    INTERNAL,
    LEADERBOARD,
    LINKS,
    PLATFORM_KEY_SQL,
    PROBLEMS,
    PUBLIC_VIEWS,
    SOLUTIONS,
)


def read_frame(
    db_path: str | os.PathLike[str],
    sql: str,
    params: list[Any] | dict[str, Any] | None = None,
    *,
    lock_timeout_s: float = DEFAULT_READ_TIMEOUT_S,
) -> pl.DataFrame:
    """Run one query on the store read-only and return its result as a polars DataFrame.

    Example: ``read_frame(db, "SELECT * FROM leaderboard WHERE snapshot_id = ?", [3])``. Columns and
    dtypes are those of the query (see the public views in ``docs/architecture.md``; TIMESTAMPTZ arrive as
    ``Datetime(time_zone="UTC")``, JSON as strings).
    """
    import polars  # noqa: F401  (imported here: a snapshot run never needs polars)

    with open_readonly(db_path, lock_timeout_s=lock_timeout_s) as con:
        return con.sql(sql, params=params).pl()


def list_snapshots(db_path: str | os.PathLike[str], *, include_incomplete: bool = False) -> pl.DataFrame:
    """The snapshot log, newest last: the ``snapshots`` view's columns, plus ``changes`` (JSON).

    With ``include_incomplete`` the rows of snapshots that never completed (normally none: a failed write
    rolls back) are included as well.
    """
    where = "" if include_incomplete else "WHERE status = 'complete'"
    return read_frame(
        db_path,
        f"""SELECT snapshot_id, taken_at, base_url, status, started_at, finished_at, duration_s,
                   counts, warnings, drift, changes
            FROM {INTERNAL}.snapshot_log {where} ORDER BY snapshot_id""",
    )


def _has_log(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether the file has the internal snapshot log (a store with its schema written)."""
    return bool(
        con.execute(
            "SELECT count(*) FROM duckdb_tables() WHERE schema_name = ? AND table_name = 'snapshot_log'",
            [INTERNAL],
        ).fetchall()[0][0]
    )


@dataclass(frozen=True)
class PriorState:
    """What a snapshot of one base URL needs from the store before it runs, read in one read-only open
    (:func:`prior_state`): ``newest_taken_at`` (UTC; the newest complete snapshot of the base URL, with
    ``platform_time`` only those taken at their platform's time; ``None``: none) and ``tables`` (Arrow
    tables by name: :func:`previous_state`'s)."""

    newest_taken_at: datetime | None
    tables: dict[str, pa.Table]


def prior_state(
    db_path: str | os.PathLike[str],
    base_url: str,
    *,
    optional: Collection[str] = (),
    lists: bool = True,
    platform_time: bool = False,
) -> PriorState:
    """The newest snapshot time of ``base_url`` (as :func:`latest_taken_at`) and what an incremental
    snapshot needs from its newest complete snapshot (as :func:`previous_state`; without ``lists`` only the
    tables of ``optional`` and ``previous_snapshot``), in one read-only open of the store. Nothing is read
    when there is no store file. Raises :class:`solvelens.store.StoreError` when the file is not a DuckDB
    file, holds another application's tables, or is busy."""
    empty = _empty_state() if lists else {}
    if not Path(db_path).exists():
        return PriorState(None, empty)
    where = f"FROM {INTERNAL}.snapshot_log WHERE status = 'complete' AND base_url = $url"
    at_platform = "json_extract_string(platform, '$.taken_at') = 'platform'" if platform_time else "true"
    with open_readonly(db_path, require_store=False) as con:
        check_not_foreign(con, db_path)
        if not _has_log(con):
            return PriorState(None, empty)
        sid, newest = con.execute(
            f"SELECT max(snapshot_id), max(taken_at) FILTER (WHERE {at_platform}) {where}", {"url": base_url}
        ).fetchall()[0]
        if sid is None:
            return PriorState(None, empty)
        history = previous_history(con, sid, optional)
        known = _previous_lists(con, sid) if lists else {}
    tables = {**known, "previous_snapshot": pa.table({"snapshot_id": pa.array([sid], pa.int64())}), **history}
    return PriorState(None if newest is None else newest.astimezone(UTC), tables)


def previous_state(
    db_path: str | os.PathLike[str], base_url: str, *, optional: Collection[str] = ()
) -> dict[str, pa.Table]:
    """What an incremental snapshot of ``base_url`` needs from the newest complete snapshot of that base
    URL, read in one read-only open of the store (:func:`prior_state`'s ``tables``).

    Returns Arrow tables (empty when there is no store file, no schema or no such snapshot):

    - ``previous_problems``: ``problem_id`` (string), ``solution_count``, ``comparison_count`` (int64) and
      ``manifest_id`` (uint64, the stored ranked solution list) per listed problem whose counts are known;
    - ``previous_bots``: ``bot_id`` (string), ``listing_version_id`` (uint64, the version key of its
      ``/leaderboard`` entry) and ``profile_version_id`` (uint64, its stored ``/bots/{id}`` profile);
    - ``previous_solution_bots``: ``problem_id``, ``bot_id``, ``bot_name`` (strings): the bots named on
      each problem's stored solution list, as named there (a carried list is checked against the names
      the platform serves now, :mod:`solvelens.flows.carryover`);
    - ``previous_snapshot``: one row, ``snapshot_id`` (int64) of that snapshot (absent when there is none);
    - with ``"activity"`` in ``optional``: ``previous_activity`` (0 or 1 row: ``event_id``, ``created_at``
      ISO string), the newest event stored for the snapshot's platform (see :func:`previous_history`);
    - with ``"comparisons"`` in ``optional``: ``comparison_state`` and ``pending_comparisons`` (see
      :func:`previous_history`).

    Raises :class:`solvelens.store.StoreError` as :func:`prior_state`.
    """
    return prior_state(db_path, base_url, optional=optional).tables


def _empty_state() -> dict[str, pa.Table]:
    """:func:`previous_state`'s answer when there is no previous snapshot: its two keyed tables, empty."""
    return {
        "previous_problems": pa.table(
            {
                "problem_id": pa.array([], pa.string()),
                "solution_count": pa.array([], pa.int64()),
                "comparison_count": pa.array([], pa.int64()),
                "manifest_id": pa.array([], pa.uint64()),
            }
        ),
        "previous_bots": pa.table(
            {
                "bot_id": pa.array([], pa.string()),
                "listing_version_id": pa.array([], pa.uint64()),
                "profile_version_id": pa.array([], pa.uint64()),
            }
        ),
    }


def _previous_lists(con: duckdb.DuckDBPyConnection, sid: int) -> dict[str, pa.Table]:
    """``previous_problems``, ``previous_bots`` and ``previous_solution_bots`` of snapshot ``sid`` (columns in
    :func:`previous_state`)."""
    problems = con.sql(
        f"""SELECT v.problem_id::VARCHAR AS problem_id, v.solution_count::BIGINT AS solution_count,
                   v.comparison_count::BIGINT AS comparison_count, l.manifest_id::UBIGINT AS manifest_id
            FROM {LINKS} l JOIN {PROBLEMS.version_table} v ON v.version_id = l.version_id
            WHERE l.snapshot_id = $sid AND l.resource = {PROBLEMS.code}
              AND v.solution_count IS NOT NULL AND v.comparison_count IS NOT NULL
              AND l.manifest_id IS NOT NULL""",
        params={"sid": sid},
    ).to_arrow_table()
    bots = con.sql(
        f"""SELECT lv.bot_id::VARCHAR AS bot_id, l.version_id::UBIGINT AS listing_version_id,
                   any_value(b.version_id)::UBIGINT AS profile_version_id
            FROM {LINKS} l JOIN {LEADERBOARD.version_table} lv ON lv.version_id = l.version_id
            JOIN {LINKS} bl ON bl.snapshot_id = l.snapshot_id AND bl.resource = {BOTS.code}
            JOIN {BOTS.version_table} b ON b.version_id = bl.version_id AND b.bot_id = lv.bot_id
            WHERE l.snapshot_id = $sid AND l.resource = {LEADERBOARD.code} AND lv.bot_id IS NOT NULL
            GROUP BY ALL""",
        params={"sid": sid},
    ).to_arrow_table()
    named = con.sql(
        f"""SELECT DISTINCT v.problem_id::VARCHAR AS problem_id, s.bot_id::VARCHAR AS bot_id,
                   s.bot_name::VARCHAR AS bot_name
            FROM {LINKS} l JOIN {PROBLEMS.version_table} v ON v.version_id = l.version_id
            JOIN {INTERNAL}.solution_manifest_items i ON i.manifest_id = l.manifest_id
            JOIN {SOLUTIONS.version_table} s ON s.version_id = i.version_id
            WHERE l.snapshot_id = $sid AND l.resource = {PROBLEMS.code} AND s.bot_id IS NOT NULL""",
        params={"sid": sid},
    ).to_arrow_table()
    return {"previous_problems": problems, "previous_bots": bots, "previous_solution_bots": named}


def _has_history(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether the store has the history tables (schema version 3; an older store gets them at its next
    write)."""
    name = ACTIVITY_EVENTS.split(".")[-1]
    return bool(
        con.execute(
            "SELECT count(*) FROM duckdb_tables() WHERE schema_name = ? AND table_name = ?", [INTERNAL, name]
        ).fetchall()[0][0]
    )


def previous_history(
    con: duckdb.DuckDBPyConnection, sid: int, optional: Collection[str]
) -> dict[str, pa.Table]:
    """What the optional resources' fetch steps need, for the platform of snapshot ``sid`` (its declared id,
    else its base URL: :data:`~solvelens.store.schema.PLATFORM_KEY_SQL`); only the tables of the resources
    named in ``optional``, none from a store without history tables:

    - ``previous_activity`` (``"activity"``): the newest stored event (by ``created_at``, then numeric id):
      ``event_id``, ``created_at`` (ISO string); 0 or 1 row.
    - ``comparison_state`` (``"comparisons"``): per solution whose comparisons were ever fetched, its
      ``comparison_count`` then (int64) -- the last fetch.
    - ``pending_comparisons`` (``"comparisons"``): solutions of snapshot ``sid`` (``solution_id``,
      ``problem_id``, ``comparison_count``) with votes whose count differs from that of their last fetch (or
      never fetched; ``last_count`` then, null when never): what a problem whose solution list carries
      over still needs.
    - ``stored_comparisons`` (``"comparisons"``): the ids of the platform's stored comparisons.
    - ``audit_comparisons`` (``"comparisons"``): the solutions of snapshot ``sid`` whose list is trusted by
      its count (the count equals that of the last fetch, or is 0 and was never fetched: a vote written
      without its counts can sit there: ``solution_id``, ``problem_id``,
      ``comparison_count``), the longest unread first (never read, only covered by other lists, first): the
      share of them re-read each snapshot finds what counts miss (:mod:`solvelens.flows.budget`).
    - ``stored_votes`` (``"comparisons"``): per solution named by a stored vote, ``solution_id`` and
      ``stored`` (int64, distinct stored votes naming it): a solution whose count they reach needs no request.
    """
    out: dict[str, pa.Table] = {}
    if not optional or not _has_history(con):
        return out
    params = {"sid": sid}
    key = f"(SELECT {PLATFORM_KEY_SQL} FROM {INTERNAL}.snapshot_log WHERE snapshot_id = $sid)"
    if "activity" in optional:
        out["previous_activity"] = con.sql(
            f"""SELECT event_id,
                       strftime(created_at AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%S.%fZ') AS created_at
                FROM {ACTIVITY_EVENTS} WHERE platform = {key}
                ORDER BY created_at DESC NULLS LAST, TRY_CAST(event_id AS BIGINT) DESC NULLS LAST,
                         event_id DESC
                LIMIT 1""",
            params=params,
        ).to_arrow_table()
    if "comparisons" in optional:
        state = f"""SELECT solution_id, arg_max(comparison_count, snapshot_id)::BIGINT AS comparison_count
                    FROM {COMPARISON_FETCHES} WHERE platform = {key} GROUP BY solution_id"""
        out["comparison_state"] = con.sql(state, params=params).to_arrow_table()
        out["pending_comparisons"] = con.sql(
            f"""WITH st AS ({state})
                SELECT v.solution_id, v.problem_id, v.comparison_count::BIGINT AS comparison_count,
                       st.comparison_count AS last_count
                FROM {LINKS} l JOIN {INTERNAL}.solution_manifest_items i ON i.manifest_id = l.manifest_id
                JOIN {SOLUTIONS.version_table} v ON v.version_id = i.version_id
                LEFT JOIN st ON st.solution_id = v.solution_id
                WHERE l.snapshot_id = $sid AND l.resource = {PROBLEMS.code} AND v.comparison_count > 0
                  AND v.comparison_count IS DISTINCT FROM st.comparison_count""",
            params=params,
        ).to_arrow_table()
        out["audit_comparisons"] = con.sql(
            f"""WITH st AS ({state}),
                     seen AS (SELECT solution_id, max(snapshot_id) AS last_read FROM {COMPARISON_FETCHES}
                              WHERE platform = {key} AND returned IS NOT NULL GROUP BY solution_id)
                SELECT v.solution_id, v.problem_id, v.comparison_count::BIGINT AS comparison_count
                FROM {LINKS} l JOIN {INTERNAL}.solution_manifest_items i ON i.manifest_id = l.manifest_id
                JOIN {SOLUTIONS.version_table} v ON v.version_id = i.version_id
                LEFT JOIN st ON st.solution_id = v.solution_id
                LEFT JOIN seen ON seen.solution_id = v.solution_id
                WHERE l.snapshot_id = $sid AND l.resource = {PROBLEMS.code} AND v.comparison_count >= 0
                  AND v.comparison_count = coalesce(st.comparison_count, 0)
                ORDER BY seen.last_read NULLS FIRST, v.solution_id""",
            params=params,
        ).to_arrow_table()
        out["stored_votes"] = con.sql(
            f"""WITH mine AS (SELECT * FROM {COMPARISON_RECORDS} WHERE platform = {key})
                SELECT solution_id, count(DISTINCT comparison_id)::BIGINT AS stored
                FROM (SELECT solution_a_id AS solution_id, comparison_id FROM mine
                      UNION ALL SELECT solution_b_id, comparison_id FROM mine)
                WHERE solution_id IS NOT NULL GROUP BY ALL""",
            params=params,
        ).to_arrow_table()
        out["stored_comparisons"] = con.sql(
            f"SELECT comparison_id FROM {COMPARISON_RECORDS} WHERE platform = {key}", params=params
        ).to_arrow_table()
    return out


def latest_taken_at(
    db_path: str | os.PathLike[str], base_url: str, *, platform_time: bool = False
) -> datetime | None:
    """The newest ``taken_at`` (UTC) among the complete snapshots of ``base_url`` (with ``platform_time``:
    only those taken at their platform's simulated time, whose declaration has ``"taken_at": "platform"``);
    ``None`` when there is no store file, no schema yet or no such snapshot. Raises
    :class:`solvelens.store.StoreError` when the file is not a DuckDB file, holds another application's
    tables, or is busy."""
    if not Path(db_path).exists():
        return None
    with open_readonly(db_path, require_store=False) as con:
        check_not_foreign(con, db_path)
        if not _has_log(con):
            return None
        value = con.execute(
            f"SELECT max(taken_at) FROM {INTERNAL}.snapshot_log WHERE status = 'complete' AND base_url = ?"
            + (" AND json_extract_string(platform, '$.taken_at') = 'platform'" if platform_time else ""),
            [base_url],
        ).fetchall()[0][0]
    return value.astimezone(UTC) if value is not None else None


def committed_since(
    db_path: str | os.PathLike[str], base_url: str, since: datetime, *, lock_timeout_s: float = 5.0
) -> int | None:
    """The id of the newest complete snapshot of ``base_url`` whose run started at or after ``since``
    (UTC, wall clock: ``snapshots.started_at``), i.e. one a run begun then has committed; ``None`` when
    there is none (or no store). Raises :class:`solvelens.store.StoreError` as :func:`latest_taken_at`
    (a writer holding the store longer than ``lock_timeout_s`` seconds)."""
    if not Path(db_path).exists():
        return None
    with open_readonly(db_path, lock_timeout_s=lock_timeout_s, require_store=False) as con:
        if not _has_log(con):
            return None
        value = con.execute(
            f"SELECT max(snapshot_id) FROM {INTERNAL}.snapshot_log "
            "WHERE status = 'complete' AND base_url = ? AND started_at >= ?::TIMESTAMPTZ",
            [base_url, since.astimezone(UTC).isoformat()],
        ).fetchall()[0][0]
    return None if value is None else int(value)


def latest_solution_state(db_path: str | os.PathLike[str], base_url: str) -> dict[str, tuple[int, int, int]]:
    """Per problem of the newest complete snapshot of ``base_url``: (solutionCount, comparisonCount,
    solution manifest id), from :func:`previous_state`. ``{}`` when there is none."""
    table = previous_state(db_path, base_url)["previous_problems"].to_pylist()
    return {r["problem_id"]: (r["solution_count"], r["comparison_count"], r["manifest_id"]) for r in table}


def store_info(db_path: str | os.PathLike[str]) -> dict[str, Any]:
    """Summary of the store: ``{"path", "file_bytes", "snapshots", "first_taken_at", "last_taken_at",
    "rows": {view: n}, "versions": {resource: n}, "free_bytes"}`` (times as ISO strings, counts over complete
    snapshots; ``free_bytes``: free blocks inside the file, what ``solvelens db compact`` can give back)."""
    with open_readonly(db_path) as con:
        snaps = con.execute("SELECT count(*), min(taken_at), max(taken_at) FROM snapshots").fetchall()[0]
        present = {r[0] for r in con.execute("SELECT table_name FROM information_schema.tables").fetchall()}
        rows = {
            v: int(con.execute(f"SELECT count(*) FROM {v}").fetchall()[0][0])
            for v in PUBLIC_VIEWS
            if v in present  # a store of an older schema, not yet migrated by a write, lacks the newer views
        }
        versions = {
            name.removesuffix("_versions"): int(
                con.execute(f"SELECT count(*) FROM {INTERNAL}.{name}").fetchall()[0][0]
            )
            for (name,) in con.execute(
                "SELECT table_name FROM duckdb_tables() "
                "WHERE schema_name = ? AND table_name LIKE '%_versions' ORDER BY table_name",
                [INTERNAL],
            ).fetchall()
        }
        free = con.execute("SELECT block_size * free_blocks FROM pragma_database_size()").fetchall()[0][0]
    return {
        "path": os.fspath(db_path),
        "file_bytes": Path(db_path).stat().st_size,
        "snapshots": int(snaps[0]),
        "first_taken_at": snaps[1].isoformat() if snaps[1] else None,
        "last_taken_at": snaps[2].isoformat() if snaps[2] else None,
        "rows": rows,
        "versions": versions,
        "free_bytes": int(free or 0),
    }


def verify_blocks(db_path: str | os.PathLike[str]) -> int:
    """Read every column of every table of the store read-only, so DuckDB verifies the checksum of every block
    in use; return the number of tables read. Raises :class:`solvelens.store.errors.StoreDamagedError`
    (exit 1) naming the first damaged block, and the errors of :func:`open_readonly`."""
    with open_readonly(db_path) as con:
        return read_every_block(con, db_path)
