"""The demo end to end: real sandbox server subprocess, Prefect flow runs, DuckDB file and report."""

from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path

import pytest
from rich.console import Console

from solvelens.demo import DemoError, print_summary, run_demo
from solvelens.store import read_frame
from tests.notebooks.test_notebooks import CHARTS, execute_notebook

DAYS = 3


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory: pytest.TempPathFactory, prefect_harness: None):
    root = tmp_path_factory.mktemp("demo")
    console = Console(record=True, width=120)
    result = run_demo(
        db_path=root / "solvelens.duckdb",
        sandbox_db=root / "sandbox.sqlite",
        reports_dir=root / "reports",
        days=DAYS,
        console=console,
    )
    return result, console, root


def test_demo_takes_one_snapshot_per_simulated_day(demo_run) -> None:
    result, _, _ = demo_run
    # its bot's key was in this process's environment for the snapshots only (tests after it read no key)
    assert "SOLVELENS_API_KEY" not in os.environ
    snaps = read_frame(
        result.db_path, "SELECT snapshot_id, taken_at, status FROM snapshots ORDER BY taken_at"
    )
    assert snaps.height == DAYS + 1
    assert set(snaps["status"]) == {"complete"}
    gaps = snaps["taken_at"].diff().drop_nulls().to_list()
    assert gaps == [timedelta(days=1)] * DAYS


def test_demo_snapshots_hold_every_resource_and_history_moves(demo_run) -> None:
    result, _, _ = demo_run
    counts = read_frame(
        result.db_path,
        """
        SELECT s.snapshot_id,
          (SELECT count(*) FROM problems p WHERE p.snapshot_id = s.snapshot_id) AS problems,
          (SELECT count(*) FROM solutions x WHERE x.snapshot_id = s.snapshot_id) AS solutions,
          (SELECT count(*) FROM categories c WHERE c.snapshot_id = s.snapshot_id) AS categories,
          (SELECT count(*) FROM leaderboard l WHERE l.snapshot_id = s.snapshot_id) AS leaderboard,
          (SELECT count(*) FROM bots b WHERE b.snapshot_id = s.snapshot_id) AS bots,
          (SELECT count(*) FROM platform_stats t WHERE t.snapshot_id = s.snapshot_id) AS stats
        FROM snapshots s ORDER BY s.taken_at
        """,
    )
    assert counts["categories"].to_list() == [8] * (DAYS + 1)
    for column in ("problems", "solutions", "leaderboard", "bots", "stats"):
        assert counts[column].min() > 0, column
    # The simulator adds problems and solutions every day.
    assert counts["problems"][-1] > counts["problems"][0]
    assert counts["solutions"][-1] > counts["solutions"][0]
    # Every leaderboard bot has its profile in the same snapshot.
    missing = read_frame(
        result.db_path,
        "SELECT count(*) AS n FROM leaderboard l ANTI JOIN bots b USING (snapshot_id, bot_id)",
    )
    assert missing["n"][0] == 0


def test_demo_writes_a_self_contained_report(demo_run) -> None:
    result, _, _ = demo_run
    html = result.report_path.read_text(encoding="utf-8")
    assert result.report_path.stat().st_size > 100_000  # Vega inlined, not loaded from a CDN
    assert "cdn.jsdelivr" not in html and '<script src="http' not in html


def test_demo_summary_names_top_bots_and_paths(demo_run) -> None:
    result, console, _ = demo_run
    print_summary(result, console)
    text = console.export_text(clear=False)
    top = read_frame(
        result.db_path,
        "SELECT name FROM leaderboard WHERE snapshot_id = (SELECT max(snapshot_id) FROM snapshots) "
        "ORDER BY rank LIMIT 5",
    )
    for name in top["name"]:
        assert name in text
    assert str(result.report_path) in text
    assert f"{DAYS + 1} snapshots" in text
    assert "simulated" in text and "vs previous" in text and "vs first" in text


def test_demo_hints_write_inside_the_demo_folder_with_this_environments_commands(demo_run) -> None:
    """The hints' commands are this environment's scripts (not a bare `solvelens` off the PATH) and every
    path they write or serve lies in the demo's folder."""
    import re

    result, console, root = demo_run
    print_summary(result, console)
    text = " ".join(console.export_text(clear=False).split())
    bot = re.search(r"One bot: (\S+) report --db (\S+) --bot NAME_OR_ID --out (\S+)", text)
    serve = re.search(r"serve it again: (\S+) sandbox serve --db (\S+)\)", text)
    lab = re.search(r"SOLVELENS_DB=(\S+) (\S+) lab ", text)
    assert bot and serve and lab, text
    for command in (bot[1], serve[1], lab[2]):
        assert Path(command).is_file() and os.access(command, os.X_OK), command  # e.g. .venv/bin/solvelens
    for path in (bot[2], bot[3], serve[2], lab[1]):
        assert Path(path).resolve().is_relative_to(root.resolve()), path


def test_demo_summary_and_report_use_one_definition_of_change(demo_run) -> None:
    from solvelens import analysis as an
    from solvelens.report import report_content

    result, _, _ = demo_run
    store = an.load(result.db_path)
    table = an.current_leaderboard(an.rank_history(store.leaderboard, store.snapshots), top=5)
    content = report_content(store)
    for row, shown in zip(table.iter_rows(named=True), content.leaderboard, strict=False):
        assert shown["name"] == row["name"]
        assert shown["move_first_key"] == (
            row["rank_change_first"] if row["rank_change_first"] is not None else ""
        )
    html = result.report_path.read_text(encoding="utf-8")
    assert "Simulated data" in html and "days old" not in html


def test_demo_bot_works_and_its_own_history_is_recorded(demo_run) -> None:
    result, _, _ = demo_run
    me = read_frame(
        result.db_path,
        "SELECT m.name, m.total_solutions, m.total_votes FROM bot_me m JOIN snapshots s USING (snapshot_id) "
        "ORDER BY s.taken_at",
    )
    assert me.height == DAYS + 1
    assert set(me["name"]) == {"demo-bot"}
    assert me["total_solutions"][0] + me["total_votes"][0] == 0
    assert me["total_solutions"][-1] + me["total_votes"][-1] > 0


def test_leaderboard_notebook_runs_against_the_demo_store(demo_run, monkeypatch: pytest.MonkeyPatch) -> None:
    result, _, _ = demo_run
    monkeypatch.setenv("SOLVELENS_DB", str(result.db_path))
    outputs = execute_notebook("leaderboard_history.ipynb")
    svgs = sum("image/svg+xml" in out.get("data", {}) for out in outputs)
    assert svgs == CHARTS["leaderboard_history.ipynb"]
    text = "".join(out.get("text", "") for out in outputs if out.get("output_type") == "stream")
    assert f"{DAYS + 1} snapshot(s) from" in text


def _foreign_store(tmp_path: Path) -> Path:
    """A store that has snapshots of a platform on localhost (e.g. a real one through an SSH tunnel)."""
    from solvelens.store import write_snapshot
    from tests.store.fakes import make_platform, stage_run

    db = tmp_path / "tunnel.duckdb"
    write_snapshot(db, stage_run(tmp_path, make_platform(), taken_at="2026-02-01T00:00:00Z"))
    return db


def test_demo_never_replaces_a_store_it_did_not_make(tmp_path: Path) -> None:
    db = _foreign_store(tmp_path)
    before = db.read_bytes()
    with pytest.raises(DemoError) as failed:
        run_demo(
            db_path=db,
            sandbox_db=tmp_path / "s.sqlite",
            reports_dir=tmp_path,
            days=1,
            console=Console(quiet=True),
        )
    message = str(failed.value)
    assert f"{db} holds 1 snapshots the demo did not take (ids 1: http://127.0.0.1:1/api/v1)" in message
    assert "--force" in message and "\n" not in message
    assert db.read_bytes() == before and not (tmp_path / "s.sqlite").exists()


def test_demo_replaces_other_files_only_with_force_and_says_so(tmp_path: Path) -> None:
    from solvelens.demo import claim_outputs

    db = _foreign_store(tmp_path)
    sandbox_db = tmp_path / "mine.sqlite"
    sandbox_db.write_text("my notes")
    with pytest.raises(DemoError, match=r"mine\.sqlite holds not a sandbox database"):
        claim_outputs(tmp_path / "new.duckdb", sandbox_db, force=False, console=Console(quiet=True))
    assert sandbox_db.read_text() == "my notes"
    asked: list[str] = []
    with pytest.raises(DemoError, match="not confirmed"):  # a "no" on the terminal deletes nothing
        claim_outputs(db, sandbox_db, force=True, console=Console(quiet=True), confirm=asked.append)  # type: ignore[arg-type]
    assert asked == [f"Delete {db} and everything in it?"] and db.exists() and sandbox_db.exists()
    console = Console(record=True, width=300)
    claim_outputs(db, sandbox_db, force=True, console=console, confirm=lambda q: True)
    text = console.export_text(clear=False)
    assert (
        f"--force: would delete {db}: 1 snapshots the demo did not take (ids 1: http://127.0.0.1:1/api/v1)"
        in text
    )
    assert f"--force: would delete {sandbox_db}: not a sandbox database" in text
    assert not db.exists() and not sandbox_db.exists()


def test_demo_cli_refuses_in_one_line(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from solvelens.cli import app

    db = _foreign_store(tmp_path)
    result = CliRunner().invoke(
        app, ["demo", "--db", str(db), "--sandbox-db", str(tmp_path / "s.sqlite"), "--days", "1"]
    )
    assert result.exit_code == 1
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith(f"error: {db} holds 1 snapshots the demo did not take"), (
        lines
    )
    assert db.exists()


def test_the_demo_keeps_a_store_it_made_once_it_holds_a_snapshot_it_did_not_take(
    demo_run, tmp_path: Path
) -> None:
    """Whoever created the file: the demo's own store with a user's snapshot added is never replaced, nor its
    sandbox database with a bot a user created in it."""
    import shutil

    from solvelens.demo import claim_outputs
    from solvelens.sandbox.accounts import create_bot
    from solvelens.store import write_snapshot
    from tests.store.fakes import make_platform, stage_run

    result, _, _ = demo_run
    db, sandbox_db = tmp_path / "demo.duckdb", tmp_path / "demo.sqlite"
    shutil.copy(result.db_path, db)
    shutil.copy(result.sandbox_db, sandbox_db)
    user = write_snapshot(
        db, stage_run(tmp_path, make_platform(), taken_at="2030-01-01T00:00:00Z")
    ).snapshot_id
    create_bot(sandbox_db, "user-bot")
    before = db.read_bytes(), sandbox_db.read_bytes()
    with pytest.raises(
        DemoError, match=rf"1 snapshots the demo did not take \(ids {user}: http://127.0.0.1:1/api/v1\)"
    ):
        claim_outputs(db, tmp_path / "new.sqlite", force=False, console=Console(quiet=True))
    with pytest.raises(DemoError, match=r"1 bots the demo did not make \(user-bot\)"):
        claim_outputs(tmp_path / "new.duckdb", sandbox_db, force=False, console=Console(quiet=True))
    assert (db.read_bytes(), sandbox_db.read_bytes()) == before


def test_the_readmes_real_use_then_the_demo_loses_nothing(
    demo_run, sandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, prefect_harness: None
) -> None:
    """The README's real-platform snapshot (``--db data/solvelens.duckdb``) and bot lines (``sandbox
    build`` and ``sandbox create-bot my-bot --db data/sandbox.sqlite``), then the demo with its defaults:
    every snapshot and bot is still there, byte for byte, and the demo wrote under data/demo/.

    data/demo/ holds the outputs of an earlier demo run (copies of ``demo_run``'s store and sandbox
    database, its 4 snapshots): the demo runs a second time there, replacing its own outputs (its store
    then holds the new run's 2 snapshots). One demo run checks both (each run costs a build, a simulation
    and Prefect flow runs)."""
    import shutil
    import sqlite3

    from typer.testing import CliRunner

    from solvelens.cli import app

    result, _, _ = demo_run
    earlier = tmp_path / "data" / "demo"
    earlier.mkdir(parents=True)
    shutil.copy(result.db_path, earlier / "solvelens.duckdb")
    shutil.copy(result.sandbox_db, earlier / "sandbox.sqlite")
    assert read_frame(earlier / "solvelens.duckdb", "SELECT count(*) AS n FROM snapshots")["n"][0] == DAYS + 1
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("SOLVELENS_API_KEY", raising=False)  # run_demo sets it for its own process
    runner = CliRunner()
    taken = runner.invoke(
        app,
        ["snapshot", "--base-url", sandbox.base_url, "--db", "data/solvelens.duckdb", "--resources", "none"],
    )
    assert taken.exit_code == 0, taken.output
    built = runner.invoke(app, ["sandbox", "build", "--db", "data/sandbox.sqlite"])
    assert built.exit_code == 0, built.output
    made = runner.invoke(app, ["sandbox", "create-bot", "my-bot", "--db", "data/sandbox.sqlite"])
    assert made.exit_code == 0, made.output
    store, platform = Path("data/solvelens.duckdb"), Path("data/sandbox.sqlite")
    before = store.read_bytes()
    demo = runner.invoke(app, ["demo", "--days", "1"])
    assert demo.exit_code == 0, demo.output
    assert store.read_bytes() == before
    assert read_frame(store, "SELECT count(*) AS n FROM snapshots")["n"][0] == 1
    con = sqlite3.connect(platform)
    try:
        assert con.execute("SELECT count(*) FROM bots WHERE name = 'my-bot'").fetchone()[0] == 1
    finally:
        con.close()
    assert Path("data/demo/solvelens.duckdb").exists() and Path("data/demo/sandbox.sqlite").exists()
    assert Path("data/demo/reports/leaderboard.html").exists()
    # the earlier demo's store was replaced by this run's (--days 1: 2 snapshots)
    assert read_frame(Path("data/demo/solvelens.duckdb"), "SELECT count(*) AS n FROM snapshots")["n"][0] == 2
    assert not Path("data/reports").exists()


def test_the_demo_store_is_compacted_and_its_activity_gaps_are_no_warnings(demo_run) -> None:
    """The demo compacts its store (issue 24: 18.8 MiB of free blocks were left); `db snapshots` shows no
    `warn` for the activity gaps a daily cadence is expected to leave (they are recorded in activity_gaps)."""
    import json

    import duckdb
    from typer.testing import CliRunner

    from solvelens.cli import app

    result, console, _ = demo_run
    assert "Store compacted:" in console.export_text(clear=False)
    con = duckdb.connect(str(result.db_path), read_only=True)
    try:
        free, blocks = con.execute("SELECT free_blocks, total_blocks FROM pragma_database_size()").fetchone()
        stored = con.execute("SELECT warnings FROM snapshots ORDER BY snapshot_id").fetchall()
    finally:
        con.close()
    assert free <= 0.1 * blocks, (free, blocks)  # the copy leaves a few; uncompacted 30 days: 42% free
    every = [w for (ws,) in stored for w in json.loads(ws or "[]")]
    notes = [w for w in every if w.startswith("activity: events missed")]
    others = [w for w in every if not w.startswith("activity: events missed")]
    listing = CliRunner().invoke(app, ["db", "snapshots", "--db", str(result.db_path)], env={"COLUMNS": "80"})
    assert listing.exit_code == 0, listing.output
    rows = [line.split() for line in listing.output.splitlines()]
    warn = [r[-2] for r in rows if len(r) > 3 and r[0].isdigit() and r[1][:4].isdigit() and r[1][4:5] == "-"]
    assert len(warn) == len(stored)  # an earlier test re-ran the demo on this store (--days 1)
    assert sum(int(w) for w in warn) == len(others), (warn, notes, others)
