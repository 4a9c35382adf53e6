"""The platform's endpoints, in one registry: what the client, the page walk, the record styles, the profile
and ``probe`` know about each endpoint.

Adding an endpoint = one :class:`Endpoint` here and one method in ``client.py`` (both clients) built on a
``Call`` in ``base.py``. Everything else (its profile table ``[endpoints.<name>]``, its record style's id
candidates, probing it, its page size) reads this registry. No HTTP here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "ENDPOINTS",
    "PROFILE_NAMES",
    "Endpoint",
    "canonical_id",
    "endpoint_key",
    "endpoint_name",
    "list_endpoints",
    "resource_of",
]


@dataclass(frozen=True, slots=True)
class Endpoint:
    """One endpoint of the platform.

    ``name``: its name in profiles (``[endpoints.<name>]``), ``pagination=``/``page_sizes=`` options and the
    client's per-endpoint memory. ``path``: the path template under the base URL (``{id}`` for a path id).
    ``kind``: ``"list"`` (an answer holds a list of records) or ``"single"`` (one resource, ``/stats``'s
    figures, a task). ``resource``: the singular resource of its records (``problem``; ``None``: none), for
    ``<resource>Id`` id fields. ``id_field``: the canonical id field of its records (``id``; ``slug`` for
    categories). ``optional``: the real platform's endpoint beyond the interface (a platform may answer 404).
    ``in_profile``: a profile may configure it (``False`` for parts of another answer, e.g. ``search``'s
    lists). Lists only: ``items_key`` (the real platform's envelope key of the list), ``max_page_size`` (the
    largest page size the real platform accepts, asked for by default; ``None``: send none), ``paging``
    (``None``: detect from the first answer; ``"single_page"``: one answer is the whole list; ``"offset"``:
    the default when detection finds nothing clear; ``"feed"``: one answer holding the newest records, its
    size asked for with the page-size parameter).
    """

    name: str
    path: str
    kind: Literal["list", "single"]
    resource: str | None = None
    id_field: str = "id"
    optional: bool = False
    in_profile: bool = True
    items_key: str | None = None
    max_page_size: int | None = None
    paging: str | None = None

    @property
    def paged(self) -> bool:
        """Whether the list is walked page by page (a detected or default paginator)."""
        return self.kind == "list" and self.paging not in ("single_page", "feed")


_ALL = (
    Endpoint("problems", "/problems", "list", "problem", items_key="problems", max_page_size=50),
    Endpoint(
        "solutions", "/problems/{id}/solutions", "list", "solution", items_key="solutions", max_page_size=100
    ),
    Endpoint("leaderboard", "/leaderboard", "list", "bot", items_key="bots", max_page_size=100),
    Endpoint(
        "categories",
        "/categories",
        "list",
        "category",
        id_field="slug",
        items_key="categories",
        paging="single_page",
    ),
    Endpoint("problem", "/problems/{id}", "single", "problem"),
    Endpoint("bot", "/bots/{id}", "single", "bot"),
    Endpoint("bot_me", "/bot/me", "single", "bot"),
    Endpoint("stats", "/stats", "single"),
    Endpoint("search", "/search", "single"),
    Endpoint("search_problems", "/search", "list", "problem", in_profile=False, items_key="problems"),
    Endpoint("search_bots", "/search", "list", "bot", in_profile=False, items_key="bots"),
    Endpoint("tasks_next", "/tasks/next", "single", "task"),
    # Optional: the real platform's endpoints beyond the interface.
    Endpoint(
        "activity",
        "/activity",
        "list",
        "activity",
        optional=True,
        items_key="activities",
        max_page_size=50,
        paging="feed",
    ),
    Endpoint(
        "llm_leaderboard",
        "/llm-leaderboard",
        "list",
        "model",
        optional=True,
        items_key="models",
        max_page_size=100,
        paging="offset",
    ),
    Endpoint(
        "llm_families",
        "/llm-leaderboard/families",
        "list",
        "family",
        id_field="family",
        optional=True,
        items_key="families",
        paging="single_page",
    ),
    Endpoint("solution", "/solutions/{id}", "single", "solution", optional=True),
    Endpoint(
        "comparisons",
        "/solutions/{id}/comparisons",
        "list",
        "comparison",
        optional=True,
        items_key="comparisons",
        paging="single_page",
    ),
)

#: Every endpoint by name.
ENDPOINTS: dict[str, Endpoint] = {ep.name: ep for ep in _ALL}
#: Endpoint names a profile may configure, in the order a profile file lists them.
PROFILE_NAMES: tuple[str, ...] = tuple(ep.name for ep in _ALL if ep.in_profile)


def list_endpoints(*, paged: bool | None = None) -> dict[str, Endpoint]:
    """The list endpoints by name (``paged``: only those walked page by page, or only those that are not)."""
    return {
        ep.name: ep
        for ep in _ALL
        if ep.kind == "list" and ep.in_profile and (paged is None or ep.paged == paged)
    }


def resource_of(name: str) -> str | None:
    """The singular resource of endpoint ``name``'s records (``problem``), ``None`` for an unknown name."""
    ep = ENDPOINTS.get(name)
    return ep.resource if ep is not None else None


def canonical_id(name: str) -> str:
    """The canonical id field of endpoint ``name``'s records (``id``; ``slug`` for categories)."""
    ep = ENDPOINTS.get(name)
    return ep.id_field if ep is not None else "id"


_ID_SEGMENT = re.compile(r"^[0-9a-fA-F-]{8,}$|^\d+$")


def endpoint_key(path: str) -> str:
    """Template of a path for per-endpoint settings: ``/problems/abc-123/solutions`` ->
    ``/problems/{id}/solutions``."""
    return "/".join("{id}" if _ID_SEGMENT.match(seg) else seg for seg in path.split("/"))


def endpoint_name(path: str) -> str | None:
    """Name of the list endpoint (``problems``, ``solutions``, ...) a path belongs to, or ``None``."""
    key = endpoint_key(path)
    return next((ep.name for ep in list_endpoints().values() if ep.path == key), None)
