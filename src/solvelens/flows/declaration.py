"""What the platform declares about itself, read at every snapshot: the ``platform`` fetch step.

The sandbox answers every request with ``X-Platform-Id`` (a UUID kept in its database: the same platform
on any port) and ``X-Platform-Clock: simulated`` (its dates are on a simulated clock). The real platform
sends neither. :func:`fetch_platform_step` reads them from one ``GET <root>/health`` and records them with
the snapshot (``snapshots.platform``), so the report decides "simulated dates" from what the platform said,
never from its address: a real platform on 127.0.0.1 or behind an SSH tunnel is not simulated.
"""

from __future__ import annotations

from typing import Any

import httpx

from solvelens.client.base import USER_AGENT, ssl_context

#: The response headers read (case-insensitive) and the keys they are recorded under.
DECLARATION_HEADERS = {"X-Platform-Id": "id", "X-Platform-Clock": "clock"}
#: Seconds allowed for the one request.
TIMEOUT_S = 10.0


def declaration(headers: httpx.Headers) -> dict[str, str]:
    """The declaration in ``headers``: ``{"id": str, "clock": str}``, either key only when sent; ``{}`` when
    the platform declared nothing (the real platform)."""
    return {key: headers[name] for name, key in DECLARATION_HEADERS.items() if name in headers}


async def fetch_platform_step(base_url: str, staging_dir: str) -> dict[str, Any]:
    """Read the platform's declaration from ``GET <root>/health`` (any status: the headers are what counts).

    Returns the step report with ``info.declared``: the declaration (``{}`` for none), or ``None`` with a
    warning when the request failed (the snapshot then records no declaration: its clock is unknown, not
    simulated). Never fails the snapshot. ``staging_dir`` is unused (the writer reads ``info`` from the
    step's part).
    """
    url = base_url.rstrip("/").removesuffix("/api/v1") + "/health"
    try:
        async with httpx.AsyncClient(
            timeout=TIMEOUT_S, verify=ssl_context(), headers={"User-Agent": USER_AGENT}
        ) as http:
            response = await http.get(url)
    except httpx.HTTPError as exc:
        warning = f"platform declaration not read (GET {url}: {type(exc).__name__}); its clock is unknown"
        return {"step": "platform", "counts": {}, "warnings": [warning], "info": {"declared": None}}
    return {
        "step": "platform",
        "counts": {},
        "warnings": [],
        "info": {"declared": declaration(response.headers)},
    }
