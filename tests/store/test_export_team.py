"""A history a team can follow (issue 30, item 4): ``db export --parquet`` appends only the snapshots the
export lacks, writes its manifest last, survives an interruption with the previous manifest valid, and does
the same to an S3 bucket (s3fs against moto's S3 server on 127.0.0.1, dummy credentials). Readers that read
the manifest's files with DuckDB or polars get the store's figures (SQL written here, against the store's
public views)."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import polars as pl
import pytest

from solvelens.store import latest_solution_state, write_snapshot
from solvelens.store.export import MANIFEST, export_files, export_snapshots, open_export
from tests.store.fakes import BASE_URL, FakePlatform, stage_run

export_module = importlib.import_module("solvelens.store.export")

#: Per snapshot: the leaderboard's size, points, best bot and its rank; the problems' count and solutions.
LEADERBOARD_SQL = """
    SELECT snapshot_id, count(*) AS bots, sum(points) AS points, arg_min(bot_id, rank) AS top_bot,
           min(rank) AS best_rank
    FROM {leaderboard} GROUP BY snapshot_id ORDER BY snapshot_id"""
PROBLEMS_SQL = """
    SELECT snapshot_id, count(*) AS problems, sum(solution_count) AS solutions,
           count(DISTINCT category) AS categories
    FROM {problems} GROUP BY snapshot_id ORDER BY snapshot_id"""


def _snapshot(db: Path, plat: FakePlatform, tmp_path: Path, day: int) -> None:
    plat.vote(plat.problems[day % len(plat.problems)])
    plat.add_problem(3)
    carry = latest_solution_state(db, BASE_URL) if db.exists() else None
    write_snapshot(db, stage_run(tmp_path, plat, taken_at=f"2026-03-{day:02d}T00:00:00Z", carry=carry))


def _store_figures(db: Path) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        board = con.execute(LEADERBOARD_SQL.format(leaderboard="leaderboard")).fetchall()
        problems = con.execute(PROBLEMS_SQL.format(problems="problems")).fetchall()
    finally:
        con.close()
    return board, problems


def _duckdb_figures(files: dict[str, list[str]]) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    def scan(view: str) -> str:
        listed = ", ".join(f"'{f}'" for f in files[view])
        return f"read_parquet([{listed}], hive_partitioning = true)"

    board = duckdb.sql(LEADERBOARD_SQL.format(leaderboard=scan("leaderboard"))).fetchall()
    problems = duckdb.sql(PROBLEMS_SQL.format(problems=scan("problems"))).fetchall()
    return board, problems


def _listed_files(out: Path) -> dict[str, bytes]:
    manifest = json.loads((out / MANIFEST).read_text())
    return {rel: (out / rel).read_bytes() for files in manifest["files"].values() for rel in files}


def test_an_export_appends_only_the_snapshots_it_lacks_and_reads_as_the_store(
    db: Path, platform: FakePlatform, tmp_path: Path
):
    for day in (1, 2):
        _snapshot(db, platform, tmp_path, day)
    out = tmp_path / "export"
    first = export_snapshots(db, out)
    assert first.rewritten and first.appended == [1, 2] and first.snapshot_ids == [1, 2]
    earlier = _listed_files(out)
    for day in (3, 4, 5):
        _snapshot(db, platform, tmp_path, day)
    second = export_snapshots(db, out)
    assert not second.rewritten and second.appended == [3, 4, 5] and second.snapshot_ids == [1, 2, 3, 4, 5]
    now = _listed_files(out)
    assert {rel: now[rel] for rel in earlier} == earlier  # every earlier file is there, byte for byte
    new = set(now) - set(earlier)
    assert new and all(any(f"={i}/" in rel for i in (3, 4, 5)) for rel in new)
    assert second.written["problems"] == sum(20 + d for d in (3, 4, 5))  # 20 problems + one a day
    # Nothing new: nothing written, the manifest unchanged.
    manifest = (out / MANIFEST).read_bytes()
    third = export_snapshots(db, out)
    assert third.appended == [] and set(third.written.values()) == {0}
    assert (out / MANIFEST).read_bytes() == manifest
    # The truth: readers of the manifest's files get the store's figures, in DuckDB and in polars.
    store = _store_figures(db)
    assert len(store[0]) == 5 and len(store[1]) == 5
    assert _duckdb_figures(export_files(out)) == store
    files = export_files(out)
    frame = pl.scan_parquet(files["leaderboard"], hive_partitioning=True)
    per_snapshot = frame.group_by("snapshot_id").agg(pl.len(), pl.col("points").sum()).sort("snapshot_id")
    assert per_snapshot.collect().rows() == [(s, n, p) for s, n, p, _, _ in store[0]]
    # Every file lies where the manifest says, and no other parquet file is in the view folders.
    on_disk = {p.relative_to(out).as_posix() for p in out.rglob("*.parquet")}
    assert on_disk == set(now)


@pytest.mark.parametrize("stage", ["copy", "publish", "manifest"])
def test_an_interrupted_export_leaves_the_previous_manifest_valid(
    db: Path, platform: FakePlatform, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stage: str
):
    """Ctrl-C while the views are copied, while the files are placed (half of them placed), or just before
    the manifest: the previous manifest and its files stay as they were, readers get the figures of the
    snapshots it lists; the next export appends the rest and removes what the interrupted one left."""
    for day in (1, 2):
        _snapshot(db, platform, tmp_path, day)
    out = tmp_path / "export"
    export_snapshots(db, out)
    manifest, files, figures = (out / MANIFEST).read_bytes(), _listed_files(out), _store_figures(db)
    _snapshot(db, platform, tmp_path, 3)

    if stage == "copy":
        original_copy = export_module._copy_view

        def copy_then_stop(con: Any, view: str, *args: Any) -> int:
            if view == "solutions":
                raise KeyboardInterrupt
            return int(original_copy(con, view, *args))

        monkeypatch.setattr(export_module, "_copy_view", copy_then_stop)
    elif stage == "publish":
        placed: list[str] = []
        original_replace = os.replace

        def replace_then_stop(src: Any, dst: Any) -> None:
            if str(dst).endswith(".parquet") and len(placed) >= 3:
                raise KeyboardInterrupt
            placed.append(str(dst))
            original_replace(src, dst)

        monkeypatch.setattr(export_module.os, "replace", replace_then_stop)
    else:

        def no_manifest(*args: Any) -> None:
            raise KeyboardInterrupt

        monkeypatch.setattr(export_module, "_write_manifest", no_manifest)
    with pytest.raises(KeyboardInterrupt):
        export_snapshots(db, out)
    monkeypatch.undo()

    assert (out / MANIFEST).read_bytes() == manifest
    assert _listed_files(out) == files
    assert _duckdb_figures(export_files(out)) == figures
    leftovers = {p.relative_to(out).as_posix() for p in out.rglob("*.parquet")} - set(files)
    assert bool(leftovers) == (stage != "copy")  # placed but listed by no manifest
    assert not (out / ".solvelens-export-incoming").exists()

    done = export_snapshots(db, out)
    assert done.appended == [3]
    assert _duckdb_figures(export_files(out)) == _store_figures(db)
    assert {p.relative_to(out).as_posix() for p in out.rglob("*.parquet")} == set(_listed_files(out))


def test_an_export_of_another_schema_version_or_store_is_written_anew(
    db: Path, platform: FakePlatform, tmp_path: Path
):
    """Appending is safe only to an export of this store's history at this schema version: an export of
    manifest version 1, of another schema version, or whose newest snapshot is not the store's, is written
    anew and its old files removed after the new manifest."""
    for day in (1, 2):
        _snapshot(db, platform, tmp_path, day)
    out = tmp_path / "export"
    export_snapshots(db, out)
    old = set(_listed_files(out))
    manifest = json.loads((out / MANIFEST).read_text())
    (out / MANIFEST).write_text(json.dumps({**manifest, "schema_version": manifest["schema_version"] - 1}))
    again = export_snapshots(db, out)
    assert again.rewritten and again.appended == [1, 2]
    assert not old & set(_listed_files(out))  # new files (this run's names); the old ones are gone
    assert {p.relative_to(out).as_posix() for p in out.rglob("*.parquet")} == set(_listed_files(out))

    other = tmp_path / "other.duckdb"  # another store's export in the folder: ids 1, 2 mean other snapshots
    for day in (7, 8):
        _snapshot(other, platform, tmp_path, day)
    replaced = export_snapshots(other, out)
    assert replaced.rewritten and replaced.snapshot_ids == [1, 2]
    assert _duckdb_figures(export_files(out)) == _store_figures(other)


def test_a_pruned_store_takes_its_snapshots_out_of_the_export_unless_kept(
    db: Path, platform: FakePlatform, tmp_path: Path
):
    """By default the export follows the store (a pruned or deleted snapshot leaves it, its history rows
    stay as in the store); ``keep_removed`` keeps the history a store pruned to stay small let go."""
    from solvelens.store import prune

    for day in (1, 2, 3):
        _snapshot(db, platform, tmp_path, day)
    follows, keeps = tmp_path / "follows", tmp_path / "keeps"
    export_snapshots(db, follows)
    export_snapshots(db, keeps)
    figures = _store_figures(db)
    prune(db, keep=2)
    _snapshot(db, platform, tmp_path, 4)

    followed = export_snapshots(db, follows)
    assert followed.removed == [1] and followed.appended == [4] and followed.snapshot_ids == [2, 3, 4]
    assert _duckdb_figures(export_files(follows)) == _store_figures(db)
    assert not (follows / "problems" / "snapshot_id=1").exists()
    manifest = json.loads((follows / MANIFEST).read_text())
    store = duckdb.connect(str(db), read_only=True)
    for view in ("problems", "activity", "comparisons"):  # the history views keep snapshot 1's rows
        (n,) = store.execute(f"SELECT count(*) FROM {view}").fetchone() or (0,)
        assert manifest["views"][view] == n, view
    store.close()

    kept = export_snapshots(db, keeps, keep_removed=True)
    assert kept.removed == [] and kept.snapshot_ids == [1, 2, 3, 4] and kept.not_in_store == [1]
    board, problems = _duckdb_figures(export_files(keeps))
    assert board[0] == figures[0][0] and problems[0] == figures[1][0]  # snapshot 1 as it was stored
    assert (board[1:], problems[1:]) == _store_figures(db)


# -- S3 ----------------------------------------------------------------------------------------------------

DUMMY = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_DEFAULT_REGION": "us-east-1",
}


@pytest.fixture(scope="module")
def s3_endpoint() -> Iterator[str]:
    """moto's S3 server (server mode, threaded) on 127.0.0.1 with a bucket ``team``; dummy credentials."""
    moto_server = pytest.importorskip("moto.server")
    s3fs = pytest.importorskip("s3fs")
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    try:
        host, port = server.get_host_and_port()
        endpoint = f"http://{host}:{port}"
        fs = s3fs.S3FileSystem(endpoint_url=endpoint, key="testing", secret="testing")
        fs.mkdir("team")
        yield endpoint
    finally:
        server.stop()


def test_an_export_to_s3_appends_and_reads_as_the_store(
    db: Path, platform: FakePlatform, tmp_path: Path, s3_endpoint: str, monkeypatch: pytest.MonkeyPatch
):
    """The real command, twice, to ``s3://team/solvelens`` (the endpoint from fsspec's configuration,
    ``FSSPEC_S3_ENDPOINT_URL``): the second run uploads only the new snapshots' files; polars reads the
    manifest's files from the bucket, and DuckDB the export's views (:func:`open_export`, through s3fs), and
    both get the store's figures."""
    import s3fs

    env = {**os.environ, **DUMMY, "FSSPEC_S3_ENDPOINT_URL": s3_endpoint}

    def export() -> subprocess.CompletedProcess[str]:
        args = [sys.executable, "-m", "solvelens", "db", "export", "--db", str(db), "--parquet"]
        return subprocess.run([*args, "s3://team/solvelens"], env=env, capture_output=True, text=True)

    for day in (1, 2):
        _snapshot(db, platform, tmp_path, day)
    first = export()
    assert first.returncode == 0, first.stderr
    fs = s3fs.S3FileSystem(endpoint_url=s3_endpoint, key="testing", secret="testing")
    before = {p: fs.info(p)["ETag"] for p in fs.find("team/solvelens")}
    _snapshot(db, platform, tmp_path, 3)
    second = export()
    assert second.returncode == 0, second.stderr
    assert "appended snapshot 3" in second.stdout and "3 snapshots" in second.stdout
    after = {p: fs.info(p)["ETag"] for p in fs.find("team/solvelens")}
    changed = {p for p in after if after[p] != before.get(p)}
    assert changed - {f"team/solvelens/{MANIFEST}"}
    assert all("_id=3/" in p for p in changed - {f"team/solvelens/{MANIFEST}"}), changed

    options = {
        "aws_endpoint_url": s3_endpoint,
        "aws_access_key_id": "testing",
        "aws_secret_access_key": "testing",
        "aws_region": "us-east-1",
        "aws_allow_http": "true",
    }
    manifest = json.loads(fs.cat_file(f"team/solvelens/{MANIFEST}"))
    assert manifest["snapshot_ids"] == [1, 2, 3]
    urls = {v: [f"s3://team/solvelens/{rel}" for rel in files] for v, files in manifest["files"].items()}
    reader = duckdb.connect()  # polars reads the bucket; DuckDB runs the same SQL over polars' frames
    for view in ("leaderboard", "problems"):
        frame = pl.read_parquet(urls[view], hive_partitioning=True, storage_options=options)
        reader.register(view, frame.to_arrow())
    got = (
        reader.execute(LEADERBOARD_SQL.format(leaderboard="leaderboard")).fetchall(),
        reader.execute(PROBLEMS_SQL.format(problems="problems")).fetchall(),
    )
    assert got == _store_figures(db)
    # DuckDB reads the bucket through s3fs (no extension): the export's views, as the store's.
    import fsspec.config

    for name, value in DUMMY.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setitem(fsspec.config.conf, "s3", {"endpoint_url": s3_endpoint})
    lake = open_export("s3://team/solvelens")
    got = (
        lake.execute(LEADERBOARD_SQL.format(leaderboard="leaderboard")).fetchall(),
        lake.execute(PROBLEMS_SQL.format(problems="problems")).fetchall(),
    )
    assert got == _store_figures(db)
