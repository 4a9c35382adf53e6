"""Polite fetching: read the quota a platform announces and pace requests so it is never exceeded.

**What is read** (:func:`read_quota`, from every answer, 2xx or not), whichever form the server speaks:

| form | headers |
|---|---|
| de-facto (the real platform's fastify limiter, GitHub) | ``X-RateLimit-Limit``, ``-Remaining``, ``-Reset`` |
| IETF draft -01..-06 | ``RateLimit-Limit`` (policy allowed: ``100, 100;w=60``), ``-Remaining``, ``-Reset`` |
| IETF draft -07 | ``RateLimit: limit=100, remaining=50, reset=30`` + ``RateLimit-Policy: 100;w=60`` |
| IETF draft -08 and later | ``RateLimit: "default";r=50;t=30`` + ``RateLimit-Policy: "default";q=100;w=60`` |
| any | ``Retry-After`` (seconds or an HTTP date), on a 429 |

A reset is seconds until the window resets; a value above 10^9 is read as a Unix time (GitHub's form), in
seconds or milliseconds. Several policies (e.g. per minute and per day) are all kept and all respected. A
quota header that cannot be read is logged once (WARNING, logger ``solvelens.client``, naming the header and
its value) and the answer is paced by what could be read.

**How requests are paced** (:class:`Pacer`, one per client; the snapshot's concurrent steps share one per
platform, :func:`shared_pacer`): every request takes a slot before it is sent. With ``R`` requests left
until the reset in ``T`` seconds (less the requests already under way, which the server has not counted
yet), a window of ``L`` requests per ``W`` seconds may use half of ``L`` at once (``burst``) and the rest
spread evenly to the window's end; a window already used beyond that line is spread evenly: ``R`` over
``T``. So a small snapshot under a large quota runs at full speed, a large one slows down *before* the
quota runs out, and no slot of this window is ever handed out beyond ``R``: the next ones wait for the reset.
Every answer re-anchors the pace on the server's own count (answers arriving out of order are ignored when
an answer to a later request has been read). A 429 holds every request of the client until the window resets
(or ``Retry-After`` has passed); the retry itself stays with stamina (:mod:`solvelens.client.base`), which
honours ``Retry-After``. Before the first answer nothing is known and nothing is held. Other processes
spending the same quota (two snapshots, a bot runner on the same address) are seen only through the
server's counts in each answer: they can still meet a 429 near a window's end, retried after its
``Retry-After``.

**What the pacer records** (:attr:`Pacer.stats`): per request kind (``acquire(kind=...)``; a client passes
its ``quota_kind``, e.g. a snapshot's optional steps ``optional``), the requests taken, how many were held
for the quota and for how long (:class:`KindStats`), so a run can tell a snapshot paced by its own interface
reads from one whose optional requests waited.

``max_rps`` (the user's cap, requests per second over all of the pacer's requests) is enforced by
pyrate-limiter (a leaky bucket of one request per ``1/max_rps`` seconds, the same object for the sync and
the async client, thread- and task-safe).
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import math
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

import httpx

from solvelens.client.errors import ConfigurationError, parse_retry_after

if TYPE_CHECKING:
    from pyrate_limiter import Limiter

__all__ = [
    "INTERFACE",
    "KindStats",
    "Pacer",
    "PacerStats",
    "QuotaInfo",
    "QuotaWindow",
    "read_quota",
    "shared_pacer",
]

log = logging.getLogger("solvelens.client")

#: Share of a window's limit a client may use at once; the rest is spread to the window's end.
DEFAULT_BURST: Final = 0.5
#: Slack after an announced reset before a request is counted in the next window (seconds; a server may
#: round its reset down).
RESET_MARGIN_S: Final = 0.25
#: A reset above this is a Unix time (seconds), above :data:`_EPOCH_MS` a Unix time in milliseconds.
_EPOCH_S: Final = 1e9
_EPOCH_MS: Final = 1e12
#: The request kind of a client that names none (:meth:`Pacer.acquire`).
INTERFACE: Final = "interface"
#: ``max_rps`` bounds: pyrate-limiter counts in whole milliseconds.
MAX_RPS_LIMIT: Final = 1000.0


@dataclass(frozen=True, slots=True)
class QuotaWindow:
    """One quota policy as one answer announced it: ``remaining`` requests (after the answered one) until
    the window resets in ``reset_s`` seconds (from the answer's arrival); ``limit`` requests per
    ``window_s`` seconds when announced (``None`` otherwise); ``policy`` its name (IETF draft -08+)."""

    remaining: int
    reset_s: float
    limit: int | None = None
    window_s: float | None = None
    policy: str | None = None


@dataclass(frozen=True, slots=True)
class QuotaInfo:
    """What one answer said about the quota: its ``windows`` (possibly none), ``retry_after_s`` (seconds,
    from ``Retry-After``) and ``form`` (which header family: ``x-ratelimit``, ``ratelimit-draft-06``,
    ``ratelimit-draft-07``, ``ratelimit-structured``, or ``retry-after`` alone)."""

    windows: tuple[QuotaWindow, ...]
    retry_after_s: float | None
    form: str


class _Unreadable(ValueError):
    """A quota header whose value is not of any known form."""

    def __init__(self, header: str, value: str) -> None:
        super().__init__(header, value)
        self.header = header
        self.value = value


def _number(header: str, value: str) -> float:
    try:
        number = float(value.strip().strip('"'))
    except ValueError:
        raise _Unreadable(header, value) from None
    if not math.isfinite(number) or number < 0:
        raise _Unreadable(header, value)
    return number


def _reset_seconds(header: str, value: str, now_epoch: float) -> float:
    """Seconds until a reset given as delta-seconds, a Unix time (s or ms) or an HTTP date."""
    try:
        number = _number(header, value)
    except _Unreadable:
        seconds = parse_retry_after(value)  # an HTTP date
        if seconds is None:
            raise
        return seconds
    if number > _EPOCH_MS:
        return max(0.0, number / 1000 - now_epoch)
    if number > _EPOCH_S:
        return max(0.0, number - now_epoch)
    return number


_MEMBERS = re.compile(r',(?=(?:[^"]*"[^"]*")*[^"]*$)')  # commas outside quoted strings


def _members(value: str) -> list[tuple[str, dict[str, str]]]:
    """A structured-field list (``a;k=v, "b";k=v``) as ``[(item, {param: value})]``."""
    out = []
    for member in _MEMBERS.split(value):
        parts = [p.strip() for p in member.split(";")]
        if not parts[0]:
            continue
        params = {}
        for p in parts[1:]:
            key, _, val = p.partition("=")
            params[key.strip().lower()] = val.strip().strip('"')
        out.append((parts[0].strip('"'), params))
    return out


def _policies(value: str | None) -> list[tuple[str, int | None, float | None]]:
    """``RateLimit-Policy`` (or a policy-carrying ``RateLimit-Limit``) as ``[(name or quota, quota,
    window)]``: draft -07 ``100;w=60``, draft -08+ ``"name";q=100;w=60`` (``l=`` in some revisions)."""
    if not value:
        return []
    out: list[tuple[str, int | None, float | None]] = []
    for item, params in _members(value):
        window = _number("RateLimit-Policy", params["w"]) if "w" in params else None
        quota = params.get("q") or params.get("l")
        if quota is None and item.isdigit():
            quota = item
        out.append((item, int(_number("RateLimit-Policy", quota)) if quota else None, window))
    return out


def _structured(value: str, policy: str | None, now_epoch: float) -> tuple[QuotaWindow, ...]:
    """``RateLimit`` of draft -07 (``limit=, remaining=, reset=``) or -08+ (``"name";r=;t=``)."""
    policies = _policies(policy)
    members = _members(value)
    if members and "=" in members[0][0]:  # draft -07: one dictionary
        fields = dict(p.partition("=")[::2] for p in (m.strip() for m in value.split(",")) if p)
        fields = {k.strip().lower(): v.split(";")[0].strip() for k, v in fields.items()}
        if "remaining" not in fields or "reset" not in fields:
            raise _Unreadable("RateLimit", value)
        limit = int(_number("RateLimit", fields["limit"])) if "limit" in fields else None
        window = next((w for _, q, w in policies if q == limit), policies[0][2] if policies else None)
        return (
            QuotaWindow(
                int(_number("RateLimit", fields["remaining"])),
                _reset_seconds("RateLimit", fields["reset"], now_epoch),
                limit,
                window,
            ),
        )
    by_name = {name: (quota, window) for name, quota, window in policies}
    windows = []
    for name, params in members:
        if "r" not in params:
            raise _Unreadable("RateLimit", value)
        quota, window = by_name.get(name, (None, None))
        reset = _reset_seconds("RateLimit", params["t"], now_epoch) if "t" in params else window
        if reset is None:
            raise _Unreadable("RateLimit", value)
        windows.append(QuotaWindow(int(_number("RateLimit", params["r"])), reset, quota, window, name))
    return tuple(windows)


def _triple(headers: httpx.Headers, prefix: str, now_epoch: float) -> QuotaWindow | None:
    """``<prefix>-Limit``/``-Remaining``/``-Reset`` (the limit may carry draft -06 policies)."""
    remaining = headers.get(f"{prefix}-remaining")
    if remaining is None:
        return None
    limit_text = headers.get(f"{prefix}-limit")
    limit: int | None = None
    window: float | None = None
    if limit_text is not None:
        first, _, rest = limit_text.partition(",")
        limit = int(_number(f"{prefix}-Limit", first.split(";")[0]))
        window = next((w for _, q, w in _policies(rest) if w is not None and q in (limit, None)), None)
    reset_text = headers.get(f"{prefix}-reset")
    reset = _reset_seconds(f"{prefix}-Reset", reset_text, now_epoch) if reset_text is not None else window
    if reset is None:
        return None  # a remaining count without a reset says nothing about when it frees up
    return QuotaWindow(int(_number(f"{prefix}-Remaining", remaining)), reset, limit, window)


_X_RATELIMIT: Final = "X-RateLimit"
_RATELIMIT: Final = "RateLimit"


def read_quota(
    headers: httpx.Headers | Mapping[str, str], *, now_epoch: float | None = None
) -> QuotaInfo | None:
    """The quota an answer announces (see the module docstring for the forms), ``None`` when it announces
    none. ``now_epoch``: the current Unix time (for resets given as a time). Raises ``ValueError`` (a
    ``_Unreadable`` with ``.header`` and ``.value``) for a quota header of no known form."""
    headers = headers if isinstance(headers, httpx.Headers) else httpx.Headers(headers)
    now_epoch = time.time() if now_epoch is None else now_epoch
    retry_after = parse_retry_after(headers.get("retry-after"))
    combined = headers.get("ratelimit")
    windows: tuple[QuotaWindow, ...] = ()
    form = "retry-after"
    if combined is not None:
        windows = _structured(combined, headers.get("ratelimit-policy"), now_epoch)
        form = "ratelimit-draft-07" if "=" in _members(combined)[0][0] else "ratelimit-structured"
    elif (draft := _triple(headers, _RATELIMIT, now_epoch)) is not None:
        windows, form = (draft,), "ratelimit-draft-06"
    elif (legacy := _triple(headers, _X_RATELIMIT, now_epoch)) is not None:
        windows, form = (legacy,), "x-ratelimit"
    if not windows and retry_after is None:
        return None
    return QuotaInfo(windows, retry_after, form)


@dataclass
class _Window:
    """A quota window as the pacer models it (times on the pacer's monotonic clock)."""

    anchor: float  # when the answer was read
    end: float  # when the window resets
    remaining: int  # left at the anchor, less the requests under way then
    limit: int
    length: float
    reported: int = 0  # the remaining count the server reported
    policy: str | None = None

    def slot(self, j: int, burst: float) -> float:
        """When the ``j``-th request after the anchor may go (1 = the next; see the module docstring)."""
        if j <= self.remaining:
            left = self.end - self.anchor
            spread = self.anchor + left * j / self.remaining
            used = self.limit - self.remaining + j  # this window's count once the j-th has gone
            allowance = burst * self.limit
            if used <= allowance:
                return self.anchor
            start = self.end - self.length
            along = start + self.length * (used - allowance) / (self.limit - allowance)
            return min(spread, along)
        later = j - self.remaining - 1  # 0 = the first request of the next window
        windows, position = divmod(later, self.limit)
        start = self.end + RESET_MARGIN_S + windows * self.length
        allowance = burst * self.limit
        if position + 1 <= allowance:
            return start
        return start + self.length * (position + 1 - allowance) / (self.limit - allowance)


@dataclass
class KindStats:
    """The requests of one kind that took a slot of a pacer: ``requests``, ``held`` (of them, those held
    for the quota or a 429's ``Retry-After``: a wait above 0) and ``waited_s`` (seconds held, summed)."""

    requests: int = 0
    held: int = 0
    waited_s: float = 0.0

    def since(self, before: KindStats | None) -> KindStats:
        """What was added since ``before`` (an earlier copy; ``None``: everything)."""
        if before is None:
            return KindStats(self.requests, self.held, self.waited_s)
        return KindStats(
            self.requests - before.requests, self.held - before.held, self.waited_s - before.waited_s
        )


@dataclass
class PacerStats:
    """What a pacer did: ``requests`` sent, ``rate_limited`` (429 answers seen), ``waited_s`` (seconds
    requests were held, summed), ``longest_wait_s``, the ``last`` quota read (``None`` before any) and
    ``kinds`` (per request kind, e.g. ``interface`` and ``optional``: :class:`KindStats`)."""

    requests: int = 0
    rate_limited: int = 0
    waited_s: float = 0.0
    longest_wait_s: float = 0.0
    last: QuotaInfo | None = None
    kinds: dict[str, KindStats] = field(default_factory=dict)


@dataclass
class _State:
    windows: list[_Window] = field(default_factory=list)
    anchor_seq: int = -1  # the request whose answer set the windows
    since_anchor: int = 0  # slots handed out since the anchor (those under way then included)
    hold_until: float = 0.0  # a 429's Retry-After
    known_limits: dict[str | None, tuple[int, float]] = field(default_factory=dict)


class Pacer:
    """Paces one client's requests (or several clients' sharing one quota) by the quota the platform
    announces, and caps them at ``max_rps`` requests per second when given (see the module docstring).

    Use: ``ticket = pacer.acquire()`` (sync, sleeps) or ``await pacer.acquire_async()`` before sending, then
    ``pacer.observe(ticket, response)`` with the answer, or ``pacer.release(ticket)`` when none came.
    ``burst``: share of a window's limit usable at once (0 = spread everything evenly). Raises
    :class:`ConfigurationError` for a ``max_rps`` outside (0, 1000]. Thread-safe; one pacer serves the sync
    and the async client, several threads and event loops.
    """

    def __init__(
        self,
        max_rps: float | None = None,
        *,
        burst: float = DEFAULT_BURST,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if max_rps is not None and not 0 < max_rps <= MAX_RPS_LIMIT:
            raise ConfigurationError(
                f"max_rps must be above 0 and at most {MAX_RPS_LIMIT:g} requests per second, got {max_rps:g}"
            )
        if not 0.0 <= burst < 1.0:
            raise ConfigurationError(f"burst must be in [0, 1), got {burst:g}")
        self.max_rps = max_rps
        self.burst = burst
        self.stats = PacerStats()
        self._clock = clock
        self._lock = threading.Lock()
        self._seq = itertools.count()
        self._under_way: set[int] = set()
        self._state = _State()
        self._warned: set[str] = set()
        self._announced_end = 0.0
        self._cap: Limiter | None = None
        if max_rps:  # pyrate-limiter (with sqlite3 and multiprocessing) is imported only for a cap
            from pyrate_limiter import Limiter, Rate

            self._cap = Limiter(Rate(1, math.ceil(1000 / max_rps)), buffer_ms=0)

    def __repr__(self) -> str:
        return f"Pacer(max_rps={self.max_rps}, burst={self.burst})"

    # -- taking a slot -------------------------------------------------------------------------------------

    def _reserve(self, kind: str = INTERFACE) -> tuple[int, float]:
        """A ticket and how long to wait before sending it (seconds), recorded under ``kind``."""
        with self._lock:
            now = self._clock()
            seq = next(self._seq)
            self._under_way.add(seq)
            state = self._state
            state.since_anchor += 1
            at = max(
                [now, state.hold_until, *(w.slot(state.since_anchor, self.burst) for w in state.windows)]
            )
            wait = at - now
            self.stats.requests += 1
            self.stats.waited_s += wait
            self.stats.longest_wait_s = max(self.stats.longest_wait_s, wait)
            record = self.stats.kinds.setdefault(kind, KindStats())
            record.requests += 1
            record.held += wait > 0
            record.waited_s += wait
            self._announce(wait, at)
        return seq, wait

    def _announce(self, wait: float, at: float) -> None:
        """One line when requests start being held for a window (logger ``solvelens.client``): WARNING when
        it slows a run noticeably (a window of a minute or more, or a wait of 30 s or more), else INFO."""
        if wait < 1.0 or at <= self._announced_end:
            return
        windows = self._state.windows
        self._announced_end = max((w.end for w in windows), default=at)
        if windows:
            quota = "; ".join(
                f"{w.reported} of {w.limit} requests left, the window resets in {w.end - w.anchor:.0f} s"
                for w in windows
            )
        else:
            quota = "answered 429 Too Many Requests"
        long_window = any(w.length >= 60 for w in windows)
        level = logging.WARNING if wait >= 30 or long_window else logging.INFO
        log.log(level, "rate limit: %s; pacing requests (next in %.1f s)", quota, wait)

    def acquire(self, kind: str = INTERFACE) -> int:
        """Take a slot (sync): sleep until the quota and ``max_rps`` allow the next request; return its
        ticket for :meth:`observe`/:meth:`release`. ``kind``: what the request is for (recorded in
        ``stats.kinds``)."""
        seq, wait = self._reserve(kind)
        try:
            if wait > 0:
                time.sleep(wait)
            if self._cap is not None:
                self._cap.try_acquire("requests")
        except BaseException:
            self.release(seq)
            raise
        return seq

    async def acquire_async(self, kind: str = INTERFACE) -> int:
        """Take a slot (async): as :meth:`acquire`, awaiting instead of sleeping (cancellation frees it)."""
        seq, wait = self._reserve(kind)
        try:
            if wait > 0:
                await asyncio.sleep(wait)
            if self._cap is not None:
                await self._cap.try_acquire_async("requests")
        except BaseException:
            self.release(seq)
            raise
        return seq

    def kinds(self) -> dict[str, KindStats]:
        """A copy of ``stats.kinds`` (per request kind: requests, held, seconds held), taken under the lock:
        compare two copies with :meth:`KindStats.since` for what happened in between."""
        with self._lock:
            return {k: KindStats(v.requests, v.held, v.waited_s) for k, v in self.stats.kinds.items()}

    def headroom(self) -> list[tuple[int, int]]:
        """Per quota window the pacer models (none before an answer announced one, or after the window
        ended): ``(remaining, limit)``, the requests the server will still count in it (its last count less
        the requests sent since) and its limit."""
        with self._lock:
            now = self._clock()
            state = self._state
            return [(max(0, w.remaining - state.since_anchor), w.limit) for w in state.windows if now < w.end]

    # -- reading answers -----------------------------------------------------------------------------------

    def release(self, ticket: int) -> None:
        """The request of ``ticket`` got no answer (a transport error, a cancellation)."""
        with self._lock:
            self._under_way.discard(ticket)

    def observe(self, ticket: int, response: httpx.Response, *, retry_after_cap: float | None = None) -> None:
        """Read the quota ``response`` announces and re-anchor the pace on it (see the module docstring). A
        429's ``Retry-After`` holds every request of the pacer, for at most ``retry_after_cap`` seconds."""
        try:
            info = read_quota(response.headers)
        except _Unreadable as exc:
            self._warn_unreadable(exc)
            info = None
        with self._lock:
            self._under_way.discard(ticket)
            now = self._clock()
            if response.status_code == 429:
                self.stats.rate_limited += 1
            if info is None:
                return
            self.stats.last = info
            if response.status_code == 429:
                hold = info.retry_after_s if info.retry_after_s is not None else 1.0
                hold = hold if retry_after_cap is None else min(hold, retry_after_cap)
                self._state.hold_until = max(self._state.hold_until, now + hold)
            if ticket > self._state.anchor_seq and info.windows:
                self._anchor(ticket, info.windows, now)

    def _anchor(self, ticket: int, windows: tuple[QuotaWindow, ...], now: float) -> None:
        state = self._state
        under_way = len(self._under_way)  # sent or about to be, not yet counted by the server
        previous = {w.policy: w for w in state.windows}
        modelled = []
        for w in windows:
            known_limit, known_length = state.known_limits.get(w.policy, (0, 0.0))
            limit = max(w.limit or 0, known_limit, w.remaining)
            length = max(w.window_s or 0.0, known_length, w.reset_s)
            state.known_limits[w.policy] = (limit, length)
            if limit < 1:
                continue
            end = now + w.reset_s
            before = previous.get(w.policy)
            if before is not None and now < before.end and w.remaining <= before.reported:
                # the same window: each answer's reset (rounded up to whole seconds by most servers) bounds
                # its end from above, so the earliest bound is the closest
                end = min(end, before.end)
            remaining = max(0, w.remaining - under_way)
            modelled.append(_Window(now, end, remaining, limit, max(length, 1e-3), w.remaining, w.policy))
        state.windows = modelled
        state.anchor_seq = ticket
        state.since_anchor = 0

    def _warn_unreadable(self, exc: _Unreadable) -> None:
        if exc.header in self._warned:
            return
        self._warned.add(exc.header)
        log.warning(
            "rate limit: cannot read %s: %r (not a count, seconds, a Unix time or an HTTP date); pacing by "
            "the other headers and Retry-After only",
            exc.header,
            exc.value[:80],
        )


_SHARED: OrderedDict[tuple[str, float | None], Pacer] = OrderedDict()
_SHARED_LOCK = threading.Lock()
_SHARED_MAX = 64


def shared_pacer(base_url: str, max_rps: float | None = None) -> Pacer:
    """The process's one pacer for the platform at ``base_url`` (with that ``max_rps``): clients that run at
    the same time against one platform (a snapshot's concurrent fetch steps) share its quota, so they share
    its pacer. Raises :class:`ConfigurationError` for a bad ``max_rps``."""
    key = (str(httpx.URL(base_url).copy_with(query=None, fragment=None)), max_rps)
    with _SHARED_LOCK:
        pacer = _SHARED.get(key)
        if pacer is None:
            pacer = _SHARED[key] = Pacer(max_rps)
            while len(_SHARED) > _SHARED_MAX:
                _SHARED.popitem(last=False)
        _SHARED.move_to_end(key)
        return pacer
