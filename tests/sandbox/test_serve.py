"""``solvelens sandbox serve`` keeps the word of its ``--help``: every exit code it names (0 stopped with
Ctrl-C or SIGTERM, quietly, the SQLite file whole by itself; 1 the server failed; 2 bad input) is produced
here, each bad input in one line."""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from solvelens.cli import app
from tests.fixtures.sandbox import free_port


def _serve(*args: str):
    return CliRunner().invoke(app, ["sandbox", "serve", *args])


def _one_line(result) -> str:
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    return lines[0]


def test_the_help_names_the_exit_codes_tested_here() -> None:
    text = " ".join(CliRunner().invoke(app, ["sandbox", "serve", "--help"]).stdout.split())
    assert "Exit codes: 0 stopped (Ctrl-C or SIGTERM); 1 the server failed" in text and "2 bad input" in text


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_ctrl_c_and_sigterm_stop_the_server_quietly_with_exit_0_and_a_whole_file(
    sig: signal.Signals, pristine_platform: Path, tmp_path: Path
) -> None:
    db = tmp_path / "served.sqlite"
    shutil.copyfile(pristine_platform, db)
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("SOLVELENS_")}
    cmd = [sys.executable, "-m", "solvelens", "sandbox", "serve", "--db", str(db), "--port", str(port)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, proc.communicate()
            try:
                if httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "the server did not answer /health"
            time.sleep(0.05)
        # A change committed into the WAL while the server runs, never checkpointed by this connection
        # (kept open until the server is gone, so its close is not the one folding the WAL in).
        writer = sqlite3.connect(db)
        writer.execute("PRAGMA wal_autocheckpoint = 0")
        assert writer.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        writer.execute("CREATE TABLE stop_marker AS SELECT 42 AS answer")
        writer.commit()
        wal = db.with_name(db.name + "-wal")
        assert wal.stat().st_size > 0
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=30)
        alone = tmp_path / "alone" / "copy.sqlite"  # the file copied without its WAL
        alone.parent.mkdir()
        shutil.copyfile(db, alone)
        writer.close()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err.decode()
    assert err.decode() == "" and out.decode() == f"http://127.0.0.1:{port}/api/v1\n"
    copy = sqlite3.connect(alone)
    try:
        assert copy.execute("SELECT answer FROM stop_marker").fetchall() == [(42,)]
        assert copy.execute("SELECT count(*) FROM problems").fetchone()[0] > 0
    finally:
        copy.close()


@pytest.mark.parametrize("port", ["99999", "65536", "-1"])
def test_a_port_out_of_range_is_one_line_naming_the_range(port: str, tmp_path: Path) -> None:
    result = _serve("--db", str(tmp_path / "never-built.sqlite"), "--port", port)
    assert result.exit_code == 2
    assert _one_line(result) == f"error: --port must be 0-65535 (0: any free port), got {port}"
    assert not (tmp_path / "never-built.sqlite").exists()


def test_an_unreadable_sqlite_file_makes_the_server_fail_with_exit_1(tmp_path: Path) -> None:
    corrupt = tmp_path / "corrupt.sqlite"
    corrupt.write_bytes(b"SQLite format 3\x00" + b"\xff" * 4096)  # the header of SQLite, then garbage
    result = _serve("--db", str(corrupt), "--port", "0")
    assert result.exit_code == 1
    assert _one_line(result).startswith(f"error: the server failed: cannot read --db {corrupt} (")
    assert corrupt.read_bytes()[16:] == b"\xff" * 4096  # nothing written to it


def test_an_sqlite_file_that_is_no_sandbox_is_bad_input(tmp_path: Path) -> None:
    other = tmp_path / "other.sqlite"
    conn = sqlite3.connect(other)
    with conn:
        conn.execute("CREATE TABLE notes (text TEXT)")
    conn.close()
    result = _serve("--db", str(other), "--port", "0")
    assert result.exit_code == 2
    assert "is not a sandbox platform" in _one_line(result)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--paging", "sideways"), "--paging must be default or zero, got 'sideways'"),
        (("--refs", "deep"), "--refs must be flat or nested, got 'deep'"),
        (("--paging", "zero", "--conventions", "hal"), "apply to --conventions platform only"),
        (("--refs", "nested", "--conventions", "relay"), "apply to --conventions platform only"),
        (("--paging", "zero", "--pagination", "cursor"), "--paging zero pages by page number"),
        (("--paging", "zero", "--solutions-paging", "offset"), "--paging zero pages by page number"),
    ],
)
def test_list_shape_options_refuse_bad_values_in_one_line(args, message, tmp_path: Path) -> None:
    db = tmp_path / "never-built.sqlite"
    result = _serve("--db", str(db), "--port", "0", *args)
    assert result.exit_code == 2, result.output
    assert message in _one_line(result)
    assert not db.exists()
