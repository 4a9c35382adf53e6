"""SQLite store of the sandbox platform: schema, WAL connections, the meta table and the simulated clock.

Every timestamp column is INTEGER milliseconds since the Unix epoch (UTC) on the *simulated* clock, stored in
``meta('clock_ms')``; the API shows them as ISO-8601 strings ``2026-01-15T10:30:00.000Z`` (:func:`iso`).
Ids are INTEGER row ids; :mod:`solvelens.sandbox.ids` turns them into UUID strings.

Concurrency: WAL journal, so the server process reads while ``advance`` (another process) writes;
connections run
in autocommit mode (``isolation_level=None``) and callers open explicit ``BEGIN``/``BEGIN IMMEDIATE``
transactions, so no reader ever holds a stale snapshot between requests.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Final

SCHEMA_VERSION: Final = 3
#: The simulated clock of every new platform starts here (UTC).
CLOCK_START: Final = datetime(2026, 1, 1, tzinfo=UTC)
CLOCK_START_MS: Final = int(CLOCK_START.timestamp() * 1000)
HOUR_MS: Final = 3_600_000
DAY_MS: Final = 24 * HOUR_MS

SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS categories (
    slug TEXT PRIMARY KEY, position INTEGER NOT NULL, display_name TEXT NOT NULL, icon TEXT NOT NULL,
    description TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS humans (id INTEGER PRIMARY KEY, username TEXT NOT NULL UNIQUE);
CREATE TABLE IF NOT EXISTS bots (
    id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE COLLATE NOCASE, description TEXT,
    status TEXT NOT NULL DEFAULT 'active',
    total_points INTEGER NOT NULL DEFAULT 0, total_solutions INTEGER NOT NULL DEFAULT 0,
    total_votes INTEGER NOT NULL DEFAULT 0, total_flags INTEGER NOT NULL DEFAULT 0,
    total_problems_created INTEGER NOT NULL DEFAULT 0, vote_accuracy REAL NOT NULL DEFAULT 0.5,
    accuracy_n INTEGER NOT NULL DEFAULT 0, global_elo INTEGER NOT NULL DEFAULT 1200,
    last_active_at INTEGER, total_tasks_completed INTEGER NOT NULL DEFAULT 0, created_at INTEGER NOT NULL,
    skill REAL NOT NULL DEFAULT 0, drift REAL NOT NULL DEFAULT 0, judgment REAL NOT NULL DEFAULT 0.75,
    activity REAL NOT NULL DEFAULT 1, llm_model TEXT, llm_model_version TEXT, simulated INTEGER NOT NULL
    DEFAULT 1);
CREATE INDEX IF NOT EXISTS bots_points ON bots (status, total_points DESC, id);
CREATE TABLE IF NOT EXISTS api_keys (
    id INTEGER PRIMARY KEY, bot_id INTEGER NOT NULL, key_prefix TEXT NOT NULL, key_hash TEXT NOT NULL,
    created_at INTEGER NOT NULL, revoked_at INTEGER);
CREATE INDEX IF NOT EXISTS api_keys_prefix ON api_keys (key_prefix);
CREATE TABLE IF NOT EXISTS problems (
    id INTEGER PRIMARY KEY, author_type TEXT NOT NULL, human_author_id INTEGER, bot_author_id INTEGER,
    title TEXT NOT NULL, description TEXT NOT NULL, status TEXT NOT NULL, category TEXT,
    category_assigned_by TEXT, category_confidence REAL, green_flags INTEGER NOT NULL DEFAULT 0,
    red_flags INTEGER NOT NULL DEFAULT 0, solution_count INTEGER NOT NULL DEFAULT 0,
    comparison_count INTEGER NOT NULL DEFAULT 0, attention_score REAL NOT NULL DEFAULT 0,
    last_bot_activity_at INTEGER, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
    failed_flag_attempts INTEGER NOT NULL DEFAULT 0);
CREATE INDEX IF NOT EXISTS problems_created ON problems (created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS problems_status ON problems (status, solution_count);
CREATE INDEX IF NOT EXISTS problems_category ON problems (category);
CREATE INDEX IF NOT EXISTS problems_bot_author ON problems (bot_author_id, created_at);
CREATE TABLE IF NOT EXISTS solutions (
    id INTEGER PRIMARY KEY, problem_id INTEGER NOT NULL, bot_id INTEGER, text TEXT NOT NULL, llm_model TEXT,
    llm_model_version TEXT, bt_score REAL NOT NULL DEFAULT 1500, comparison_count INTEGER NOT NULL DEFAULT 0,
    win_count INTEGER NOT NULL DEFAULT 0, loss_count INTEGER NOT NULL DEFAULT 0,
    confidence_interval REAL NOT NULL DEFAULT 500, created_at INTEGER NOT NULL, quality REAL NOT NULL
    DEFAULT 0);
CREATE INDEX IF NOT EXISTS solutions_rank ON solutions (problem_id, bt_score DESC, created_at, id);
CREATE INDEX IF NOT EXISTS solutions_bot ON solutions (bot_id, created_at);
CREATE INDEX IF NOT EXISTS solutions_bot_score ON solutions (bot_id, bt_score DESC);
CREATE TABLE IF NOT EXISTS comparisons (
    id INTEGER PRIMARY KEY, problem_id INTEGER NOT NULL, solution_a INTEGER NOT NULL, solution_b INTEGER NOT
    NULL,
    winner TEXT NOT NULL, voter_bot_id INTEGER, created_at INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS comparisons_voter ON comparisons (voter_bot_id, created_at);
CREATE INDEX IF NOT EXISTS comparisons_pair ON comparisons (solution_a, solution_b);
CREATE INDEX IF NOT EXISTS comparisons_b ON comparisons (solution_b);
CREATE TABLE IF NOT EXISTS activity (
    id INTEGER PRIMARY KEY, action TEXT NOT NULL, bot_id INTEGER, problem_id INTEGER, metadata TEXT,
    created_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS flags (
    id INTEGER PRIMARY KEY, problem_id INTEGER NOT NULL, bot_id INTEGER NOT NULL, verdict TEXT NOT NULL,
    category TEXT NOT NULL, suggested_category TEXT, created_at INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS flags_bot ON flags (bot_id, created_at);
CREATE INDEX IF NOT EXISTS flags_problem ON flags (problem_id);
CREATE TABLE IF NOT EXISTS awards (
    id INTEGER PRIMARY KEY, bot_id INTEGER NOT NULL, problem_id INTEGER NOT NULL, solution_id INTEGER NOT
    NULL,
    action TEXT NOT NULL, points INTEGER NOT NULL, created_at INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS awards_bot ON awards (bot_id, created_at);
CREATE TABLE IF NOT EXISTS badges (
    id INTEGER PRIMARY KEY, bot_id INTEGER NOT NULL, badge_type TEXT NOT NULL, tier TEXT NOT NULL,
    earned_at INTEGER NOT NULL, UNIQUE (bot_id, badge_type, tier));
CREATE TABLE IF NOT EXISTS tasks (
    id INTEGER PRIMARY KEY, bot_id INTEGER NOT NULL, task_type TEXT NOT NULL, problem_id INTEGER,
    solution_a INTEGER, solution_b INTEGER, status TEXT NOT NULL, payload TEXT NOT NULL,
    assigned_wall REAL NOT NULL, expires_wall REAL NOT NULL, completed_at INTEGER, created_day INTEGER NOT
    NULL);
CREATE INDEX IF NOT EXISTS tasks_bot ON tasks (bot_id, status);
CREATE INDEX IF NOT EXISTS tasks_problem ON tasks (problem_id, status);
CREATE VIRTUAL TABLE IF NOT EXISTS problems_fts USING fts5(
    title, description, content='problems', content_rowid='id', tokenize='trigram');
CREATE VIRTUAL TABLE IF NOT EXISTS bots_fts USING fts5(
    name, description, content='bots', content_rowid='id', tokenize='trigram');
CREATE TRIGGER IF NOT EXISTS problems_fts_ai AFTER INSERT ON problems BEGIN
    INSERT INTO problems_fts (rowid, title, description) VALUES (new.id, new.title, new.description); END;
CREATE TRIGGER IF NOT EXISTS bots_fts_ai AFTER INSERT ON bots BEGIN
    INSERT INTO bots_fts (rowid, name, description) VALUES (new.id, new.name, new.description); END;
CREATE TRIGGER IF NOT EXISTS bots_fts_au AFTER UPDATE OF name, description ON bots BEGIN
    INSERT INTO bots_fts (bots_fts, rowid, name, description) VALUES ('delete', old.id, old.name,
    old.description);
    INSERT INTO bots_fts (rowid, name, description) VALUES (new.id, new.name, new.description); END;
CREATE TABLE IF NOT EXISTS llm_board (
    model TEXT PRIMARY KEY, figures TEXT NOT NULL, updated_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS bot_renames (
    id INTEGER PRIMARY KEY, bot_id INTEGER NOT NULL, old_name TEXT NOT NULL, new_name TEXT NOT NULL,
    renamed_at INTEGER NOT NULL, last_activity_id INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS bot_renames_bot ON bot_renames (bot_id, renamed_at);
"""


def connect(path: Path | str) -> sqlite3.Connection:
    """Open the platform database (WAL, autocommit mode, 30 s busy timeout); safe to use from one thread at
    a time."""
    conn = sqlite3.connect(str(path), isolation_level=None, timeout=30.0, check_same_thread=False)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA busy_timeout=30000")
    conn.execute("PRAGMA cache_size=-65536")
    return conn


@contextmanager
def transaction(conn: sqlite3.Connection, *, immediate: bool = False) -> Iterator[sqlite3.Connection]:
    """``BEGIN`` (or ``BEGIN IMMEDIATE``, taking the write lock at once) ... ``COMMIT``; rolls back on
    error."""
    conn.execute("BEGIN IMMEDIATE" if immediate else "BEGIN")
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def create_schema(conn: sqlite3.Connection) -> None:
    """Create every table, index, FTS table and trigger (idempotent)."""
    conn.executescript(SCHEMA)


def ensure_schema(conn: sqlite3.Connection) -> None:
    """Bring a platform built by an older version up to :data:`SCHEMA_VERSION` (idempotent): version 2 adds
    the ``activity`` log (empty until the world next does something) and the ``comparisons_b`` index;
    version 3 the model board's lazily recalculated figures (``llm_board``, empty: every model stale) and the
    rename history (``bot_renames``)."""
    version = get_meta(conn, "schema_version")
    if version is not None and int(version) >= SCHEMA_VERSION:
        return
    with transaction(conn, immediate=True):
        create_schema_statements(conn)
        set_meta(conn, "schema_version", SCHEMA_VERSION)


def create_schema_statements(conn: sqlite3.Connection) -> None:
    """Run every ``CREATE ... IF NOT EXISTS`` of :data:`SCHEMA` inside the caller's transaction
    (``executescript`` would commit it)."""
    for statement in _statements(SCHEMA):
        conn.execute(statement)


def _statements(script: str) -> list[str]:
    """The statements of ``script`` (triggers kept whole: a statement ends where SQLite says it is
    complete)."""
    out, current = [], ""
    for line in script.splitlines(keepends=True):
        current += line
        if sqlite3.complete_statement(current):
            out.append(current.strip())
            current = ""
    return [s for s in out if s]


def get_meta(conn: sqlite3.Connection, key: str) -> str | None:
    """The meta value of ``key`` or ``None``."""
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return None if row is None else str(row[0])


def set_meta(conn: sqlite3.Connection, key: str, value: object) -> None:
    """Insert or replace a meta value (stored as text)."""
    conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, str(value)))


def clock_ms(conn: sqlite3.Connection) -> int:
    """The simulated clock: UTC milliseconds since the epoch."""
    value = get_meta(conn, "clock_ms")
    return int(value) if value is not None else CLOCK_START_MS


def iso(ms: int | None) -> str | None:
    """ISO-8601 UTC string with milliseconds (``2026-01-15T10:30:00.000Z``) of epoch milliseconds, or
    ``None``."""
    if ms is None:
        return None
    dt = datetime.fromtimestamp(ms / 1000, tz=UTC)
    return dt.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"
