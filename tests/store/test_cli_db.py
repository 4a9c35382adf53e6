"""``solvelens db info | snapshots | export | prune``."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from solvelens.cli import app
from solvelens.store import latest_solution_state, read_frame, write_snapshot
from tests.store.fakes import BASE_URL, FakePlatform, stage_run

runner = CliRunner()


def _store(db: Path, plat: FakePlatform, tmp_path: Path, n: int) -> None:
    for day in range(1, n + 1):
        plat.vote(plat.problems[day])
        carry = latest_solution_state(db, BASE_URL) if db.exists() else None
        write_snapshot(db, stage_run(tmp_path, plat, taken_at=f"2026-02-0{day}T00:00:00Z", carry=carry))


def test_db_commands(db: Path, platform: FakePlatform, tmp_path: Path):
    _store(db, platform, tmp_path, 3)
    info = runner.invoke(app, ["db", "info", "--db", str(db)], env={"COLUMNS": "200"})
    assert info.exit_code == 0, info.output
    assert "3 complete snapshots" in info.output and "solutions" in info.output

    snaps = runner.invoke(app, ["db", "snapshots", "--db", str(db)], env={"COLUMNS": "200"})
    assert snaps.exit_code == 0
    assert "2026-02-03 00:00:00" in snaps.output

    out = tmp_path / "parquet"
    export = runner.invoke(app, ["db", "export", "--parquet", str(out), "--db", str(db)])
    assert export.exit_code == 0
    assert "solutions: 300 rows" in export.output
    assert (out / "leaderboard" / "snapshot_id=3").is_dir()

    pruned = runner.invoke(app, ["db", "prune", "--keep", "1", "--db", str(db)])
    assert pruned.exit_code == 0, pruned.output
    assert "kept snapshots [3]" in pruned.output
    assert read_frame(db, "SELECT snapshot_id FROM snapshots")["snapshot_id"].to_list() == [3]


def test_db_commands_on_a_missing_store(tmp_path: Path):
    missing = tmp_path / "nope.duckdb"
    for args in (["info"], ["snapshots"], ["prune", "--keep", "1"], ["export", "--parquet", str(tmp_path)]):
        result = runner.invoke(app, ["db", *args, "--db", str(missing)])
        assert result.exit_code == 1
        assert "no snapshot store" in result.output
