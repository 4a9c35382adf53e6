"""The optional resources' budget: how many extra requests a snapshot may spend on them.

The unit is **a full read of the interface** (``F``): the requests a snapshot that carried nothing over
would send for the interface's resources (the ``/problems`` and ``/leaderboard`` pages, one solution list
per problem, one profile per bot, ``/categories``, ``/stats``, ``/bot/me``, the declaration). It is what the
first snapshot costs, what a user already waits for, and it grows with the platform; a re-snapshot of an
unchanged platform sends only a small part of it (the listing pages), so a budget tied to the requests a
snapshot *happens* to send starves the votes exactly when there is time for them. ``F`` is counted from the
fetch steps' reports: their requests plus the lists and profiles they carried over (:func:`spent_by`).

``snapshot --budget``:

- ``Nx`` (default :data:`DEFAULT_BUDGET`, ``1.4x``): the snapshot sends at most ``N`` full reads of the
  interface **in all**, its own interface requests included; the optional resources get what is left. The
  first snapshot reads the interface whole and so spends ``0.4 F`` on votes; a re-snapshot spends about
  ``1.33 F`` on them (the audit's pace, ``0.6 F``, included). So every snapshot costs about as much as
  ``1.4`` full reads (time and quota), and the backlog of vote lists is read in a number of snapshots the
  summary predicts: at the medium sandbox within a day of hourly snapshots (``docs/evidence-budget.md``
  says why ``1.4x``);
- ``N``: at most ``N`` optional requests;
- ``all``: no bound: every vote list is read at once: each whose count moved, also those whose votes all
  appeared in other lists (a count can miss a vote its list holds; a bounded budget skips those lists), and
  as the audit every list trusted by its count (audit cycle 1: a vote whose counts never moved is stored by
  the next snapshot). ``all`` ignores the platform's quota: it may wait for its reset.

**Under a quota the platform announces** (``X-RateLimit-*``, ``RateLimit``; the real platform's 5,000
requests an hour), a bounded budget never spends beyond what the quota leaves **without waiting**
(:func:`quota_room`: the pacer sends half a window's limit at once and spreads the rest to the window's end,
:mod:`solvelens.client.ratelimit`) after a reserve for the next snapshot's interface reads
(:data:`RESERVE_SHARE` of ``F`` beyond this snapshot's steady read). So the optional requests never make a
snapshot wait for the quota and never meet a 429 (unless another client spends the same quota).

**The audit.** A vote can exist without its counts (the real server writes the vote row, then fails with
500 "deadlock detected": neither solution's ``comparisonCount`` moves), and only reading a list finds it.
Each snapshot re-reads a share of the lists trusted by their counts, longest unread first
(:class:`VoteShare`; under ``all`` every one): every such list within :data:`AUDIT_CYCLE` snapshots, unless
that costs more than ``max(AUDIT_MIN, AUDIT_FULL_SHARE x F)`` requests a snapshot (and at most
:data:`AUDIT_MAX_SHARE` of the vote allowance); then within as many snapshots as that pace takes
(``audit_cycle``, stated in the summary).

What is not fetched now stays pending and is fetched by the next snapshots (the store remembers each list's
count at its last fetch). Each snapshot stays atomic: what it fetched is written in its one transaction.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from solvelens.store.reports import StepReport

__all__ = [
    "AUDIT_CYCLE",
    "AUDIT_FULL_SHARE",
    "AUDIT_MAX_SHARE",
    "AUDIT_MIN",
    "DEFAULT_BUDGET",
    "RESERVE_SHARE",
    "Budget",
    "Quota",
    "Spent",
    "VoteShare",
    "quota_room",
    "snapshots_to_go",
    "spent_by",
]

#: The default budget: a snapshot sends at most 1.4 full reads of the interface in all (the medium
#: sandbox's backlog within 24 snapshots beside the audit's pace; 1.25x took 26).
DEFAULT_BUDGET: Final = "1.4x"
#: Every list trusted by its count is re-read within this many snapshots ...
AUDIT_CYCLE: Final = 5
#: ... unless that takes more than the larger of these requests a snapshot ...
AUDIT_MIN: Final = 400
#: ... and this share of a full read of the interface (then the cycle is what that pace gives) ...
AUDIT_FULL_SHARE: Final = 0.6
#: ... and never more than this share of the snapshot's vote allowance.
AUDIT_MAX_SHARE: Final = 0.5
#: Under an announced quota, kept for the next snapshot beyond this one's steady read: this share of a full
#: read (the lists that changed meanwhile and the carry-over rotation's re-reads).
RESERVE_SHARE: Final = 0.1

_SPEC = re.compile(r"^(?:(?P<all>all)|(?P<n>\d+)|(?P<x>\d+(?:\.\d+)?)x)$")
#: The interface steps whose requests re-read lists another step counts as carried over.
_REREADS: Final = frozenset({"carryover"})


@dataclass(frozen=True)
class Budget:
    """A parsed ``--budget``: ``times`` (full reads of the interface per snapshot, the interface's own
    requests included) or ``fixed`` (optional requests), or neither (``all``: no bound)."""

    spec: str
    times: float | None = None
    fixed: int | None = None

    @classmethod
    def parse(cls, spec: str) -> Budget:
        """``all``, ``N`` or ``Nx`` (e.g. ``1.25x``, ``2x``); raises ``ValueError`` in one line naming the
        forms it takes."""
        text = spec.strip().lower()
        match = _SPEC.match(text)
        if match is None:
            raise ValueError(
                f"--budget {spec!r} is not a budget: give a number of requests (e.g. 200), a number of full "
                "reads of the interface per snapshot (e.g. 1.25x) or all"
            )
        if match["all"]:
            return cls(text)
        if match["n"]:
            return cls(text, fixed=int(match["n"]))
        return cls(text, times=float(match["x"]))

    @property
    def unbounded(self) -> bool:
        """Whether this is ``all`` (no bound: every vote list is read at once)."""
        return self.fixed is None and self.times is None

    def allowance(self, spent: Spent, *, steady: bool = False) -> int | None:
        """Optional requests a snapshot that spent ``spent`` may send (``None``: no bound; never below 0);
        ``steady``: for a snapshot in which nothing changes (its interface sends only ``spent.steady``)."""
        if self.fixed is not None:
            return self.fixed
        if self.times is not None:
            interface = spent.steady if steady else spent.interface
            return max(0, math.floor(self.times * spent.full) - interface)
        return None


@dataclass(frozen=True)
class Spent:
    """Requests the other fetch steps of a snapshot sent: ``interface`` (the interface's resources),
    ``steady`` (of those, what a snapshot in which nothing changed sends again: the listing pages and single
    requests, not the refetched solution lists and profiles), ``optional`` (activity, LLM leaderboard) and
    ``full`` (a full read of the interface: its requests plus one per list and profile carried over;
    at least ``interface``)."""

    interface: int = 0
    steady: int = 0
    optional: int = 0
    full: int = 0


def spent_by(reports: Sequence[StepReport], optional: set[str]) -> Spent:
    """What the fetch steps' ``reports`` spent: their ``requests``, ``steady_requests`` (default: all of
    them steady), ``carried_lists`` and ``carried_profiles`` (kept: part of the full read), by attribute;
    ``optional``: the optional steps' names."""
    interface = steady = extra = full = 0
    for r in reports:
        if r.step in optional:
            extra += r.requests
            continue
        interface += r.requests
        steady += r.requests if r.steady_requests is None else r.steady_requests
        if r.step not in _REREADS:  # re-reads of carried lists: counted once, as carried
            full += r.requests
        full += r.carried_lists + r.carried_profiles
    return Spent(interface=interface, steady=steady, optional=extra, full=max(full, interface))


@dataclass(frozen=True)
class Quota:
    """What the platform's quota leaves a snapshot's optional requests: ``room`` (requests sendable now
    without waiting, after ``reserve``), ``left`` (the window's requests sendable without waiting before
    the reserve), ``reserve`` (kept for the next snapshot's interface reads)."""

    room: int
    left: int
    reserve: int


def quota_room(windows: Sequence[tuple[int, int | None]], spent: Spent, burst: float) -> Quota | None:
    """The room an announced quota leaves (``None``: none announced): ``windows`` as ``(remaining,
    limit)`` pairs from the last answer (limit ``None`` when not announced), ``burst`` the pacer's share of a
    window sent without waiting. The tightest window decides."""
    if not windows:
        return None
    left = min(
        remaining if limit is None else min(remaining, math.floor(burst * limit) - (limit - remaining))
        for remaining, limit in windows
    )
    left = max(0, left)
    reserve = spent.steady + math.ceil(RESERVE_SHARE * spent.full)
    return Quota(max(0, left - reserve), left, reserve)


@dataclass(frozen=True)
class VoteShare:
    """How a snapshot's vote-list requests are shared: ``allowance`` (requests for vote lists; ``None``: no
    bound), ``audit`` (of them, re-reads of lists trusted by their counts), ``audit_cycle`` (snapshots in
    which every trusted list is re-read at this pace; ``None`` when none is trusted or none re-read),
    ``quota`` (what an announced quota left, ``None`` without one)."""

    allowance: int | None
    audit: int
    audit_cycle: int | None
    quota: Quota | None = None

    @classmethod
    def of(
        cls,
        budget: Budget,
        spent: Spent,
        trusted: int,
        *,
        steady: bool = False,
        quota: Quota | None = None,
        pending: bool = True,
    ) -> VoteShare:
        """The share for a snapshot with ``trusted`` lists trusted by their counts; ``steady``: for a
        snapshot in which nothing changes (the interface sends only ``spent.steady`` requests); ``quota``:
        what the platform's quota leaves (:func:`quota_room`; a bounded budget never goes beyond its room);
        ``pending``: whether lists whose count moved wait (else the audit may take the whole allowance)."""
        allowance = budget.allowance(spent, steady=steady)
        if allowance is not None:
            allowance = max(0, allowance - spent.optional)
            if quota is not None:
                allowance = min(allowance, quota.room)
        # No bound (``all``): every trusted list is re-read in each snapshot, so every vote is read at once.
        audit = trusted if allowance is None else math.ceil(trusted / AUDIT_CYCLE)
        if allowance is not None:
            pace = max(AUDIT_MIN, math.ceil(AUDIT_FULL_SHARE * spent.full))
            most = math.ceil(allowance * AUDIT_MAX_SHARE) if pending else allowance
            audit = min(audit, pace, most)
        cycle = math.ceil(trusted / audit) if audit else None
        return cls(allowance, audit, cycle, quota)

    @property
    def backfill(self) -> int | None:
        """Requests left for the lists whose count moved (``None``: no bound)."""
        return None if self.allowance is None else max(0, self.allowance - self.audit)


def snapshots_to_go(
    budget: Budget, spent: Spent, trusted: int, lists: int, reads: int, quota: Quota | None = None
) -> int | None:
    """Snapshots of an unchanged platform until ``reads`` more vote-list requests have read the ``lists``
    pending (0: none; ``None``: never at this budget), each one a steady snapshot (``spent.steady``) whose
    audit share grows as the lists read join the ``trusted`` ones; ``quota``: what an announced quota
    leaves a snapshot that starts in a fresh window."""
    if not reads:
        return 0
    if budget.fixed is None and budget.times is None:
        return 1
    taken = 0
    while reads > 0:
        taken += 1
        backfill = VoteShare.of(budget, spent, trusted, steady=True, quota=quota).backfill
        if not backfill or taken > 100_000:
            return None
        done = min(reads, backfill)
        settled = math.ceil(lists * done / reads)
        trusted, lists, reads = trusted + settled, lists - settled, reads - done
    return taken
