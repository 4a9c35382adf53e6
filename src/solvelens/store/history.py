"""The history of the optional resources, written inside a snapshot's transaction.

Unlike the versioned resources (one link row per record per snapshot), what the platform's feeds forget is
kept once per item, by platform (:func:`~solvelens.store.schema.platform_key`) and id, with the snapshot that
first saw it (tables in :data:`~solvelens.store.schema.HISTORY_COLUMNS`):

- ``activity_events``: each ``/activity`` event once (``event_id`` = its ``id`` as text; ``metadata`` parsed
  from the JSON string the real platform sends; ``created_at`` parsed from ``createdAt``).
- ``activity_gaps``: the gap the fetch step found (:mod:`solvelens.flows.activity_gap`), one row per snapshot.
- ``comparison_records``: each pairwise vote once (``comparison_id`` = its ``id``), with the problem of the
  solution whose ``/comparisons`` listed it.
- ``comparison_fetches``: per snapshot, each solution whose comparisons were fetched: its listed
  ``comparisonCount``, how many the endpoint returned, and how many distinct comparisons of it are stored
  afterwards (the ``comparison_coverage`` view shows those with fewer stored than counted).

The snapshot row's ``resources`` JSON records what became of each optional resource (the fetch steps'
``resources``: ``stored``, ``not offered``, ``not requested``, ``unchanged``), its ``requests`` JSON each
optional list's request as sent (``{<resource>: {"path", "params"}}``; ``{}`` when none was sent).
"""

from __future__ import annotations

import json
from typing import Any

import duckdb

from solvelens.store.quality import write_quality
from solvelens.store.reports import StepReport
from solvelens.store.schema import (
    ACTIVITY_EVENTS,
    ACTIVITY_GAPS,
    COMPARISON_FETCHES,
    COMPARISON_RECORDS,
    INTERNAL,
    platform_key,
)
from solvelens.store.staging import StagingArea

__all__ = ["write_history"]

#: An event's metadata as JSON: the real platform sends a JSON *string* (parsed here; a string that is not
#: JSON is kept as a JSON string); an object or any other value is kept as it is.
_METADATA = (
    "CASE WHEN json_type(raw, '$.metadata') = 'VARCHAR' "
    "THEN coalesce(TRY_CAST(raw->>'$.metadata' AS JSON), raw->'$.metadata') "
    "ELSE raw->'$.metadata' END"
)


def _parquet(area: StagingArea, table: str) -> str | None:
    path = area.table_path(table)
    return "read_parquet('" + str(path).replace("'", "''") + "')" if path.exists() else None


def _insert_new(con: duckdb.DuckDBPyConnection, sql: str, params: dict[str, Any]) -> int:
    rows = con.execute(sql, params).fetchall()
    return int(rows[0][0]) if rows else 0


def _write_activity(
    con: duckdb.DuckDBPyConnection, area: StagingArea, params: dict[str, Any]
) -> tuple[int, int]:
    """Store the staged events not stored yet; returns (events fetched, events new)."""
    source = _parquet(area, "activity")
    if source is None:
        return 0, 0
    con.execute(
        "CREATE OR REPLACE TEMP TABLE stage_activity AS "
        f"SELECT raw::JSON AS raw, (raw::JSON)->>'$.id' AS event_id FROM {source}"
    )
    fetched = int(con.execute("SELECT count(*) FROM stage_activity").fetchall()[0][0])
    new = _insert_new(
        con,
        f"""INSERT INTO {ACTIVITY_EVENTS}
            SELECT $platform, event_id, raw->>'$.action', raw->>'$.botId', raw->>'$.botName',
                   raw->>'$.problemId', raw->>'$.problemTitle', {_METADATA},
                   TRY_CAST(raw->>'$.createdAt' AS TIMESTAMPTZ), raw, $sid
            FROM (SELECT DISTINCT ON (event_id) * FROM stage_activity WHERE event_id IS NOT NULL) s
            WHERE NOT EXISTS (SELECT 1 FROM {ACTIVITY_EVENTS} e
                              WHERE e.platform = $platform AND e.event_id = s.event_id)""",
        params,
    )
    gap = _parquet(area, "activity_gap")
    if gap is not None:
        con.execute(
            f"""INSERT INTO {ACTIVITY_GAPS}
                SELECT $sid, newest_stored_event_id, oldest_fetched_event_id,
                       TRY_CAST(gap_from AS TIMESTAMPTZ), TRY_CAST(gap_to AS TIMESTAMPTZ),
                       events_per_hour, suggested_interval_s
                FROM {gap}""",
            {"sid": params["sid"]},
        )
    con.execute("DROP TABLE IF EXISTS temp.stage_activity")
    return fetched, new


def _write_comparisons(
    con: duckdb.DuckDBPyConnection, area: StagingArea, params: dict[str, Any]
) -> tuple[int, int]:
    """Store the staged comparisons not stored yet and one ``comparison_fetches`` row per solution fetched;
    returns (comparisons fetched, comparisons new)."""
    source, fetches = _parquet(area, "comparisons"), _parquet(area, "comparison_fetches")
    if source is None or fetches is None:
        return 0, 0
    con.execute(
        "CREATE OR REPLACE TEMP TABLE stage_cmp AS SELECT problem_id, raw::JSON AS raw, "
        f"(raw::JSON)->>'$.id' AS comparison_id FROM {source}"
    )
    fetched = int(con.execute("SELECT count(*) FROM stage_cmp").fetchall()[0][0])
    new = _insert_new(
        con,
        f"""INSERT INTO {COMPARISON_RECORDS}
            SELECT $platform, comparison_id, problem_id, raw->>'$.solutionAId', raw->>'$.solutionBId',
                   raw->>'$.winner', raw->>'$.voterBotId', raw->>'$.voterBotName',
                   TRY_CAST(raw->>'$.createdAt' AS TIMESTAMPTZ), raw, $sid
            FROM (SELECT DISTINCT ON (comparison_id) * FROM stage_cmp WHERE comparison_id IS NOT NULL) s
            WHERE NOT EXISTS (SELECT 1 FROM {COMPARISON_RECORDS} c
                              WHERE c.platform = $platform AND c.comparison_id = s.comparison_id)""",
        params,
    )
    con.execute(
        f"""INSERT INTO {COMPARISON_FETCHES}
            WITH f AS (SELECT * FROM {fetches}),
                 mine AS (SELECT comparison_id, solution_a_id, solution_b_id FROM {COMPARISON_RECORDS}
                          WHERE platform = $platform),
                 sides AS (SELECT solution_a_id AS solution_id, comparison_id FROM mine
                           WHERE solution_a_id IN (SELECT solution_id FROM f)
                           UNION ALL
                           SELECT solution_b_id, comparison_id FROM mine
                           WHERE solution_b_id IN (SELECT solution_id FROM f)),
                 n AS (SELECT solution_id, count(DISTINCT comparison_id) AS stored FROM sides GROUP BY ALL)
            SELECT $sid, $platform, f.solution_id, f.problem_id, f.comparison_count, f.returned,
                   coalesce(n.stored, 0)
            FROM f LEFT JOIN n USING (solution_id)""",
        params,
    )
    con.execute("DROP TABLE IF EXISTS temp.stage_cmp")
    return fetched, new


def _resources(reports: dict[str, StepReport]) -> dict[str, str]:
    """What became of each optional resource, merged from the fetch steps' reports (``resources``)."""
    out: dict[str, str] = {}
    for report in reports.values():
        out.update(report.resources)
    return dict(sorted(out.items()))


def write_history(
    con: duckdb.DuckDBPyConnection,
    area: StagingArea,
    sid: int,
    counts: dict[str, int],
    new_versions: dict[str, int],
) -> None:
    """Inside snapshot ``sid``'s open transaction: store the staged activity events, gap, comparisons and
    comparison fetches of the run in ``area`` (what is already stored for the platform is skipped), record
    ``counts`` and ``new_versions`` (``activity``, ``comparisons``: items this snapshot stored first, its
    rows in those views), set the snapshot row's ``resources``, and write the snapshot's ``data_quality``
    and ``vote_coverage`` rows (:func:`solvelens.store.quality.write_quality`: what each list holds against
    what the platform announced). A run that staged none of the optional resources (every one left out or
    not offered) writes no history rows."""
    run = area.run_info()
    reports = area.reports()
    platform = reports.get("platform")
    declared = None if platform is None else platform.declared
    params = {"sid": sid, "platform": platform_key(declared, run.base_url)}
    for name, write in (("activity", _write_activity), ("comparisons", _write_comparisons)):
        if area.has_table(name):
            _fetched, counts[name] = write(con, area, params)
            new_versions[name] = counts[name]
    resources = _resources(reports)
    requests = {r.step: dict(r.request) for r in reports.values() if r.request is not None}
    con.execute(
        f"UPDATE {INTERNAL}.snapshot_log SET resources = ?::JSON, requests = ?::JSON WHERE snapshot_id = ?",
        [json.dumps(resources), json.dumps(dict(sorted(requests.items()))), sid],
    )
    write_quality(con, area, reports, sid, counts, str(params["platform"]), resources)
