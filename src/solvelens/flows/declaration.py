"""What the platform declares about itself, read at every snapshot: the ``platform`` fetch step.

The sandbox answers every request with ``X-Platform-Id`` (a UUID kept in its database: the same platform
on any port), ``X-Platform-Clock: simulated`` (its dates are on a simulated clock) and ``X-Platform-Time``
(the simulated time now, ISO-8601 UTC; a sandbox without that header gives it as ``/health``'s ``clock``).
The real platform sends none of them. :func:`fetch_platform_step` reads them from one
``GET <root>/health`` and records them with the snapshot (``snapshots.platform``), so the report decides
"simulated dates" from what the platform said, never from its address: a real platform on 127.0.0.1 or
behind an SSH tunnel is not simulated.

:func:`platform_time` reads the same answer before a snapshot starts: a platform on a simulated clock gives
the snapshot its ``taken_at`` (real platforms keep the machine's clock; ``--taken-at`` overrides both), and
:func:`check_platform_time_order` compares it only with the snapshots of the store taken at that
platform's time (a store's older snapshots of the same sandbox with the machine's time do not refuse it).
"""

from __future__ import annotations

import os
from datetime import UTC, datetime

import httpx

from solvelens.client.base import USER_AGENT, tls_context
from solvelens.flows.plan import SnapshotPlan
from solvelens.flows.preflight import PreflightError
from solvelens.store.reports import Declaration, StepReport

#: The response headers read (case-insensitive) and the keys they are recorded under.
DECLARATION_HEADERS = {"X-Platform-Id": "id", "X-Platform-Clock": "clock", "X-Platform-Time": "time"}
#: The ``X-Platform-Clock`` value of a platform whose dates are on a simulated clock.
SIMULATED = "simulated"
#: The declaration key a snapshot taken at its platform's time records (``snapshots.platform``; the store
#: writes it from the flow's report, :attr:`solvelens.store.reports.StepReport.taken_at`).
TAKEN_AT_KEY = "taken_at"
#: Seconds allowed for the one request.
TIMEOUT_S = 10.0


def declaration(headers: httpx.Headers) -> Declaration:
    """The declaration in ``headers`` (each field ``None`` when not sent; all of them when the platform
    declared nothing: the real platform)."""
    return Declaration(**{key: headers[name] for name, key in DECLARATION_HEADERS.items() if name in headers})


async def fetch_platform_step(plan: SnapshotPlan, staging_dir: str) -> StepReport:
    """Read the platform's declaration from ``GET <root>/health`` (any status: the headers are what counts).

    Returns the step report with ``declared``: the declaration (``{}`` for none), or ``None`` with a
    warning when the request failed (the snapshot then records no declaration: its clock is unknown, not
    simulated). Never fails the snapshot. Of the plan only ``base_url`` is read (headers only: no profile,
    no pacer); ``staging_dir`` is unused (the flow stages the report).
    """
    url = _health_url(plan.base_url)
    try:
        async with httpx.AsyncClient(
            timeout=TIMEOUT_S, verify=tls_context(url), headers={"User-Agent": USER_AGENT}
        ) as http:
            response = await http.get(url)
    except httpx.HTTPError as exc:
        warning = f"platform declaration not read (GET {url}: {type(exc).__name__}); its clock is unknown"
        return StepReport.of("platform", {}, [warning], declared=None)
    return StepReport.of("platform", {}, declared=declaration(response.headers))


def _health_url(base_url: str) -> str:
    return base_url.rstrip("/").removesuffix("/api/v1") + "/health"


def platform_time(base_url: str) -> str | None:
    """The platform's time now (ISO-8601 UTC with ``Z``) when it declares a simulated clock
    (``X-Platform-Clock: simulated``): its ``X-Platform-Time`` header, else ``/health``'s ``clock``; ``None``
    for a platform on real time, or when ``GET <root>/health`` fails (the machine's clock is used then).
    One request, at most :data:`TIMEOUT_S` seconds."""
    try:
        headers = {"User-Agent": USER_AGENT}
        url = _health_url(base_url)
        with httpx.Client(timeout=TIMEOUT_S, verify=tls_context(url), headers=headers) as http:
            response = http.get(url)
    except httpx.HTTPError:
        return None
    declared = declaration(response.headers)
    if declared.clock != SIMULATED:
        return None
    value: object = declared.time
    if value is None:
        try:
            value = response.json().get("clock")
        except ValueError:
            return None
    try:
        ts = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return None
    ts = ts if ts.tzinfo is not None else ts.replace(tzinfo=UTC)
    return ts.astimezone(UTC).isoformat().replace("+00:00", "Z")


def check_platform_time_order(db_path: str | os.PathLike[str], base_url: str, taken_at: str) -> None:
    """Refuse a snapshot at its platform's time ``taken_at`` (ISO-8601 UTC) older than the store's newest
    snapshot of ``base_url`` taken at that platform's time (see the module docstring): the platform's clock
    went back (a sandbox built again). Raises :class:`PreflightError` naming both times and the fix."""
    from solvelens.store.readers import latest_taken_at

    refuse_older_platform_time(base_url, taken_at, latest_taken_at(db_path, base_url, platform_time=True))


def refuse_older_platform_time(base_url: str, taken_at: str, newest: datetime | None) -> None:
    """Raise :class:`PreflightError` (naming both times and the fix) when the platform's time ``taken_at``
    (ISO-8601 UTC) is older than ``newest`` (UTC: the store's newest snapshot of ``base_url`` taken at its
    platform's time; ``None``: none), as read by :func:`check_platform_time_order` or with the run's prior
    state."""
    ts = datetime.fromisoformat(taken_at.replace("Z", "+00:00"))
    if newest is not None and ts < newest:
        raise PreflightError(
            f"the platform's clock says {taken_at}, older than the newest snapshot of {base_url} taken at "
            f"its time ({newest.isoformat().replace('+00:00', 'Z')}): was the platform built again? Take the "
            "snapshot into another --db, or pass --backfill to add it on purpose"
        )
