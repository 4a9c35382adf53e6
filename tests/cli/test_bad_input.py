"""Every bad input of issue 18 (and the usual suspects around them), run as a real ``solvelens`` process:
one line on stderr starting ``error:``, exit 2, no traceback, and nothing changed on disk."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import duckdb
import pytest

from tests.fixtures.sandbox import SandboxServer

#: (case id, arguments given (tmp folder, base URL) -> the command line, words the error line must hold)
Case = tuple[str, Callable[[Path, str], list[str]], str]


def _duckdb_file(folder: Path) -> Path:
    path = folder / "store.duckdb"
    if not path.exists():
        con = duckdb.connect(str(path))
        con.execute("CREATE TABLE orders AS SELECT 1 AS id")
        con.close()
    return path


def _a_store(folder: Path) -> Path:
    """A real solvelens store with one snapshot (written by the store's writer from a staged fake run)."""
    from solvelens.store import write_snapshot
    from tests.store.fakes import make_platform, stage_run

    path = folder / "real.duckdb"
    write_snapshot(path, stage_run(folder / "staging", make_platform()))
    return path


def _a_file(folder: Path) -> Path:
    path = folder / "notes.txt"
    path.write_text("not a folder\n")
    return path


@pytest.fixture
def busy_port() -> Iterator[int]:
    """A port on 127.0.0.1 with a listener on it."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        yield int(listener.getsockname()[1])


CASES: list[Case] = [
    (
        "schedule-cron",
        lambda d, url: ["schedule", "--base-url", url, "--db", str(d / "s.duckdb"), "--cron", "* * *"],
        "--cron '* * *' is not a cron expression",
    ),
    (
        "schedule-report-cron",
        lambda d, url: [
            "schedule",
            "--base-url",
            url,
            "--db",
            str(d / "s.duckdb"),
            "--report-cron",
            "61 * * * *",
        ],
        "--report-cron '61 * * * *'",
    ),
    (  # a local file: refused before the (here unreachable) platform is tried
        "schedule-profile-missing",
        lambda d, url: [
            "schedule",
            "--base-url",
            "http://127.0.0.1:9/api/v1",
            "--db",
            str(d / "s.duckdb"),
            "--profile",
            str(d / "nosuch.toml"),
        ],
        "cannot read the profile",
    ),
    (
        "sandbox-serve-duckdb",
        lambda d, url: ["sandbox", "serve", "--db", str(_duckdb_file(d)), "--port", "0"],
        "is a DuckDB file (a snapshot store?), not a sandbox platform",
    ),
    (
        "sandbox-create-bot-duckdb",
        lambda d, url: ["sandbox", "create-bot", "SomeBot", "--db", str(_duckdb_file(d))],
        "not a sandbox platform",
    ),
    (
        "sandbox-serve-pagination",
        lambda d, url: ["sandbox", "serve", "--db", str(d / "new.sqlite"), "--pagination", "pages"],
        "--pagination must be page, offset or cursor",
    ),
    (
        "sandbox-serve-scale",
        lambda d, url: ["sandbox", "serve", "--db", str(d / "new.sqlite"), "--scale", "huge"],
        "--scale must be one of",
    ),
    (
        "sandbox-build-scale",
        lambda d, url: ["sandbox", "build", "--db", str(d / "new.sqlite"), "--scale", "huge"],
        "--scale must be one of",
    ),
    (
        "sandbox-serve-fault-rate",
        lambda d, url: ["sandbox", "serve", "--db", str(d / "new.sqlite"), "--fault-rate", "3"],
        "fault rate",
    ),
    (
        "db-export-into-a-file",
        lambda d, url: ["db", "export", "--db", str(_a_store(d)), "--parquet", str(_a_file(d))],
        "notes.txt",
    ),
    (
        "db-export-into-a-foreign-folder",
        lambda d, url: ["db", "export", "--db", str(_a_store(d)), "--parquet", str(_a_file(d).parent)],
        "holds no earlier solvelens export",
    ),
    (
        "db-prune-keep-0",
        lambda d, url: ["db", "prune", "--keep", "0", "--db", str(_a_store(d))],
        "--keep must be at least 1",
    ),
    (
        "usage-wrong-type",
        lambda d, url: ["snapshot", "--base-url", url, "--concurrency", "many"],
        "Invalid value for '--concurrency'",
    ),
    ("usage-unknown-option", lambda d, url: ["snapshot", "--bogus"], "No such option: --bogus"),
    (
        "usage-missing-option",
        lambda d, url: ["db", "prune", "--db", str(d / "s.duckdb")],
        "Missing option '--keep'",
    ),
    ("usage-unknown-command", lambda d, url: ["snapshots"], "No such command 'snapshots'"),
    (
        "snapshot-taken-at",
        lambda d, url: [
            "snapshot",
            "--base-url",
            url,
            "--db",
            str(d / "s.duckdb"),
            "--taken-at",
            "yesterday",
        ],
        "--taken-at must be an ISO-8601 time",
    ),
    ("snapshot-db-folder", lambda d, url: ["snapshot", "--base-url", url, "--db", str(d)], "is a directory"),
    (
        "snapshot-foreign-duckdb",
        lambda d, url: ["snapshot", "--base-url", url, "--db", str(_duckdb_file(d)), "--no-bot-me"],
        "not a solvelens store",
    ),
    (
        "report-foreign-duckdb",
        lambda d, url: ["report", "--db", str(_duckdb_file(d)), "--out", str(d / "r.html")],
        "not a solvelens store",
    ),
    # issue 24: outputs checked before any work
    (
        "report-out-under-a-file",
        lambda d, url: ["report", "--db", str(_a_store(d)), "--out", str(_a_file(d) / "r.html")],
        "notes.txt is a file, not a folder",
    ),
    (
        "report-out-a-folder",
        lambda d, url: ["report", "--db", str(_a_store(d)), "--out", str(d)],
        "is a folder; give a file path",
    ),
    (
        "report-png-a-file",
        lambda d, url: [
            "report",
            "--db",
            str(_a_store(d)),
            "--out",
            str(d / "r.html"),
            "--png",
            str(_a_file(d)),
        ],
        "--png",
    ),
    (
        "report-bot-out-under-a-file",
        lambda d, url: [
            "report",
            "--db",
            str(_a_store(d)),
            "--bot",
            "x",
            "--out",
            str(_a_file(d) / "b.html"),
        ],
        "notes.txt is a file, not a folder",
    ),
    # issue 24: "not a store" is exit 2 for the maintenance commands, as their --help says
    (
        "db-compact-not-a-store",
        lambda d, url: ["db", "compact", "--db", str(_a_file(d))],
        "not a solvelens store",
    ),
    (
        "db-prune-not-a-store",
        lambda d, url: ["db", "prune", "--keep", "1", "--yes", "--db", str(_a_file(d))],
        "not a solvelens store",
    ),
    (
        "db-delete-not-a-store",
        lambda d, url: ["db", "delete", "1", "--yes", "--db", str(_duckdb_file(d))],
        "not a solvelens store",
    ),
    # issue 24: base URL hints right for every shape (more shapes: tests/flows/test_preflight.py)
    (
        "snapshot-base-url-api-v2",
        lambda d, url: ["snapshot", "--base-url", url.replace("/api/v1", "/api/v2"), "--db", str(d / "s.db")],
        "/api/v1?)",
    ),
    (
        "snapshot-base-url-api",
        lambda d, url: ["snapshot", "--base-url", url.removesuffix("/v1"), "--db", str(d / "s.db")],
        "/api/v1?)",
    ),
    # issue 24: an alert rule that could never fire (a bot the store never saw on that platform)
    (
        "snapshot-alert-misspelled-bot",
        lambda d, url: [
            "snapshot",
            "--base-url",
            "http://127.0.0.1:1/api/v1",
            "--db",
            str(_a_store(d)),
            "--no-bot-me",
            "--alert",
            "rank-drop >= 1 LunarBott",
        ],
        'no bot "LunarBott" on http://127.0.0.1:1/api/v1',
    ),
    # issue 24: every command gets at least one bad input (the commands not met above)
    ("demo-days-0", lambda d, url: ["demo", "--days", "0"], "Invalid value for '--days'"),
    ("probe-base-url-not-a-url", lambda d, url: ["probe", "--base-url", "notaurl"], "base URL 'notaurl'"),
    (
        "probe-api-key-malformed",
        lambda d, url: ["probe", "--base-url", url, "--api-key", "bad"],
        "The API key does not have the expected form",
    ),
    # issue 24: outputs checked before any work (probe wrote its table, then failed to write the profile)
    ("probe-out-a-folder", lambda d, url: ["probe", "--base-url", url, "--out", str(d)], "is a folder"),
    (
        "probe-out-under-a-file",
        lambda d, url: ["probe", "--base-url", url, "--out", str(_a_file(d) / "p.toml")],
        "notes.txt is a file, not a folder",
    ),
    (
        "demo-reports-dir-a-file",
        lambda d, url: ["demo", "--days", "1", "--reports-dir", str(_a_file(d))],
        "--reports-dir",
    ),
    ("diff-db-folder", lambda d, url: ["diff", "--db", str(d)], "is a directory"),
    ("diff-unknown-snapshot", lambda d, url: ["diff", "99", "--db", str(_a_store(d))], "99"),
    ("db-info-db-folder", lambda d, url: ["db", "info", "--db", str(d)], "is a directory"),
    (
        "db-snapshots-foreign-duckdb",
        lambda d, url: ["db", "snapshots", "--db", str(_duckdb_file(d))],
        "not a solvelens store",
    ),
    ("db-check-db-folder", lambda d, url: ["db", "check", "--db", str(d)], "is a directory"),
    (
        "db-check-no-such-snapshot",
        lambda d, url: ["db", "check", "--snapshot", "999", "--db", str(_a_store(d))],
        "--snapshot 999",
    ),
    (
        "db-export-db-folder",
        lambda d, url: ["db", "export", "--db", str(d), "--parquet", str(d / "out")],
        "is a directory",
    ),
    (
        "sandbox-rotate-key-db-folder",
        lambda d, url: ["sandbox", "rotate-key", "SomeBot", "--db", str(d)],
        "is a directory",
    ),
    (
        "sandbox-revoke-key-duckdb",
        lambda d, url: ["sandbox", "revoke-key", "SomeBot", "--db", str(_duckdb_file(d))],
        "not a sandbox platform",
    ),
    (
        "sandbox-suspend-db-folder",
        lambda d, url: ["sandbox", "suspend", "SomeBot", "--db", str(d)],
        "is a directory",
    ),
    (
        "sandbox-rename-bot-db-folder",
        lambda d, url: ["sandbox", "rename-bot", "SomeBot", "OtherBot", "--db", str(d)],
        "is a directory",
    ),
    (
        "sandbox-activate-db-folder",
        lambda d, url: ["sandbox", "activate", "SomeBot", "--db", str(d)],
        "is a directory",
    ),
    (
        "sandbox-simulate-days-0",
        lambda d, url: ["sandbox", "simulate", "--days", "0", "--db", str(d / "p.sqlite")],
        "Invalid value for '--days'",
    ),
    ("sandbox-simulate-db-folder", lambda d, url: ["sandbox", "simulate", "--db", str(d)], "is a directory"),
    (
        "bot-run-timeout-0",
        lambda d, url: [
            "bot",
            "run",
            "--base-url",
            url,
            "--api-key",
            "sl_key_abcdefghijklmnop",
            "--solver",
            "x:y",
            "--timeout",
            "0",
        ],
        "Invalid value for '--timeout'",
    ),
    (
        "bot-run-solver-no-such-module",
        lambda d, url: [
            "bot",
            "run",
            "--base-url",
            url,
            "--api-key",
            "sl_key_abcdefghijklmnop",
            "--solver",
            "nosuchmod:solve",
            "--app-dir",
            str(d),
        ],
        "cannot import solver module 'nosuchmod'",
    ),
    ("root-unknown-option", lambda d, url: ["--nope"], "No such option: --nope (see `"),
]


def _solvelens(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SOLVELENS_", "PREFECT_API"))}
    return subprocess.run(
        [sys.executable, "-m", "solvelens", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**env, "COLUMNS": "200"},
        cwd=cwd,
    )


def _assert_one_line_exit_2(proc: subprocess.CompletedProcess[str], expected: str) -> None:
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr + proc.stdout, proc.stderr
    # On a loaded machine a snapshot's preflight may first say the platform "answers slowly" (a first
    # answer over 1 s: said before the store is opened, seen at load 12); that line is context, not an error.
    lines = [
        line
        for line in proc.stderr.splitlines()
        if line.strip() and not line.startswith("preflight: the platform at ")
    ]
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    assert expected in lines[0], lines[0]
    assert not proc.stdout.strip(), proc.stdout  # nothing printed before the error (no URL, no progress)


@pytest.mark.parametrize(("case", "args", "expected"), CASES, ids=[c[0] for c in CASES])
def test_a_bad_input_is_one_line_and_exit_2(
    case: str, args: Callable[[Path, str], list[str]], expected: str, tmp_path: Path, sandbox: SandboxServer
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    argv = args(work, sandbox.base_url)
    before = {p: p.read_bytes() for p in work.rglob("*") if p.is_file()}
    proc = _solvelens(*argv, cwd=work)
    _assert_one_line_exit_2(proc, expected)
    assert "/api/v2/api/v1" not in proc.stderr and "/api/api/v1" not in proc.stderr
    # Nothing changed, and no lock file is left beside any file given as --db (the store's locks live in
    # one folder and go when released).
    after = {p: p.read_bytes() for p in work.rglob("*") if p.is_file()}
    assert after == before, f"{case} changed files: {sorted(set(after) ^ set(before))}"


def test_sandbox_serve_on_a_busy_port_is_one_line_before_any_url(busy_port: int, tmp_path: Path) -> None:
    proc = _solvelens(
        "sandbox", "serve", "--db", str(tmp_path / "new.sqlite"), "--port", str(busy_port), cwd=tmp_path
    )
    _assert_one_line_exit_2(proc, f"cannot listen on 127.0.0.1:{busy_port}")
    assert not (tmp_path / "new.sqlite").exists()  # nothing built for a server that cannot start


def _command_paths() -> list[tuple[str, ...]]:
    """Every leaf command of ``solvelens`` as its words, e.g. ``("db", "check")``, read from the app."""
    import typer.main

    from solvelens.cli import app

    def walk(command: object, prefix: tuple[str, ...]) -> list[tuple[str, ...]]:
        subcommands = getattr(command, "commands", None)
        if not subcommands:
            return [prefix]
        return [path for name, sub in sorted(subcommands.items()) for path in walk(sub, (*prefix, name))]

    return walk(typer.main.get_command(app), ())


def test_the_walk_gives_every_command_a_bad_input(tmp_path: Path) -> None:
    argvs = [args(tmp_path, "http://127.0.0.1:1/api/v1") for _, args, _ in CASES]
    commands = _command_paths()
    assert len(commands) >= 20, commands  # the walk above found the tree, not one group
    missing = [" ".join(c) for c in commands if not any(tuple(argv[: len(c)]) == c for argv in argvs)]
    assert not missing, f"commands the bad-input walk never runs: {missing}"
