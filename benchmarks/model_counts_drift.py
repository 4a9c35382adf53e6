"""Benchmark: the drift of ``model_counts``' running sums over a year of hourly snapshots.

Each snapshot's model counts are the previous complete snapshot's plus the lists that changed
(:func:`solvelens.store.schema.model_counts_since_sql`). This script runs that running sum for ``--steps``
simulated snapshots (default 8,760: a year of hourly snapshots) over ``--lists`` solution lists of 1-12
solutions (six models, scores from a few values, so ranks tie), ``--changed`` of which change each step (new
ranks; now and then a solution added or withdrawn), in an in-memory DuckDB database with the store's schema
(:func:`solvelens.store.schema.ensure_schema`), two ways:

- **exact** (schema version 7): the store's own SQL (``model_counts_since_sql`` for each step,
  ``model_counts_sql`` for the recount), figures as ``DECIMAL(38, 18)``;
- **doubles** (schema versions 5-6): the same SQL as it was before, figures as ``DOUBLE`` (quoted below).

At each checkpoint it recounts the step's figures in full and prints, per way, the largest absolute and
relative difference between the running sum and the recount (the drift), and for the doubles also against
the exact figures. No asserts (``tests/store/test_model_counts_exact.py`` checks the exact sums). Run:
``.venv/bin/python benchmarks/model_counts_drift.py [--steps 8760] [--lists 1000] [--changed 20]``.
"""

from __future__ import annotations

import argparse
import random
import time

import duckdb

from solvelens.store.schema import (
    INTERNAL,
    LINKS,
    MODEL_COUNTS,
    PROBLEMS,
    SOLUTIONS,
    ensure_schema,
    model_counts_since_sql,
    model_counts_sql,
)

_MODELS = ["gpt-4o", "claude-sonnet-4", "gemini-2.5-pro", "llama-3.1-405b", "mistral-large", None]
_SCORES = [1400.0, 1450.0, 1500.0, 1500.0, 1550.0, 1600.0]
_ITEMS = f"{INTERNAL}.solution_manifest_items"
_DOUBLES = "bench_model_counts_double"


def _insert(con: duckdb.DuckDBPyConnection, table: str, columns: str, rows: list[tuple[object, ...]]) -> None:
    """Insert ``rows`` in one statement (lists unnested: ``executemany`` takes ~1 ms a row)."""
    if not rows:
        return
    values = list(zip(*rows, strict=True))
    unnest = ", ".join(f"unnest(${i + 1})" for i in range(len(values)))
    con.execute(f"INSERT INTO {table} ({columns}) SELECT {unnest}", [list(v) for v in values])


def _new_versions(con: duckdb.DuckDBPyConnection, versions: list[tuple[int, str | None]]) -> None:
    _insert(con, SOLUTIONS.version_table, "version_id, llm_model, raw", [(v, m, "{}") for v, m in versions])


# The SQL of schema versions 5-6 (commit ced90da, solvelens.store.schema), figures as doubles.
_TOP_CREDIT_DOUBLE = (
    "coalesce(sum(least(greatest({k} + 1 - rank, 0), t)::DOUBLE / t) FILTER (WHERE n >= 2), 0)"
)


def _per_list_double(manifests: str) -> str:
    return f"""
        items AS (
            SELECT i.manifest_id, coalesce(v.llm_model, 'unknown') AS llm_model, i.rank,
                   count(*) OVER (PARTITION BY i.manifest_id) AS n,
                   count(*) OVER (PARTITION BY i.manifest_id, i.rank) AS t
            FROM {_ITEMS} i JOIN {SOLUTIONS.version_table} v USING (version_id)
            WHERE i.manifest_id IN ({manifests})),
        per_list AS (
            SELECT manifest_id, llm_model, count(*) AS solutions,
                   count(*) FILTER (WHERE n >= 2) AS contested,
                   coalesce(sum(greatest(0.0, least(1.0, (n - rank - (t - 1) / 2.0)::DOUBLE / (n - 1))))
                            FILTER (WHERE n >= 2), 0) AS percentile_sum,
                   {_TOP_CREDIT_DOUBLE.format(k=1)} AS top1, {_TOP_CREDIT_DOUBLE.format(k=3)} AS top3
            FROM items GROUP BY ALL)"""


def _counts_double(snapshot: int) -> str:
    problems = (
        f"FROM {LINKS} WHERE resource = {PROBLEMS.code} AND manifest_id IS NOT NULL "
        f"AND snapshot_id = {snapshot}"
    )
    return f"""
        WITH {_per_list_double(f"SELECT manifest_id {problems}")}
        SELECT l.snapshot_id, p.llm_model, sum(p.solutions)::BIGINT, sum(p.contested)::BIGINT,
               sum(p.percentile_sum)::DOUBLE, sum(p.top1)::DOUBLE, sum(p.top3)::DOUBLE
        FROM (SELECT snapshot_id, manifest_id {problems}) l JOIN per_list p USING (manifest_id)
        GROUP BY ALL"""


def _since_double(sid: int, before: int) -> str:
    def listed(snapshot: int) -> str:
        return (
            f"SELECT manifest_id, count(*) AS c FROM {LINKS} WHERE resource = {PROBLEMS.code} "
            f"AND manifest_id IS NOT NULL AND snapshot_id = {snapshot} GROUP BY ALL"
        )

    return f"""
        WITH diff AS (
            SELECT manifest_id, coalesce(now.c, 0) - coalesce(was.c, 0) AS d
            FROM ({listed(sid)}) now FULL JOIN ({listed(before)}) was USING (manifest_id)
            WHERE coalesce(now.c, 0) <> coalesce(was.c, 0)),
        {_per_list_double("SELECT manifest_id FROM diff")}
        SELECT {sid}::BIGINT, llm_model, sum(solutions)::BIGINT, sum(contested)::BIGINT,
               sum(percentile_sum)::DOUBLE, sum(top1)::DOUBLE, sum(top3)::DOUBLE
        FROM (SELECT llm_model, solutions, contested_solutions AS contested, percentile_sum, top1, top3
              FROM {_DOUBLES} WHERE snapshot_id = {before}
              UNION ALL
              SELECT llm_model, d * solutions, d * contested, d * percentile_sum, d * top1, d * top3
              FROM per_list JOIN diff USING (manifest_id))
        GROUP BY ALL HAVING sum(solutions) <> 0"""


class Simulation:
    """The store's tables in memory: problems' link rows naming solution lists (manifests) and their items."""

    def __init__(self, lists: int, seed: int) -> None:
        self.rng = random.Random(seed)
        self.con = duckdb.connect()
        ensure_schema(self.con)
        self.con.execute(f"CREATE TABLE {_DOUBLES} AS SELECT * FROM {MODEL_COUNTS} LIMIT 0")
        self.con.execute(f"ALTER TABLE {_DOUBLES} ALTER percentile_sum TYPE DOUBLE")
        self.con.execute(f"ALTER TABLE {_DOUBLES} ALTER top1 TYPE DOUBLE")
        self.con.execute(f"ALTER TABLE {_DOUBLES} ALTER top3 TYPE DOUBLE")
        self.next_version = 0
        self.next_manifest = 0
        self.solutions: dict[int, list[int]] = {}  # problem -> solution version ids
        self.manifest: dict[int, int] = {}  # problem -> its current list
        versions: list[tuple[int, str | None]] = []
        for problem in range(lists):
            self.solutions[problem] = [self._version(versions) for _ in range(self.rng.randint(1, 12))]
        _new_versions(self.con, versions)
        for problem in range(lists):
            self._new_list(problem)

    def _version(self, versions: list[tuple[int, str | None]]) -> int:
        self.next_version += 1
        versions.append((self.next_version, self.rng.choice(_MODELS)))
        return self.next_version

    def _new_list(self, problem: int) -> None:
        """A new list of ``problem``'s solutions, ranked by new scores (competition ranks: ties share)."""
        self.next_manifest += 1
        scores = [self.rng.choice(_SCORES) for _ in self.solutions[problem]]
        rows = [
            (self.next_manifest, 1 + sum(o > s for o in scores), version)
            for s, version in zip(scores, self.solutions[problem], strict=True)
        ]
        _insert(self.con, _ITEMS, "manifest_id, rank, version_id", rows)
        self.manifest[problem] = self.next_manifest

    def change(self, changed: int) -> None:
        """``changed`` lists re-ranked; a tenth of them gain or lose a solution."""
        for problem in self.rng.sample(sorted(self.solutions), changed):
            sols = self.solutions[problem]
            if self.rng.random() < 0.1:
                if len(sols) > 1 and self.rng.random() < 0.5:
                    sols.pop(self.rng.randrange(len(sols)))
                else:
                    versions: list[tuple[int, str | None]] = []
                    sols.append(self._version(versions))
                    _new_versions(self.con, versions)
            self._new_list(problem)

    def link(self, sid: int) -> None:
        """Snapshot ``sid``'s problem link rows (one per problem, naming its current list); the rows of
        ``sid - 2`` are deleted (the running sum reads ``sid - 1`` only)."""
        rows = [(sid, PROBLEMS.code, problem, manifest) for problem, manifest in self.manifest.items()]
        _insert(self.con, LINKS, "snapshot_id, resource, version_id, manifest_id", rows)
        for table in (LINKS, MODEL_COUNTS, _DOUBLES):
            self.con.execute(f"DELETE FROM {table} WHERE snapshot_id = ?", [sid - 2])


def _drift(con: duckdb.DuckDBPyConnection, stored: str, recount: str) -> tuple[float, float]:
    """The largest absolute and relative difference of the figures of ``stored`` against ``recount``."""
    row = con.execute(
        f"""SELECT max(greatest(abs(s.percentile_sum::DOUBLE - r.percentile_sum::DOUBLE),
                                abs(s.top1::DOUBLE - r.top1::DOUBLE), abs(s.top3::DOUBLE - r.top3::DOUBLE))),
                   max(greatest(abs(s.percentile_sum::DOUBLE - r.percentile_sum::DOUBLE)
                                    / nullif(abs(r.percentile_sum::DOUBLE), 0),
                                abs(s.top1::DOUBLE - r.top1::DOUBLE) / nullif(abs(r.top1::DOUBLE), 0),
                                abs(s.top3::DOUBLE - r.top3::DOUBLE) / nullif(abs(r.top3::DOUBLE), 0)))
            FROM ({stored}) s JOIN ({recount}) r USING (llm_model)"""
    ).fetchall()[0]
    return float(row[0] or 0.0), float(row[1] or 0.0)


def _exact_drift(con: duckdb.DuckDBPyConnection, sid: int) -> float:
    """The largest difference, exact (DECIMAL), of the stored running sums against the recount."""
    row = con.execute(
        f"""SELECT max(greatest(abs(s.percentile_sum - r.percentile_sum), abs(s.top1 - r.top1),
                                abs(s.top3 - r.top3)))
            FROM (SELECT * FROM {MODEL_COUNTS} WHERE snapshot_id = {sid}) s
            JOIN ({model_counts_sql(f"snapshot_id = {sid}")}) r(snapshot_id, llm_model, solutions, contested,
                  percentile_sum, top1, top3) USING (llm_model)"""
    ).fetchall()[0]
    return float(row[0] or 0)


def _columns(sql: str) -> str:
    return (
        f"SELECT * FROM ({sql}) t(snapshot_id, llm_model, solutions, contested, percentile_sum, top1, top3)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--steps", type=int, default=8760, help="simulated snapshots (default: a year hourly)"
    )
    parser.add_argument("--lists", type=int, default=1000, help="solution lists (problems)")
    parser.add_argument("--changed", type=int, default=20, help="lists that change per snapshot")
    parser.add_argument("--seed", type=int, default=31)
    args = parser.parse_args()
    sim = Simulation(args.lists, args.seed)
    con = sim.con
    checkpoints = {24, 168, 720, 2190, 4380, args.steps}
    t0 = time.process_time()
    print(f"{args.lists} lists, {args.changed} changed per snapshot, {args.steps} snapshots")
    print("snapshots | exact: max abs drift | doubles: max abs drift, max rel drift | doubles vs exact: abs")
    for sid in range(1, args.steps + 1):
        if sid > 1:
            sim.change(args.changed)
        sim.link(sid)
        if sid == 1:
            con.execute(f"INSERT INTO {MODEL_COUNTS} {model_counts_sql('snapshot_id = 1')}")
            con.execute(f"INSERT INTO {_DOUBLES} {_counts_double(1)}")
        else:
            con.execute(f"INSERT INTO {MODEL_COUNTS} {model_counts_since_sql(sid, sid - 1)}")
            con.execute(f"INSERT INTO {_DOUBLES} {_since_double(sid, sid - 1)}")
        if sid in checkpoints:
            exact = _exact_drift(con, sid)
            doubles = _drift(
                con, f"SELECT * FROM {_DOUBLES} WHERE snapshot_id = {sid}", _columns(_counts_double(sid))
            )
            versus = _drift(
                con,
                f"SELECT * FROM {_DOUBLES} WHERE snapshot_id = {sid}",
                f"SELECT * FROM {MODEL_COUNTS} WHERE snapshot_id = {sid}",
            )
            print(
                f"{sid:9d} | {exact:.3g} | {doubles[0]:.3g}, {doubles[1]:.3g} | {versus[0]:.3g}", flush=True
            )
    print(f"CPU {time.process_time() - t0:.1f} s")


if __name__ == "__main__":
    main()
