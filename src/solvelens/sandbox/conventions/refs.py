"""``--refs nested``: list entries that reference their resource through nested objects instead of flat
id/name fields (another implementation's shapes, issue 21). Only the platform mode offers it
(:mod:`solvelens.sandbox.conventions.platform`); every other list and every single resource keeps its flat
form.

- ``GET /leaderboard`` entries: ``{"position": int (1-based rank in the whole list, the page offset included),
  "botRef": {"id": uuid, "displayName": str}, "status", "totalPoints", "totalSolutions", "totalVotes",
  "voteAccuracy", "globalElo", "lastActiveAt"}`` (no flat ``id``, ``name``, ``ownerBotName``).
- ``GET /problems/{id}/solutions`` entries: the solution with ``"bot": {"id": uuid, "name": str} | null`` in
  place of ``botId``, ``botName``, ``ownerBotName``.
- ``GET /problems`` entries: the problem plus ``"author": {"id": uuid, "username": str}`` (a human) or
  ``{"id": uuid, "name": str}`` (a bot), as the real platform's ``GET /problems/{id}`` shows its author;
  ``authorType`` stays (it is the problem's, not a reference).

The values are the default mode's, moved: the same SQL rows, the same ids (:mod:`solvelens.sandbox.queries`).
"""

from __future__ import annotations

from typing import Any, Final

from solvelens.sandbox import schemas

__all__ = ["NESTED_ITEMS", "nest"]

Record = dict[str, Any]


class BotRef(schemas.Record):
    """A leaderboard entry's bot: its id and name."""

    id: schemas.Uuid
    displayName: str


class SolutionBot(schemas.Record):
    """A solution's bot: its id and name."""

    id: schemas.Uuid
    name: str | None


class NestedLeaderboardBot(schemas.Record):
    """A ``GET /leaderboard`` entry with ``--refs nested``: the rank as ``position``, the bot as
    ``botRef``."""

    position: int
    botRef: BotRef
    status: schemas.BotStatus
    totalPoints: int
    totalSolutions: int
    totalVotes: int
    voteAccuracy: float
    globalElo: int
    lastActiveAt: schemas.Timestamp | None


class NestedSolution(schemas.Record):
    """A ranked solution with ``--refs nested``: the bot as ``bot: {id, name}``."""

    id: schemas.Uuid
    text: str
    btScore: float
    comparisonCount: int
    winCount: int
    lossCount: int
    confidenceInterval: float
    llmModel: str | None
    createdAt: schemas.Timestamp
    bot: SolutionBot | None


class NestedProblemSummary(schemas.ProblemSummary):
    """A ``GET /problems`` entry with ``--refs nested``: the problem plus its ``author`` reference."""

    author: schemas.HumanAuthor | SolutionBot | None


#: The documented entry model of each nested list (by list resource).
NESTED_ITEMS: Final[dict[str, type[schemas.Record]]] = {
    "leaderboard": NestedLeaderboardBot,
    "solutions": NestedSolution,
    "problems": NestedProblemSummary,
}


def nest(resource: str, records: list[Record], offset: int) -> list[Record]:
    """``records`` of the list ``resource`` (one page starting at ``offset``, 0-based) with nested references.

    Problems must carry ``author`` already (``queries.list_problems(with_author=True)``); lists other than
    leaderboard, solutions and problems are returned as they are."""
    if resource == "leaderboard":
        return [_leaderboard_entry(r, offset + i + 1) for i, r in enumerate(records)]
    if resource == "solutions":
        return [_solution(r) for r in records]
    return records


def _leaderboard_entry(record: Record, position: int) -> Record:
    out: Record = {"position": position, "botRef": {"id": record["id"], "displayName": record["name"]}}
    out.update((k, v) for k, v in record.items() if k not in ("id", "name", "ownerBotName"))
    return out


def _solution(record: Record) -> Record:
    out: Record = {}
    for key, value in record.items():
        if key == "botId":
            out["bot"] = None if value is None else {"id": value, "name": record.get("botName")}
        elif key not in ("botName", "ownerBotName"):
            out[key] = value
    return out
