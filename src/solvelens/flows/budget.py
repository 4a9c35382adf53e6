"""The optional resources' budget: how many extra requests a snapshot may spend on them.

Each snapshot spends at most a budget of requests on the optional resources (``snapshot --budget``):

- ``1x`` (the default), ``2x``, ``0.5x``: that multiple of the interface's own requests of the same snapshot
  (the ``/problems``, ``/leaderboard`` pages, solution lists, bot profiles, ``/categories``, ``/stats``,
  ``/bot/me``, the platform's declaration: each fetch step's ``info["requests"]``);
- ``N``: at most N requests;
- ``all``: no bound: every vote list whose count moved is read at once, also those whose votes all
  appeared in other lists (a count can miss a vote its list holds; a bounded budget skips those lists).

The activity feed (one request) and the LLM leaderboard's pages are spent first; what is left goes to the
vote lists (``/solutions/{id}/comparisons``), highest value first (the solutions with the most votes not
stored yet: :mod:`solvelens.flows.optional`). What is not fetched now stays pending and is fetched by the
next snapshots (the store remembers each list's count at its last fetch). A share of the vote budget
(:data:`AUDIT_SHARE`, at most what re-reads every list within :data:`AUDIT_ROUNDS` snapshots) re-reads lists
trusted by their counts, longest unread first, so votes the platform's counts miss are found within a
known number of snapshots (``audit_cycle``). Each snapshot stays atomic: what it fetched is written in its
one transaction.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Final

__all__ = [
    "AUDIT_ROUNDS",
    "AUDIT_SHARE",
    "DEFAULT_BUDGET",
    "Budget",
    "Spent",
    "VoteShare",
    "spent_by",
]

#: The default budget: as many optional requests as the interface's own.
DEFAULT_BUDGET: Final = "1x"
#: At most this share of the vote budget re-reads lists trusted by their counts ...
AUDIT_SHARE: Final = 0.25
#: ... and at most what re-reads every trusted list within this many snapshots.
AUDIT_ROUNDS: Final = 20

_SPEC = re.compile(r"^(?:(?P<all>all)|(?P<n>\d+)|(?P<x>\d+(?:\.\d+)?)x)$")


@dataclass(frozen=True)
class Budget:
    """A parsed ``--budget``: ``times`` (a multiple of the interface's requests) or ``fixed`` (requests), or
    neither (``all``: no bound)."""

    spec: str
    times: float | None = None
    fixed: int | None = None

    @classmethod
    def parse(cls, spec: str) -> Budget:
        """``all``, ``N`` or ``Nx`` (e.g. ``2x``, ``0.5x``); raises ``ValueError`` in one line naming the
        forms it takes."""
        text = spec.strip().lower()
        match = _SPEC.match(text)
        if match is None:
            raise ValueError(
                f"--budget {spec!r} is not a budget: give a number of requests (e.g. 200), a multiple of the "
                "interface's own requests (e.g. 2x) or all"
            )
        if match["all"]:
            return cls(text)
        if match["n"]:
            return cls(text, fixed=int(match["n"]))
        return cls(text, times=float(match["x"]))

    def allowance(self, interface_requests: int) -> int | None:
        """Requests the optional resources may send in a snapshot whose interface sent
        ``interface_requests`` (``None``: no bound)."""
        if self.fixed is not None:
            return self.fixed
        if self.times is not None:
            return math.floor(self.times * interface_requests)
        return None


@dataclass(frozen=True)
class Spent:
    """Requests the other fetch steps of a snapshot sent: ``interface`` (the interface's resources),
    ``steady`` (of those, what a snapshot in which nothing changed sends again: the listing pages and single
    requests, not the refetched solution lists and profiles), ``optional`` (activity, LLM leaderboard)."""

    interface: int = 0
    steady: int = 0
    optional: int = 0

    @classmethod
    def of(cls, data: dict[str, Any] | None) -> Spent:
        """From its plain dict form (a step parameter); ``None``: nothing spent."""
        return cls(**{k: int(v) for k, v in (data or {}).items() if k in ("interface", "steady", "optional")})


def spent_by(reports: list[dict[str, Any]], optional: set[str]) -> dict[str, int]:
    """:class:`Spent` (as a plain dict) from the fetch steps' reports (``info["requests"]``,
    ``info["steady_requests"]``, default: all of them steady); ``optional``: the optional steps' names."""
    out = {"interface": 0, "steady": 0, "optional": 0}
    for r in reports:
        sent = int(r["info"].get("requests") or 0)
        if r["step"] in optional:
            out["optional"] += sent
        else:
            out["interface"] += sent
            out["steady"] += int(r["info"].get("steady_requests", sent) or 0)
    return out


@dataclass(frozen=True)
class VoteShare:
    """How a snapshot's vote-list requests are shared: ``allowance`` (requests for vote lists; ``None``: no
    bound), ``audit`` (of them, re-reads of lists trusted by their counts), ``audit_cycle`` (snapshots in
    which every trusted list is re-read at this pace; ``None`` when none is trusted or none re-read)."""

    allowance: int | None
    audit: int
    audit_cycle: int | None

    @classmethod
    def of(cls, budget: Budget, spent: Spent, trusted: int, *, steady: bool = False) -> VoteShare:
        """The share for a snapshot with ``trusted`` lists trusted by their counts; ``steady``: for a
        snapshot in which nothing changes (the interface sends only ``spent.steady`` requests)."""
        allowance = budget.allowance(spent.steady if steady else spent.interface)
        if allowance is not None:
            allowance = max(0, allowance - spent.optional)
        rounds = math.ceil(trusted / AUDIT_ROUNDS)
        audit = rounds if allowance is None else min(rounds, math.ceil(allowance * AUDIT_SHARE))
        cycle = math.ceil(trusted / audit) if audit else None
        return cls(allowance, audit, cycle)

    @property
    def backfill(self) -> int | None:
        """Requests left for the lists whose count moved (``None``: no bound)."""
        return None if self.allowance is None else max(0, self.allowance - self.audit)

    def snapshots_to_go(self, pending: int) -> int | None:
        """Snapshots until ``pending`` lists are read at this share (0: none pending; ``None``: never)."""
        if not pending:
            return 0
        if self.backfill is None:
            return 1
        return math.ceil(pending / self.backfill) if self.backfill else None
