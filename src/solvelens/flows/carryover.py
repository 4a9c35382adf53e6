"""Carried-over solution lists checked against what the platform serves now: the ``carryover`` step.

An incremental snapshot keeps a problem's stored solution list when the problem's ``solutionCount`` and
``comparisonCount`` did not move (:func:`solvelens.flows.fetch.fetch_problems_step`). Counts say nothing
about the attributes a solution shows of its bot: a bot that renamed itself is listed under its new name
on every solution the platform serves, while a carried list still holds the old one. This step runs once
both the problems and the leaderboard are staged, and re-reads (``GET /problems/{id}/solutions``):

- every carried list naming a bot under another name than the one the leaderboard or the bot's profile
  gives now (``stale``), and
- a rotating share of the other carried lists (``rotation``): the problems whose bucket
  (CRC-32 of the problem id modulo :data:`ROTATION`) is the new snapshot's (the previous snapshot id + 1,
  modulo :data:`ROTATION`), so whatever a count misses is found within :data:`ROTATION` snapshots.

The re-read lists are appended to the staged ``solutions`` / ``solution_problems``; the writer then takes
them instead of the carried manifests (a fetched problem's carry-over row is ignored). The step report's
figures name the cost (:class:`~solvelens.flows.figures.CarryoverFigures`: ``requests``, ``stale_lists``,
``rotation_lists``, ``renamed_bots``).
"""

from __future__ import annotations

import asyncio
import os
import zlib
from typing import Any

import orjson
import pyarrow as pa
import pyarrow.parquet as pq

from solvelens.client import AsyncPlatformClient, NotFoundError
from solvelens.flows.fetch import collect_pages, run_together, step_client
from solvelens.flows.figures import CarryoverFigures
from solvelens.flows.plan import SnapshotPlan
from solvelens.flows.ranks import competition_ranks
from solvelens.store.canonical import KEY_FORMS
from solvelens.store.reports import StepReport
from solvelens.store.staging import STAGED_TABLES, StagingArea, TableWriter

#: Every carried list is re-read at least once in this many snapshots (1/ROTATION of them per snapshot).
ROTATION = 20


def current_names(area: StagingArea) -> dict[str, str]:
    """Each bot's name as the platform serves it now: ``{bot_id: name}`` from the staged leaderboard, a
    refetched profile's name where there is one (both are this run's answers)."""
    names: dict[str, str] = {}
    for table in ("leaderboard", "bots"):
        staged = area.read_table(table)
        for raw in [] if staged is None else staged.column("raw").to_pylist():
            record = orjson.loads(raw)
            if isinstance(record, dict) and record.get("id") is not None and record.get("name") is not None:
                names[str(record["id"])] = str(record["name"])
    return names


def lists_to_reread(area: StagingArea) -> tuple[list[str], list[str], set[str]]:
    """The carried problems whose list names a bot by an old name (``stale``), the rotating share of the
    others (``rotation``), and the bots whose name changed; all from the staging area."""
    carried_table = area.read_table("solution_carryover")
    carried = [] if carried_table is None else carried_table.column("problem_id").to_pylist()
    if not carried:
        return [], [], set()
    names = current_names(area)
    stale: set[str] = set()
    renamed: set[str] = set()
    named = area.read_table("previous_solution_bots")
    if named is not None:  # one row per solution stored: read column-wise, no dict per row
        columns = (named.column(c).to_pylist() for c in ("problem_id", "bot_id", "bot_name"))
        for problem_id, bot_id, bot_name in zip(*columns, strict=True):
            now = names.get(bot_id)
            if now is not None and now != bot_name:
                stale.add(problem_id)
                renamed.add(bot_id)
    previous = area.read_table("previous_snapshot")
    turn = (int(previous.column("snapshot_id")[0].as_py()) + 1) % ROTATION if previous else 0
    rotation = [pid for pid in carried if pid not in stale and zlib.crc32(pid.encode()) % ROTATION == turn]
    return [pid for pid in carried if pid in stale], rotation, renamed


def _as(table: pa.Table, schema: pa.Schema) -> pa.Table:
    """``table`` with ``schema``'s types: cast only when they differ (a cast imports pyarrow.compute)."""
    return table if table.schema.equals(schema) else table.cast(schema)


def _append(area: StagingArea, table: str, extra: pa.Table) -> None:
    """Append ``extra`` (the table's staged columns) to the staged ``table``, streaming its row groups."""
    path = area.table_path(table)
    tmp = path.with_suffix(".parquet.append")
    schema = STAGED_TABLES[table]
    with pq.ParquetWriter(tmp, schema, compression="snappy") as out:
        if path.exists():
            staged = pq.ParquetFile(path)
            for i in range(staged.num_row_groups):
                out.write_table(_as(staged.read_row_group(i), schema))
        out.write_table(_as(extra.select(schema.names), schema))
    os.replace(tmp, path)


async def _reread(
    client: AsyncPlatformClient, pids: list[str], concurrency: int, warnings: list[str]
) -> dict[str, list[dict[str, Any]]]:
    semaphore = asyncio.Semaphore(concurrency)
    lists: dict[str, list[dict[str, Any]]] = {}

    async def one(pid: str) -> None:
        async with semaphore:
            try:
                lists[pid] = await collect_pages(
                    client.solution_pages(pid),
                    f"solutions of {pid}",
                    warnings,
                    endpoint="solutions",
                    path=f"/problems/{pid}/solutions",
                )
            except NotFoundError:  # the problem left the platform since it was listed: keep the carried list
                warnings.append(
                    f"solutions of {pid}: 404 on re-reading a carried list; the stored one is kept"
                )

    await run_together(*(one(pid) for pid in pids))
    return lists


async def verify_carryover_step(plan: SnapshotPlan, staging_dir: str) -> StepReport:
    """Re-read the carried solution lists that :func:`lists_to_reread` names and stage them as fetched.

    Returns the step report (``step`` ``carryover``; ``requests``: lists re-read; figures ``stale_lists``,
    ``rotation_lists``, ``renamed_bots``: counts), ``plan.concurrency`` lists at a time. Raises
    :class:`solvelens.client.PlatformError` when the platform keeps failing.
    """
    area = StagingArea(staging_dir)
    stale, rotation, renamed = lists_to_reread(area)
    pids = stale + rotation
    warnings: list[str] = []
    lists: dict[str, list[dict[str, Any]]] = {}
    if pids:
        async with step_client(plan) as client:
            lists = await _reread(client, pids, plan.concurrency, warnings)
        tmp = area.path / "carryover-solutions.parquet"
        writer = TableWriter(tmp, STAGED_TABLES["solutions"], key_form=KEY_FORMS.get("solutions"))
        with writer:
            for pid, solutions in lists.items():
                ranks, _ = competition_ranks(solutions)
                writer.append(problem_id=[pid] * len(solutions), rank=ranks, raw=solutions)
        with pq.ParquetFile(tmp) as reread:  # not pq.read_table: its dataset layer imports pyarrow.compute
            _append(area, "solutions", reread.read())
        tmp.unlink()
        _append(area, "solution_problems", pa.table({"problem_id": pa.array(list(lists), pa.string())}))
    return StepReport.of(
        "carryover",
        {},
        warnings,
        requests=len(pids),
        figures=CarryoverFigures(
            requests=len(pids),
            stale_lists=len(stale),
            rotation_lists=len(rotation),
            renamed_bots=len(renamed),
        ),
    )
