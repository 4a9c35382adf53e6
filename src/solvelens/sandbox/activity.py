"""The platform's activity log: one row per thing the world does, with a serial integer id, served newest
first by ``GET /api/v1/activity`` (the real platform's feed: the latest 50 at most, no paging).

Events are written by :class:`~solvelens.sandbox.world.World` (so the simulator, the generator and the live
task dispatcher log the same way) and by the dispatcher's direct updates (a human's problem rejected after
five failed flags). Table ``activity`` (see :mod:`solvelens.sandbox.db`): ``id INTEGER PRIMARY KEY``
(serial: SQLite gives each new row max(id) + 1, so id order is insertion order, which is time order),
``action``, ``bot_id`` (nullable: a human's problem), ``problem_id`` (nullable: a badge), ``metadata``
(a JSON object; internal integer ids under :data:`ID_KEYS`), ``created_at`` (simulated UTC ms).

Actions (the first six are the real platform's; the last two are the sandbox's own names for what the
real feed does not document):

=========================  =======================================================================
``problem_created``        ``{"authorType": "bot"|"human", "category"}``
``flag_submitted``         ``{"verdict": "green"|"red", "category"}``
``solution_submitted``     ``{"solutionId", "llmModel"}``
``vote_cast``              ``{"winner": "a"|"b"|"skip", "comparisonId", "solutionAId", "solutionBId"}``
``solution_first_place``   ``{"solutionId", "points"}`` (awarded when the problem matures)
``solution_top_3``         ``{"solutionId", "points"}``
``problem_status_changed`` ``{"from", "to"}`` (pending -> active/rejected, active -> mature); the bot
                           whose flag or vote caused it, none for an automatic rejection
``badge_earned``           ``{"badgeType", "tier"}``
=========================  =======================================================================

On the wire ``metadata`` is a JSON *string* (as on the real platform) with public UUID ids.

Volume (measured, seed 0): a simulated day of a ``medium`` platform logs ~1,700-1,900 events (day 1: 154
solutions, 1,002 votes, 232 flags, 44 new problems plus status changes, awards and badges), of a ``small`` one
~300, so two snapshots a simulated day apart are always more than one 50-event page apart: the feed alone
cannot hold a day, and a snapshot cadence must be minutes of simulated time to see every event. The built
history logs its last 30 days (``generate.ACTIVITY_LOG_DAYS``): ~133,000 events on ``medium``.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any, Final

from solvelens.sandbox.db import iso
from solvelens.sandbox.ids import IdCodec, Kind

__all__ = [
    "ACTIONS",
    "DEFAULT_LIMIT",
    "ID_KEYS",
    "INSERT_EVENT",
    "MAX_LIMIT",
    "event",
    "log_event",
    "recent",
]

ACTIONS: Final = (
    "problem_created",
    "flag_submitted",
    "solution_submitted",
    "vote_cast",
    "solution_first_place",
    "solution_top_3",
    "problem_status_changed",
    "badge_earned",
)
#: ``GET /activity?limit=``: default and maximum (the real platform's).
DEFAULT_LIMIT: Final = 20
MAX_LIMIT: Final = 50
#: Metadata keys holding internal row ids, and the kind each is encoded as on the wire.
ID_KEYS: Final[dict[str, Kind]] = {
    "solutionId": "solution",
    "solutionAId": "solution",
    "solutionBId": "solution",
    "comparisonId": "comparison",
}
INSERT_EVENT: Final = (
    "INSERT INTO activity (action, bot_id, problem_id, metadata, created_at) VALUES (?,?,?,?,?)"
)

Event = tuple[str, int | None, int | None, str, int]


def event(action: str, bot_id: int | None, problem_id: int | None, t: int, **metadata: Any) -> Event:
    """One row ready for :data:`INSERT_EVENT` (``metadata`` compact JSON, internal ids)."""
    return (action, bot_id, problem_id, json.dumps(metadata, separators=(",", ":")), t)


def log_event(
    conn: sqlite3.Connection, action: str, bot_id: int | None, problem_id: int | None, t: int, **metadata: Any
) -> None:
    """Insert one event now (inside the caller's transaction)."""
    conn.execute(INSERT_EVENT, event(action, bot_id, problem_id, t, **metadata))


def _wire_metadata(codec: IdCodec, text: str | None) -> str | None:
    if text is None:
        return None
    data = json.loads(text)
    for key, kind in ID_KEYS.items():
        if isinstance(data.get(key), int):
            data[key] = codec.encode(kind, data[key])
    return json.dumps(data, separators=(",", ":"))


def recent(conn: sqlite3.Connection, codec: IdCodec, limit: int) -> list[dict[str, Any]]:
    """``GET /activity`` records, newest first (highest id first): ``{id (int), action, botId, botName,
    ownerBotName, problemId, problemTitle, metadata (JSON string or null), createdAt (ISO UTC)}``. A row keeps
    the name its bot had at its time (the real platform's rows store it): the old name of the first rename
    written after it (``bot_renames``; rows are numbered in time order), else the current one."""
    rows = conn.execute(
        "SELECT a.id, a.action, a.bot_id, coalesce((SELECT r.old_name FROM bot_renames r WHERE r.bot_id = "
        "a.bot_id AND r.last_activity_id >= a.id ORDER BY r.id LIMIT 1), b.name), "
        "a.problem_id, p.title, a.metadata, a.created_at "
        "FROM activity a LEFT JOIN bots b ON b.id = a.bot_id LEFT JOIN problems p ON p.id = a.problem_id "
        "ORDER BY a.id DESC LIMIT ?",
        (limit,),
    ).fetchall()
    return [
        {
            "id": r[0],
            "action": r[1],
            "botId": codec.encode_opt("bot", r[2]),
            "botName": r[3],
            "ownerBotName": r[3],
            "problemId": codec.encode_opt("problem", r[4]),
            "problemTitle": r[5],
            "metadata": _wire_metadata(codec, r[6]),
            "createdAt": iso(r[7]),
        }
        for r in rows
    ]
