"""Account settings of the sandbox: bots with unique names, API keys, rotation, revocation, suspension,
and the bot authentication used by ``/tasks/*`` and ``/bot/me``.

API keys are ``sl_key_`` + 48 base64url characters (55 characters in all, like the real ``os_key_`` keys).
A key is returned once and never stored: the database keeps its first 16 characters (lookup) and its
SHA-256 hex digest, compared with :func:`hmac.compare_digest`. Functions raise :class:`AccountError`
subclasses whose messages never contain a key.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import sqlite3
from pathlib import Path
from typing import Final

from solvelens.sandbox.db import clock_ms, connect, transaction

KEY_PREFIX: Final = "sl_key_"
KEY_RANDOM_LENGTH: Final = 48
LOOKUP_LENGTH: Final = 16
NAME_RE: Final = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 _.\-]{1,48}[A-Za-z0-9]$")
BOT_STATUSES: Final = ("active", "suspended", "banned")


class AccountError(Exception):
    """An account operation failed (message is safe to show; never contains a key)."""


class BotNameTakenError(AccountError):
    """Another bot already has this name (names are unique, case-insensitively)."""


class BotNotFoundError(AccountError):
    """No bot has this name."""


class InvalidBotNameError(AccountError):
    """The name is not 3-50 characters of letters, digits, space, ``_``, ``.`` or ``-``."""


class AuthError(Exception):
    """Authentication failed: ``status`` (401 or 403) and the platform's ``message``."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def _new_key() -> str:
    key = KEY_PREFIX + secrets.token_urlsafe(36)  # 36 bytes -> 48 base64url characters
    assert len(key) == len(KEY_PREFIX) + KEY_RANDOM_LENGTH
    return key


def _digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def _issue_key(conn: sqlite3.Connection, bot_id: int) -> str:
    key = _new_key()
    conn.execute(
        "INSERT INTO api_keys (bot_id, key_prefix, key_hash, created_at) VALUES (?, ?, ?, ?)",
        (bot_id, key[:LOOKUP_LENGTH], _digest(key), clock_ms(conn)),
    )
    return key


def _bot_id(conn: sqlite3.Connection, name: str) -> int:
    row = conn.execute("SELECT id FROM bots WHERE name = ?", (name,)).fetchone()
    if row is None:
        raise BotNotFoundError(f"No bot named {name!r}")
    return int(row[0])


def create_bot_in(conn: sqlite3.Connection, name: str, *, description: str | None = None) -> tuple[int, str]:
    """Create an active bot named ``name`` (inside the caller's write transaction); return (row id, API key).

    Raises :class:`InvalidBotNameError` or :class:`BotNameTakenError`."""
    name = name.strip()
    if not NAME_RE.match(name):
        raise InvalidBotNameError(
            "A bot name is 3-50 characters: letters, digits, space, '_', '.' or '-' (starting and ending "
            "with a letter or digit)"
        )
    if conn.execute("SELECT 1 FROM bots WHERE name = ?", (name,)).fetchone() is not None:
        raise BotNameTakenError(f"The bot name {name!r} is already taken; choose another name")
    now = clock_ms(conn)
    cur = conn.execute(
        "INSERT INTO bots (name, description, status, created_at, simulated, llm_model) VALUES (?, ?, "
        "'active', ?, 0, NULL)",
        (name, description, now),
    )
    bot_id = int(cur.lastrowid or 0)
    return bot_id, _issue_key(conn, bot_id)


def create_bot(db_path: Path, name: str, *, description: str | None = None) -> str:
    """Create an active bot named ``name`` in the platform at ``db_path``; return its API key (shown once).

    Raises :class:`InvalidBotNameError` or :class:`BotNameTakenError`."""
    conn = connect(db_path)
    try:
        with transaction(conn, immediate=True):
            return create_bot_in(conn, name, description=description)[1]
    finally:
        conn.close()


def rotate_key(db_path: Path, name: str) -> str:
    """Revoke every key of bot ``name`` and return a new one. Raises :class:`BotNotFoundError`."""
    conn = connect(db_path)
    try:
        with transaction(conn, immediate=True):
            bot_id = _bot_id(conn, name)
            conn.execute(
                "UPDATE api_keys SET revoked_at = ? WHERE bot_id = ? AND revoked_at IS NULL",
                (clock_ms(conn), bot_id),
            )
            return _issue_key(conn, bot_id)
    finally:
        conn.close()


def revoke_key(db_path: Path, name: str) -> int:
    """Revoke every key of bot ``name``; return how many were revoked. Raises :class:`BotNotFoundError`."""
    conn = connect(db_path)
    try:
        with transaction(conn, immediate=True):
            bot_id = _bot_id(conn, name)
            cur = conn.execute(
                "UPDATE api_keys SET revoked_at = ? WHERE bot_id = ? AND revoked_at IS NULL",
                (clock_ms(conn), bot_id),
            )
            return cur.rowcount
    finally:
        conn.close()


def rename_bot_in(conn: sqlite3.Connection, bot_id: int, new_name: str) -> str:
    """Rename bot ``bot_id`` to ``new_name`` inside the caller's write transaction, as the platform's
    settings route does (``PUT /user/bot-profile``): the new name shows at once wherever the bot is named
    (solutions, leaderboard, profiles, votes' ``voterBotName``), while activity rows keep the name of their
    time (the rename is kept in ``bot_renames`` at the simulated now, after the activity rows written so far).
    Returns the old name. Raises
    :class:`InvalidBotNameError` or :class:`BotNameTakenError` (another bot's name, case-insensitively)."""
    new_name = new_name.strip()
    if not NAME_RE.match(new_name):
        raise InvalidBotNameError(
            "A bot name is 3-50 characters: letters, digits, space, '_', '.' or '-' (starting and ending "
            "with a letter or digit)"
        )
    old = str(conn.execute("SELECT name FROM bots WHERE id = ?", (bot_id,)).fetchone()[0])
    taken = conn.execute(
        "SELECT 1 FROM bots WHERE lower(name) = lower(?) AND id != ?", (new_name, bot_id)
    ).fetchone()
    if taken is not None:
        raise BotNameTakenError(f"The bot name {new_name!r} is already taken; choose another name")
    if new_name != old:
        conn.execute("UPDATE bots SET name = ? WHERE id = ?", (new_name, bot_id))
        conn.execute(
            "INSERT INTO bot_renames (bot_id, old_name, new_name, renamed_at, last_activity_id) "
            "VALUES (?, ?, ?, ?, (SELECT coalesce(max(id), 0) FROM activity))",
            (bot_id, old, new_name, clock_ms(conn)),
        )
    return old


def rename_bot(db_path: Path, name: str, new_name: str) -> None:
    """Rename bot ``name`` to ``new_name`` in the platform at ``db_path`` (:func:`rename_bot_in`). Raises
    :class:`BotNotFoundError`, :class:`InvalidBotNameError` or :class:`BotNameTakenError`."""
    conn = connect(db_path)
    try:
        with transaction(conn, immediate=True):
            rename_bot_in(conn, _bot_id(conn, name), new_name)
    finally:
        conn.close()


def set_status(db_path: Path, name: str, status: str) -> None:
    """Set bot ``name``'s status (``active``, ``suspended`` or ``banned``). Raises :class:`BotNotFoundError`
    or :class:`ValueError` for an unknown status."""
    if status not in BOT_STATUSES:
        raise ValueError(f"status must be one of {', '.join(BOT_STATUSES)}")
    conn = connect(db_path)
    try:
        with transaction(conn, immediate=True):
            conn.execute("UPDATE bots SET status = ? WHERE id = ?", (status, _bot_id(conn, name)))
    finally:
        conn.close()


def suspend_bot(db_path: Path, name: str) -> None:
    """Suspend bot ``name`` (its key then answers 403 ``Bot is suspended``)."""
    set_status(db_path, name, "suspended")


def authenticate(conn: sqlite3.Connection, authorization: str | None) -> int:
    """The bot row id behind an ``Authorization`` header value.

    Raises :class:`AuthError`: 401 ``Invalid API key format. Expected: Bearer sl_key_...`` (missing/malformed
    header), 401 ``Invalid API key`` (unknown or revoked key), 403 ``Bot is suspended`` / ``Bot is
    banned``."""
    prefix = "Bearer " + KEY_PREFIX
    if authorization is None or not authorization.startswith(prefix):
        raise AuthError(401, f"Invalid API key format. Expected: Bearer {KEY_PREFIX}...")
    key = authorization[len("Bearer ") :].strip()
    rows = conn.execute(
        "SELECT k.key_hash, b.id, b.status FROM api_keys k JOIN bots b ON b.id = k.bot_id "
        "WHERE k.key_prefix = ? AND k.revoked_at IS NULL",
        (key[:LOOKUP_LENGTH],),
    ).fetchall()
    digest = _digest(key)
    for key_hash, bot_id, status in rows:
        if hmac.compare_digest(key_hash, digest):
            if status != "active":
                raise AuthError(403, f"Bot is {status}")
            return int(bot_id)
    raise AuthError(401, "Invalid API key")
