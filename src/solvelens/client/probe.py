"""Probing a platform: what detection finds on each endpoint, as findings to print and as a profile to write.

:func:`probe` walks at most two small pages (``page_size`` 2) of ``/problems``, one problem's
``/solutions`` and ``/leaderboard``, reads ``/categories``, one ``/problems/{id}``, one ``/bots/{id}``,
``/stats`` and, with an API key, ``/bot/me``; then every optional endpoint of the registry
(:mod:`solvelens.client.endpoints`): ``/activity`` (its size parameter), two pages of ``/llm-leaderboard``,
one ``/solutions/{id}`` and its ``/comparisons`` -- a 404 is "not offered". About twenty requests in all,
plus what detection itself spends (at most 3 per endpoint). ``/tasks/next`` is never polled: it would hand
the bot a task it then holds.
The result is one :class:`Finding` per endpoint and the :class:`~solvelens.client.profile.Profile` that
declares what was found (``solvelens probe`` prints the first and writes the second; ``snapshot --profile``
with it gives the same snapshot as detection).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from solvelens.client.detect import total_source
from solvelens.client.endpoints import ENDPOINTS
from solvelens.client.errors import NotFoundError, PlatformError
from solvelens.client.pagination import Page, PaginatorSpec
from solvelens.client.profile import EndpointProfile, Profile
from solvelens.client.records import RecordStyle

if TYPE_CHECKING:
    from solvelens.client.client import PlatformClient
    from solvelens.client.memory import EndpointState
    from solvelens.client.walk import PageWalk

__all__ = ["Finding", "probe"]

#: Page size asked for while probing (small, so a second page shows how paging goes on).
PROBE_PAGE_SIZE = 2


@dataclass(slots=True)
class Finding:
    """What probing found on one endpoint (``name``: ``problems``, ``solutions``, ..., ``stats``).

    ``envelope``: where the records are (a ``data_selector``, ``$`` for a bare list, ``-`` for a single
    resource as sent). ``record``: record style (``flat camel``, ``resource_object snake``...). ``paging``:
    the paginator and its parameter names. ``page_size``: records per page seen (``None``: not a list or
    unknown). ``total``: where the total comes from (``None``: not stated). ``id_field``: the field holding
    the id as sent. ``fields``: a sample of the canonical field names. ``error``: why the endpoint could not
    be probed (then the rest is empty).
    """

    name: str
    envelope: str = "-"
    record: str = "-"
    paging: str = "-"
    page_size: int | None = None
    total: str | None = None
    id_field: str | None = None
    fields: list[str] = field(default_factory=list)
    error: str | None = None


def _style_text(style: RecordStyle | None) -> str:
    return "-" if style is None else f"{style.record} {style.field_case}"


def _paging_text(spec: PaginatorSpec | None) -> str:
    """``cursor after=pageInfo.endCursor``-like text: the type, then each parameter on its own line."""
    if spec is None:
        return "-"
    return "\n".join([spec.type, *(f"{k}: {v}" for k, v in spec.options.items())])


def _walk_pages(client: PlatformClient, walk: PageWalk, pages: int = 2) -> list[Page]:
    got: list[Page] = []
    for page in client._pages(walk):
        got.append(page)
        if len(got) >= pages:
            break
    return got


def _list_finding(name: str, walk: PageWalk, pages: list[Page], client: PlatformClient) -> Finding:
    state = client.endpoints[name]
    first = pages[0] if pages else None
    paginator = walk.paginator
    spec = walk.spec
    finding = Finding(
        name,
        envelope=state.data_selector or "-",
        record=_style_text(state.records),
        paging=_paging_text(spec),
        page_size=paginator.page_size_in_effect if paginator else None,
        total=total_source(first.body, first.headers) if first else None,
        id_field=state.records.id_field if state.records else None,
        fields=sorted(first.items[0])[:12]
        if first and first.items and isinstance(first.items[0], dict)
        else [],
    )
    return finding


def _endpoint_profile(finding: Finding, state: EndpointState, spec: PaginatorSpec | None) -> EndpointProfile:
    style = state.records
    return EndpointProfile(
        data_selector=state.data_selector if finding.envelope != "-" else None,
        record=style.record if style else None,
        field_case=style.field_case if style else None,
        id_field=style.id_field if style else None,
        total_path=finding.total,
        paginator=spec,
    )


def probe(client: PlatformClient) -> tuple[list[Finding], Profile]:
    """Probe every public endpoint (and ``/bot/me`` when the client has an API key); returns the findings
    (one per endpoint, in order) and the profile declaring them. An endpoint that fails is a finding with
    ``error`` set and no profile entry; :class:`PlatformError` of the first request (``/problems``) is
    raised (nothing else could be probed)."""
    findings: list[Finding] = []
    profile = Profile(base_url=client.base_url)
    problems_walk = client._problems_walk(None, None, None, "oldest", PROBE_PAGE_SIZE)
    problem_pages = _walk_pages(client, problems_walk)
    listed = [p for page in problem_pages for p in page.items]
    _add_list(findings, profile, client, "problems", problems_walk, problem_pages)
    problem = max(listed, key=lambda p: p.get("solutionCount") or 0, default=None)
    if problem is not None:
        _try(
            findings, "solutions", lambda: _probe_list(findings, profile, client, "solutions", problem["id"])
        )
    board: list[Page] = []
    _try(
        findings,
        "leaderboard",
        lambda: board.extend(_probe_list(findings, profile, client, "leaderboard", None)),
    )
    _try(findings, "categories", lambda: _probe_categories(findings, profile, client))
    if problem is not None:
        _try(findings, "problem", lambda: _probe_single(findings, profile, client, "problem", problem["id"]))
    bot = next((b for page in board for b in page.items), None)
    if bot is not None:
        _try(findings, "bot", lambda: _probe_single(findings, profile, client, "bot", bot["id"]))
    _try(findings, "stats", lambda: _probe_stats(findings, client))
    if client.has_api_key:
        _try(findings, "bot_me", lambda: _probe_single(findings, profile, client, "bot_me", None))
    _probe_optional(findings, profile, client, _solution_id(client, problem))
    return findings, profile


def _solution_id(client: PlatformClient, problem: dict[str, Any] | None) -> str | None:
    """A solution with votes of the probed problem (for ``/solutions/{id}`` and its comparisons)."""
    if problem is None or not problem.get("solutionCount"):
        return None
    try:
        solutions = next(iter(client.solution_pages(str(problem["id"]), page_size=PROBE_PAGE_SIZE)), None)
    except PlatformError:
        return None
    ranked = solutions.items if solutions is not None else []
    best = next((s for s in ranked if s.get("comparisonCount")), ranked[0] if ranked else None)
    return None if best is None else str(best.get("id"))


def _probe_optional(
    findings: list[Finding], profile: Profile, client: PlatformClient, solution_id: str | None
) -> None:
    """The optional endpoints of the registry (the real platform's, beyond the interface): a 404 is a
    finding "not offered" and no profile entry."""
    for name in (n for n, ep in ENDPOINTS.items() if ep.optional):
        if name in ("solution", "comparisons") and solution_id is None:
            continue
        try:
            if name == "llm_leaderboard":
                walk = client._llm_leaderboard_walk(None, None, PROBE_PAGE_SIZE)
                _add_list(findings, profile, client, name, walk, _walk_pages(client, walk))
            elif name == "solution":
                _probe_single(findings, profile, client, name, solution_id)
            else:
                _probe_unpaged(findings, profile, client, name, solution_id)
        except NotFoundError:
            findings.append(Finding(name, error="not offered (404)"))
        except PlatformError as exc:
            findings.append(Finding(name, error=str(exc).splitlines()[0][:200]))


def _probe_unpaged(
    findings: list[Finding], profile: Profile, client: PlatformClient, name: str, solution_id: str | None
) -> None:
    """``/activity`` (a feed: its size parameter) or a solution's ``/comparisons`` (one answer)."""
    records = client.activity(PROBE_PAGE_SIZE) if name == "activity" else client.comparisons(str(solution_id))
    state = client.endpoints[name]
    options = {"limit_param": state.limit_param} if name == "activity" and state.limit_param else {}
    spec = PaginatorSpec("single_page", options)
    finding = Finding(
        name,
        envelope=state.data_selector or "$",
        record=_style_text(state.records),
        paging=_paging_text(spec) if name != "activity" else f"feed\nsize: {state.limit_param or '-'}",
        page_size=len(records),
        id_field=state.records.id_field if state.records else None,
        fields=sorted(records[0])[:12] if records and isinstance(records[0], dict) else [],
    )
    findings.append(finding)
    profile.endpoints[name] = _endpoint_profile(finding, state, spec)


def _try(findings: list[Finding], name: str, action: Any) -> None:
    try:
        action()
    except PlatformError as exc:
        findings.append(Finding(name, error=str(exc).splitlines()[0][:200]))


def _add_list(
    findings: list[Finding],
    profile: Profile,
    client: PlatformClient,
    name: str,
    walk: PageWalk,
    pages: list[Page],
) -> None:
    finding = _list_finding(name, walk, pages, client)
    findings.append(finding)
    profile.endpoints[name] = _endpoint_profile(finding, client.endpoints[name], walk.spec)


def _probe_list(
    findings: list[Finding], profile: Profile, client: PlatformClient, name: str, problem_id: str | None
) -> list[Page]:
    if name == "solutions":
        walk = client._solutions_walk(str(problem_id), PROBE_PAGE_SIZE)
    else:
        walk = client._leaderboard_walk(None, PROBE_PAGE_SIZE)
    pages = _walk_pages(client, walk)
    _add_list(findings, profile, client, name, walk, pages)
    return pages


def _probe_categories(findings: list[Finding], profile: Profile, client: PlatformClient) -> None:
    categories = client.list_categories()
    state = client.endpoints["categories"]
    finding = Finding(
        "categories",
        envelope=state.data_selector or "$",
        record=_style_text(state.records),
        paging="single_page",
        page_size=len(categories),
        id_field=state.records.id_field if state.records else None,
        fields=sorted(categories[0])[:12] if categories else [],
    )
    findings.append(finding)
    profile.endpoints["categories"] = _endpoint_profile(finding, state, PaginatorSpec("single_page"))


def _probe_single(
    findings: list[Finding], profile: Profile, client: PlatformClient, name: str, ident: str | None
) -> None:
    if name == "problem":
        record: dict[str, Any] = client.get_problem(str(ident))
    elif name == "bot":
        record = client.get_bot(str(ident))
    elif name == "solution":
        record = client.solution(str(ident))
    else:
        record = client.get_me()
    state = client.endpoints[name]
    style = state.records
    findings.append(
        Finding(
            name,
            record=_style_text(style),
            id_field=style.id_field if style else None,
            fields=sorted(record)[:12],
        )
    )
    if style is not None and not style.identity:
        profile.endpoints[name] = EndpointProfile(
            record=style.record, field_case=style.field_case, id_field=style.id_field
        )


def _figures(value: Any) -> int:
    if isinstance(value, dict):
        return sum(_figures(v) for v in value.values())
    if isinstance(value, list):
        return sum(_figures(v) for v in value)
    return 1 if isinstance(value, int | float) else 0


def _probe_stats(findings: list[Finding], client: PlatformClient) -> None:
    stats = client.get_stats()
    findings.append(Finding("stats", record=f"{_figures(dict(stats))} figures", fields=sorted(stats)[:12]))
