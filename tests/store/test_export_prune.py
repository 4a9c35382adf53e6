"""Parquet export partitioned by snapshot, pruning to the newest N snapshots, and storage growth."""

from __future__ import annotations

import itertools
from pathlib import Path

import duckdb
import polars as pl
import pytest

from solvelens.store import (
    PUBLIC_VIEWS,
    export_parquet,
    latest_solution_state,
    prune,
    read_frame,
    write_snapshot,
)
from solvelens.store.schema import HISTORY_VIEWS, INTERNAL, snapshot_column
from tests.store.fakes import BASE_URL, FakePlatform, make_platform, stage_run


def _three_snapshots(db: Path, plat: FakePlatform, tmp_path: Path) -> None:
    for day in range(1, 4):
        plat.vote(plat.problems[day])
        plat.add_problem(2)
        carry = latest_solution_state(db, BASE_URL) if db.exists() else None
        write_snapshot(
            db, stage_run(tmp_path, plat, taken_at=f"2026-02-0{day}T00:00:00Z", carry=carry, me=plat.bots[0])
        )


def test_export_writes_every_view_partitioned_by_snapshot(db: Path, platform: FakePlatform, tmp_path: Path):
    _three_snapshots(db, platform, tmp_path)
    out = tmp_path / "export"
    written = export_parquet(db, out)
    assert set(written) == set(PUBLIC_VIEWS)
    for view in PUBLIC_VIEWS:
        if view in ("activity_gaps", "comparison_coverage"):  # no gap, every vote stored: no rows, no folder
            assert written[view] == 0 and not (out / view).exists(), view
            continue
        column = snapshot_column(view)  # first_snapshot_id for the views holding each item once
        assert sorted(p.name for p in (out / view).iterdir()) == [f"{column}={i}" for i in (1, 2, 3)], view
        exported = pl.read_parquet(out / view / "**" / "*.parquet", hive_partitioning=True)
        original = read_frame(db, f"SELECT * FROM {view}")
        assert exported.height == original.height == written[view]
        assert set(exported.columns) == set(original.columns)
    solutions = duckdb.sql(
        f"SELECT snapshot_id, count(*) FROM read_parquet('{out}/solutions/*/*.parquet', "
        "hive_partitioning=true) GROUP BY 1 ORDER BY 1"
    ).fetchall()
    assert solutions == [(1, 102), (2, 104), (3, 106)]
    # Incremental export of the newest snapshot only.
    again = export_parquet(db, tmp_path / "newest", min_snapshot_id=3)
    assert again["problems"] == 23
    with pytest.raises(ValueError, match="not public views"):
        export_parquet(db, out, views=("snapshot_links",))


def test_prune_keeps_the_newest_snapshots_unchanged_and_drops_orphans(
    db: Path, platform: FakePlatform, tmp_path: Path
):
    _three_snapshots(db, platform, tmp_path)
    # The history (events, votes, gaps, coverage) is kept whole: the platform's feeds forgot it.
    kept_before = {
        v: read_frame(db, f"SELECT * FROM {v}" + ("" if v in HISTORY_VIEWS else " WHERE snapshot_id >= 2"))
        for v in PUBLIC_VIEWS
    }
    result = prune(db, keep=2)
    assert result["kept"] == [2, 3]
    assert result["removed_snapshots"] == 1
    # Snapshot 1's versions of the problem voted on at day 2 and 3 (and its old solution versions) are gone.
    assert result["removed_versions"]["problems"] >= 1
    assert result["removed_versions"]["solutions"] >= 2
    for view, frame in kept_before.items():
        after = read_frame(db, f"SELECT * FROM {view}")
        sort = [c for c in after.columns if c != "raw"]
        assert after.sort(sort).equals(frame.sort(sort)), view
    con = duckdb.connect(str(db), read_only=True)
    orphans = con.execute(
        f"""SELECT count(*) FROM {INTERNAL}.solutions_versions v
            WHERE v.version_id NOT IN (SELECT version_id FROM {INTERNAL}.solution_manifest_items)"""
    ).fetchall()[0][0]
    con.close()
    assert orphans == 0
    # Carry-over still works after pruning, and the next snapshot gets a fresh id.
    carry = latest_solution_state(db, BASE_URL)
    nxt = write_snapshot(db, stage_run(tmp_path, platform, taken_at="2026-02-05T00:00:00Z", carry=carry))
    assert nxt.snapshot_id == 4
    assert nxt.counts["solutions"] == 106
    with pytest.raises(ValueError):
        prune(db, keep=0)


@pytest.mark.xfail(
    strict=True,
    reason="issue 22, not met for this small store: since schema 4 writes data_quality rows per snapshot, "
    "the first unchanged re-snapshot of this 2.7 MB store adds 5.4% (4.2% without those rows); the target is "
    "< 5% (met at medium: 7.4 MB, +2.4%, benchmarks/snapshot.py)",
)
def test_unchanged_resnapshots_add_under_five_percent(tmp_path: Path):
    """Design target: an unchanged re-snapshot adds < 5% of the first snapshot's file size (after the
    checkpoint that closing the file performs)."""
    db = tmp_path / "store.duckdb"
    plat = make_platform(problems=300, solutions_per_problem=30, bots=60)
    write_snapshot(db, stage_run(tmp_path, plat))
    first = db.stat().st_size
    sizes = [first]
    for day in range(2, 6):
        carry = latest_solution_state(db, BASE_URL)
        write_snapshot(db, stage_run(tmp_path, plat, taken_at=f"2026-02-0{day}T00:00:00Z", carry=carry))
        sizes.append(db.stat().st_size)
    steps = [(b - a) / first for a, b in itertools.pairwise(sizes)]
    assert max(steps) < 0.05, steps
    assert (sizes[-1] - first) / first < 4 * 0.05
    print(f"first snapshot {first} bytes; growth per unchanged re-snapshot: {[f'{s:.2%}' for s in steps]}")
