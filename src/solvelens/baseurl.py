"""The one base-URL rule: what a platform's API base URL must look like, and the base a wrong one most
likely meant.

Every caller checks a base URL here: the clients (:func:`solvelens.client.base.normalise_base_url`, which
raises the client's ``ConfigurationError``), the snapshot's preflight and ``schedule``
(:func:`solvelens.flows.preflight.check_base_url`, ``PreflightError`` naming ``--base-url``) and the
snapshot's plan (:class:`solvelens.flows.plan.SnapshotPlan`). It imports only the standard library, so the
preflight checks a URL before the client (httpx) is imported.
"""

from __future__ import annotations

import re
from typing import Final
from urllib.parse import urlsplit

__all__ = ["API_SUFFIX", "BaseUrlError", "normalise_base_url", "suggested_api_path"]

#: Every endpoint lives under this path of the platform.
API_SUFFIX: Final = "/api/v1"
#: The interface's first path segments: a base URL ending in one of them has an endpoint left on it.
_ENDPOINT_SEGMENTS: Final = frozenset(
    {"problems", "categories", "leaderboard", "bots", "stats", "search", "tasks", "bot", "activity", "health"}
)


class BaseUrlError(ValueError):
    """A base URL the rule refuses; the message is one line naming the URL and the fix."""


def normalise_base_url(base_url: str, *, option: str = "base URL") -> str:
    """``base_url`` without surrounding space or a trailing slash: an ``http``/``https`` URL with a host
    (and a numeric port, if any), no credentials, no query or fragment, whose path ends in ``/api/v1``.
    Raises :class:`BaseUrlError` in one line naming ``option`` (``--base-url`` on the command line), the URL
    and the fix (for a wrong path, the base it most likely meant: :func:`suggested_api_path`)."""
    url = base_url.strip().rstrip("/")
    parts = urlsplit(url)
    try:
        parts.port  # noqa: B018  (raises ValueError for a port that is not a number)
    except ValueError as exc:
        raise BaseUrlError(f"{option} {url!r} is not a valid URL: {exc}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise BaseUrlError(
            f"{option} {url!r} is not an http(s) URL; give the platform's API base, "
            f"e.g. https://api.opensolve.ai{API_SUFFIX} or http://127.0.0.1:8765{API_SUFFIX}"
        )
    if parts.username or parts.password:
        raise BaseUrlError(f"{option} must not carry credentials; pass the API key with --api-key")
    if parts.query or parts.fragment:
        raise BaseUrlError(f"{option} {url!r} has a query or fragment; give only the API base")
    if not parts.path.endswith(API_SUFFIX):
        suggestion = f"{parts.scheme}://{parts.netloc}{suggested_api_path(parts.path)}"
        raise BaseUrlError(
            f"{option} {url} does not end in {API_SUFFIX}: every endpoint lives under the API base "
            f"(did you mean {suggestion}?)"
        )
    return url


def suggested_api_path(path: str) -> str:
    """The API base path a wrong base URL's path most likely meant (ending in ``/api/v1``):

    - a path with an ``api`` segment keeps what is before it: ``/api`` and ``/api/v2`` -> ``/api/v1``,
      ``/x/api/v1/problems`` -> ``/x/api/v1``, ``/API/V1`` -> ``/api/v1``;
    - else a trailing version segment is replaced: ``/v1``, ``/v2`` -> ``/api/v1``,
      ``/x/v1`` -> ``/x/api/v1``;
    - else an endpoint left on the root is dropped (``/problems`` -> ``/api/v1``), and anything else gets
      ``/api/v1`` appended (``/platform`` -> ``/platform/api/v1``).
    """
    segments = [s for s in path.split("/") if s]
    lowered = [s.lower() for s in segments]
    if "api" in lowered:
        segments = segments[: lowered.index("api")]
    elif lowered and (re.fullmatch(r"v\d+(\.\d+)*", lowered[-1]) or lowered[-1] in _ENDPOINT_SEGMENTS):
        segments = segments[:-1]
    return "/" + "/".join([*segments, "api", "v1"])
