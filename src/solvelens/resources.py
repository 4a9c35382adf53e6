"""The stored resources, declared once: what a snapshot fetches, stages, writes and shows for each.

One :class:`StoredResource` per resource a snapshot stores (dlt's ``EndpointResourceBase`` is the model: one
declaration carries the endpoint and the table). Everything else is derived from :data:`RESOURCES`:

- the staged Parquet tables (:data:`solvelens.store.staging.STAGED_TABLES`: ``staged`` columns, then
  ``version_id`` and ``raw``),
- the versioned tables, their public views and the schema's view lists (:mod:`solvelens.store.schema`),
- the writer's order and what a staged run must hold (:mod:`solvelens.store.writer`: ``phase``, ``required``),
- the whole-list ``data_quality`` rows (:mod:`solvelens.store.quality`: ``whole_list``) and the ``/stats``
  totals checked against the lists (``stats_checks``),
- the loader's polars dtypes (:mod:`solvelens.analysis.load`),
- the optional resources ``--resources`` and ``SnapshotPlan.resources`` take, the generic fetch step of an
  optional list (:mod:`solvelens.flows.optional`, ``params``: the request as sent) and the CLI's progress
  labels (:mod:`solvelens.cli.snapshot`).

The store does not import the client: ``endpoint`` is the name of the client's
:class:`~solvelens.client.endpoints.Endpoint` (``client/endpoints.py``), a string. This module imports
nothing of solvelens, so every layer may read it (``cli`` for ``--help`` without DuckDB or pyarrow).

Adding a stored resource: a :class:`StoredResource` here (and, for a new endpoint, its ``Endpoint`` in
``client/endpoints.py``); an optional list of one request (or a paged walk) needs no fetch step of its own.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final, Literal

__all__ = [
    "RESOURCES",
    "Field",
    "StoredResource",
    "WriteKind",
    "checked_optional",
    "optional_names",
    "resource",
    "wanted_resources",
]

#: How the writer stores a resource: ``linked`` (one link row per record per snapshot), ``problems`` (link
#: rows naming each problem's solution manifest), ``solutions`` (manifests, no link rows of their own),
#: ``bots`` (linked, plus the carried-over profiles), ``stats`` (linked, plus ``/stats`` flattened to
#: metric rows), ``history`` (each item once per platform: :mod:`solvelens.store.history`).
#: The DuckDB schema of the store's internal tables (:data:`solvelens.store.schema.INTERNAL`).
INTERNAL_SCHEMA: Final = "solvelens_store"

WriteKind = Literal["linked", "problems", "solutions", "bots", "stats", "history"]


@dataclass(frozen=True)
class Field:
    """A typed column extracted from a record's top-level JSON key ``key`` and cast to ``sql_type`` (a
    DuckDB type: VARCHAR, BIGINT, INTEGER, DOUBLE, TIMESTAMPTZ)."""

    column: str
    key: str
    sql_type: str = "VARCHAR"


@dataclass(frozen=True)
class StoredResource:
    """One stored resource.

    - ``name``: its public view, staged table, versioned table (``<name>_versions``), key in a snapshot's
      ``counts`` and, when optional, in ``--resources`` and ``snapshots.resources``;
    - ``endpoint``: the client's endpoint registry name it is fetched from (``None``: several, or none);
    - ``label``: what the CLI's progress display calls it; ``unit``: what one record is, plural (the
      summary's "N models");
    - ``fields``: the typed columns of its versioned table and view; ``code``: its code in
      ``snapshot_links`` (``None``: no link rows of its own); ``ranked``: the staged table and the view carry
      ``rank`` (position in the walk, 1 = first);
    - ``staged``: the staged table's columns before ``version_id`` and ``raw`` (Arrow type names:
      ``string``, ``int32``, ``int64``, ``uint64``, ``float64``), ``rank`` first when ``ranked``;
    - ``optional``: a platform may not offer it (absent: ``not offered``, the snapshot goes on);
      ``required``: a staged run without it is refused by the writer;
    - ``whole_list``: the snapshot records one ``data_quality`` row for the whole list, the total its walk
      announced against the records stored (``announced`` NULL when the platform announces none);
    - ``stats_checks``: ``/stats`` figures this resource's count is checked against (``data_quality`` rows
      under the ``/stats`` resource);
    - ``write``: how the writer stores it (:data:`WriteKind`); ``phase``: the writer's order (low first);
    - ``params``: the query parameters its request is sent with (recorded with the snapshot as sent).
    """

    name: str
    endpoint: str | None
    label: str
    write: WriteKind
    phase: int
    unit: str = "records"
    fields: tuple[Field, ...] = ()
    code: int | None = None
    ranked: bool = False
    staged: tuple[tuple[str, str], ...] = ()
    optional: bool = False
    required: bool = False
    whole_list: bool = False
    stats_checks: tuple[str, ...] = ()
    params: tuple[tuple[str, str], ...] = ()

    @property
    def staged_columns(self) -> tuple[tuple[str, str], ...]:
        """The staged table's columns before ``version_id`` and ``raw`` (``rank`` first when ranked)."""
        return (("rank", "int32"), *self.staged) if self.ranked else self.staged

    @property
    def version_table(self) -> str:
        """Fully qualified name of its table of distinct record versions (``solvelens_store`` schema)."""
        return f"{INTERNAL_SCHEMA}.{self.name}_versions"

    @property
    def known_keys(self) -> tuple[str, ...]:
        """The JSON keys the store extracts into typed columns."""
        return tuple(f.key for f in self.fields)

    @property
    def linked(self) -> bool:
        """Whether snapshots link its record versions (one ``snapshot_links`` row per record)."""
        return self.code is not None


def _c(column: str, key: str, sql_type: str = "VARCHAR") -> Field:
    return Field(column, key, sql_type)


_BOT_COUNTERS = (
    _c("total_points", "totalPoints", "BIGINT"),
    _c("total_solutions", "totalSolutions", "BIGINT"),
    _c("total_votes", "totalVotes", "BIGINT"),
    _c("vote_accuracy", "voteAccuracy", "DOUBLE"),
    _c("elo", "globalElo", "DOUBLE"),
)

#: Every stored resource, in the order of the public schema (``docs/architecture.md``).
RESOURCES: Final[tuple[StoredResource, ...]] = (
    StoredResource(
        "problems",
        "problems",
        "problems (pages)",
        "problems",
        phase=1,
        unit="problems",
        code=1,
        required=True,
        whole_list=True,
        stats_checks=("totalProblems",),
        fields=(
            _c("problem_id", "id"),
            _c("title", "title"),
            _c("status", "status"),
            _c("category", "category"),
            _c("author_type", "authorType"),
            _c("solution_count", "solutionCount", "BIGINT"),
            _c("comparison_count", "comparisonCount", "BIGINT"),
            _c("created_at", "createdAt", "TIMESTAMPTZ"),
        ),
    ),
    # Solutions have no link rows of their own: a problem's link row names its solution manifest.
    StoredResource(
        "solutions",
        "solutions",
        "solution lists",
        "solutions",
        phase=0,
        unit="solutions",
        code=0,
        staged=(("problem_id", "string"), ("rank", "int32")),
        stats_checks=("totalSolutions",),
        fields=(
            _c("solution_id", "id"),
            _c("score", "btScore", "DOUBLE"),
            _c("comparison_count", "comparisonCount", "BIGINT"),
            _c("win_count", "winCount", "BIGINT"),
            _c("loss_count", "lossCount", "BIGINT"),
            _c("confidence_interval", "confidenceInterval", "DOUBLE"),
            _c("bot_id", "botId"),
            _c("bot_name", "botName"),
            _c("llm_model", "llmModel"),
            _c("created_at", "createdAt", "TIMESTAMPTZ"),
        ),
    ),
    StoredResource(
        "categories",
        "categories",
        "categories",
        "linked",
        phase=2,
        unit="categories",
        code=2,
        required=True,
        fields=(
            _c("slug", "slug"),
            _c("name", "displayName"),
            _c("problem_count", "activeProblems", "BIGINT"),
        ),
    ),
    StoredResource(
        "leaderboard",
        "leaderboard",
        "leaderboard (pages)",
        "linked",
        phase=3,
        unit="bots",
        code=3,
        ranked=True,
        required=True,
        whole_list=True,
        stats_checks=("totalBots",),
        fields=(
            _c("bot_id", "id"),
            _c("name", "name"),
            _c("points", "totalPoints", "BIGINT"),
            _c("elo", "globalElo", "DOUBLE"),
            _c("total_solutions", "totalSolutions", "BIGINT"),
            _c("total_votes", "totalVotes", "BIGINT"),
            _c("vote_accuracy", "voteAccuracy", "DOUBLE"),
            _c("status", "status"),
        ),
    ),
    StoredResource(
        "bots",
        "bot",
        "bot profiles",
        "bots",
        phase=4,
        unit="bots",
        code=4,
        required=True,
        fields=(
            _c("bot_id", "id"),
            _c("name", "name"),
            _c("status", "status"),
            *_BOT_COUNTERS,
            _c("last_active_at", "lastActiveAt", "TIMESTAMPTZ"),
            _c("created_at", "createdAt", "TIMESTAMPTZ"),
        ),
    ),
    # ``/stats`` in long format (metric, value); its totals are checked against the lists' counts.
    StoredResource(
        "platform_stats", "stats", "stats", "stats", phase=5, unit="figures", code=5, required=True
    ),
    # ``/bot/me`` needs an API key: a run without one stages nothing and stores 0 rows.
    StoredResource(
        "bot_me",
        "bot_me",
        "bot (API key)",
        "linked",
        phase=6,
        unit="bots",
        code=6,
        fields=(_c("bot_id", "id"), _c("name", "name"), _c("status", "status"), *_BOT_COUNTERS),
    ),
    # The optional resources: what the real platform publishes beyond the interface.
    StoredResource(
        "llm_leaderboard",
        "llm_leaderboard",
        "LLM leaderboard (pages)",
        "linked",
        phase=7,
        unit="models",
        code=7,
        ranked=True,
        optional=True,
        whole_list=True,
        # The real platform's average-score order, sent so the order a report shows is the one it names.
        params=(("sort", "avg_score"),),
        fields=(
            _c("model_name", "modelName"),
            _c("model_version", "modelVersion"),
            _c("model_family", "modelFamily"),
            _c("total_solutions", "totalSolutions", "BIGINT"),
            _c("avg_bt_score", "avgBtScore", "DOUBLE"),
            _c("best_bt_score", "bestBtScore", "DOUBLE"),
            _c("total_wins", "totalWins", "BIGINT"),
            _c("total_comparisons", "totalComparisons", "BIGINT"),
            _c("win_rate", "winRate", "DOUBLE"),
            _c("top3_count", "top3Count", "BIGINT"),
            _c("first_place_count", "firstPlaceCount", "BIGINT"),
            _c("unique_bots", "uniqueBots", "BIGINT"),
        ),
    ),
    # ``/llm-leaderboard/families``: each model family and its number of models (one answer, no total).
    StoredResource(
        "llm_families",
        "llm_families",
        "LLM model families",
        "linked",
        phase=8,
        unit="families",
        code=8,
        optional=True,
        whole_list=True,
        fields=(_c("family", "family"), _c("model_count", "count", "BIGINT")),
    ),
    StoredResource("activity", "activity", "activity feed", "history", phase=9, unit="events", optional=True),
    StoredResource(
        "comparisons",
        "comparisons",
        "comparisons (solutions whose votes moved)",
        "history",
        phase=9,
        unit="votes",
        optional=True,
        staged=(("problem_id", "string"), ("solution_id", "string")),
        stats_checks=("totalComparisons",),
    ),
)

_BY_NAME: Final = {r.name: r for r in RESOURCES}


def resource(name: str) -> StoredResource:
    """The declaration of the stored resource ``name``; raises ``KeyError`` naming the known ones."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise KeyError(f"unknown stored resource {name!r}; known: {', '.join(_BY_NAME)}") from None


def checked_optional(names: Iterable[str]) -> list[str]:
    """The optional resources ``names`` asks for, normalised (stripped, lower case, ``-`` as ``_``), each
    once, in the order given; the one check of ``--resources`` and ``SnapshotPlan.resources``. Raises
    ``ValueError`` in one line naming the first unknown one and the known ones."""
    known = optional_names()
    asked = [n.strip().lower().replace("-", "_") for n in names if n.strip()]
    unknown = [n for n in asked if n not in known]
    if unknown:
        raise ValueError(f"unknown resource {unknown[0]!r}; choose from {', '.join(known)}")
    return list(dict.fromkeys(asked))


def wanted_resources(text: str | None) -> list[str] | None:
    """``--resources``' text as the optional resources a snapshot wants: ``None`` (or empty, or ``all``):
    every one the platform offers; ``none``: ``[]``; else a comma-separated list, checked by
    :func:`checked_optional` (the one check; a plan's list goes through it too). Raises ``ValueError`` in
    one line naming the first unknown one, the known ones and ``none``."""
    if text is None or text.strip().lower() in ("", "all"):
        return None
    names = text.split(",")
    if [n.strip().lower() for n in names if n.strip()] == ["none"]:
        return []
    try:
        return checked_optional(names)
    except ValueError as exc:
        raise ValueError(f"{exc}, or 'none'") from None


def optional_names() -> tuple[str, ...]:
    """The optional resources' names, sorted (what ``--resources`` takes)."""
    return tuple(sorted(r.name for r in RESOURCES if r.optional))
