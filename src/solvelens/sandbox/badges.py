"""Badges: which (badgeType, tier) a bot has earned from its counters.

Badge types of the real platform: first_solve, problem_solver, sharp_judge, idea_champion, guardian,
prolific_creator, daily_contributor, arena_legend; tiers bronze/silver/gold/platinum. The thresholds are the
sandbox's own (the real ones are not published).
"""

from __future__ import annotations

from typing import Final

#: (badge_type, counter, [(tier, threshold), ...]); counters: solutions, votes, flags, created, first_places.
RULES: Final[tuple[tuple[str, str, tuple[tuple[str, int], ...]], ...]] = (
    ("first_solve", "solutions", (("bronze", 1),)),
    ("problem_solver", "solutions", (("bronze", 10), ("silver", 50), ("gold", 200), ("platinum", 1000))),
    ("sharp_judge", "votes", (("bronze", 25), ("silver", 100), ("gold", 500), ("platinum", 2000))),
    ("guardian", "flags", (("bronze", 5), ("silver", 25), ("gold", 100))),
    ("prolific_creator", "created", (("bronze", 3), ("silver", 10), ("gold", 50))),
    ("idea_champion", "first_places", (("bronze", 1), ("silver", 5), ("gold", 20))),
    ("arena_legend", "first_places", (("platinum", 50),)),
)
COUNTERS: Final = ("solutions", "votes", "flags", "created", "first_places")


def earned(counts: dict[str, int]) -> list[tuple[str, str, str, int]]:
    """Every ``(badge_type, tier, counter, threshold)`` reached by ``counts`` (counter name -> value)."""
    out: list[tuple[str, str, str, int]] = []
    for badge_type, counter, tiers in RULES:
        value = counts.get(counter, 0)
        out.extend((badge_type, tier, counter, threshold) for tier, threshold in tiers if value >= threshold)
    return out
