"""Benchmark: a full snapshot under a quota the platform announces and enforces (``sandbox serve
--rate-limit``), over real HTTP on 127.0.0.1. Prints one table (no asserts):

- ``requests`` and ``429s``: counted by the sandbox itself (``GET /_sandbox/rate-limit``);
- ``elapsed s``: the snapshot's fetch and write (in this process, :func:`run_snapshot`, no Prefect);
- ``ideal s``: the least time the quota allows for that many requests: a window's whole quota at once, then
  the next window: ``floor((requests - 1) / limit) * window``; ``sustained s``: ``requests / limit * window``;
- ``rate /s``: requests per second measured by the server (first to last arrival).

Rows, each on a fresh copy of the same platform (a fresh server, so fresh windows): the pacer on, for each
``--quotas`` entry; the same snapshot with the quota headers unread (only stamina's retries after
``Retry-After`` on each 429: what a client without pacing does); a quota the snapshot never reaches (the
pacer's own cost); and ``--max-rps`` under that quota (the user's cap, measured by the server).

Run: ``.venv/bin/python benchmarks/ratelimit.py [--scale small|medium] [--quotas "40/2 seconds,100/5 seconds"]
[--max-rps 20]``
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
from rich.console import Console
from rich.table import Table

import solvelens.client.ratelimit as ratelimit
from solvelens.flows.steps import SnapshotPlan, run_snapshot
from solvelens.sandbox.generate import build_platform
from solvelens.sandbox.process import start_sandbox
from solvelens.sandbox.ratelimit import parse_rate_limit

GENEROUS = "100000/hour"


@contextlib.contextmanager
def headers_unread() -> Iterator[None]:
    """The client reads no quota header (as a client without pacing); Retry-After still drives retries."""
    original = ratelimit.read_quota
    ratelimit.read_quota = lambda *args, **kwargs: None  # type: ignore[assignment]
    try:
        yield
    finally:
        ratelimit.read_quota = original


def one_run(
    platform: Path,
    work: Path,
    quota: str,
    *,
    max_rps: float | None = None,
    pacer: bool = True,
    resources: list[str] | None = None,
) -> dict[str, Any]:
    """Serve a copy of ``platform`` under ``quota``, take one full snapshot, return the figures."""
    db = work / f"platform-{time.monotonic_ns()}.sqlite"
    shutil.copy(platform, db)
    server = start_sandbox(db, rate_limit=quota)
    store = work / f"store-{time.monotonic_ns()}.duckdb"
    plan = SnapshotPlan(
        base_url=server.base_url, db_path=str(store), use_api_key=False, max_rps=max_rps, resources=resources
    )
    error = ""
    try:
        started = time.perf_counter()
        with headers_unread() if not pacer else contextlib.nullcontext():
            try:
                run_snapshot(plan)
            except Exception as exc:  # a run without pacing may give up after its retries
                error = f"{type(exc).__name__}: {str(exc)[:60]}"
        elapsed = time.perf_counter() - started
        seen = httpx.get(f"{server.root_url}/_sandbox/rate-limit").json()
    finally:
        server.stop()
    limit = parse_rate_limit(quota)
    n = seen["requests"]
    span = (seen["lastAt"] or 0) - (seen["firstAt"] or 0)
    return {
        "requests": n,
        "limited": seen["limited"],
        "elapsed": elapsed,
        "ideal": ((n - 1) // limit.limit) * limit.window_seconds,
        "sustained": n / limit.limit * limit.window_seconds,
        "rate": (n - 1) / span if span > 0 else float("nan"),
        "error": error,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", default="small", help="sandbox scale")
    parser.add_argument("--quotas", default="40/2 seconds,100/5 seconds", help="comma-separated quotas")
    parser.add_argument("--max-rps", type=float, default=20.0, help="the cap of the --max-rps row")
    parser.add_argument(
        "--resources",
        default="all",
        help="optional resources, as `snapshot --resources` (all: every one offered, ~825 requests at small "
        "scale; none: the interface's resources only, ~140 requests)",
    )
    args = parser.parse_args()
    chosen = (
        None if args.resources == "all" else [] if args.resources == "none" else args.resources.split(",")
    )
    console = Console(width=140)
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    console.print(
        f"rate-limit benchmark: scale {args.scale}, resources {args.resources}, load average {load}"
    )
    work = Path(tempfile.mkdtemp(prefix="solvelens-ratelimit-bench-"))
    try:
        platform = work / "platform.sqlite"
        build_platform(platform, seed=0, scale=args.scale)
        rows: list[tuple[str, str, dict[str, Any]]] = []
        run = functools.partial(one_run, platform, work, resources=chosen)
        for quota in (q.strip() for q in args.quotas.split(",") if q.strip()):
            rows.append(("paced", quota, run(quota)))
            rows.append(("headers unread (429 + Retry-After)", quota, run(quota, pacer=False)))
        rows.append(("paced, quota never reached", GENEROUS, run(GENEROUS)))
        rows.append((f"--max-rps {args.max_rps:g}", GENEROUS, run(GENEROUS, max_rps=args.max_rps)))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    table = Table(title="a full snapshot under an announced quota", title_justify="left")
    for column in (
        "client",
        "quota",
        "requests",
        "429s",
        "elapsed s",
        "ideal s",
        "sustained s",
        "rate /s",
        "note",
    ):
        table.add_column(column, justify="left" if column in ("client", "quota", "note") else "right")
    for name, quota, r in rows:
        table.add_row(
            name,
            quota,
            f"{r['requests']:,}",
            f"{r['limited']:,}",
            f"{r['elapsed']:.2f}",
            f"{r['ideal']:.1f}",
            f"{r['sustained']:.1f}" if quota != GENEROUS else "-",
            f"{r['rate']:.1f}",
            r["error"] or ("" if quota != GENEROUS else "ideal: no wait"),
        )
    console.print(table)
    console.print(
        "ideal s = floor((requests - 1) / limit) * window (each window's quota at once); sustained s = "
        "requests / limit * window; rate = (requests - 1) / (last - first arrival), measured by the server."
    )


if __name__ == "__main__":
    main()
