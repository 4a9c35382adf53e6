"""``solvelens sandbox`` account commands (create-bot, rotate-key, revoke-key, suspend, activate) against a
real platform file, checked over HTTP on the session's sandbox server."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import httpx
from typer.testing import CliRunner

from solvelens.cli import app

KEY = re.compile(r"^sl_key_[A-Za-z0-9_-]{48}$")


def _run(*args: str, env: dict[str, str] | None = None):
    return CliRunner().invoke(app, ["sandbox", *args], env=env)


def _me(sandbox, key: str) -> httpx.Response:
    return httpx.get(f"{sandbox.base_url}/bot/me", headers={"Authorization": f"Bearer {key}"})


def test_create_bot_prints_the_key_once_and_stores_only_its_hash(sandbox) -> None:
    db = str(sandbox.db_path)
    result = _run("create-bot", "Cli Bot-1", "--db", db, "--description", "made by the CLI test")
    assert result.exit_code == 0, result.output
    key = result.stdout.strip()
    assert KEY.match(key) and result.stdout.count("sl_key_") == 1
    me = _me(sandbox, key).json()
    assert (me["name"], me["description"], me["status"]) == ("Cli Bot-1", "made by the CLI test", "active")
    conn = sqlite3.connect(sandbox.db_path)
    dump = "\n".join(conn.iterdump())
    conn.close()
    assert key not in dump and key[16:] not in dump  # only the lookup prefix and the SHA-256 digest are kept

    taken = _run("create-bot", "cli bot-1", "--db", db)  # names are unique, case-insensitively
    assert taken.exit_code == 2 and "already taken" in taken.stderr and "sl_key_" not in taken.output
    invalid = _run("create-bot", "x", "--db", db)
    assert invalid.exit_code == 2 and "3-50 characters" in invalid.stderr


def test_rotate_revoke_and_suspend(sandbox) -> None:
    db = str(sandbox.db_path)
    old = _run("create-bot", "CliRotator", "--db", db).stdout.strip()
    rotated = _run("rotate-key", "CliRotator", "--db", db)
    assert rotated.exit_code == 0
    new = rotated.stdout.strip()
    assert KEY.match(new) and new != old
    assert _me(sandbox, old).status_code == 401 and _me(sandbox, new).status_code == 200

    suspended = _run("suspend", "CliRotator", "--db", db)
    assert suspended.exit_code == 0 and "Suspended CliRotator" in suspended.stdout
    answer = _me(sandbox, new)
    assert answer.status_code == 403 and answer.json() == {"error": "Bot is suspended"}
    activated = _run("activate", "CliRotator", "--db", db)
    assert activated.exit_code == 0 and _me(sandbox, new).status_code == 200

    revoked = _run("revoke-key", "CliRotator", "--db", db)
    assert revoked.exit_code == 0 and "Revoked 1 key(s)" in revoked.stdout
    assert _me(sandbox, new).status_code == 401


def test_unknown_bot_and_missing_platform(sandbox, tmp_path: Path) -> None:
    for command in ("rotate-key", "revoke-key", "suspend", "activate"):
        result = _run(command, "NoSuchCliBot", "--db", str(sandbox.db_path))
        assert result.exit_code == 1 and "No bot named 'NoSuchCliBot'" in result.stderr
    missing = _run("create-bot", "Whoever", "--db", str(tmp_path / "none.sqlite"))
    assert missing.exit_code == 1 and "No sandbox platform" in missing.stderr
    assert not (tmp_path / "none.sqlite").exists()


def test_db_path_from_the_environment(sandbox) -> None:
    result = _run("create-bot", "CliEnvBot", env={"SOLVELENS_SANDBOX_DB": str(sandbox.db_path)})
    assert result.exit_code == 0 and _me(sandbox, result.stdout.strip()).status_code == 200


def test_serve_refuses_an_unknown_convention_or_a_platform_only_switch_in_one_line(tmp_path: Path) -> None:
    db = str(tmp_path / "never-built.sqlite")
    cases = {
        ("--conventions", "soap"): "--conventions must be one of platform, jsonapi, hal, odata, relay",
        ("--conventions", "hal", "--pagination", "cursor"): "apply to --conventions platform only",
        ("--conventions", "odata", "--task-shape", "interface"): "applies to --conventions platform only",
        ("--tie-order", "sideways"): "--tie-order must be stable or shuffle, got 'sideways'",
    }
    for args, message in cases.items():
        result = _run("serve", "--db", db, "--port", "0", *args)
        assert result.exit_code == 2, result.output
        lines = [line for line in result.stderr.splitlines() if line.strip()]
        assert len(lines) == 1 and message in lines[0], result.stderr
    assert not Path(db).exists()  # checked before anything is built


def test_build_over_an_existing_file_is_refused_in_one_line_and_the_file_is_kept(tmp_path: Path) -> None:
    db = tmp_path / "mine.sqlite"
    db.write_bytes(b"a user's file")
    result = _run("build", "--db", str(db), "--scale", "empty")
    assert result.exit_code == 2, result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "already exists" in lines[0] and "another --db path" in lines[0], result.stderr
    assert db.read_bytes() == b"a user's file"
