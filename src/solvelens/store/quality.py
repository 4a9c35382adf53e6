"""What a snapshot holds against what the platform announced: the ``data_quality`` and ``vote_coverage``
tables, written inside the snapshot's transaction, and their readers.

``data_quality`` (public view; one set of rows per snapshot): ``snapshot_id`` (BIGINT), ``resource``
(VARCHAR: a view name), ``scope`` (VARCHAR: a problem or solution id, a ``/stats`` metric, ``''`` for the
whole list), ``announced`` and ``stored`` (BIGINT, records), ``reason`` (VARCHAR, NULL when they agree).
Every snapshot gets one row per whole list (the resources :mod:`solvelens.resources` declares ``whole_list``
when stored, ``solutions``, and ``comparisons`` when fetched, and the ``/stats`` totals each declaration's
``stats_checks`` names, under the ``/stats`` resource) and one row per list
whose count the platform's rows disagree with (a problem's ``solutionCount``, a solution's
``comparisonCount``: capped at 50 votes, or counted wrong). A list the client could have read whole but
did not never gets here: the snapshot fails instead (:mod:`solvelens.flows.completeness`).

``vote_coverage`` (public view; one row per snapshot that fetched comparisons): votes announced (the listed
problems' ``comparisonCount``) and stored (distinct votes of those problems), the ``/comparisons`` requests
sent and the budget that bounded them (NULL: no bound), the vote lists left for the next snapshots and the
predicted number of snapshots until none is (NULL: never at this budget), the lists trusted by their counts
re-read this snapshot and the cycle in which every one is (:mod:`solvelens.flows.budget`).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

import duckdb
import orjson

from solvelens.resources import RESOURCES
from solvelens.store.bulk import insert_rows
from solvelens.store.connection import open_readonly
from solvelens.store.reports import CAPPED, COUNT_DISAGREES, StepReport, VoteFetch
from solvelens.store.schema import (
    COMPARISON_FETCHES,
    COMPARISON_RECORDS,
    DATA_QUALITY,
    HISTORY_COLUMNS,
    INTERNAL,
    LINKS,
    PROBLEMS,
    SOLUTIONS,
    VOTE_COVERAGE,
)
from solvelens.store.staging import StagingArea

if TYPE_CHECKING:  # the readers return polars frames; the writer (a snapshot run) never imports polars
    import polars as pl

__all__ = [
    "coverage_line",
    "data_quality",
    "gaps",
    "snapshot_quality",
    "vote_coverage",
    "write_quality",
]

#: Reasons (defined once with the rows' type, :mod:`solvelens.store.reports`; the fetch steps use them too).
_DISAGREES = COUNT_DISAGREES
_CAPPED = CAPPED
#: The real platform's cap on a solution's ``/comparisons`` list.
_CAP = 50


def _staged_json(area: StagingArea, table: str) -> list[dict[str, Any]]:
    staged = area.read_table(table)
    return [] if staged is None else [orjson.loads(r) for r in staged["raw"].to_pylist()]


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _whole(resource: str, scope: str, announced: int | None, stored: int) -> tuple[Any, ...]:
    differs = announced is not None and announced != stored
    return (resource, scope, announced, stored, _DISAGREES if differs else None)


def _vote_rows(con: duckdb.DuckDBPyConnection, sid: int, platform: str) -> list[tuple[Any, ...]]:
    """Per solution of snapshot ``sid`` whose list is not pending (its count is that of its last fetch):
    stored votes naming it against its ``comparisonCount``, where they differ."""
    return [
        tuple(r)
        for r in con.execute(
            f"""WITH sols AS (
                    SELECT v.solution_id, v.comparison_count FROM {LINKS} l
                    JOIN {INTERNAL}.solution_manifest_items i ON i.manifest_id = l.manifest_id
                    JOIN {SOLUTIONS.version_table} v ON v.version_id = i.version_id
                    WHERE l.snapshot_id = $sid AND l.resource = {PROBLEMS.code}),
                 st AS (SELECT solution_id, arg_max(comparison_count, snapshot_id) AS last_count
                        FROM {COMPARISON_FETCHES} WHERE platform = $platform GROUP BY ALL),
                 mine AS (SELECT * FROM {COMPARISON_RECORDS} WHERE platform = $platform),
                 sides AS (SELECT solution_a_id AS solution_id, comparison_id FROM mine
                           UNION ALL SELECT solution_b_id, comparison_id FROM mine),
                 n AS (SELECT solution_id, count(DISTINCT comparison_id) AS stored FROM sides GROUP BY ALL)
            SELECT 'comparisons', s.solution_id, s.comparison_count, coalesce(n.stored, 0),
                   CASE WHEN coalesce(n.stored, 0) < s.comparison_count AND s.comparison_count > {_CAP}
                        THEN $capped ELSE $disagrees END
            FROM sols s LEFT JOIN st USING (solution_id) LEFT JOIN n USING (solution_id)
            WHERE s.comparison_count IS NOT NULL AND coalesce(n.stored, 0) <> s.comparison_count
              AND (st.last_count = s.comparison_count OR (st.last_count IS NULL AND s.comparison_count = 0))
            ORDER BY s.solution_id""",
            {"sid": sid, "platform": platform, "capped": _CAPPED, "disagrees": _DISAGREES},
        ).fetchall()
    ]


def _votes_stored(con: duckdb.DuckDBPyConnection, platform: str, problem_ids: list[str]) -> int:
    con.execute("CREATE OR REPLACE TEMP TABLE quality_problems (problem_id VARCHAR)")
    insert_rows(con, "quality_problems", ("VARCHAR",), [(p,) for p in problem_ids])
    stored = con.execute(
        f"""SELECT count(DISTINCT comparison_id) FROM {COMPARISON_RECORDS}
            WHERE platform = ? AND problem_id IN (SELECT problem_id FROM quality_problems)""",
        [platform],
    ).fetchall()[0][0]
    con.execute("DROP TABLE IF EXISTS temp.quality_problems")
    return int(stored)


def _comparisons_reason(votes: VoteFetch, capped: int) -> str:
    """Why the votes stored differ from those announced: vote lists left for the next snapshots, solutions
    over the platform's cap (else :data:`_DISAGREES`: e.g. more votes stored than counted), and, when the
    audit re-reads the lists trusted by their counts in turn (``audit_cycle`` > 1), that a vote counted on
    neither side may not be stored yet."""
    parts = []
    pending = votes.pending
    if pending:
        to_go = votes.snapshots_to_go
        when = f"~{to_go} more snapshots at this budget" if to_go is not None else "not at this budget"
        parts.append(f"{pending} vote lists left for the next snapshots ({when})")
    if capped:
        many = "solutions have" if capped > 1 else "solution has"
        parts.append(f"{capped} {many} more votes than the platform's cap of {_CAP} serves")
    if not parts:
        parts.append(_DISAGREES)
    if votes.audit_cycle is not None and votes.audit_cycle > 1:
        parts.append(
            f"{votes.audited} lists trusted by their counts re-read this snapshot (each within "
            f"{votes.audit_cycle} snapshots): a vote counted on neither side may not be stored yet"
        )
    return "; ".join(parts)


#: The declared ``/stats`` resource: its totals are checked against the lists' counts (``stats_checks``).
_STATS = next(r for r in RESOURCES if r.write == "stats")


def _list_rows(
    reports: dict[str, StepReport],
    problems: list[dict[str, Any]],
    stats: dict[str, Any],
    counts: dict[str, int],
    resources: dict[str, str],
) -> list[tuple[Any, ...]]:
    """The fetch steps' own rows, one row per whole list (the declared ``whole_list`` resources stored this
    snapshot, and the solutions against their problems' ``solutionCount``) and the ``/stats`` totals but
    votes."""
    rows: list[tuple[Any, ...]] = []
    for report in reports.values():
        rows.extend(q.as_tuple() for q in report.data_quality)
    solutions = sum(_int(p.get("solutionCount")) or 0 for p in problems)
    rows.append(_whole(SOLUTIONS.name, "", solutions, counts.get(SOLUTIONS.name, 0)))
    for r in RESOURCES:
        if r.whole_list and r.name in counts and (not r.optional or resources.get(r.name) == "stored"):
            listed = reports.get(r.name)
            announced = None if listed is None else listed.announced
            rows.append(_whole(r.name, "", announced, counts[r.name]))
    for r in RESOURCES:
        for metric in r.stats_checks if r.write != "history" and r.name in counts else ():
            if _int(stats.get(metric)) is not None:
                rows.append(_whole(_STATS.name, metric, stats[metric], counts[r.name]))
    return rows


def _vote_section(
    con: duckdb.DuckDBPyConnection,
    sid: int,
    platform: str,
    problems: list[dict[str, Any]],
    stats: dict[str, Any],
    votes: VoteFetch,
) -> list[tuple[Any, ...]]:
    """The votes' rows (the whole, each solution whose count its stored votes disagree with, the ``/stats``
    total) and the snapshot's ``vote_coverage`` row."""
    announced = sum(_int(p.get("comparisonCount")) or 0 for p in problems)
    stored = _votes_stored(con, platform, [str(p.get("id")) for p in problems])
    per_solution = _vote_rows(con, sid, platform)
    capped = sum(1 for r in per_solution if r[4] == _CAPPED)
    reason = None if announced == stored else _comparisons_reason(votes, capped)
    rows = [("comparisons", "", announced, stored, reason), *per_solution]
    total = _int(stats.get("totalComparisons"))
    if total is not None:  # when the platform's two counts agree, the gap is the comparisons row's
        why = reason if total == announced else _DISAGREES
        rows.append((_STATS.name, "totalComparisons", total, stored, None if total == stored else why))
    _write_coverage(con, sid, announced, stored, votes)
    return rows


def write_quality(
    con: duckdb.DuckDBPyConnection,
    area: StagingArea,
    reports: dict[str, StepReport],
    sid: int,
    counts: dict[str, int],
    platform: str,
    resources: dict[str, str],
) -> None:
    """Inside snapshot ``sid``'s open transaction (after its lists and votes are written): the snapshot's
    ``data_quality`` rows (the fetch steps' own, from their ``reports``' ``data_quality``, and the
    whole-list and per-solution checks of the module docstring) and, when comparisons were fetched, its
    ``vote_coverage`` row. ``counts``: rows per view of the snapshot; ``platform``: the history rows'
    platform key; ``resources``: what became of each optional resource."""
    problems = _staged_json(area, PROBLEMS.name)
    stats = next(iter(_staged_json(area, _STATS.name)), {})
    rows = _list_rows(reports, problems, stats, counts, resources)
    if resources.get("comparisons") in ("stored", "unchanged"):
        fetched = reports.get("comparisons")
        votes = fetched.votes if fetched is not None and fetched.votes is not None else VoteFetch()
        rows += _vote_section(con, sid, platform, problems, stats, votes)
    insert_rows(con, DATA_QUALITY, tuple(HISTORY_COLUMNS[DATA_QUALITY].values()), [(sid, *r) for r in rows])


def _write_coverage(
    con: duckdb.DuckDBPyConnection, sid: int, announced: int, stored: int, votes: VoteFetch
) -> None:
    con.execute(
        f"INSERT INTO {VOTE_COVERAGE} VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            sid,
            announced,
            stored,
            votes.requested,
            votes.budget,
            votes.pending,
            votes.snapshots_to_go,
            votes.audited,
            votes.audit_cycle,
        ],
    )


def snapshot_quality(
    con: duckdb.DuckDBPyConnection, sid: int
) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """Snapshot ``sid``'s ``data_quality`` rows (dicts, in :func:`data_quality`'s order) and its
    ``vote_coverage`` row (``None`` when it fetched no comparisons), read on the writer's connection
    ``con`` right after its commit (no second open of the store)."""

    def rows(table: str) -> list[dict[str, Any]]:
        cur = con.execute(f"SELECT * FROM {table} WHERE snapshot_id = ? ORDER BY ALL", [sid])
        names = [d[0] for d in cur.description]
        return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]

    coverage = rows(VOTE_COVERAGE)
    return rows(DATA_QUALITY), coverage[0] if coverage else None


def _rows(db_path: str | os.PathLike[str], view: str, snapshot_id: int | None) -> list[dict[str, Any]]:
    """``view``'s rows of snapshot ``snapshot_id`` (default: the newest) as dicts, ordered by every column;
    ``[]`` when the store has no such view (written before it existed). DuckDB alone, no polars."""
    with open_readonly(db_path) as con:
        has = con.execute(
            "SELECT count(*) FROM duckdb_views() WHERE schema_name = 'main' AND view_name = ?", [view]
        ).fetchall()[0][0]
        if not has:
            return []
        sid = snapshot_id
        if sid is None:
            sid = con.execute("SELECT max(snapshot_id) FROM main.snapshots").fetchall()[0][0]
        cur = con.execute(f"SELECT * FROM main.{view} WHERE snapshot_id = ? ORDER BY ALL", [sid])
        names = [d[0] for d in cur.description]
        return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]


def _read(db_path: str | os.PathLike[str], view: str, snapshot_id: int | None) -> pl.DataFrame:
    with open_readonly(db_path) as con:
        has = con.execute(
            "SELECT count(*) FROM duckdb_views() WHERE schema_name = 'main' AND view_name = ?", [view]
        ).fetchall()[0][0]
        if not has:
            import polars as pl

            return pl.DataFrame()
        sid = snapshot_id
        if sid is None:
            sid = con.execute("SELECT max(snapshot_id) FROM main.snapshots").fetchall()[0][0]
        frame = con.sql(f"SELECT * FROM main.{view} WHERE snapshot_id = ? ORDER BY ALL", params=[sid]).pl()
    return frame


def data_quality(db_path: str | os.PathLike[str], snapshot_id: int | None = None) -> pl.DataFrame:
    """The ``data_quality`` rows of snapshot ``snapshot_id`` (default: the newest complete snapshot) of the
    store at ``db_path``: columns ``snapshot_id`` (Int64), ``resource``, ``scope`` (String), ``announced``,
    ``stored`` (Int64), ``reason`` (String, null when they agree). Empty (no columns) for a store written
    before schema version 4. Raises :class:`solvelens.store.StoreError` when the store cannot be read."""
    return _read(db_path, "data_quality", snapshot_id)


def gaps(frame: pl.DataFrame) -> pl.DataFrame:
    """The rows of a :func:`data_quality` frame whose counts differ (``reason`` not null)."""
    import polars as pl

    return frame if frame.is_empty() else frame.filter(pl.col("reason").is_not_null())


def vote_coverage(db_path: str | os.PathLike[str], snapshot_id: int | None = None) -> dict[str, Any] | None:
    """The ``vote_coverage`` row of snapshot ``snapshot_id`` (default: the newest complete snapshot) as a
    dict (keys: the view's columns; ``budget``, ``snapshots_to_go`` and ``audit_cycle`` may be ``None``), or
    ``None`` when that snapshot fetched no comparisons. Raises :class:`solvelens.store.StoreError` when the
    store cannot be read."""
    rows = _rows(db_path, "vote_coverage", snapshot_id)
    return rows[0] if rows else None


def coverage_line(coverage: dict[str, Any] | None) -> str:
    """One sentence on vote coverage that never says more than was verified, e.g. ``votes: 2,540 stored of
    the 4,042 the platform's counts announce (63%); 120 lists pending, ~4 more snapshots at this budget; 85
    lists trusted by their counts re-read (each within 5 snapshots)``. More votes stored than counted (a
    vote recorded without its counts, found by reading a list) is said as such, never as a share capped at
    100 %. Stored: every vote the store holds for the listed problems, whenever it was read (the platform's
    cap of 50 may hide it now: docs/evidence-budget.md). ``''`` when there is no coverage row."""
    if coverage is None:
        return ""
    announced, stored = coverage["announced"] or 0, coverage["stored"] or 0
    counts = f"the {announced:,} the platform's counts announce"
    if stored > announced:
        line = (
            f"votes: {stored:,} stored, {stored - announced:,} more than {counts} (votes recorded without "
            "their counts, found by reading the lists)"
        )
    else:
        share = 100.0 if not announced else 100.0 * stored / announced
        line = f"votes: {stored:,} stored of {counts} ({share:.0f}%)"
    pending, to_go = coverage["lists_pending"] or 0, coverage["snapshots_to_go"]
    if pending:
        line += f"; {pending:,} lists pending, " + (
            f"~{to_go} more snapshots at this budget" if to_go is not None else "none fetched at this budget"
        )
    if coverage.get("audit_cycle"):
        line += (
            f"; {coverage['audited']:,} lists trusted by their counts re-read (each within "
            f"{coverage['audit_cycle']} snapshots)"
        )
    return line
