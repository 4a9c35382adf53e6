"""``model_counts`` is a running sum (each snapshot's figures: the previous complete snapshot's plus the lists
that changed, :func:`solvelens.store.schema.model_counts_since_sql`), so its figures are exact decimals:
each solution's rank percentile and top-k credits rounded half up to 18 decimal places, then added without
rounding. Over many snapshots whose lists change (scores with ties, solutions added and withdrawn) every
snapshot's stored figures equal, digit for digit, a recount done here from the ``solutions`` view with
exact fractions, before and after a compaction; the figures users read (``Frames.model_counts``, Float64)
are those of the double sums they were before; a store whose running sums were doubles is recounted."""

from __future__ import annotations

import random
from collections import defaultdict
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import duckdb
import polars as pl
import pytest

from solvelens import analysis as an
from solvelens.store import compact, latest_solution_state, open_readonly, write_snapshot
from solvelens.store.schema import INTERNAL
from tests.store.fakes import BASE_URL, FakePlatform, make_platform, stage_run

#: Snapshots written by the fixture: each changes 3 lists of 20 (the first holds every list).
SNAPSHOTS = 30
#: A stored figure is the exact sum rounded per solution: within half of 1e-18 per solution of the fraction.
TOLERANCE_PER_SOLUTION = Fraction(1, 2 * 10**18)
_SCORES = (1400.0, 1450.0, 1500.0, 1500.0, 1550.0)  # few values: many ties
_FIGURES = ("percentile_sum", "top1", "top3")


def _change(plat: FakePlatform, rng: random.Random) -> None:
    """Three lists change: new scores (ties), and one of them gains or loses a solution."""
    for i, problem in enumerate(rng.sample(plat.problems, 3)):
        sols = plat.solutions[problem["id"]]
        for s in sols:
            s["btScore"] = rng.choice(_SCORES)
        if i == 0 and len(sols) > 2 and rng.random() < 0.5:
            sols.pop(rng.randrange(len(sols)))
            problem["solutionCount"] -= 1
        elif i == 0:
            plat.add_solution(problem)["btScore"] = rng.choice(_SCORES)
        problem["comparisonCount"] += 1  # the list is read again


def _write(db: Path, root: Path, plat: FakePlatform, day: int) -> None:
    carry = latest_solution_state(db, BASE_URL) if db.exists() else None
    taken = f"2026-03-{1 + day // 24:02d}T{day % 24:02d}:00:00Z"
    write_snapshot(db, stage_run(root, plat, taken_at=taken, carry=carry, competition=True, skip=_OPTIONAL))


_OPTIONAL = ("activity", "comparisons", "llm_leaderboard", "llm_families")


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("model-counts")
    db = root / "store.duckdb"
    plat, rng = make_platform(), random.Random(33)
    for problem in plat.problems:
        for s in plat.solutions[problem["id"]]:
            s["btScore"] = rng.choice(_SCORES)
    for step in range(SNAPSHOTS):
        if step:
            _change(plat, rng)
        _write(db, root, plat, step)
    return db


def _rounded(value: Fraction) -> Decimal:
    """``value`` rounded half up to 18 decimal places."""
    return (Decimal(value.numerator) / Decimal(value.denominator)).quantize(
        Decimal("1e-18"), rounding=ROUND_HALF_UP
    )


def _recount(con: duckdb.DuckDBPyConnection) -> dict[tuple[int, str], dict[str, Any]]:
    """Per snapshot and model, from the ``solutions`` view: solutions, contested (lists of >= 2), and each
    figure as the exact fraction and as the sum of its per-solution values rounded to 18 places. A
    solution's percentile: (n - rank - (t - 1) / 2) / (n - 1), n the list's solutions and t those sharing
    its rank; its top-k credit: the positions rank..rank+t-1 within k, shared by t."""
    rows = con.execute(
        """SELECT a.snapshot_id, coalesce(a.llm_model, 'unknown'), a.rank,
                  count(*) OVER (PARTITION BY a.snapshot_id, a.problem_id),
                  count(*) OVER (PARTITION BY a.snapshot_id, a.problem_id, a.rank)
           FROM solutions a"""
    ).fetchall()
    out: dict[tuple[int, str], dict[str, Any]] = defaultdict(
        lambda: (
            {"solutions": 0, "contested": 0}
            | {f: Fraction(0) for f in _FIGURES}
            | {f"{f}_rounded": Decimal(0) for f in _FIGURES}
        )
    )
    for sid, model, rank, n, t in rows:
        entry = out[(sid, model)]
        entry["solutions"] += 1
        if n < 2:
            continue
        entry["contested"] += 1
        values = {
            "percentile_sum": Fraction(2 * (n - rank) - (t - 1), 2 * (n - 1)),
            "top1": Fraction(min(max(2 - rank, 0), t), t),
            "top3": Fraction(min(max(4 - rank, 0), t), t),
        }
        for figure, value in values.items():
            entry[figure] += value
            entry[f"{figure}_rounded"] += _rounded(value)
    return dict(out)


def _stored(con: duckdb.DuckDBPyConnection) -> dict[tuple[int, str], tuple[Any, ...]]:
    rows = con.execute(
        f"SELECT snapshot_id, llm_model, solutions, contested_solutions, percentile_sum, top1, top3 "
        f"FROM {INTERNAL}.model_counts"
    ).fetchall()
    return {(r[0], r[1]): r[2:] for r in rows}


def _expected(recount: dict[tuple[int, str], dict[str, Any]]) -> dict[tuple[int, str], tuple[Any, ...]]:
    return {
        key: (e["solutions"], e["contested"], *(e[f"{f}_rounded"] for f in _FIGURES))
        for key, e in recount.items()
    }


def test_every_running_sum_equals_an_exact_recount_before_and_after_compaction(store: Path) -> None:
    with open_readonly(store) as con:
        stored, recount = _stored(con), _recount(con)
        changed = con.execute(
            "SELECT count(DISTINCT snapshot_id) FROM snapshots WHERE snapshot_id > 1"
        ).fetchall()[0][0]
    assert changed == SNAPSHOTS - 1 and len({k[0] for k in stored}) == SNAPSHOTS
    assert stored == _expected(recount)  # Decimal == Decimal: every digit
    assert all(isinstance(v, Decimal) for row in stored.values() for v in row[2:])
    compact(store)
    with open_readonly(store) as con:
        assert _stored(con) == stored


def test_every_figure_is_within_half_a_unit_of_the_18th_place_per_solution_of_the_fraction(
    store: Path,
) -> None:
    with open_readonly(store) as con:
        stored, recount = _stored(con), _recount(con)
    for key, e in recount.items():
        for i, figure in enumerate(_FIGURES):
            error = abs(Fraction(stored[key][2 + i]) - e[figure])
            assert error <= e["contested"] * TOLERANCE_PER_SOLUTION, (key, figure, error)


def test_the_figures_users_read_are_the_double_sums_they_were(store: Path) -> None:
    """``Frames.model_counts`` keeps its Float64 columns, and their values are the double sums over the
    solutions (the figures before they were exact) within 1e-12; the model trend's rates agree to 12
    places."""
    frames = an.load(store)
    got = frames.model_counts.collect().sort("snapshot_id", "llm_model")
    assert {got.schema[f] for f in _FIGURES} == {pl.Float64()}
    with open_readonly(store) as con:
        doubles = con.sql(
            """WITH s AS (SELECT snapshot_id, coalesce(llm_model, 'unknown') AS llm_model, rank,
                             count(*) OVER (PARTITION BY snapshot_id, problem_id) AS n,
                             count(*) OVER (PARTITION BY snapshot_id, problem_id, rank) AS t
                          FROM solutions)
               SELECT snapshot_id, llm_model,
                   coalesce(sum((n - rank - (t - 1) / 2.0) / (n - 1)) FILTER (WHERE n >= 2), 0)::DOUBLE
                       AS percentile_sum,
                   coalesce(sum(least(greatest(2 - rank, 0), t) / t) FILTER (WHERE n >= 2), 0)::DOUBLE
                       AS top1,
                   coalesce(sum(least(greatest(4 - rank, 0), t) / t) FILTER (WHERE n >= 2), 0)::DOUBLE
                       AS top3
               FROM s GROUP BY ALL ORDER BY ALL"""
        ).pl()
    assert got.select("snapshot_id", "llm_model").equals(doubles.select("snapshot_id", "llm_model"))
    for figure in _FIGURES:
        assert (got[figure] - doubles[figure]).abs().max() <= 1e-12, figure  # type: ignore[operator]
    rates = ("share", "mean_percentile", "top1_rate", "top3_rate")
    shown = an.model_trend(got, frames.snapshots).select(pl.col(rates).round(12))
    counts = got.select("snapshot_id", "llm_model", "solutions", "contested_solutions")
    before = an.model_trend(counts.join(doubles, on=["snapshot_id", "llm_model"]), frames.snapshots)
    assert shown.equals(before.select(pl.col(rates).round(12)))


def test_a_store_whose_running_sums_were_doubles_is_recounted_exactly(tmp_path: Path) -> None:
    """A store of schema version 6 (figures as doubles, one drifted by 1e-9) gets every snapshot's figures
    recounted as exact decimals at its next write."""
    db = tmp_path / "store.duckdb"
    plat, rng = make_platform(), random.Random(6)
    for step in range(3):
        if step:
            _change(plat, rng)
        _write(db, tmp_path, plat, step)
    con = duckdb.connect(str(db))
    try:
        for figure in _FIGURES:
            con.execute(f"ALTER TABLE {INTERNAL}.model_counts ALTER {figure} TYPE DOUBLE")
        con.execute(f"UPDATE {INTERNAL}.model_counts SET top3 = top3 + 1e-9 WHERE snapshot_id = 2")
        con.execute(f"UPDATE {INTERNAL}.meta SET value = '6' WHERE key = 'schema_version'")
    finally:
        con.close()
    _change(plat, rng)
    _write(db, tmp_path, plat, 3)
    with open_readonly(db) as con:
        stored, recount = _stored(con), _recount(con)
        types = con.execute(
            "SELECT DISTINCT data_type FROM duckdb_columns() WHERE schema_name = ? AND table_name = "
            "'model_counts' AND column_name IN ('percentile_sum', 'top1', 'top3')",
            [INTERNAL],
        ).fetchall()
    assert types == [("DECIMAL(38,18)",)]
    assert stored == _expected(recount) and {k[0] for k in stored} == {1, 2, 3, 4}
