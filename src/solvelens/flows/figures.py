"""Each fetch step's own figures, typed: one frozen dataclass per step kind
(:class:`~solvelens.store.reports.StepFigures`), set by the step on its
:class:`~solvelens.store.reports.StepReport` and read by attribute by the run's summary
(:class:`solvelens.flows.summary.SnapshotSummary`: its ``fetch``, one entry per step).

Counts are records or HTTP requests; seconds are platform or wall seconds as said per field. A field's JSON
name is its attribute name (the summary's ``fetch`` in ``solvelens snapshot --json``). :data:`FIGURES` maps
each step name to its kind, so the JSON form (which names no kind) is typed again when read back
(:func:`figures_of`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from solvelens.resources import RESOURCES
from solvelens.store.reports import StepFigures

__all__ = [
    "FIGURES",
    "ActivityFigures",
    "BotMeFigures",
    "CarryoverFigures",
    "ComparisonsFigures",
    "KindFigures",
    "LeaderboardFigures",
    "OptionalFigures",
    "PacingFigures",
    "ProblemsFigures",
    "QuotaFigures",
    "figures_of",
    "kind_of",
]


@dataclass(frozen=True)
class ProblemsFigures(StepFigures):
    """The problems step (``GET /problems`` and the solution lists): ``refetched`` (problems whose solution
    list was read) and ``carried_over`` (lists kept from the last snapshot: their counts did not move)."""

    refetched: int = 0
    carried_over: int = 0


@dataclass(frozen=True)
class LeaderboardFigures(StepFigures):
    """The leaderboard step (``GET /leaderboard`` and the bot profiles): ``profiles_refetched`` (``GET
    /bots/{id}`` sent) and ``profiles_carried_over`` (profiles kept from the last snapshot)."""

    profiles_refetched: int = 0
    profiles_carried_over: int = 0


@dataclass(frozen=True)
class CarryoverFigures(StepFigures):
    """The check of the carried solution lists (:mod:`solvelens.flows.carryover`): ``requests`` (carried
    lists re-read), of them ``stale_lists`` (naming one of ``renamed_bots`` bots renamed since) and
    ``rotation_lists`` (re-read in turn)."""

    requests: int = 0
    stale_lists: int = 0
    rotation_lists: int = 0
    renamed_bots: int = 0


@dataclass(frozen=True)
class BotMeFigures(StepFigures):
    """The ``GET /bot/me`` step: ``skipped`` says why nothing was read (``no API key configured``,
    ``invalid key``, ``HTTP 401``...; ``None``: read)."""

    skipped: str | None = None


@dataclass(frozen=True)
class OptionalFigures(StepFigures):
    """A step of an optional resource: ``absent`` says what the platform answered when it does not offer
    it (e.g. ``HTTP 404 on GET /activity``; ``None``: offered)."""

    absent: str | None = None


@dataclass(frozen=True)
class ActivityFigures(OptionalFigures):
    """The activity step (``GET /activity``): ``fetched`` (events in the feed's page), ``events_per_hour``
    (measured over the page, platform time; ``None`` when it cannot tell or the page is too short to rate),
    ``span_s`` (the page's span, platform seconds; ``None``: unknown), ``gap`` (the feed turned over since
    the last snapshot: :meth:`solvelens.flows.activity_gap.ActivityGap.as_dict`; ``None``: no gap)."""

    fetched: int = 0
    events_per_hour: float | None = None
    span_s: float | None = None
    gap: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class QuotaFigures(StepFigures):
    """What an announced quota left the vote lists, in requests: ``left`` (without waiting), ``reserve``
    (kept for the next snapshot's interface reads), ``room`` (left to the vote lists)."""

    left: int = 0
    reserve: int = 0
    room: int = 0


@dataclass(frozen=True)
class ComparisonsFigures(OptionalFigures):
    """The comparisons step (``GET /solutions/{id}/comparisons``): ``requested`` (requests sent for vote
    lists), ``requests`` (all requests sent, deleted solutions' included), ``skipped`` (lists covered by
    others), ``audited`` (trusted lists re-read), ``fetched`` (votes returned), ``capped`` (solutions with
    more votes than their list returned), ``pending`` (lists left to later snapshots), ``reads_to_go``
    (requests they are predicted to take), ``budget`` (requests allowed; ``None``: all), ``budget_spec``
    (``--budget`` as given), ``snapshots_to_go`` (``None``: never at this budget), ``audit_cycle``
    (snapshots in which every trusted list is re-read; ``None``: none), ``quota`` (``None``: none
    announced)."""

    requested: int = 0
    requests: int = 0
    skipped: int = 0
    audited: int = 0
    fetched: int = 0
    capped: int = 0
    pending: int = 0
    reads_to_go: int = 0
    budget: int | None = None
    budget_spec: str = ""
    snapshots_to_go: int | None = 0
    audit_cycle: int | None = None
    quota: QuotaFigures | None = None


@dataclass(frozen=True)
class KindFigures(StepFigures):
    """The requests of one kind over the run: ``requests`` sent, ``held`` (of them, those that waited for
    the quota or a 429's ``Retry-After``), ``waited_s`` (wall seconds held, summed, to the millisecond)."""

    requests: int = 0
    held: int = 0
    waited_s: float = 0.0


@dataclass(frozen=True)
class PacingFigures(StepFigures):
    """The pseudo-step ``pacing`` (:func:`solvelens.flows.steps.pacing_report`): what the steps' shared
    pacer held, per request kind (``interface``, ``optional``), and ``rate_limited`` (429 answers read)."""

    rate_limited: int = 0
    interface: KindFigures = KindFigures()
    optional: KindFigures = KindFigures()

    def kinds(self) -> dict[str, KindFigures]:
        """The figures per request kind, by kind name."""
        return {"interface": self.interface, "optional": self.optional}


#: The figures' kind of each step that has figures of its own, by step name (the fetch steps of
#: :data:`solvelens.flows.steps.FETCH_STEPS` and the pseudo-step ``pacing``); every optional list of
#: :data:`solvelens.resources.RESOURCES` reports :class:`OptionalFigures`. A step not named here
#: (``reference``, ``platform``) reports the base :class:`~solvelens.store.reports.StepFigures` (no field).
FIGURES: Mapping[str, type[StepFigures]] = MappingProxyType(
    {
        "problems": ProblemsFigures,
        "leaderboard": LeaderboardFigures,
        "bot_me": BotMeFigures,
        "activity": ActivityFigures,
        **{r.name: OptionalFigures for r in RESOURCES if r.optional and r.write == "linked"},
        "carryover": CarryoverFigures,
        "comparisons": ComparisonsFigures,
        "pacing": PacingFigures,
    }
)


def kind_of(step: str) -> type[StepFigures]:
    """The figures' kind of the step named ``step`` (:data:`FIGURES`; the base when it has none)."""
    return FIGURES.get(step, StepFigures)


def figures_of(step: str, data: Mapping[str, Any] | StepFigures | None) -> StepFigures:
    """The figures of the step named ``step`` typed as its kind (:func:`kind_of`) from their JSON form (a
    summary read back, whatever version wrote it: keys that are not fields are ignored) or as they are."""
    return kind_of(step).of_json(data)
