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

import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Final, TypeVar

__all__ = [
    "CAPPED",
    "COUNT_DISAGREES",
    "TOTAL_BELOW_ROWS",
    "Declaration",
    "QualityRow",
    "StepFigures",
    "StepReport",
    "VoteFetch",
]

_F = TypeVar("_F", bound="StepFigures")

#: Reasons of data-quality rows (the ``reason`` column; a sentence each, so a reader needs no legend),
#: defined once: the fetch steps (:mod:`solvelens.flows.completeness`) and the writer
#: (:mod:`solvelens.store.quality`) both use these.
CAPPED: Final = "the platform serves at most the newest 50 votes of a solution"
COUNT_DISAGREES: Final = "the platform's count disagrees with the rows it lists"
TOTAL_BELOW_ROWS: Final = "the list's announced total is below the records it served"


def _nested(hint: Any, value: Any) -> Any:
    """``value`` typed as the figures ``hint`` names (alone or in a union with ``None``) when it is their
    JSON object; otherwise as it is."""
    if not isinstance(value, Mapping) or isinstance(value, StepFigures):
        return value
    for kind in typing.get_args(hint) or (hint,):
        if isinstance(kind, type) and issubclass(kind, StepFigures):
            return kind.of_json(value)
    return value


def _no_figures(step: str) -> type[StepFigures]:
    """The figures' kind of any step when the caller knows none: the base (no field)."""
    return StepFigures


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


@dataclass(frozen=True)
class StepFigures:
    """What a fetch step reports about itself for the run's summary, typed: each step kind has its own
    frozen dataclass of this base (:mod:`solvelens.flows.figures`, which also maps each step name to its
    kind), read by attribute. This base has no field (a step with nothing of its own to say).

    Its JSON form is :meth:`as_json` (the summary's ``fetch`` entry of the step); :meth:`of_json` types it
    again."""

    def as_json(self) -> dict[str, Any]:
        """Every field as plain JSON values (nested figures as objects)."""
        return asdict(self)

    @classmethod
    def of_json(cls: type[_F], data: Mapping[str, Any] | StepFigures | None) -> _F:
        """The figures typed from their JSON form (or returned as they are when already of this type);
        ``None`` or an empty mapping gives the defaults; keys that are not fields are ignored (e.g. the
        ``requests`` older versions repeated in every step's entry); a field whose type is figures (or
        figures or ``None``) is typed from its JSON object in turn. Raises ``TypeError`` for figures of
        another kind."""
        if isinstance(data, cls):
            return data
        if isinstance(data, StepFigures):
            raise TypeError(f"{type(data).__name__} are not {cls.__name__}")
        given = data or {}
        hints = typing.get_type_hints(cls)
        values = {f.name: given[f.name] for f in fields(cls) if f.name in given}
        return cls(**{k: _nested(hints[k], v) for k, v in values.items()})


@dataclass(frozen=True)
class Declaration:
    """What a platform declared about itself in its answers' headers (the ``platform`` step): ``id``
    (``X-Platform-Id``, kept across ports), ``clock`` (``X-Platform-Clock``, e.g. ``simulated``), ``time``
    (``X-Platform-Time``, ISO-8601 UTC); ``None``: not sent (the real platform sends none)."""

    id: str | None = None
    clock: str | None = None
    time: str | None = None

    def as_json(self) -> dict[str, str]:
        """The fields the platform sent (``{}`` for none), as recorded with the snapshot
        (``snapshots.platform``)."""
        return {k: v for k, v in asdict(self).items() if v is not None}


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
    ``declared``: what the platform declared about itself (the ``platform`` step: :class:`Declaration`;
    ``None``: not read); ``taken_at``: ``"platform"`` when the snapshot's time is the platform's clock;
    ``votes``: the comparisons step's figures; ``request``: the request of an optional list as sent
    (``{"path", "params"}``, recorded with the snapshot: ``snapshots.requests``); ``requests``,
    ``steady_requests``, ``carried_lists``, ``carried_profiles``: what the budget counts (:meth:`of`);
    ``figures``: what the step reports about itself for the run's summary (a :class:`StepFigures` of the
    step's kind, e.g. :class:`solvelens.flows.figures.ProblemsFigures`; the store never reads them).
    """

    step: str
    warnings: tuple[str, ...] = ()
    counts: Mapping[str, int] = field(default_factory=dict)
    resources: Mapping[str, str] = field(default_factory=dict)
    announced: int | None = None
    data_quality: tuple[QualityRow, ...] = ()
    declared: Declaration | None = None
    taken_at: str | None = None
    votes: VoteFetch | None = None
    request: Mapping[str, Any] | None = None
    requests: int = 0
    steady_requests: int | None = None
    carried_lists: int = 0
    carried_profiles: int = 0
    figures: StepFigures = field(default_factory=StepFigures)

    @classmethod
    def of(
        cls,
        step: str,
        counts: Mapping[str, int],
        warnings: Sequence[str] = (),
        *,
        resources: Mapping[str, str] | None = None,
        announced: int | None = None,
        data_quality: Sequence[QualityRow] = (),
        declared: Declaration | None = None,
        votes: VoteFetch | None = None,
        request: Mapping[str, Any] | None = None,
        requests: int = 0,
        steady_requests: int | None = None,
        carried_lists: int = 0,
        carried_profiles: int = 0,
        figures: StepFigures | None = None,
    ) -> StepReport:
        """A step's report from typed arguments (``counts`` keeps only integer values). ``requests``: HTTP
        requests the step sent; ``steady_requests``: of those, what a snapshot in which nothing changed sends
        again (``None``: all); ``carried_lists``, ``carried_profiles``: solution lists and bot profiles kept
        from the last snapshot instead of read (the budget's full read counts them:
        :func:`solvelens.flows.budget.spent_by`). ``figures``: the step's own figures for the run's summary
        (:mod:`solvelens.flows.figures`; ``None``: none)."""
        return cls(
            step=step,
            warnings=tuple(warnings),
            counts={k: v for k, v in counts.items() if _int(v) is not None},
            resources=dict(resources or {}),
            announced=announced,
            data_quality=tuple(data_quality),
            declared=declared,
            votes=votes,
            request=request,
            requests=requests,
            steady_requests=steady_requests,
            carried_lists=carried_lists,
            carried_profiles=carried_profiles,
            figures=StepFigures() if figures is None else figures,
        )

    def to_json(self) -> dict[str, Any]:
        """The staged form (plain JSON values)."""
        return asdict(self)

    @classmethod
    def from_json(
        cls, data: Mapping[str, Any], kind_of: Callable[[str], type[StepFigures]] | None = None
    ) -> StepReport:
        """The report from :meth:`to_json`'s form. ``kind_of``: the figures' kind of a step name
        (:func:`solvelens.flows.figures.kind_of`); without it the figures read as the base's, which say
        nothing (the store never reads them)."""
        votes, declared = data.get("votes"), data.get("declared")
        return cls(
            step=data["step"],
            warnings=tuple(data.get("warnings") or ()),
            counts=dict(data.get("counts") or {}),
            resources=dict(data.get("resources") or {}),
            announced=data.get("announced"),
            data_quality=tuple(QualityRow(**q) for q in data.get("data_quality") or ()),
            declared=None if declared is None else Declaration(**declared),
            taken_at=data.get("taken_at"),
            votes=None if votes is None else VoteFetch(**votes),
            request=data.get("request"),
            requests=int(data.get("requests") or 0),
            steady_requests=data.get("steady_requests"),
            carried_lists=int(data.get("carried_lists") or 0),
            carried_profiles=int(data.get("carried_profiles") or 0),
            figures=(kind_of or _no_figures)(data["step"]).of_json(data.get("figures")),
        )
