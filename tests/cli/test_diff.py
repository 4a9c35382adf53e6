"""``solvelens diff`` as a real process on a generated store (tests/fixtures/store.py): tables, JSON and CSV
that parse and agree with :func:`solvelens.analysis.diff`, and bad input as one line with exit 2; ``report``
takes the same ``--platform`` option (run in this process)."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from solvelens import analysis as an
from solvelens.cli import app
from tests.fixtures.store import StoreSpec, write_store


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "solvelens", "diff", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={"COLUMNS": "100", "PATH": "/usr/bin:/bin"},
    )


def test_json_parses_and_matches_the_analysis(store_db: Path):
    done = _run("7d", "--db", str(store_db), "--json", "--min-move", "1")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    expected = an.diff(store_db, "7d", min_move=1)
    assert (
        data["a"]["snapshot_id"] == expected.a.snapshot_id
        and data["b"]["snapshot_id"] == expected.b.snapshot_id
    )
    assert data["counts"] == expected.counts() and data["min_move"] == 1
    assert [m["bot_id"] for m in data["rank_moves"]] == expected.rank_moves["bot_id"].to_list()
    assert data["other_platforms"] == []


def test_csv_parses_one_row_per_change(store_db: Path):
    done = _run("--db", str(store_db), "--csv")
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader(io.StringIO(done.stdout)))
    expected = an.diff(store_db)
    assert len(rows) == sum(expected.rows().values()) > 0
    assert set(rows[0]) == {"kind", "id", "name", "before", "after", "change"}
    assert {r["kind"] for r in rows} == {k for k, n in expected.rows().items() if n}


def test_the_table_names_the_platform_and_the_pair(store_db: Path):
    done = _run("--db", str(store_db), "--limit", "3")
    assert done.returncode == 0, done.stderr
    expected = an.diff(store_db)
    assert done.stdout.startswith(f"Platform: {expected.platform_label}")
    assert f"#{expected.a.snapshot_id} " in done.stdout and "Points gained" in done.stdout
    assert "more (--limit 0, --json or --csv)" in done.stdout
    same = _run(str(expected.b.snapshot_id), str(expected.b.snapshot_id), "--db", str(store_db))
    assert same.returncode == 0 and "Nothing changed." in same.stdout


def test_another_platform_in_the_store_is_named(tmp_path: Path, store_db: Path):
    """Two platforms: the default is the newest snapshot's; the other is listed with its --platform."""
    frames_spec = StoreSpec(days=3, gap_days=(), extra_snapshot_days=(), platform={})
    db = write_store(tmp_path / "mixed.duckdb", frames_spec)
    import duckdb

    con = duckdb.connect(str(db))
    con.execute(f"ATTACH '{store_db}' AS other (READ_ONLY)")
    con.execute(
        "INSERT INTO snapshots SELECT * REPLACE (snapshot_id + 100 AS snapshot_id) FROM other.snapshots"
    )
    for view in ("leaderboard", "bots", "problems", "solutions", "platform_stats", "categories", "bot_me"):
        con.execute(
            f"INSERT INTO {view} SELECT * REPLACE (snapshot_id + 100 AS snapshot_id) FROM other.{view}"
        )
    con.close()
    done = _run("--db", str(db), "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    # the generated 40-day store's snapshots are newer (2026-02) than the 3-day one's (2026-01)
    assert data["platform"] == "6f1c2a8e-0000-4000-8000-000000000001"
    assert [p["platform"] for p in data["other_platforms"]] == ["http://127.0.0.1:8765"]
    real = _run("--db", str(db), "--platform", "http://127.0.0.1:8765/api/v1", "--json")
    assert real.returncode == 0, real.stderr
    assert json.loads(real.stdout)["b"]["snapshot_id"] == 3


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["99999"], "no complete snapshot #99999"),
        (["2001-01-01"], "no snapshot at or before 2001-01-01"),
        (["soon"], "names no snapshot"),
        (["--platform", "nowhere"], "no platform 'nowhere'"),
        (["--json", "--csv"], "give --json or --csv"),
        (["--top", "0"], "--top"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(store_db: Path, args: list[str], needle: str):
    done = _run(*args, "--db", str(store_db))
    assert done.returncode == 2, (done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and needle in lines[0], done.stderr
    assert "Traceback" not in done.stderr


def test_one_snapshot_only_is_exit_2(single_snapshot_store_db: Path):
    done = _run("--db", str(single_snapshot_store_db))
    assert done.returncode == 2
    assert "only this one snapshot" in done.stderr and "solvelens snapshot" in done.stderr


def test_an_empty_store_is_exit_1_as_for_the_report(empty_store_db: Path):
    done = _run("--db", str(empty_store_db))
    assert done.returncode == 1
    assert done.stderr.strip() == "error: the store has no complete snapshot: run `solvelens snapshot` first"


def test_report_takes_the_same_platform_option(store_db: Path, tmp_path: Path):
    # in this process (typer's runner, stderr apart): what is checked is the option, not a process of its
    # own (the diff's processes above do that); a process cost ~8 s more, importing the report's libraries
    out = tmp_path / "r.html"
    args = ["report", "--db", str(store_db), "--out", str(out), "--platform"]
    bad = CliRunner().invoke(app, [*args, "x1"])
    assert bad.exit_code == 2 and bad.stderr.startswith("error: no platform 'x1'") and not out.exists()
    good = CliRunner().invoke(app, [*args, "6f1c"])
    assert good.exit_code == 0, good.output
    assert "sandbox 6f1c2a8e" in out.read_text()
