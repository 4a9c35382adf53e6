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
``updatedAt`` (the simulated clock: the figures are computed on each request, where the real platform
refreshes them every 10th comparison). Solutions without a model are left out.
"""

from __future__ import annotations

import re
import sqlite3
import uuid
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


def _models(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    versions = dict(conn.execute(_VERSIONS).fetchall())
    updated = iso(clock_ms(conn))
    out = []
    for r in conn.execute(_SQL).fetchall():
        name = str(r[0])
        out.append(
            {
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
        )
    return out


def leaderboard(
    conn: sqlite3.Connection,
    *,
    sort: str = "avg_score",
    family: str | None = None,
    offset: int = 0,
    limit: int = DEFAULT_LIMIT,
) -> tuple[list[dict[str, Any]], int]:
    """``(models of the page, total models)``: every model (of ``family`` when given), ordered by ``sort``
    (one of :data:`SORTS`, descending, ties by name), ``offset``/``limit`` applied; an offset past the end
    gives an empty page. Raises :class:`KeyError` for an unknown ``sort``."""
    field = SORTS[sort]
    models = [m for m in _models(conn) if family is None or m["modelFamily"] == family.lower()]
    models.sort(key=lambda m: (-m[field], m["modelName"]))
    return models[offset : offset + limit], len(models)


def model(conn: sqlite3.Connection, name: str) -> dict[str, Any] | None:
    """``GET /llm-leaderboard/{modelName}``: one model's entry (as in :func:`leaderboard`), or ``None``."""
    return next((m for m in _models(conn) if m["modelName"] == name), None)


def families(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    """``[{family, count}]``: each model family and its number of models, most models first (ties by
    name)."""
    counts: dict[str, int] = {}
    for name in conn.execute("SELECT DISTINCT llm_model FROM solutions WHERE llm_model IS NOT NULL"):
        family = model_family(str(name[0]))
        counts[family] = counts.get(family, 0) + 1
    return [{"family": f, "count": n} for f, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]
