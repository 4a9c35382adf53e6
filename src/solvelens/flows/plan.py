"""The plan of one snapshot run: :class:`SnapshotPlan`, every parameter from the option to the request.

``solvelens snapshot`` builds it from its options (:mod:`solvelens.cli.snapshot`), a deployment passes it as
the flow's one parameter (:mod:`solvelens.flows.deployments`), and every fetch step takes it
(:mod:`solvelens.flows.steps`): a step reads the field it needs (``plan.max_rps`` goes to the shared pacer of
the step's client, ``plan.budget`` to the comparisons' allowance), with no dict or flag list in between.
"""

from __future__ import annotations

from typing import Annotated, Any, Final

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PlainSerializer,
    PlainValidator,
    WithJsonSchema,
    field_validator,
)

from solvelens.baseurl import normalise_base_url
from solvelens.flows.budget import DEFAULT_BUDGET, Budget
from solvelens.resources import checked_optional, optional_names

__all__ = ["DEFAULT_CONCURRENCY", "SnapshotPlan"]

#: Default number of concurrent requests in a fan-out (solutions per problem, bot profiles).
DEFAULT_CONCURRENCY: Final = 8


def _budget(value: Any) -> Budget:
    """A plan's budget: a :class:`Budget` as given (the CLI parsed ``--budget`` once), or its text (a
    deployment's JSON parameter) parsed by :meth:`Budget.parse`, the one parse."""
    return value if isinstance(value, Budget) else Budget.parse(str(value))


#: The budget as a plan field: a parsed :class:`Budget`, its text (``1.25x``, ``200``, ``all``) in JSON.
BudgetField = Annotated[
    Budget,
    PlainValidator(_budget),
    PlainSerializer(lambda b: b.spec, return_type=str),
    WithJsonSchema({"type": "string", "examples": [DEFAULT_BUDGET, "200", "all"]}),
]


class SnapshotPlan(BaseModel):
    """The parameters of one snapshot run: the one parameter of
    :func:`solvelens.flows.snapshot.snapshot_flow` and of :func:`run_snapshot`, and what ``solvelens
    snapshot``'s options build (plain JSON values, so Prefect records it as the flow run's ``plan``
    parameter; ``budget`` is the parsed :class:`~solvelens.flows.budget.Budget`, its text in JSON). Checked
    here: ``base_url`` by the one base-URL rule (:func:`solvelens.baseurl.normalise_base_url`), ``budget``,
    ``resources``, ``alerts``; the store and ``taken_at`` by :mod:`solvelens.flows.preflight`."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    base_url: str = Field(description="The platform's API base URL, ending in /api/v1.")
    db_path: str = Field(description="The DuckDB snapshot store.")
    taken_at: str | None = Field(
        default=None, description="The snapshot's time, ISO-8601 UTC (default: now)."
    )
    full: bool = Field(default=False, description="Refetch every solution list and bot profile.")
    use_api_key: bool = Field(
        default=True, description="Also snapshot /bot/me when an API key is configured."
    )
    concurrency: int = Field(
        default=DEFAULT_CONCURRENCY,
        ge=1,
        description="Requests in flight per fan-out (all steps together: at most twice this, fewer while "
        "answers only queue).",
    )
    lock_timeout_s: float = Field(
        default=60.0,
        ge=0,
        description="Seconds to wait for the store's writer lock while another writer holds it.",
    )
    backfill: bool = Field(
        default=False, description="Allow a taken_at older than the store's newest snapshot of base_url."
    )
    allow_missing_bot_me: bool = Field(
        default=False,
        description="A rejected API key is a warning (default: the run fails, nothing written).",
    )
    profile: str | None = Field(
        default=None,
        description="Path of a platform profile (TOML, `solvelens probe`) the fetch steps' clients read.",
    )
    max_rps: float | None = Field(
        default=None,
        gt=0,
        le=1000,
        description="Cap on requests per second over all fetch steps (None: only the announced quota paces).",
    )
    alerts: list[str] | None = Field(
        default=None,
        description="Alert rules evaluated after the snapshot (solvelens.alerts.rules; never on a backfill).",
    )
    alerts_file: str | None = Field(
        default=None,
        description="A rules file (TOML: alerts, notify). Its notify URLs are read at run time, never a "
        "parameter.",
    )

    @field_validator("base_url")
    @classmethod
    def _base_url(cls, value: str) -> str:
        """The one base-URL rule (:class:`solvelens.baseurl.BaseUrlError`, a ``ValueError``, otherwise)."""
        return normalise_base_url(value)

    @field_validator("alerts")
    @classmethod
    def _rules_read(cls, value: list[str] | None) -> list[str] | None:
        """Every rule must read (:class:`solvelens.alerts.AlertRuleError` otherwise)."""
        if value:
            from solvelens.alerts.rules import parse_rules

            parse_rules(value)
        return value

    budget: BudgetField = Field(
        default=Budget.parse(DEFAULT_BUDGET),
        description="What the optional resources may send: N requests, Nx (the snapshot sends at most N "
        "full reads of the interface in all) or all (solvelens.flows.budget).",
    )

    resources: list[str] | None = Field(
        default=None,
        description="Optional resources to snapshot (solvelens.resources: "
        + ", ".join(optional_names())
        + "); None: every one the platform offers, [] none.",
    )

    @field_validator("resources")
    @classmethod
    def _known_resources(cls, value: list[str] | None) -> list[str] | None:
        """Every name must be a declared optional resource (:func:`solvelens.resources.checked_optional`)."""
        return None if value is None else checked_optional(value)

    def wants(self, resource: str) -> bool:
        """Whether this run fetches the optional ``resource`` (when the platform offers it)."""
        return self.resources is None or resource in self.resources
