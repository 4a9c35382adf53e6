"""A damaged store, a foreign file and a store cut short, told apart by every command (issue 33): one line,
the documented exit code (1 damaged, 2 not a store), what to do, no traceback, and the file's bytes unchanged.

The damage is laid out here: one 16 KiB block overwritten (found by SQL of this test: the first block whose
damage a full read of every table finds while the file still opens, i.e. a data block; and block 0, in the
catalog, which DuckDB reads when it opens the file), or the file cut to half its size."""

from __future__ import annotations

import resource
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from solvelens.cli import app
from solvelens.store import latest_solution_state, write_snapshot
from tests.store.fakes import BASE_URL, make_platform, stage_run

runner = CliRunner()
HEADER, BLOCK = 3 * 4096, 16 * 1024


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store of three snapshots written by the store's writer."""
    folder = tmp_path_factory.mktemp("pristine")
    db = folder / "store.duckdb"
    plat = make_platform()
    for day in range(1, 4):
        plat.vote(plat.problems[day % len(plat.problems)])
        plat.add_problem(4)
        carry = latest_solution_state(db, BASE_URL) if db.exists() else None
        write_snapshot(
            db, stage_run(folder / f"s{day}", plat, taken_at=f"2026-02-0{day}T00:00:00Z", carry=carry)
        )
    return db


def _damage(path: Path, block: int) -> None:
    with path.open("r+b") as f:
        f.seek(HEADER + block * BLOCK)
        f.write(b"\xa5" * BLOCK)


def _reads_whole(path: Path) -> bool | None:
    """True: opens and every column of every table reads; False: opens, a read fails; None: does not open."""
    try:
        con = duckdb.connect(str(path), read_only=True)
    except duckdb.Error:
        return None
    try:
        for schema, table in con.execute("SELECT schema_name, table_name FROM duckdb_tables()").fetchall():
            con.execute(f'SELECT bit_xor(hash(t)) FROM "{schema}"."{table}" AS t').fetchall()
        return True
    except duckdb.Error:
        return False
    finally:
        con.close()


@pytest.fixture(scope="module")
def data_block(pristine: Path, tmp_path_factory: pytest.TempPathFactory) -> int:
    probe = tmp_path_factory.mktemp("probe") / "probe.duckdb"
    for block in range((pristine.stat().st_size - HEADER) // BLOCK):
        shutil.copyfile(pristine, probe)
        _damage(probe, block)
        if _reads_whole(probe) is False:
            return block
    raise AssertionError("no data block whose damage a full read finds")


@pytest.fixture
def damaged(pristine: Path, data_block: int, tmp_path: Path) -> Path:
    db = tmp_path / "damaged.duckdb"
    shutil.copyfile(pristine, db)
    _damage(db, data_block)
    return db


def _one_error_line(result, code: int) -> str:
    assert result.exit_code == code, (result.exit_code, result.output)
    assert "Traceback" not in result.output, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    return lines[0]


def test_db_check_reads_every_block_and_exits_1_on_a_damaged_block(damaged: Path, pristine: Path):
    before = damaged.read_bytes()
    assert runner.invoke(app, ["db", "check", "--db", str(pristine)]).exit_code in (0, 3)
    line = _one_error_line(runner.invoke(app, ["db", "check", "--db", str(damaged)]), 1)
    assert f"{damaged} is damaged (DuckDB: Corrupt database file" in line
    assert "restore an earlier copy" in line and "Parquet export" in line
    assert damaged.read_bytes() == before


@pytest.mark.parametrize(
    "argv",
    [["db", "info"], ["db", "check"], ["db", "compact"], ["db", "prune", "--keep", "1", "--yes"]],
    ids=["info", "check", "compact", "prune"],
)
def test_a_damaged_block_is_one_line_exit_1_and_nothing_changed(argv: list[str], damaged: Path):
    before = damaged.read_bytes()
    line = _one_error_line(runner.invoke(app, [*argv, "--db", str(damaged)]), 1)
    assert "is damaged" in line and "left unchanged" in line, line
    assert damaged.read_bytes() == before


def test_a_damaged_catalog_block_is_one_line_for_db_info(pristine: Path, tmp_path: Path):
    db = tmp_path / "catalog.duckdb"
    shutil.copyfile(pristine, db)
    _damage(db, 0)
    assert _reads_whole(db) is None, "block 0 holds the catalog: DuckDB cannot open the file"
    line = _one_error_line(runner.invoke(app, ["db", "info", "--db", str(db)]), 1)
    assert f"{db} is damaged (DuckDB: Corrupt database file: computed checksum" in line


def test_report_on_a_damaged_store_exits_1_not_2(damaged: Path, tmp_path: Path):
    result = runner.invoke(app, ["report", "--db", str(damaged), "--out", str(tmp_path / "r.html")])
    assert "is damaged" in _one_error_line(result, 1)
    assert not (tmp_path / "r.html").exists()


@pytest.mark.parametrize(
    "argv", [["db", "info"], ["db", "snapshots"], ["db", "check"], ["db", "compact"], ["diff"]]
)
def test_a_store_cut_short_is_called_damaged_not_foreign(argv: list[str], pristine: Path, tmp_path: Path):
    db = tmp_path / "cut.duckdb"
    db.write_bytes(pristine.read_bytes()[: pristine.stat().st_size // 2])
    before = db.read_bytes()
    line = _one_error_line(runner.invoke(app, [*argv, "--db", str(db)]), 1)
    assert f"{db} is damaged (cut short at {len(before):,} bytes" in line, line
    assert "not a DuckDB file" not in line
    assert db.read_bytes() == before


@pytest.mark.parametrize("argv", [["db", "snapshots"], ["diff"], ["report"]])
def test_a_store_missing_only_its_last_block_is_damaged_for_commands_that_never_read_it(
    argv: list[str], pristine: Path, tmp_path: Path
):
    """Only the last block cut off: the snapshots list, diff and the report may never read it, so the file's
    length against the blocks its header lists is what tells (the half-cut test above passed for `db
    snapshots` only while the store's layout put the snapshots table past the middle)."""
    db = tmp_path / "cut.duckdb"
    db.write_bytes(pristine.read_bytes()[:-BLOCK])
    before = db.read_bytes()
    extra = ["--out", str(tmp_path / "r.html")] if argv == ["report"] else []
    line = _one_error_line(runner.invoke(app, [*argv, "--db", str(db), *extra]), 1)
    assert f"{db} is damaged (cut short at {len(before):,} bytes of " in line, line
    assert db.read_bytes() == before


def test_a_foreign_file_is_still_not_a_duckdb_file_exit_2(tmp_path: Path):
    other = tmp_path / "notes.duckdb"
    other.write_text("a text file\n" * 2000)
    line = _one_error_line(runner.invoke(app, ["db", "info", "--db", str(other)]), 2)
    assert "is not a DuckDB file, so it is not a solvelens store" in line


#: The file size limit of a full disk, in bytes (``RLIMIT_FSIZE`` in the child): a commit's few rows fit in a
#: new WAL, the store's own blocks (past 4 KiB) do not.
FULL_DISK_FSIZE = 4 * 1024


def _full_disk_child() -> None:
    """In the child, before exec: every file write past 4 KiB fails with EFBIG, as on a full disk."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (FULL_DISK_FSIZE, FULL_DISK_FSIZE))


def _files_beside(db: Path) -> dict[str, bytes]:
    """Every file in the store's folder (the store, a WAL, a temporary copy), by name."""
    return {p.name: p.read_bytes() for p in sorted(db.parent.iterdir()) if p.is_file()}


def _snapshot_ids(db: Path) -> list[int]:
    """The snapshot ids of the store's log, by SQL of these tests (the file opened read-only again)."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        return [
            r[0]
            for r in con.execute("SELECT snapshot_id FROM solvelens_store.snapshot_log ORDER BY 1").fetchall()
        ]
    finally:
        con.close()


@pytest.mark.parametrize(
    "argv",
    [["db", "prune", "--keep", "1"], ["db", "delete", "1"]],
    ids=["prune", "delete"],
)
def test_prune_and_delete_on_a_full_disk_change_no_byte_of_the_store(
    argv: list[str], pristine: Path, tmp_path: Path
):
    """A prune or delete that cannot be written leaves the store's bytes as they were, with no WAL that the
    next open would fold in (the change must not land later while the command said it failed)."""
    folder = tmp_path / "full"
    folder.mkdir()
    db = folder / "store.duckdb"
    shutil.copyfile(pristine, db)
    before = _files_beside(db)
    proc = subprocess.run(
        [sys.executable, "-m", "solvelens", *argv, "--yes", "--no-compact", "--db", str(db)],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        preexec_fn=_full_disk_child,
        timeout=120,
    )
    assert proc.returncode == 1, (proc.returncode, proc.stdout, proc.stderr)
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout
    assert "ran out of space" in lines[0] and "left unchanged" in lines[0], lines[0]
    assert _files_beside(db) == before, "the store's folder changed"
    assert _snapshot_ids(db) == [1, 2, 3]  # every snapshot is still there once the file is opened again


def test_a_snapshot_commit_on_a_full_disk_leaves_the_stores_folder_as_it_was(pristine: Path, tmp_path: Path):
    """The commit of a snapshot that cannot be written (its WAL past the file size limit) raises the full
    disk's error, which says the store was left unchanged: so is its folder (no WAL the commit began)."""
    folder = tmp_path / "full"
    folder.mkdir()
    db = folder / "store.duckdb"
    shutil.copyfile(pristine, db)
    plat = make_platform()
    plat.add_problem(6)
    staged = stage_run(tmp_path / "staged", plat, taken_at="2026-02-09T00:00:00Z")
    before = _files_beside(db)
    write = "import sys; from solvelens.store import write_snapshot; write_snapshot(sys.argv[1], sys.argv[2])"
    proc = subprocess.run(
        [sys.executable, "-c", write, str(db), str(staged.path)],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        preexec_fn=_full_disk_child,
        timeout=120,
    )
    assert proc.returncode == 1, (proc.returncode, proc.stderr)
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("solvelens.store.errors.StoreDiskFullError: ") and "Failed to commit" in last, last
    assert "the store was left unchanged" in last
    assert _files_beside(db) == before, "the store's folder changed"
    assert _snapshot_ids(db) == [1, 2, 3]  # the three snapshots, and no fourth
