"""Delivering alerts where people already are: one terminal line per alert, and notifications through
apprise (e-mail, Slack, Discord, Matrix, ntfy, plain JSON webhooks, ... one URL each).

Notification URLs often carry secrets (tokens, passwords, webhook paths). They come from ``--notify``, a
rules file's ``notify`` or the environment variable ``SOLVELENS_NOTIFY`` (whitespace-separated), are kept
in memory only, and appear in messages only through :func:`mask_url` (scheme, and the host for plain web
hooks). A notification that cannot be delivered is one warning; it never raises.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from urllib.parse import urlsplit

from solvelens.alerts.evaluate import Alert

__all__ = [
    "NOTIFY_ENV",
    "Notifier",
    "NotifyTargetError",
    "alert_line",
    "check_notify_urls",
    "mask_url",
    "notify_urls_from_env",
]

#: Environment variable holding notification URLs (whitespace-separated), read at run time.
NOTIFY_ENV = "SOLVELENS_NOTIFY"
#: apprise schemes whose host is an address, not a secret (plain web hooks): shown in messages.
_HOST_SHOWN = {"json", "jsons", "xml", "xmls", "form", "forms"}


class NotifyTargetError(ValueError):
    """A notification URL apprise does not recognise; the message shows it masked, never whole."""


def mask_url(url: str, index: int | None = None) -> str:
    """A notification URL safe to print: ``json://127.0.0.1:8080/…`` for plain web hooks, else
    ``slack://…``; ``index`` (1-based) is appended as ``(#i)``. Never shows a path, user, password or
    query."""
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower() or "?"
    shown = f"{scheme}://"
    if scheme in _HOST_SHOWN and parts.hostname:
        port = f":{parts.port}" if _safe_port(parts) is not None else ""
        shown += f"{parts.hostname}{port}/"
    shown += "…"
    return f"{shown} (#{index})" if index is not None else shown


def _safe_port(parts: object) -> int | None:
    try:
        return parts.port  # type: ignore[attr-defined,no-any-return]
    except ValueError:
        return None


def notify_urls_from_env(environ: dict[str, str] | None = None) -> list[str]:
    """The URLs of :data:`NOTIFY_ENV` (whitespace-separated; ``[]`` when unset)."""
    env = os.environ if environ is None else environ
    return env.get(NOTIFY_ENV, "").split()


def check_notify_urls(urls: list[str] | tuple[str, ...]) -> None:
    """Raise :class:`NotifyTargetError` for the first URL apprise cannot use (shown masked with its
    position), so a typo is reported before any snapshot is taken. apprise is imported only when there are
    URLs to check."""
    if not urls:
        return
    import apprise

    with _quiet_apprise():
        for i, url in enumerate(urls, 1):
            if apprise.Apprise.instantiate(url) is None:
                raise NotifyTargetError(
                    f"notification URL {mask_url(url, i)} is not one apprise can use; write it as apprise "
                    "documents it (e.g. json://HOST:PORT/PATH, slack://..., mailto://...; "
                    "https://github.com/caronc/apprise/wiki)"
                )


@contextmanager
def _quiet_apprise() -> Iterator[None]:
    """apprise logs failures with its own wording, which may include a URL's parts: silence it for the
    block (our own masked warning replaces it)."""
    logger = logging.getLogger("apprise")
    level, logger.level = logger.level, logging.CRITICAL + 1
    try:
        yield
    finally:
        logger.setLevel(level)


def alert_line(alert: Alert) -> str:
    """The alert as one terminal line: ``alert [RULE] MESSAGE``."""
    return f"alert [{alert.rule}] {alert.message}"


@dataclass(frozen=True)
class _Target:
    url: str
    label: str


class Notifier:
    """Sends each alert to every notification URL (one apprise notification per alert and URL; title
    ``solvelens alert: RULE``, body the alert's line and its snapshot). ``repr`` never shows a URL.

    ``timeout_s``: apprise's connect and read timeouts per request (seconds).
    """

    def __init__(self, urls: list[str] | tuple[str, ...], *, timeout_s: float = 4.0) -> None:
        self._targets = [_Target(u, mask_url(u, i)) for i, u in enumerate(dict.fromkeys(urls), 1)]
        self._timeout_s = timeout_s

    def __repr__(self) -> str:
        return f"Notifier({len(self._targets)} targets)"

    def __len__(self) -> int:
        return len(self._targets)

    def _with_timeouts(self, url: str) -> str:
        if "cto=" in url or "rto=" in url:
            return url
        sep = "&" if "?" in url else "?"
        return f"{url}{sep}cto={self._timeout_s:g}&rto={self._timeout_s:g}"

    def send(self, alerts: list[Alert]) -> list[str]:
        """Notify every target of every alert, in order; returns warning lines (masked), one per target that
        failed (an unreachable target, a refused request, a bad URL: its remaining alerts are not tried, so a
        dead target costs one timeout, not one per alert): never raises for a delivery failure."""
        if not alerts or not self._targets:  # nothing to send: apprise is not even imported
            return []
        import apprise

        warnings = []
        with _quiet_apprise():
            for target in self._targets:
                app = apprise.Apprise()
                if not app.add(self._with_timeouts(target.url)):
                    warnings.append(f"notification to {target.label} not sent: apprise cannot use this URL")
                    continue
                sent = 0
                while sent < len(alerts) and app.notify(
                    title=f"solvelens alert: {alerts[sent].rule}", body=_body(alerts[sent])
                ):
                    sent += 1
                if sent < len(alerts):  # a dead target is not tried again for each remaining alert
                    warnings.append(
                        f"notification to {target.label} not delivered for {len(alerts) - sent} of "
                        f"{len(alerts)} alerts (target unreachable or refused; the rest not tried); the "
                        "snapshot is unaffected"
                    )
        return warnings


def _body(alert: Alert) -> str:
    where = f"snapshot {alert.snapshot_id}" if alert.snapshot_id is not None else "no snapshot"
    return f"{alert.message}\nplatform: {alert.platform}; {where}"
