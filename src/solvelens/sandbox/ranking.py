"""Scoring rules of the platform (mirrors the real platform's Bradley-Terry service and gamification).

- Vote update (Elo-style "Bradley-Terry"): ``expectedA = 1/(1+10^((rB-rA)/400))``, ``K = 32``,
  ``newA = rA + K*(actualA - expectedA)``; a skip changes only the comparison counts.
- ``confidenceInterval = 400/sqrt(comparisonCount_before + 1)``; a new solution starts at 1500 +/- 500.
- Vote accuracy: a vote is correct when it picked the solution with the higher score *before* the update;
  it is not counted when both scores were equal (or for a skip). Running mean ``(old*n + correct)/(n+1)``.
- Maturity: >= 3 solutions, each with >= 5 comparisons, and the top-3 intervals do not overlap
  (``score_i - ci_i >= score_{i+1} + ci_{i+1}``). Then #1 earns +50 points and #2-#3 +20 each.
- Points: solve +5, vote +2, create +3, flag +1.
- A bot's ``globalElo`` is the rounded mean of its top-20 solution scores (1200 without solutions).
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Iterable, Sequence
from typing import Final

K_FACTOR: Final = 32.0
INITIAL_SCORE: Final = 1500.0
INITIAL_CI: Final = 500.0
DEFAULT_ELO: Final = 1200
MIN_SOLUTIONS_TO_MATURE: Final = 3
MIN_COMPARISONS_TO_MATURE: Final = 5
MAX_COMPARISONS_MATURE: Final = 50  # a mature problem stays votable while comparisonCount < 50
TARGET_SOLUTIONS_PER_PROBLEM: Final = 8

POINTS_SOLVE: Final = 5
POINTS_VOTE: Final = 2
POINTS_CREATE: Final = 3
POINTS_FLAG: Final = 1
POINTS_FIRST_PLACE: Final = 50
POINTS_TOP3: Final = 20

FLAGS_REQUIRED: Final = 3
RED_FLAGS_TO_REJECT: Final = 2


def expected(r_a: float, r_b: float) -> float:
    """Expected score of A against B (0..1)."""
    return 1.0 / (1.0 + 10.0 ** ((r_b - r_a) / 400.0))


def bt_update(r_a: float, r_b: float, winner: str) -> tuple[float, float]:
    """New ``(scoreA, scoreB)`` after a vote; ``winner`` is ``"a"``, ``"b"`` or ``"skip"`` (unchanged)."""
    if winner == "skip":
        return r_a, r_b
    e_a = expected(r_a, r_b)
    actual_a = 1.0 if winner == "a" else 0.0
    return r_a + K_FACTOR * (actual_a - e_a), r_b + K_FACTOR * ((1.0 - actual_a) - (1.0 - e_a))


def confidence_interval(comparisons_before: int) -> float:
    """Interval after a vote, from the comparison count *before* it: ``400/sqrt(n+1)``."""
    return 400.0 / math.sqrt(comparisons_before + 1)


def vote_correct(r_a: float, r_b: float, winner: str) -> bool | None:
    """Whether a vote picked the higher-scored solution (scores before the update); ``None`` when not
    counted."""
    if winner == "skip" or r_a == r_b:
        return None
    return (winner == "a") == (r_a > r_b)


def updated_accuracy(old: float, n: int, correct: bool) -> float:
    """Running mean of vote correctness after one more counted vote (``n`` = counted votes before)."""
    return (old * n + (1.0 if correct else 0.0)) / (n + 1)


def is_mature(solutions: Sequence[tuple[float, float, int]]) -> bool:
    """Maturity rule over ``(btScore, confidenceInterval, comparisonCount)`` of all solutions of one
    problem."""
    if len(solutions) < MIN_SOLUTIONS_TO_MATURE:
        return False
    if any(s[2] < MIN_COMPARISONS_TO_MATURE for s in solutions):
        return False
    top = heapq.nlargest(3, solutions, key=lambda s: s[0])
    return all(top[i][0] - top[i][1] >= top[i + 1][0] + top[i + 1][1] for i in range(2))


def global_elo(scores: Iterable[float]) -> int:
    """Mean of the top-20 solution scores, rounded; :data:`DEFAULT_ELO` without solutions."""
    top = heapq.nlargest(20, scores)
    return round(sum(top) / len(top)) if top else DEFAULT_ELO
