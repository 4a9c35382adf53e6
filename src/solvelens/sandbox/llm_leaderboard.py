"""The platform's own model ranking (``GET /api/v1/llm-leaderboard`` and ``/llm-leaderboard/families``),
computed from the sandbox's solutions and the ``llmModel`` each was written with (a simulated bot writes with
its own model, ``bots.llm_model``; a real bot reports its model on submit).

Per model (``modelName``): ``totalSolutions``; ``avgBtScore``/``bestBtScore`` (mean/max of the solutions'
current Bradley-Terry scores); ``totalWins`` and ``totalComparisons`` (sums of the solutions' win and
comparison counts; comparisons include skips); ``winRate`` = totalWins / totalComparisons (0 without
comparisons); ``top3Count``/``firstPlaceCount`` (the platform's placement awards: a solution placed in the
top 3 / first when its problem matured); ``uniqueBots``; ``firstSeenAt``/``lastSeenAt`` (first and last
solution); ``modelVersion`` (of the model's newest solution); ``modelFamily`` (the leading letters of the
name: ``claude-opus-4-1`` -> ``claude``, ``gpt-4o`` -> ``gpt``); ``id`` (a UUID stable per model name);
``updatedAt``. Solutions without a model are left out.

``lazy=True`` (``--llm-board lazy``, the default: the real platform's behaviour, real-platform-notes §13-§15):
the score figures (``avgBtScore``, ``bestBtScore``, ``totalWins``, ``totalComparisons``, ``winRate``,
``top3Count``, ``firstPlaceCount``) are those of the model's last recalculation, which happens only when a
vote brings one of its solutions' comparison count to a multiple of 10 (:func:`recalculate`, called by the
world when it writes such a vote: the figures as of the end of that write, ``updatedAt`` the vote's time); a
model never recalculated sits at win rate 0 / average and best score 1500, no wins, comparisons or placements,
``updatedAt`` its first solution. ``totalSolutions``, ``uniqueBots``, ``modelVersion`` and the seen times are
kept current. ``lazy=False`` (``--llm-board live``): every figure computed on each request, ``updatedAt`` the
simulated clock.

Ties (equal values of the sorted field): ordered by model name, or at random on every call with
``shuffle_ties`` (``--tie-order shuffle``, as the real platform).
"""

from __future__ import annotations

import json
import random
import re
import sqlite3
import uuid
from collections.abc import Iterable
from typing import Any, Final, Literal

from solvelens.sandbox.db import clock_ms, iso

__all__ = [
    "DEFAULT_LIMIT",
    "MAX_LIMIT",
    "SORTS",
    "Sort",
    "families",
    "leaderboard",
    "model",
    "model_family",
    "recalculate",
]

DEFAULT_LIMIT: Final = 20
MAX_LIMIT: Final = 100
Sort = Literal["avg_score", "best_score", "win_rate", "total_solutions", "top3_count", "first_place_count"]
#: ``sort`` value -> the field ordered by (descending; ties by model name).
SORTS: Final[dict[str, str]] = {
    "avg_score": "avgBtScore",
    "best_score": "bestBtScore",
    "win_rate": "winRate",
    "total_solutions": "totalSolutions",
    "top3_count": "top3Count",
    "first_place_count": "firstPlaceCount",
}
#: The score figures a lazy board shows as of the model's last recalculation, and their values before one.
LAZY_FIGURES: Final = {
    "avgBtScore": 1500.0,
    "bestBtScore": 1500.0,
    "totalWins": 0,
    "totalComparisons": 0,
    "winRate": 0.0,
    "top3Count": 0,
    "firstPlaceCount": 0,
}
#: A solution's comparison count at which its model's figures are recalculated: every multiple of this.
RECALCULATE_EVERY: Final = 10
_RNG = random.SystemRandom()
_NAMESPACE: Final = uuid.UUID("8d0f5c1e-3a52-5f3e-9a51-6c1b2f7d4e10")
_FAMILY: Final = re.compile(r"[a-z]+")

_SQL: Final = """
SELECT s.llm_model, count(*), avg(s.bt_score), max(s.bt_score), sum(s.win_count), sum(s.comparison_count),
       coalesce(sum(aw.placed), 0), coalesce(sum(aw.first), 0), count(DISTINCT s.bot_id), min(s.created_at),
       max(s.created_at)
FROM solutions s
LEFT JOIN (SELECT solution_id, 1 AS placed, max(action = 'solution_first_place') AS first FROM awards
           WHERE action IN ('solution_first_place', 'solution_top_3') GROUP BY solution_id) aw
       ON aw.solution_id = s.id
WHERE s.llm_model IS NOT NULL
GROUP BY s.llm_model
"""
_VERSIONS: Final = """
SELECT llm_model, llm_model_version FROM (
  SELECT llm_model, llm_model_version,
         row_number() OVER (PARTITION BY llm_model ORDER BY created_at DESC, id DESC) AS rn
  FROM solutions WHERE llm_model IS NOT NULL)
WHERE rn = 1
"""


def model_family(name: str) -> str:
    """The family of a model name: its leading letters, lower-cased (``other`` when it has none)."""
    found = _FAMILY.match(name.lower())
    return found.group(0) if found else "other"


def _models(
    conn: sqlite3.Connection, *, lazy: bool = False, only: Iterable[str] | None = None
) -> list[dict[str, Any]]:
    versions = dict(conn.execute(_VERSIONS).fetchall())
    updated = iso(clock_ms(conn))
    wanted = None if only is None else set(only)
    stored = _stored(conn) if lazy else {}
    out = []
    for r in conn.execute(_SQL).fetchall():
        name = str(r[0])
        if wanted is not None and name not in wanted:
            continue
        entry = {
            "id": str(uuid.uuid5(_NAMESPACE, name)),
            "modelName": name,
            "modelVersion": versions.get(name),
            "modelFamily": model_family(name),
            "totalSolutions": int(r[1]),
            "avgBtScore": round(float(r[2]), 4),
            "bestBtScore": round(float(r[3]), 4),
            "totalWins": int(r[4]),
            "totalComparisons": int(r[5]),
            "winRate": round(r[4] / r[5], 4) if r[5] else 0.0,
            "top3Count": int(r[6]),
            "firstPlaceCount": int(r[7]),
            "uniqueBots": int(r[8]),
            "firstSeenAt": iso(r[9]),
            "lastSeenAt": iso(r[10]),
            "updatedAt": updated,
        }
        if lazy:
            figures, at = stored.get(name, (LAZY_FIGURES, r[9]))
            entry.update(figures)
            entry["updatedAt"] = iso(at)
        out.append(entry)
    return out


def _stored(conn: sqlite3.Connection) -> dict[str, tuple[dict[str, Any], int]]:
    """Each recalculated model's figures and the time of its recalculation (``llm_board``)."""
    rows = conn.execute("SELECT model, figures, updated_at FROM llm_board").fetchall()
    return {str(m): (json.loads(f), int(t)) for m, f, t in rows}


def recalculate(conn: sqlite3.Connection, models: Iterable[str], at: int) -> None:
    """Store the current score figures (:data:`LAZY_FIGURES`) of ``models`` as recalculated at ``at``
    (UTC ms), inside the caller's write transaction (``llm_board``; read by the lazy board)."""
    for entry in _models(conn, only=models):
        figures = {k: entry[k] for k in LAZY_FIGURES}
        conn.execute(
            "INSERT INTO llm_board (model, figures, updated_at) VALUES (?, ?, ?) ON CONFLICT (model) DO "
            "UPDATE SET figures = excluded.figures, updated_at = excluded.updated_at",
            (entry["modelName"], json.dumps(figures), at),
        )


def leaderboard(
    conn: sqlite3.Connection,
    *,
    sort: str = "avg_score",
    family: str | None = None,
    offset: int = 0,
    limit: int = DEFAULT_LIMIT,
    lazy: bool = False,
    shuffle_ties: bool = False,
) -> tuple[list[dict[str, Any]], int]:
    """``(models of the page, total models)``: every model (of ``family`` when given), ordered by ``sort``
    (one of :data:`SORTS`, descending; ties by name, or at random with ``shuffle_ties``), ``offset``/``limit``
    applied; an offset past the end gives an empty page; ``lazy``: the figures of the last recalculation
    (module docstring). Raises :class:`KeyError` for an unknown ``sort``."""
    field = SORTS[sort]
    models = [m for m in _models(conn, lazy=lazy) if family is None or m["modelFamily"] == family.lower()]
    if shuffle_ties:
        _RNG.shuffle(models)
        models.sort(key=lambda m: -m[field])  # stable: equal values keep the shuffled order
    else:
        models.sort(key=lambda m: (-m[field], m["modelName"]))
    return models[offset : offset + limit], len(models)


def model(conn: sqlite3.Connection, name: str, *, lazy: bool = False) -> dict[str, Any] | None:
    """``GET /llm-leaderboard/{modelName}``: one model's entry (as in :func:`leaderboard`), or ``None``."""
    return next(iter(_models(conn, lazy=lazy, only=[name])), None)


def families(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    """``[{family, count}]``: each model family and its number of models, most models first (ties by
    name)."""
    counts: dict[str, int] = {}
    for name in conn.execute("SELECT DISTINCT llm_model FROM solutions WHERE llm_model IS NOT NULL"):
        family = model_family(str(name[0]))
        counts[family] = counts.get(family, 0) + 1
    return [{"family": f, "count": n} for f, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]
