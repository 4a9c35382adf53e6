"""Retries: which failures are retried, how long to wait, and the lines that say so.

- :class:`RetryPolicy`: attempts and capped exponential backoff with jitter (seconds); stamina runs the loop
  (:func:`retrying`).
- Decisions (:func:`retry_get`, :func:`retry_submit`): GETs retry 429/503 after ``Retry-After`` (capped),
  other 5xx, 408, timeouts, connection errors and an undecodable 2xx body; a 500 whose body is a validation
  error fails at once. A submit is retried only when the request never reached the server or its answer was
  lost (and on 429/503 with Retry-After).
- Limits (:func:`retry_limit`): a caller's stop event or deadline ends scheduled retries (the bot runner's
  stop and ``--max-outage``).
- Log (:func:`log_retry`, a stamina retry hook, installed once by :func:`install_retry_logging` at a
  request's first failure, before stamina schedules the retry: reading stamina's hooks builds its defaults,
  which import ``prometheus_client``, 13-26 ms of CPU a process that never retries does not spend): each
  scheduled retry is one line (logger ``solvelens.client``) naming method, path, status or error, attempt
  n/N and the next wait, for requests inside a :func:`retry_scope`: a WARNING for the bot endpoints (a
  running bot shows an outage as it happens), DEBUG for reads, whose final error then carries the count
  (``GET /problems -> 500: ... (5 attempts over 9.6 s)``): one line after the retries, not one per retry.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import stamina
import stamina.instrumentation

from solvelens.client.errors import (
    APIStatusError,
    ConfigurationError,
    NotJSONError,
    PlatformConnectionError,
    PlatformError,
    PlatformTimeoutError,
    QueryValidationError,
    RateLimitError,
    ResponseDecodeError,
    ServerError,
    ServiceUnavailableError,
)

__all__ = [
    "RetryPolicy",
    "install_retry_logging",
    "log_retry",
    "retry_get",
    "retry_limit",
    "retry_scope",
    "retry_submit",
    "retrying",
]

log = logging.getLogger("solvelens.client")


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How GETs are retried (all times in seconds).

    ``attempts``: tries in total (1 = no retry). ``wait_initial``/``wait_max``/``wait_jitter``: exponential
    backoff ``wait_initial * 2**(n-1)`` plus up to ``wait_jitter`` random, capped at ``wait_max``.
    ``retry_after_cap``: longest wait taken from a ``Retry-After`` header.
    """

    attempts: int = 5
    wait_initial: float = 0.5
    wait_max: float = 30.0
    wait_jitter: float = 1.0
    retry_after_cap: float = 60.0

    def __post_init__(self) -> None:
        if self.attempts < 1:
            raise ConfigurationError("RetryPolicy.attempts must be at least 1")


@dataclass(slots=True)
class _Scope:
    """The request whose retries are running: what to name in the lines, the attempts allowed, whether each
    retry is a WARNING line (``each``) and how many were scheduled so far."""

    method: str
    path: str
    attempts: int
    each: bool
    retries: int = 0
    started: float = 0.0


#: The request whose retries are running in this context.
_RETRY_SCOPE: ContextVar[_Scope | None] = ContextVar("solvelens_retry_scope", default=None)


@contextlib.contextmanager
def retry_scope(method: str, path: str, attempts: int, *, each: bool = True) -> Iterator[None]:
    """Within this block, stamina's scheduled retries are about ``method path``.

    ``each``: every scheduled retry is one WARNING line (a running bot shows an outage as it happens).
    Otherwise each is a DEBUG line, and when the retries end in a failure the error leaving the block says
    how many attempts were made over how long (``... (5 attempts over 9.6 s)``): a database outage behind
    the API is the one error line a caller prints, with the count, not 4 warnings before it.
    """
    scope = _Scope(method, path, attempts, each, started=time.monotonic())
    token = _RETRY_SCOPE.set(scope)
    try:
        yield
    except PlatformError as exc:
        if scope.retries and not scope.each:
            _count_attempts(exc, scope)
        raise
    finally:
        _RETRY_SCOPE.reset(token)


def _count_attempts(exc: PlatformError, scope: _Scope) -> None:
    """Add the attempts made to ``exc``'s message (and as ``exc.attempts``)."""
    tries = scope.retries + 1
    took = time.monotonic() - scope.started
    exc.attempts = tries  # type: ignore[attr-defined]
    if exc.args and isinstance(exc.args[0], str):
        exc.args = (f"{exc.args[0]} ({tries} attempts over {took:.1f} s)", *exc.args[1:])


@dataclass(frozen=True, slots=True)
class _RetryLimit:
    stop: threading.Event | None
    deadline: float | None

    def reached(self) -> bool:
        if self.stop is not None and self.stop.is_set():
            return True
        return self.deadline is not None and time.monotonic() >= self.deadline


_RETRY_LIMIT: ContextVar[_RetryLimit | None] = ContextVar("solvelens_retry_limit", default=None)


@contextlib.contextmanager
def retry_limit(*, stop: threading.Event | None = None, deadline: float | None = None) -> Iterator[None]:
    """Within this block (this thread or task), no further retry is scheduled once ``stop`` is set or the
    ``deadline`` (``time.monotonic()`` seconds) has passed: the failure at hand is raised at once. The bot
    runner uses it so a stop request or ``--max-outage`` is not held up by a request's remaining retries."""
    token = _RETRY_LIMIT.set(_RetryLimit(stop, deadline))
    try:
        yield
    finally:
        _RETRY_LIMIT.reset(token)


def _outcome(exc: BaseException) -> str:
    if isinstance(exc, APIStatusError):
        return f"{exc.status_code} {exc.message[:80]}"
    if isinstance(exc, ResponseDecodeError):
        return f"{exc.status_code} with an undecodable body"
    if isinstance(exc, PlatformConnectionError):
        what = "timed out" if isinstance(exc, PlatformTimeoutError) else "no answer"
        return f"{type(exc.__cause__ or exc).__name__} ({what})"
    return type(exc).__name__


def log_retry(details: stamina.instrumentation.RetryDetails) -> None:
    """stamina retry hook: one WARNING line per scheduled retry of a client request, e.g.
    ``GET /tasks/next -> 500 Internal server error; attempt 2/5 failed, next in 1.3 s``. Retries outside
    a :func:`retry_scope` are left to stamina's own hooks."""
    scope = _RETRY_SCOPE.get()
    if scope is None:
        return
    scope.retries = details.retry_num
    log.log(
        logging.WARNING if scope.each else logging.DEBUG,
        "%s %s -> %s; attempt %d/%d failed, next in %.1f s",
        scope.method,
        scope.path,
        _outcome(details.caused_by),
        details.retry_num,
        scope.attempts,
        details.wait_for,
    )


class _ScopedRetryFilter(logging.Filter):
    """Drops stamina's bare ``stamina.retry_scheduled`` record for retries :func:`log_retry` describes."""

    def filter(self, record: logging.LogRecord) -> bool:
        return _RETRY_SCOPE.get() is None


_retry_logging_installed = False


def install_retry_logging() -> None:
    """Add :func:`log_retry` to stamina's retry hooks (keeping the others) once per process."""
    global _retry_logging_installed
    if _retry_logging_installed:
        return
    hooks = stamina.instrumentation.get_on_retry_hooks()
    if log_retry not in hooks:
        stamina.instrumentation.set_on_retry_hooks((*hooks, log_retry))
    logging.getLogger("stamina").addFilter(_ScopedRetryFilter())
    _retry_logging_installed = True


def _retry_after(exc: APIStatusError, policy: RetryPolicy) -> float | bool:
    if exc.retry_after is None:
        return True
    return min(exc.retry_after, policy.retry_after_cap)


def retry_get(exc: Exception, policy: RetryPolicy) -> bool | float:
    """Whether a GET that failed with ``exc`` is retried, or how many seconds to wait first (Retry-After,
    capped at ``policy.retry_after_cap``): 429/503, other 5xx but a validation 500, 408, timeouts, connection
    errors and an undecodable 2xx body; never an HTML answer (a wrong base URL)."""
    if isinstance(exc, RateLimitError | ServiceUnavailableError):
        return _retry_after(exc, policy)
    if isinstance(exc, QueryValidationError):
        return False
    if isinstance(exc, ServerError):
        return True
    if isinstance(exc, APIStatusError):
        return exc.status_code == 408  # Request Timeout: the only other retryable status
    if isinstance(exc, NotJSONError):
        return False
    return isinstance(exc, PlatformConnectionError | ResponseDecodeError)


def retry_submit(exc: Exception, policy: RetryPolicy) -> bool | float:
    """Whether a submit that failed with ``exc`` is retried: only when the request never arrived or its
    answer was lost, or when the server asked for it (429/503 with Retry-After, capped)."""
    if isinstance(exc, RateLimitError | ServiceUnavailableError):
        return False if exc.retry_after is None else min(exc.retry_after, policy.retry_after_cap)
    return isinstance(exc, PlatformConnectionError)


def retrying(policy: RetryPolicy, hook: Callable[[Exception], bool | float]) -> Any:
    """stamina's retry context for ``policy``, deciding each failure with ``hook`` (the first failure installs
    the retry lines: :func:`install_retry_logging`); wrap its loop in :func:`retry_scope` so the retry lines
    name the request. Inside a :func:`retry_limit` block nothing is retried once the limit is reached."""

    def decide(exc: Exception) -> bool | float:
        # stamina calls its retry hooks after this verdict (tenacity's before_sleep): ours are in by then
        install_retry_logging()
        limit = _RETRY_LIMIT.get()
        if limit is not None and limit.reached():
            return False
        return hook(exc)

    return stamina.retry_context(
        on=decide,
        attempts=policy.attempts,
        timeout=None,
        wait_initial=policy.wait_initial,
        wait_max=policy.wait_max,
        wait_jitter=policy.wait_jitter,
    )
