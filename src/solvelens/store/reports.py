"""The typed contract between a snapshot's fetch steps and the store: :class:`StepReport` and
:class:`QualityRow`, staged by the flow (:meth:`solvelens.store.staging.StagingArea.write_report`) and read
by the writer by attribute (:mod:`solvelens.store.writer`, :mod:`solvelens.store.history`,
:mod:`solvelens.store.quality`).

Every fetch step returns a :class:`StepReport` (:meth:`StepReport.of` builds it from typed arguments), and
every reader takes its fields by attribute: the budget (:func:`solvelens.flows.budget.spent_by`), the
summary, the writer. The staged form is :meth:`StepReport.to_json` (``part-<step>.json`` in the staging
folder), read back by :meth:`StepReport.from_json`.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Final

__all__ = ["CAPPED", "COUNT_DISAGREES", "TOTAL_BELOW_ROWS", "QualityRow", "StepReport", "VoteFetch"]

#: Reasons of data-quality rows (the ``reason`` column; a sentence each, so a reader needs no legend),
#: defined once: the fetch steps (:mod:`solvelens.flows.completeness`) and the writer
#: (:mod:`solvelens.store.quality`) both use these.
CAPPED: Final = "the platform serves at most the newest 50 votes of a solution"
COUNT_DISAGREES: Final = "the platform's count disagrees with the rows it lists"
TOTAL_BELOW_ROWS: Final = "the list's announced total is below the records it served"


class _Unset(enum.Enum):
    """The marker of a :meth:`StepReport.of` argument a step did not give."""

    UNSET = enum.auto()


UNSET: Final = _Unset.UNSET
#: Arguments of :meth:`StepReport.of` that are not shown when ``None`` (absent from the step's figures).
_OPTIONAL: Final = frozenset({"resources", "request"})


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


@dataclass(frozen=True)
class QualityRow:
    """One ``data_quality`` row a step found: ``resource`` (a view name), ``scope`` (a problem or solution
    id; ``''`` for a whole list), ``announced`` and ``stored`` (records), ``reason`` (a sentence, ``None``
    when they agree)."""

    resource: str
    scope: str
    announced: int | None
    stored: int
    reason: str | None

    def as_tuple(self) -> tuple[str, str, int | None, int, str | None]:
        """The row's values in the ``data_quality`` table's order (after ``snapshot_id``)."""
        return (self.resource, self.scope, self.announced, self.stored, self.reason)


@dataclass(frozen=True)
class VoteFetch:
    """What the comparisons step sent and left (the ``vote_coverage`` row's figures): ``requested``
    (``/comparisons`` requests sent), ``budget`` (requests allowed; ``None``: no bound), ``pending`` (vote
    lists left for later snapshots), ``snapshots_to_go`` (predicted; ``None``: never at this budget),
    ``audited`` (trusted lists re-read), ``audit_cycle`` (snapshots in which every trusted list is re-read;
    ``None``: none)."""

    requested: int = 0
    budget: int | None = None
    pending: int = 0
    snapshots_to_go: int | None = 0
    audited: int = 0
    audit_cycle: int | None = None


@dataclass(frozen=True)
class StepReport:
    """What one fetch step (or the flow's preparation) tells the store.

    ``step``: its name; ``warnings``: one line each; ``counts``: records per resource it fetched;
    ``resources``: what became of each optional resource it covers (``stored``, ``not offered``, ...);
    ``announced``: the total its list's walk announced (``None``: none); ``data_quality``: the rows it found;
    ``declared``: what the platform declared about itself (the ``platform`` step: ``{"id", "clock",
    "time"}``); ``taken_at``: ``"platform"`` when the snapshot's time is the platform's clock; ``votes``: the
    comparisons step's figures; ``request``: the request of an optional list as sent (``{"path",
    "params"}``, recorded with the snapshot: ``snapshots.requests``); ``requests``, ``steady_requests``,
    ``carried_lists``, ``carried_profiles``: what the budget counts (:meth:`of`); ``figures``: everything
    the step reported about itself (e.g. ``refetched``, ``requests``), shown in the run's summary (its JSON
    form: the summary's ``fetch``).
    """

    step: str
    warnings: tuple[str, ...] = ()
    counts: Mapping[str, int] = field(default_factory=dict)
    resources: Mapping[str, str] = field(default_factory=dict)
    announced: int | None = None
    data_quality: tuple[QualityRow, ...] = ()
    declared: Mapping[str, Any] | None = None
    taken_at: str | None = None
    votes: VoteFetch | None = None
    request: Mapping[str, Any] | None = None
    requests: int = 0
    steady_requests: int | None = None
    carried_lists: int = 0
    carried_profiles: int = 0
    figures: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def of(
        cls,
        step: str,
        counts: Mapping[str, int],
        warnings: Sequence[str] = (),
        *,
        resources: Mapping[str, str] | None = None,
        announced: int | _Unset | None = UNSET,
        data_quality: Sequence[QualityRow] | _Unset = UNSET,
        declared: Mapping[str, Any] | _Unset | None = UNSET,
        votes: VoteFetch | None = None,
        request: Mapping[str, Any] | None = None,
        requests: int | _Unset = UNSET,
        steady_requests: int | _Unset = UNSET,
        carried_lists: int | _Unset = UNSET,
        carried_profiles: int | _Unset = UNSET,
        **figures: Any,
    ) -> StepReport:
        """A step's report from typed arguments. ``requests``: HTTP requests the step sent;
        ``steady_requests``: of those, what a snapshot in which nothing changed sends again (default: all);
        ``carried_lists``, ``carried_profiles``: solution lists and bot profiles kept from the last snapshot
        instead of read (the budget's full read counts them: :func:`solvelens.flows.budget.spent_by`).
        ``figures``: the step's own figures for the run's summary (``refetched``, ``fetched``, ...). Every
        argument a step gives is also shown in the summary (its ``fetch`` entry of the step: ``carried_lists``
        as ``carried_over``, ``carried_profiles`` as ``profiles_carried_over``, quality rows as plain
        values), so that entry holds everything the step reported."""
        given: dict[str, Any] = {
            "resources": resources,
            "announced": announced,
            "data_quality": data_quality,
            "declared": declared,
            "request": request,
            "requests": requests,
            "steady_requests": steady_requests,
            "carried_over": carried_lists,
            "profiles_carried_over": carried_profiles,
        }
        shown = {k: v for k, v in given.items() if v is not UNSET and (v is not None or k not in _OPTIONAL)}
        if "data_quality" in shown:
            shown["data_quality"] = [asdict(q) for q in data_quality]  # type: ignore[union-attr]
        return cls(
            step=step,
            warnings=tuple(warnings),
            counts={k: v for k, v in counts.items() if _int(v) is not None},
            resources=dict(resources or {}),
            announced=None if isinstance(announced, _Unset) else announced,
            data_quality=() if isinstance(data_quality, _Unset) else tuple(data_quality),
            declared=None if isinstance(declared, _Unset) else declared,
            votes=votes,
            request=request,
            requests=0 if isinstance(requests, _Unset) else requests,
            steady_requests=None if isinstance(steady_requests, _Unset) else steady_requests,
            carried_lists=0 if isinstance(carried_lists, _Unset) else carried_lists,
            carried_profiles=0 if isinstance(carried_profiles, _Unset) else carried_profiles,
            figures={**shown, **figures},
        )

    def to_json(self) -> dict[str, Any]:
        """The staged form (plain JSON values)."""
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> StepReport:
        """The report from :meth:`to_json`'s form."""
        votes = data.get("votes")
        return cls(
            step=data["step"],
            warnings=tuple(data.get("warnings") or ()),
            counts=dict(data.get("counts") or {}),
            resources=dict(data.get("resources") or {}),
            announced=data.get("announced"),
            data_quality=tuple(QualityRow(**q) for q in data.get("data_quality") or ()),
            declared=data.get("declared"),
            taken_at=data.get("taken_at"),
            votes=None if votes is None else VoteFetch(**votes),
            request=data.get("request"),
            requests=int(data.get("requests") or 0),
            steady_requests=data.get("steady_requests"),
            carried_lists=int(data.get("carried_lists") or 0),
            carried_profiles=int(data.get("carried_profiles") or 0),
            figures=dict(data.get("figures") or {}),
        )
