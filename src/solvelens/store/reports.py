"""The typed contract between a snapshot's fetch steps and the store: :class:`StepReport` and
:class:`QualityRow`, staged by the flow (:meth:`solvelens.store.staging.StagingArea.write_report`) and read
by the writer by attribute (:mod:`solvelens.store.writer`, :mod:`solvelens.store.history`,
:mod:`solvelens.store.quality`).

A fetch step reports plain JSON (``{"step", "counts", "warnings", "info"}``, :mod:`solvelens.flows.fetch`);
:meth:`StepReport.of_step` reads it once, here, into the fields the store uses. The staged form is
:meth:`StepReport.to_json` (``part-<step>.json`` in the staging folder), read back by
:meth:`StepReport.from_json`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, Final

__all__ = ["CAPPED", "COUNT_DISAGREES", "TOTAL_BELOW_ROWS", "QualityRow", "StepReport", "VoteFetch"]

#: Reasons of data-quality rows (the ``reason`` column; a sentence each, so a reader needs no legend),
#: defined once: the fetch steps (:mod:`solvelens.flows.completeness`) and the writer
#: (:mod:`solvelens.store.quality`) both use these.
CAPPED: Final = "the platform serves at most the newest 50 votes of a solution"
COUNT_DISAGREES: Final = "the platform's count disagrees with the rows it lists"
TOTAL_BELOW_ROWS: Final = "the list's announced total is below the records it served (after one re-walk)"


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
    "params"}``, recorded with the snapshot: ``snapshots.requests``); ``figures``: everything the step
    reported about itself (its ``info``: e.g. ``refetched``, ``requests``), shown in the run's summary.
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
    figures: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def of_step(
        cls,
        step: str,
        counts: Mapping[str, int],
        warnings: list[str] | tuple[str, ...],
        info: Mapping[str, Any],
    ) -> StepReport:
        """The typed report of a step's plain JSON report (its ``counts``, ``warnings`` and ``info``:
        ``resources``, ``announced``, ``data_quality`` rows, ``declared``, ``taken_at`` and, from the
        comparisons step, ``requested``, ``budget``, ``pending``, ``snapshots_to_go``, ``audited``,
        ``audit_cycle``)."""
        votes = None
        if step == "comparisons" and "requested" in info:
            votes = VoteFetch(
                requested=int(info.get("requested") or 0),
                budget=_int(info.get("budget")),
                pending=int(info.get("pending") or 0),
                snapshots_to_go=_int(info.get("snapshots_to_go", 0)),
                audited=int(info.get("audited") or 0),
                audit_cycle=_int(info.get("audit_cycle")),
            )
        return cls(
            step=step,
            warnings=tuple(warnings),
            counts={k: v for k, v in counts.items() if _int(v) is not None},
            resources=dict(info.get("resources") or {}),
            announced=_int(info.get("announced")),
            data_quality=tuple(QualityRow(**q) for q in info.get("data_quality") or ()),
            declared=info.get("declared"),
            taken_at=info.get("taken_at"),
            votes=votes,
            request=info.get("request"),
            figures=dict(info),
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
            figures=dict(data.get("figures") or {}),
        )
