"""``solvelens db``'s answers to bad input and its confirmations: export targets, prune's confirmation and
compaction, ``db compact``, and ``db snapshots`` within 80 columns."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from solvelens.cli import app
from solvelens.store import latest_solution_state, read_frame, write_snapshot
from solvelens.store.export import MANIFEST
from tests.store.fakes import BASE_URL, FakePlatform, stage_run

runner = CliRunner()


def _store(db: Path, plat: FakePlatform, tmp_path: Path, n: int) -> None:
    for day in range(1, n + 1):
        plat.vote(plat.problems[day % len(plat.problems)])
        plat.add_problem(4)
        carry = latest_solution_state(db, BASE_URL) if db.exists() else None
        write_snapshot(db, stage_run(tmp_path, plat, taken_at=f"2026-02-{day:02d}T00:00:00Z", carry=carry))


def _lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if line.strip()]


def _ids(db: Path) -> list[int]:
    return read_frame(db, "SELECT snapshot_id FROM snapshots ORDER BY 1")["snapshot_id"].to_list()


def test_export_into_a_file_is_one_line_and_exit_2(db: Path, platform: FakePlatform, tmp_path: Path):
    _store(db, platform, tmp_path, 1)
    target = tmp_path / "export.parquet"
    target.write_bytes(b"not a folder")
    result = runner.invoke(app, ["db", "export", "--parquet", str(target), "--db", str(db)])
    assert result.exit_code == 2
    assert _lines(result.output) == [
        f"error: {target} is a file, not a folder; pass --parquet a new or empty folder"
    ]
    assert target.read_bytes() == b"not a folder"


def test_export_refuses_a_folder_it_did_not_write(db: Path, platform: FakePlatform, tmp_path: Path):
    _store(db, platform, tmp_path, 1)
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "notes.txt").write_text("keep me")
    result = runner.invoke(app, ["db", "export", "--parquet", str(folder), "--db", str(db)])
    assert result.exit_code == 2
    lines = _lines(result.output)
    assert len(lines) == 1 and "holds no earlier solvelens export" in lines[0], lines
    assert sorted(p.name for p in folder.iterdir()) == ["notes.txt"]


def test_export_replaces_what_an_earlier_export_wrote(db: Path, platform: FakePlatform, tmp_path: Path):
    _store(db, platform, tmp_path, 3)
    out = tmp_path / "export"
    first = runner.invoke(app, ["db", "export", "--parquet", str(out), "--db", str(db)])
    assert first.exit_code == 0, first.output
    manifest = json.loads((out / MANIFEST).read_text())
    assert manifest["snapshot_ids"] == [1, 2, 3] and manifest["views"]["problems"] == 21 + 22 + 23
    assert manifest["complete"] is True
    (out / "README.txt").write_text("a note beside the export")  # not the export's: kept

    # Snapshot 1 is deleted; the next export holds only 2 and 3 (never the old partition beside them).
    assert runner.invoke(app, ["db", "delete", "1", "--db", str(db), "--yes", "--no-compact"]).exit_code == 0
    again = runner.invoke(app, ["db", "export", "--parquet", str(out), "--db", str(db)])
    assert again.exit_code == 0, again.output
    assert sorted(p.name for p in (out / "problems").iterdir()) == ["snapshot_id=2", "snapshot_id=3"]
    exported = pl.read_parquet(out / "solutions" / "**" / "*.parquet", hive_partitioning=True)
    assert sorted(exported["snapshot_id"].unique().to_list()) == [2, 3]
    assert exported.height == read_frame(db, "SELECT count(*) AS n FROM solutions")["n"][0]
    assert json.loads((out / MANIFEST).read_text())["snapshot_ids"] == [2, 3]
    assert (out / "README.txt").read_text() == "a note beside the export"
    assert not any(p.name.startswith(".solvelens-export") for p in out.iterdir())

    # --since: the folder then holds exactly that export.
    newest = runner.invoke(app, ["db", "export", "--parquet", str(out), "--db", str(db), "--since", "3"])
    assert newest.exit_code == 0, newest.output
    assert sorted(p.name for p in (out / "bots").iterdir()) == ["snapshot_id=3"]


def test_prune_says_what_it_removes_and_asks_first(db: Path, platform: FakePlatform, tmp_path: Path):
    _store(db, platform, tmp_path, 5)
    declined = runner.invoke(app, ["db", "prune", "--keep", "2", "--db", str(db)], input="n\n")
    assert declined.exit_code == 1
    assert "Remove 3 snapshots (ids 1-3, taken 2026-02-01 00:00 .. 2026-02-03 00:00 UTC)" in declined.output
    assert "keeping the newest 2" in declined.output
    assert "not confirmed; nothing was deleted" in declined.output
    assert _ids(db) == [1, 2, 3, 4, 5]

    no_answer = runner.invoke(app, ["db", "prune", "--keep", "2", "--db", str(db)])  # end of input
    assert no_answer.exit_code == 1 and "nothing was deleted" in no_answer.output
    assert _ids(db) == [1, 2, 3, 4, 5]

    size = db.stat().st_size
    confirmed = runner.invoke(app, ["db", "prune", "--keep", "2", "--db", str(db), "--compact"], input="y\n")
    assert confirmed.exit_code == 0, confirmed.output
    assert "kept snapshots [4, 5]; removed 3 snapshots" in confirmed.output
    assert "compacted" in confirmed.output and "given back" in confirmed.output
    assert _ids(db) == [4, 5]
    assert db.stat().st_size < size

    nothing = runner.invoke(app, ["db", "prune", "--keep", "2", "--db", str(db)])
    assert nothing.exit_code == 0
    assert _lines(nothing.output) == [f"nothing to prune: {db} holds 2 complete snapshots (--keep 2)"]


def test_prune_with_yes_and_bad_keep(db: Path, platform: FakePlatform, tmp_path: Path):
    _store(db, platform, tmp_path, 3)
    bad = runner.invoke(app, ["db", "prune", "--keep", "0", "--db", str(db), "--yes"])
    assert bad.exit_code == 2
    assert len(_lines(bad.output)) == 1 and "--keep must be at least 1" in bad.output
    assert _ids(db) == [1, 2, 3]
    done = runner.invoke(app, ["db", "prune", "--keep", "1", "--db", str(db), "--yes"])
    assert done.exit_code == 0, done.output
    assert "?" not in done.output  # no question asked
    assert "`solvelens db compact" in done.output  # not interactive: a hint, no compaction
    assert _ids(db) == [3]


def test_db_compact_prints_the_space_given_back(db: Path, platform: FakePlatform, tmp_path: Path):
    _store(db, platform, tmp_path, 6)
    assert runner.invoke(app, ["db", "prune", "--keep", "1", "--db", str(db), "--yes"]).exit_code == 0
    info = runner.invoke(app, ["db", "info", "--db", str(db)], env={"COLUMNS": "200"})
    assert "MiB of the file are free blocks" in info.output
    result = runner.invoke(app, ["db", "compact", "--db", str(db)])
    assert result.exit_code == 0, result.output
    (line,) = _lines(result.output)
    assert line.startswith(f"compacted {db}: ") and "MiB given back in" in line
    assert _ids(db) == [6]
    missing = runner.invoke(app, ["db", "compact", "--db", str(tmp_path / "nope.duckdb")])
    assert missing.exit_code == 1 and "no snapshot store" in missing.output


def test_snapshots_fit_80_columns_with_whole_dates(db: Path, platform: FakePlatform, tmp_path: Path):
    _store(db, platform, tmp_path, 12)
    narrow = runner.invoke(app, ["db", "snapshots", "--db", str(db)], env={"COLUMNS": "80"})
    assert narrow.exit_code == 0, narrow.output
    lines = narrow.output.splitlines()
    assert max(len(line) for line in lines) <= 80, narrow.output
    assert lines[0] == f"12 snapshots of {BASE_URL}"
    rows = [line for line in lines if "2026-02-" in line]
    assert len(rows) == 12  # one line per snapshot
    assert "2026-02-12 00:00:00" in rows[-1] and "…" not in narrow.output
    wide = runner.invoke(app, ["db", "snapshots", "--db", str(db)], env={"COLUMNS": "160"})
    assert "leaderboard" in wide.output and "categories" in wide.output
    assert max(len(line) for line in wide.output.splitlines()) <= 160


def test_a_failed_export_leaves_the_earlier_export_whole(
    db: Path, platform: FakePlatform, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    import importlib

    from solvelens.store import export_parquet

    export_module = importlib.import_module("solvelens.store.export")
    _store(db, platform, tmp_path, 2)
    out = tmp_path / "export"
    export_parquet(db, out)
    before = sorted(str(p.relative_to(out)) for p in out.rglob("*"))
    _store(db, platform, tmp_path, 3)  # a new snapshot for the next export to append
    copy_view = export_module._copy_view

    def fail_on_solutions(con: object, view: str, *args: object) -> int:
        if view == "solutions":
            raise KeyboardInterrupt
        return int(copy_view(con, view, *args))

    monkeypatch.setattr(export_module, "_copy_view", fail_on_solutions)
    with pytest.raises(KeyboardInterrupt):
        export_parquet(db, out)
    assert sorted(str(p.relative_to(out)) for p in out.rglob("*")) == before
    assert json.loads((out / MANIFEST).read_text())["complete"] is True


def _answer_prompts(args: list[str], answers: list[str], timeout_s: float = 60.0) -> tuple[int, str]:
    """Run ``solvelens ARGS`` on a pseudo-terminal, answering each ``[y/N]`` prompt in turn."""
    import os
    import pty
    import subprocess
    import sys
    import time

    from tests.fixtures.terminal import readable

    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "solvelens", *args], stdin=follower, stdout=follower, stderr=follower
    )
    os.close(follower)
    output, pending, deadline = b"", list(answers), time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if readable(leader, 0.2):
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the process ended and closed the terminal
                break
            if not chunk:
                break
            output += chunk
            if pending and output.rstrip().endswith(b"[y/N]:"):
                os.write(leader, pending.pop(0).encode() + b"\n")
        elif proc.poll() is not None:
            break
    os.close(leader)
    return proc.wait(timeout=timeout_s), output.decode(errors="replace")


def test_on_a_terminal_prune_asks_then_offers_compaction(db: Path, platform: FakePlatform, tmp_path: Path):
    _store(db, platform, tmp_path, 4)
    size = db.stat().st_size
    code, output = _answer_prompts(["db", "prune", "--keep", "1", "--db", str(db)], ["y", "y"])
    assert code == 0, output
    assert "Remove 3 snapshots" in output and "compact it now?" in output
    assert "compacted" in output and "given back" in output
    assert _ids(db) == [4] and db.stat().st_size < size


def test_on_a_terminal_yes_asks_nothing(db: Path, platform: FakePlatform, tmp_path: Path):
    _store(db, platform, tmp_path, 3)
    code, output = _answer_prompts(["db", "delete", "1", "--db", str(db), "--yes"], [], timeout_s=60)
    assert code == 0, output
    assert "[y/N]" not in output and "`solvelens db compact" in output
    assert _ids(db) == [2, 3]
