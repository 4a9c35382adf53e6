"""Competition ranks of a problem's solutions over their score ("1224"), the rank a snapshot stores.

The platform lists a problem's solutions by ``btScore`` descending, but orders solutions with equal scores
differently on each call (real-platform-notes §13: 245 of 553 solutions shared their score with another
solution of the same problem). A position in that listing is therefore not a rank. A snapshot stores the
**standard competition rank** over the score instead: 1 + the number of solutions of the problem with a
strictly higher score, so tied solutions share the best rank among them and the next rank skips
(scores 9, 7, 7, 5 -> ranks 1, 2, 2, 4). The same listing in any tie order gives the same ranks, and the
writer keys a solution list on its (rank, version id) pairs (:mod:`solvelens.store.writer`), so an order
change within a tie is neither a new stored version nor a rank move.

A score is the record's ``btScore`` as served (a finite JSON number; ``true``/``false`` are not numbers).
When any solution of a list has no numeric score, nothing can be ranked over the score: the list keeps the
positions of the walk (1..n), and the fetch step adds one warning line for all such problems
(:func:`unscored_warning`) to the snapshot's warnings.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

#: The canonical field holding a solution's score.
SCORE_FIELD = "btScore"


def _score(record: Any) -> float | None:
    """The record's numeric, finite score, or ``None``."""
    value = record.get(SCORE_FIELD) if isinstance(record, dict) else None
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def competition_ranks(solutions: Sequence[Any]) -> tuple[list[int], bool]:
    """Ranks of ``solutions`` (canonical solution records, in the order served) and whether they are by score.

    Returns one rank per record, aligned with the input: 1 + the number of records with a strictly higher
    ``btScore`` (ties share the best rank, "1224"), whatever the order of the input, and ``True``. When a
    record has no numeric finite ``btScore``, the positions 1..n and ``False`` (say so with
    :func:`unscored_warning`). Never raises.
    """
    scores = [_score(s) for s in solutions]
    known = [s for s in scores if s is not None]
    if len(known) < len(scores):
        return list(range(1, len(scores) + 1)), False
    first: dict[float, int] = {}
    for position, score in enumerate(sorted(known, reverse=True), start=1):
        first.setdefault(score, position)
    return [first[s] for s in known], True


def unscored_warning(problem_ids: Sequence[str]) -> str:
    """One warning line for the problems whose solution lists could not be ranked over the score."""
    example = f"/problems/{problem_ids[0]}/solutions" if problem_ids else "?"
    return (
        f"{len(problem_ids)} problems list solutions without a numeric {SCORE_FIELD} (e.g. {example}): their "
        "ranks are positions in the listing, so tied solutions cannot be recognised and a tie order change "
        "counts as a change"
    )
