"""``solvelens diff`` (analysis, terminal, ``--json``, ``--csv``) checked against the platform's truth: the
sandbox's SQLite database read with plain SQL written here, never with solvelens's own analysis code.

One sandbox per module: snapshot s1 at its simulated clock, one simulated day (problems and solutions
arrive), snapshot s2; then a bot renames itself (the operator's UPDATE on the sandbox's database: the
platform serves the new name everywhere at once) and snapshot s3, incremental, carrying the solution
lists whose counts did not move.
"""

from __future__ import annotations

import csv
import io
import json
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from solvelens import analysis as an
from solvelens.flows.steps import SnapshotPlan, run_snapshot
from solvelens.sandbox.simulate import advance
from tests.fixtures.sandbox import SandboxServer, start_sandbox

#: Listed solutions: every solution of a problem the platform lists (it lists all but rejected ones).
LISTED_SOLUTIONS = (
    "SELECT s.id FROM solutions s JOIN problems p ON p.id = s.problem_id WHERE p.status != 'rejected'"
)


def _sql(server: SandboxServer, query: str, params: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    with sqlite3.connect(server.db_path) as con:
        return con.execute(query, params).fetchall()


def _snapshot(server: SandboxServer, store: Path) -> int:
    clock = httpx.get(f"{server.root_url}/health", timeout=10).json()["clock"]
    plan = SnapshotPlan(
        base_url=server.base_url, db_path=str(store), taken_at=clock, use_api_key=False, resources=[]
    )
    return run_snapshot(plan).snapshot_id


@pytest.fixture(scope="module")
def driven(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, object]]:
    tmp = tmp_path_factory.mktemp("diff-truth")
    server = start_sandbox(tmp / "sandbox.sqlite", seed=3, scale="small")
    try:
        store = tmp / "store.duckdb"
        s1 = _snapshot(server, store)
        listed_1 = {r[0] for r in _sql(server, LISTED_SOLUTIONS)}
        advance(server.db_path, days=1)
        s2 = _snapshot(server, store)
        listed_2 = {r[0] for r in _sql(server, LISTED_SOLUTIONS)}
        # the bot with the most listed solutions renames itself
        bot_id, old_name, n_solutions = _sql(
            server,
            "SELECT b.id, b.name, count(*) FROM bots b JOIN solutions s ON s.bot_id = b.id "
            f"WHERE s.id IN ({LISTED_SOLUTIONS}) AND b.status = 'active' "
            "GROUP BY b.id, b.name ORDER BY count(*) DESC, b.id LIMIT 1",
        )[0]
        new_name = f"{old_name}-Renamed"
        with sqlite3.connect(server.db_path) as con:
            con.execute("UPDATE bots SET name = ? WHERE id = ?", (new_name, bot_id))
        s3 = _snapshot(server, store)
        yield {
            "server": server,
            "store": store,
            "ids": (s1, s2, s3),
            "added": len(listed_2 - listed_1),
            "removed": len(listed_1 - listed_2),
            "rename": (old_name, new_name, n_solutions),
        }
    finally:
        server.stop()


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "solvelens", "diff", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={"COLUMNS": "160", "PATH": "/usr/bin:/bin"},
    )


def test_solutions_added_counts_solutions_in_every_format(driven: dict[str, object]):
    store, (s1, s2, _) = driven["store"], driven["ids"]  # type: ignore[misc]
    added = driven["added"]
    assert driven["removed"] == 0 and added > 0  # the day only adds: the truth is one number
    result = an.diff(store, s1, s2)  # type: ignore[arg-type]
    assert result.counts()["solutions_added"] == added
    # problems with new solutions are fewer than the solutions: the two counts must not be confused
    assert result.solutions_added.height < added
    data = json.loads(_cli(str(s1), str(s2), "--db", str(store), "--json").stdout)
    assert data["counts"]["solutions_added"] == added
    assert sum(r["added"] for r in data["solutions_added"]) == added
    rows = list(csv.DictReader(io.StringIO(_cli(str(s1), str(s2), "--db", str(store), "--csv").stdout)))
    assert sum(int(r["change"]) for r in rows if r["kind"] == "solutions_added") == added
    table = _cli(str(s1), str(s2), "--db", str(store), "--limit", "0").stdout
    assert f"Solutions added ({added:,})" in table, table


def test_a_reversed_pair_is_refused_in_one_line(driven: dict[str, object]):
    store, (s1, s2, _) = driven["store"], driven["ids"]  # type: ignore[misc]
    with pytest.raises(an.SnapshotSelectionError, match="older than"):
        an.diff(store, s2, s1)  # type: ignore[arg-type]
    done = _cli(str(s2), str(s1), "--db", str(store))
    assert done.returncode == 2, done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and f"solvelens diff {s1} {s2}" in lines[0], done.stderr
    assert "apart" not in done.stdout and "no longer listed" not in done.stdout


def test_a_renamed_bot_shows_its_new_name_everywhere(driven: dict[str, object]):
    """s3 is incremental and nothing but the name moved, so every solution list of the bot is one whose
    counts did not change: the name must still be the platform's new one on each of its solutions."""
    store, (_, s2, s3) = driven["store"], driven["ids"]  # type: ignore[misc]
    old, new, n_solutions = driven["rename"]  # type: ignore[misc]
    truth = _sql(driven["server"], "SELECT count(*) FROM bots WHERE name = ?", (new,))  # type: ignore[arg-type]
    assert truth == [(1,)]
    import duckdb

    with duckdb.connect(str(store), read_only=True) as con:
        names = dict(
            con.execute(
                "SELECT bot_name, count(*) FROM solutions WHERE snapshot_id = ? AND bot_name IN (?, ?) "
                "GROUP BY bot_name",
                [s3, old, new],
            ).fetchall()
        )
        board = con.execute(
            "SELECT count(*) FROM leaderboard WHERE snapshot_id = ? AND name = ?", [s3, new]
        ).fetchall()
    assert names == {new: n_solutions}, names
    assert board == [(1,)]
    result = an.diff(store, s2, s3)  # type: ignore[arg-type]
    assert result.renamed_bots.select("name_before", "name_after").rows() == [(old, new)]
    assert not result.is_empty()
    table = _cli(str(s2), str(s3), "--db", str(store)).stdout
    assert f"{old} -> {new}" in table and "Nothing changed" not in table, table
    data = json.loads(_cli(str(s2), str(s3), "--db", str(store), "--json").stdout)
    assert data["counts"]["renamed_bots"] == 1
    rows = list(csv.DictReader(io.StringIO(_cli(str(s2), str(s3), "--db", str(store), "--csv").stdout)))
    assert [(r["before"], r["after"]) for r in rows if r["kind"] == "renamed_bots"] == [(old, new)]
