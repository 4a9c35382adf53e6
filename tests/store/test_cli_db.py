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

    pruned = runner.invoke(app, ["db", "prune", "--keep", "1", "--db", str(db), "--yes"])
    assert pruned.exit_code == 0, pruned.output
    assert "kept snapshots [3]" in pruned.output
    assert read_frame(db, "SELECT snapshot_id FROM snapshots")["snapshot_id"].to_list() == [3]


def test_db_commands_on_a_missing_store(tmp_path: Path):
    missing = tmp_path / "nope.duckdb"
    for args in (["info"], ["snapshots"], ["prune", "--keep", "1"], ["export", "--parquet", str(tmp_path)]):
        result = runner.invoke(app, ["db", *args, "--db", str(missing)])
        assert result.exit_code == 1
        assert "no snapshot store" in result.output


def _lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if line.strip()]


def test_snapshots_as_json_and_csv(db: Path, platform: FakePlatform, tmp_path: Path):
    import csv
    import io
    import json

    _store(db, platform, tmp_path, 2)
    as_json = runner.invoke(app, ["db", "snapshots", "--db", str(db), "--json"])
    assert as_json.exit_code == 0, as_json.output
    records = json.loads(as_json.output)
    assert [r["snapshot_id"] for r in records] == [1, 2]
    assert records[1]["taken_at"] == "2026-02-02T00:00:00Z"
    assert records[1]["base_url"] == BASE_URL and records[1]["status"] == "complete"
    assert records[1]["counts"]["solutions"] == 100 and records[1]["warnings"] == []
    # the fields the snapshot log keeps, and no "changes" (always null for new snapshots: `solvelens diff`)
    assert list(records[1]) == [
        "snapshot_id",
        "taken_at",
        "base_url",
        "status",
        "started_at",
        "finished_at",
        "duration_s",
        "counts",
        "warnings",
        "drift",
    ]
    logged = read_frame(db, "SELECT finished_at, duration_s FROM snapshots WHERE snapshot_id = 2").row(0)
    assert records[1]["finished_at"] == logged[0].isoformat().replace("+00:00", "Z")
    assert records[1]["duration_s"] == logged[1] and records[1]["drift"] == []

    as_csv = runner.invoke(app, ["db", "snapshots", "--db", str(db), "--csv"])
    assert as_csv.exit_code == 0, as_csv.output
    rows = list(csv.DictReader(io.StringIO(as_csv.output)))
    assert [r["snapshot_id"] for r in rows] == ["1", "2"]
    assert rows[0]["taken_at"] == "2026-02-01T00:00:00Z"
    assert json.loads(rows[0]["counts"])["problems"] == 20 and rows[0]["warnings"] == "0"

    both = runner.invoke(app, ["db", "snapshots", "--db", str(db), "--json", "--csv"])
    assert both.exit_code == 2 and "not both" in both.output


def test_delete_one_snapshot_keeps_the_others_and_later_snapshots_carry_over(
    db: Path, platform: FakePlatform, tmp_path: Path
):
    _store(db, platform, tmp_path, 3)
    before = read_frame(db, "SELECT * FROM solutions WHERE snapshot_id IN (1, 3) ORDER BY ALL")

    declined = runner.invoke(app, ["db", "delete", "2", "--db", str(db)], input="n\n")
    assert declined.exit_code == 1 and "nothing was deleted" in declined.output
    assert read_frame(db, "SELECT count(*) AS n FROM snapshots")["n"][0] == 3

    confirmed = runner.invoke(app, ["db", "delete", "2", "--db", str(db)], input="y\n")
    assert confirmed.exit_code == 0, confirmed.output
    assert "deleted snapshot 2 (complete, taken at 2026-02-02 00:00:00 UTC" in confirmed.output
    assert read_frame(db, "SELECT snapshot_id FROM snapshots")["snapshot_id"].to_list() == [1, 3]
    after = read_frame(db, "SELECT * FROM solutions WHERE snapshot_id IN (1, 3) ORDER BY ALL")
    assert after.equals(before)

    missing = runner.invoke(app, ["db", "delete", "2", "--db", str(db), "--yes"])
    assert missing.exit_code == 1
    assert _lines(missing.output) == [
        f"error: there is no snapshot 2 in {db}; list them with `solvelens db snapshots --db {db}`"
    ]

    # The newest goes too; the next snapshot carries over from snapshot 1 and gets a new id.
    assert runner.invoke(app, ["db", "delete", "3", "--db", str(db), "--yes"]).exit_code == 0
    carry = latest_solution_state(db, BASE_URL)
    assert carry and len(carry) == 20
    result = write_snapshot(db, stage_run(tmp_path, platform, taken_at="2026-02-04T00:00:00Z", carry=carry))
    assert result.snapshot_id == 4
    assert result.counts["solutions"] == 100
    assert read_frame(db, "SELECT count(*) AS n FROM solutions WHERE snapshot_id = 4")["n"][0] == 100


def _foreign_files(tmp_path: Path) -> dict[str, Path]:
    import duckdb

    files = {name: tmp_path / f"{name}.duckdb" for name in ("empty", "text", "duckdb-other", "duckdb-blank")}
    files["empty"].write_bytes(b"")
    files["text"].write_text("name,score\nalice,3\n")
    con = duckdb.connect(str(files["duckdb-other"]))
    con.execute("CREATE TABLE orders AS SELECT 1 AS id")
    con.close()
    duckdb.connect(str(files["duckdb-blank"])).close()
    return files


def test_every_db_command_answers_a_foreign_or_empty_file_in_one_line(tmp_path: Path):
    files = _foreign_files(tmp_path)
    commands = (
        ["info"],
        ["snapshots"],
        ["snapshots", "--json"],
        ["export", "--parquet", str(tmp_path / "out")],
        ["prune", "--keep", "1"],
        ["delete", "1", "--yes"],
    )
    for name, path in files.items():
        content = path.read_bytes()
        for args in commands:
            result = runner.invoke(app, ["db", *args, "--db", str(path)])
            # Exit 2 (bad input) as for snapshot and report given such a --db (issue 18's exit-code table).
            assert result.exit_code == 2, (name, args, result.output)
            lines = _lines(result.output)
            assert len(lines) == 1, (name, args, result.output)
            assert lines[0].startswith(f"error: {path} ") and "not a solvelens store" in lines[0], lines
            assert path.read_bytes() == content, (name, args)  # never changed
