"""Checks before a snapshot starts, so bad input or an unreachable platform fails in seconds, not minutes.

- :func:`check_base_url`, :func:`normalise_taken_at`, :func:`check_db_path`: the inputs, with no I/O beyond
  a look at the store file's header (no DuckDB import, no lock).
- :func:`check_cron`: a schedule's cron expression (Prefect's own check, imported when called).
- :func:`check_taken_at_order`: the snapshot time is not older than the store's newest snapshot of the
  platform (reads the store once, read-only), unless it is a backfill.
- :func:`probe`: first a TCP connection within :data:`PROBE_DEADLINE_S` (a few attempts, stamina): when
  nothing answers (refused, unknown host, no route) it ends in seconds, saying so; then one ``GET
  /categories`` that may take up to the client's read timeout (:func:`read_timeout`: ``--read-timeout``,
  ``SOLVELENS_READ_TIMEOUT``, default 30 s): a platform that answers slowly is slow, not down, and one that
  accepts the connection but answers nothing within the read timeout is named as such. A URL that is not the
  platform's API or a failing platform ends here too, with a :class:`PreflightError` naming the URL and the
  fix. Returns the answer's seconds (:class:`ProbeResult`; its ``line`` says when the platform is slow).
- :func:`probe_api_key`: the platform accepts the configured API key (``GET /bot/me``).
- :func:`prefect_api_url`: the configured Prefect API, if any (decides whether a one-off snapshot is a
  Prefect flow run), read from the environment and the active Prefect profile without importing Prefect.

This module imports only the standard library at import time (the probe imports the client when called), so
the CLI reaches its first request fast.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from solvelens.baseurl import BaseUrlError, normalise_base_url

if TYPE_CHECKING:
    from pydantic import SecretStr

#: Seconds the probe tries to connect (attempts included): "nothing answers" is known within them.
PROBE_DEADLINE_S = 4.0
#: The client's read timeout (seconds) unless ``--read-timeout`` / :data:`READ_TIMEOUT_ENV` says otherwise.
DEFAULT_READ_TIMEOUT_S = 30.0
READ_TIMEOUT_ENV = "SOLVELENS_READ_TIMEOUT"
#: An answer to the probe slower than this (seconds) is reported: the platform is slow.
SLOW_ANSWER_S = 1.0
#: Bytes 8-12 of every DuckDB database file.
DUCKDB_MAGIC = b"DUCK"


class PreflightError(ValueError):
    """An input failed a check before the run started; the message is one line naming the problem and the
    fix. Nothing was written."""


class PlatformUnreachableError(PreflightError):
    """The reachability probe failed: the platform is down, unreachable, or the URL is not its API."""


def check_base_url(base_url: str) -> str:
    """``base_url`` without a trailing slash, checked by the one base-URL rule
    (:func:`solvelens.baseurl.normalise_base_url`: http(s), a host, a path ending in ``/api/v1``, with
    the base it most likely meant). Raises :class:`PreflightError` naming ``--base-url`` and the fix."""
    try:
        return normalise_base_url(base_url, option="--base-url")
    except BaseUrlError as exc:
        raise PreflightError(str(exc)) from None


def normalise_taken_at(taken_at: str | None) -> str:
    """``taken_at`` as ISO-8601 UTC with a ``Z`` (naive times are taken as UTC; ``None``: now).

    Raises :class:`PreflightError` (a ``ValueError``) for a string that is not an ISO-8601 time.
    """
    if taken_at is None:
        return datetime.now(UTC).isoformat().replace("+00:00", "Z")
    try:
        ts = datetime.fromisoformat(taken_at.strip().replace("Z", "+00:00"))
    except ValueError:
        raise PreflightError(
            f"--taken-at must be an ISO-8601 time (e.g. 2026-01-01T00:00:00Z), got {taken_at!r}"
        ) from None
    if ts.tzinfo is None:
        ts = ts.replace(tzinfo=UTC)
    return ts.astimezone(UTC).isoformat().replace("+00:00", "Z")


def check_db_path(db_path: str | os.PathLike[str]) -> Path:
    """The store path, checked without opening it: an existing path must be a DuckDB file (not a directory
    or another kind of file); a new one must be creatable (its nearest existing folder writable).

    Raises :class:`PreflightError` naming the fix.
    """
    path = Path(db_path)
    if path.is_dir():
        raise PreflightError(
            f"--db {path} is a directory; give a file path such as {path / 'solvelens.duckdb'}"
        )
    if path.exists():
        try:
            with path.open("rb") as f:
                header = f.read(16)
        except OSError as exc:
            raise PreflightError(
                f"--db {path} cannot be read ({exc.strerror}); check its permissions"
            ) from None
        if header[8:12] != DUCKDB_MAGIC:
            raise PreflightError(
                f"--db {path} exists but is not a DuckDB file; give a new path or an existing solvelens store"
            )
        if not os.access(path, os.W_OK):
            raise PreflightError(f"--db {path} is not writable; check its permissions")
        folder = path.resolve().parent
        if not os.access(folder, os.W_OK | os.X_OK):
            raise PreflightError(
                f"--db {path}: its folder {folder} is not writable (a snapshot stages its data and DuckDB "
                "its WAL beside the store); make it writable or copy the store to a writable folder"
            )
        return path
    folder = path.parent
    while not folder.exists():
        folder = folder.parent
    if not folder.is_dir() or not os.access(folder, os.W_OK | os.X_OK):
        raise PreflightError(f"--db {path} cannot be created: {folder} is not a writable folder")
    return path


def check_cron(expression: str, option: str = "--cron") -> str:
    """``expression``, checked as Prefect's cron schedules check it (five fields, UTC; no random or hashed
    fields). Imports Prefect's schedule schema when called. Raises :class:`PreflightError` naming
    ``option`` and the fix."""
    from pydantic import ValidationError

    from solvelens.flows.prefect_import import prefect_imported

    with prefect_imported():  # without jsonschema's IRI grammar (~2-3 CPU s; see prefect_import)
        from prefect.client.schemas.schedules import CronSchedule

    try:
        CronSchedule(cron=expression, timezone="UTC")
    except ValidationError:
        raise PreflightError(
            f"{option} {expression!r} is not a cron expression; give five fields (minute hour day-of-month "
            "month day-of-week, UTC), e.g. '0 * * * *' for every hour"
        ) from None
    return expression


def check_taken_at_order(
    db_path: str | os.PathLike[str], base_url: str, taken_at: str, *, backfill: bool = False
) -> None:
    """Refuse a snapshot time (ISO-8601 UTC) older than the newest complete snapshot of ``base_url`` in the
    store (one read-only open; nothing when the store does not exist yet), unless ``backfill``.

    Raises :class:`PreflightError` naming both times and the fix; a
    :class:`solvelens.store.StoreError` when the store cannot be read.
    """
    if backfill:
        return
    from solvelens.store import latest_taken_at

    refuse_older_taken_at(db_path, base_url, taken_at, latest_taken_at(db_path, base_url))


def refuse_older_taken_at(
    db_path: str | os.PathLike[str], base_url: str, taken_at: str, newest: datetime | None
) -> None:
    """Raise :class:`PreflightError` (naming both times and the fix) when the snapshot time ``taken_at``
    (ISO-8601 UTC) is older than ``newest`` (the store's newest complete snapshot of ``base_url``, UTC;
    ``None``: none), as read by :func:`check_taken_at_order` or with the run's prior state."""
    ts = datetime.fromisoformat(taken_at.replace("Z", "+00:00"))
    if newest is not None and ts < newest:
        raise PreflightError(
            f"the snapshot time {taken_at} is older than the newest snapshot of {base_url} in {db_path} "
            f"({newest.isoformat().replace('+00:00', 'Z')}); pass --backfill to add an older snapshot on "
            "purpose, or fix --taken-at"
        )


def read_timeout(value: float | str | None = None) -> float:
    """The client's read timeout in seconds: ``value`` when given, else :data:`READ_TIMEOUT_ENV`, else
    :data:`DEFAULT_READ_TIMEOUT_S`. Raises :class:`PreflightError` for a value that is not a positive
    number."""
    raw = os.environ.get(READ_TIMEOUT_ENV) if value is None else value
    if raw is None or raw == "":
        return DEFAULT_READ_TIMEOUT_S
    try:
        seconds = float(raw)
    except ValueError:
        seconds = -1.0
    if not 0 < seconds <= 3600:
        raise PreflightError(
            f"--read-timeout / {READ_TIMEOUT_ENV} {raw!r} is not a number of seconds in (0, 3600]; "
            "give e.g. 30"
        )
    return seconds


class ProbeResult:
    """A probe that passed: ``seconds`` the platform took to answer ``GET /categories``, ``read_timeout_s``
    it was allowed; ``line`` is one sentence when the answer was slow (``""`` otherwise)."""

    def __init__(self, base_url: str, seconds: float, read_timeout_s: float) -> None:
        self.base_url, self.seconds, self.read_timeout_s = base_url, seconds, read_timeout_s

    @property
    def slow(self) -> bool:
        """Whether the answer took longer than :data:`SLOW_ANSWER_S`."""
        return self.seconds > SLOW_ANSWER_S

    @property
    def line(self) -> str:
        """``the platform at URL answers slowly: GET /categories took 1.5 s (read timeout 30 s); the
        snapshot takes longer`` when slow, else ``""``."""
        if not self.slow:
            return ""
        return (
            f"the platform at {self.base_url} answers slowly: GET /categories took {self.seconds:.1f} s "
            f"(read timeout {self.read_timeout_s:g} s); the snapshot takes longer"
        )


async def _connect(base_url: str, deadline_s: float) -> None:
    """A TCP connection to ``base_url``'s host within ``deadline_s`` seconds, retried (stamina) while it
    is refused or unreachable; raises the last ``OSError`` or ``TimeoutError``."""
    from solvelens.lean_imports import lean_imports

    with lean_imports():  # without tenacity's Tornado support (see lean_imports)
        import stamina

    parts = urlsplit(base_url)
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme == "https" else 80)
    async with asyncio.timeout(deadline_s):
        async for attempt in stamina.retry_context(
            on=OSError, attempts=3, timeout=deadline_s, wait_initial=0.3, wait_max=1.0, wait_jitter=0.1
        ):
            with attempt:
                _, writer = await asyncio.open_connection(host, port)
                writer.close()


async def _categories(base_url: str, read_timeout_s: float) -> None:
    from solvelens.client import AsyncPlatformClient, RetryPolicy

    retry = RetryPolicy(attempts=3, wait_initial=0.3, wait_max=1.0, wait_jitter=0.1, retry_after_cap=1.0)
    async with AsyncPlatformClient(base_url, read_env=False, retry=retry, timeout=read_timeout_s) as client:
        await client.list_categories()


def _nothing_answers(base_url: str, exc: BaseException, deadline_s: float) -> PlatformUnreachableError:
    parts = urlsplit(base_url)
    where = f"{parts.hostname}:{parts.port or (443 if parts.scheme == 'https' else 80)}"
    if isinstance(exc, TimeoutError):
        why = f"no connection within {deadline_s:g} s: no route or a firewall"
    elif isinstance(exc, socket.gaierror):
        why = "unknown host"
    elif isinstance(exc, ConnectionRefusedError):
        why = "connection refused"
    else:
        why = exc.strerror or type(exc).__name__ if isinstance(exc, OSError) else type(exc).__name__
    return PlatformUnreachableError(
        f"cannot reach {base_url}: nothing answers ({where}: {why}); check the URL and that the platform "
        "is up"
    )


def probe(
    base_url: str, *, deadline_s: float = PROBE_DEADLINE_S, read_timeout_s: float | None = None
) -> ProbeResult:
    """Check that ``base_url`` answers like the platform: a TCP connection within ``deadline_s`` seconds
    (3 attempts), then ``GET /categories`` must return a JSON list within the read timeout
    (``read_timeout_s``, default :func:`read_timeout`; up to 3 attempts on 5xx and timeouts, all within the
    read timeout and ``deadline_s``). Returns a :class:`ProbeResult` (how long the answer took).

    Raises :class:`PlatformUnreachableError` with one line naming the URL, what happened (nothing answers,
    or it answers nothing within the read timeout, or what it answered) and the fix.
    """
    import time

    limit = read_timeout() if read_timeout_s is None else read_timeout_s
    with _retry_lines_quiet():
        try:
            asyncio.run(_connect(base_url, deadline_s))
        except (OSError, TimeoutError) as exc:
            raise _nothing_answers(base_url, exc, deadline_s) from None
        started = time.perf_counter()
        try:
            asyncio.run(asyncio.wait_for(_categories(base_url, limit), limit + deadline_s))
        except Exception as exc:
            raise _verdict(base_url, exc, limit) from None
    return ProbeResult(base_url, time.perf_counter() - started, limit)


@contextmanager
def _retry_lines_quiet() -> Iterator[None]:
    """The probe's few retries are expected: only its final verdict is reported, not each retry line
    (loggers ``stamina`` and ``solvelens.client`` at ERROR for the block; stamina's retry hooks are left
    alone: reading them would import ``prometheus_client`` before the first request)."""
    quiet = [logging.getLogger(name) for name in ("stamina", "solvelens.client")]
    levels = [lg.level for lg in quiet]
    for lg in quiet:
        lg.setLevel(logging.ERROR)
    try:
        yield
    finally:
        for lg, level in zip(quiet, levels, strict=True):
            lg.setLevel(level)


def _verdict(base_url: str, exc: Exception, limit: float) -> PlatformUnreachableError:
    """The one line for a probe whose connection was made but whose ``GET /categories`` failed."""
    from solvelens.client import (
        APIStatusError,
        NotFoundError,
        PlatformConnectionError,
        PlatformError,
        PlatformTimeoutError,
        ResponseDecodeError,
        ServerError,
    )

    if isinstance(exc, TimeoutError | PlatformTimeoutError):
        return PlatformUnreachableError(
            f"{base_url} accepts connections but answered nothing within {limit:g} s (the read timeout): "
            f"the platform is slow or stuck; raise --read-timeout / {READ_TIMEOUT_ENV} or try again later"
        )
    if isinstance(exc, NotFoundError):
        return PlatformUnreachableError(
            f"{base_url}/categories answered 404: {base_url} is not the platform's API base; give the URL "
            "under which /problems, /leaderboard and /categories live (ending in /api/v1)"
        )
    if isinstance(exc, ResponseDecodeError):
        return PlatformUnreachableError(
            f"{base_url}/categories did not answer JSON (HTTP {exc.status_code}): this is not the platform's "
            "API; check --base-url"
        )
    if isinstance(exc, ServerError):
        if exc.status_code == 501:  # Not Implemented: a server that will never serve it, not a failing one
            return PlatformUnreachableError(
                f"{base_url}/categories answered HTTP 501 (Not Implemented): this server does not serve the "
                "platform's API at this URL; check --base-url"
            )
        return PlatformUnreachableError(
            f"the platform at {base_url} is failing (HTTP {exc.status_code} on GET /categories after 3 "
            "attempts); try again later"
        )
    if isinstance(exc, APIStatusError):
        return PlatformUnreachableError(
            f"{base_url}/categories answered HTTP {exc.status_code}; check --base-url"
        )
    if isinstance(exc, PlatformConnectionError):
        return PlatformUnreachableError(str(exc).splitlines()[0])
    if isinstance(exc, PlatformError):
        return PlatformUnreachableError(f"{base_url}: {str(exc).splitlines()[0]}")
    raise exc


def probe_api_key(base_url: str, api_key: SecretStr, *, deadline_s: float = PROBE_DEADLINE_S) -> None:
    """Check that the platform accepts ``api_key``: ``GET /bot/me`` must answer within ``deadline_s``
    seconds. Raises :class:`PreflightError` when it answers 401/403 (the message never holds the key) and
    :class:`PlatformUnreachableError` when the platform gives no usable answer."""
    from solvelens.client import (
        AsyncPlatformClient,
        AuthenticationError,
        PermissionDeniedError,
        PlatformError,
    )

    async def me() -> None:
        async with AsyncPlatformClient(base_url, api_key=api_key, read_env=False, timeout=deadline_s) as c:
            await c.get_me()

    try:
        asyncio.run(asyncio.wait_for(me(), deadline_s))
    except (AuthenticationError, PermissionDeniedError) as exc:
        raise PreflightError(
            f"the platform rejected the API key (HTTP {exc.status_code} on GET /bot/me); check "
            "SOLVELENS_API_KEY / SOLVELENS_API_KEY_FILE, or pass --allow-missing-bot-me"
        ) from None
    except (TimeoutError, PlatformError) as exc:
        raise PlatformUnreachableError(
            f"{base_url}/bot/me gave no usable answer ({type(exc).__name__}); try again later"
        ) from None


def prefect_api_url() -> str | None:
    """The Prefect API a flow run would report to: ``PREFECT_API_URL`` from the environment, else from the
    active profile of ``$PREFECT_HOME/profiles.toml`` (``~/.prefect`` by default; ``PREFECT_PROFILE``
    selects the profile); ``None`` when none is configured (then Prefect would start a temporary server)."""
    url = os.environ.get("PREFECT_API_URL", "").strip()
    if url:
        return url
    home = Path(os.environ.get("PREFECT_HOME") or Path.home() / ".prefect").expanduser()
    try:
        text = (home / "profiles.toml").read_text(encoding="utf-8")
    except OSError:  # no profiles file (most machines): no Prefect API, and no TOML parser imported
        return None
    import tomllib  # only when a TOML file is read (~0.01 s of regexes at import)

    try:
        profiles = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return None
    active = os.environ.get("PREFECT_PROFILE") or profiles.get("active") or "ephemeral"
    settings = profiles.get("profiles", {}).get(active, {})
    value = settings.get("PREFECT_API_URL") if isinstance(settings, dict) else None
    return str(value).strip() or None if value else None
