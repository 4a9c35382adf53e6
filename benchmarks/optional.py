"""Benchmark: the optional resources of a snapshot, counted in requests per endpoint.

Serves a fresh copy of the sandbox platform (seed 0, built once per scale into ``--cache-dir``) from a real
uvicorn subprocess and takes, in this process (the plain path, no Prefect), three snapshots into a new store:

1. ``first``: everything (the interface's resources and every optional one the platform offers): vote
   lists within the default budget (a quarter of a full read of the interface on the first snapshot,
   docs/evidence-budget.md);
2. ``unchanged``: again, nothing changed on the platform: target, no ``/solutions/{id}/comparisons``
   request beyond the audit share of lists trusted by their counts and the backlog the budget left (only
   solutions whose vote count moved are asked otherwise);
3. ``after 1 day``: after one simulated day (``sandbox.simulate.advance``): comparisons are asked for the
   solutions whose count moved, and the activity feed (50 events) shows a gap the summary explains.

Requests are counted from the client's DEBUG log lines (one per answered request, retries included),
grouped by endpoint template. Seconds are the snapshot's own ``duration_s`` (fetch + write). No asserts:
the target is printed with its figure.

    .venv/bin/python benchmarks/optional.py                  # small scale (~700 solutions)
    .venv/bin/python benchmarks/optional.py --scale medium   # ~50,000 solutions: the first snapshot asks
                                                             # for the comparisons of each one with votes
"""

from __future__ import annotations

import argparse
import logging
import os
import shutil
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from solvelens.client.walk import endpoint_key
from solvelens.flows.figures import ComparisonsFigures
from solvelens.flows.steps import SnapshotPlan, run_snapshot
from solvelens.sandbox.process import start_sandbox
from solvelens.sandbox.simulate import advance

COMPARISONS = "GET /solutions/{id}/comparisons"


class RequestCounter(logging.Handler):
    """Counts the client's answered requests per ``METHOD /endpoint/template``."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.counts: Counter[str] = Counter()

    def emit(self, record: logging.LogRecord) -> None:
        args = record.args if isinstance(record.args, tuple) else ()
        if "->" in str(record.msg) and len(args) == 4:
            self.counts[f"{args[0]} {endpoint_key(str(args[1]))}"] += 1

    def take(self) -> Counter[str]:
        counts, self.counts = self.counts, Counter()
        return counts


def platform_copy(cache: Path, scale: str, work: Path) -> Path:
    """A fresh copy of the cached sandbox platform of ``scale`` (built once, seed 0): the run changes it."""
    from solvelens.sandbox.generate import build_platform

    cached = cache / f"{scale}.sqlite"
    if not cached.exists():
        print(f"building the {scale} sandbox platform into {cached} (once) ...", flush=True)
        cache.mkdir(parents=True, exist_ok=True)
        build_platform(cached, seed=0, scale=scale)
    copy = work / "platform.sqlite"
    shutil.copyfile(cached, copy)
    for suffix in ("-wal", "-shm"):
        if Path(str(cached) + suffix).exists():
            shutil.copyfile(Path(str(cached) + suffix), Path(str(copy) + suffix))
    return copy


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--scale", default="small", choices=("small", "medium", "large"))
    p.add_argument("--cache-dir", type=Path, default=Path(tempfile.gettempdir()) / "solvelens-bench")
    p.add_argument("--concurrency", type=int, default=8)
    args = p.parse_args(argv)

    counter = RequestCounter()
    client_log = logging.getLogger("solvelens.client")
    client_log.setLevel(logging.DEBUG)
    client_log.addHandler(counter)
    client_log.propagate = False
    with tempfile.TemporaryDirectory(prefix="solvelens-optional-") as tmp:
        work = Path(tmp)
        sandbox_db = platform_copy(args.cache_dir, args.scale, work)
        server = start_sandbox(sandbox_db, seed=0, scale=args.scale)
        try:
            rows = run_phases(server, sandbox_db, work / "store.duckdb", counter, args.concurrency)
        finally:
            server.stop()
    print_report(rows, args.scale)


def run_phases(
    server: Any, sandbox_db: Path, db: Path, counter: RequestCounter, concurrency: int
) -> list[tuple[str, dict[str, Any], Counter[str]]]:
    rows = []
    plan = SnapshotPlan(base_url=server.base_url, db_path=str(db), use_api_key=False, concurrency=concurrency)
    for phase in ("first", "unchanged", "after 1 day"):
        if phase == "after 1 day":
            moved = advance(sandbox_db, days=1)
            print(
                f"advanced one simulated day: {moved['solutions']} solutions, {moved['votes']} votes",
                flush=True,
            )
        summary = run_snapshot(plan)
        rows.append((phase, summary, counter.take()))
        print(f"{phase}: {summary.duration_s:.2f} s", flush=True)
    return rows


def print_report(rows: list[tuple[str, dict[str, Any], Counter[str]]], scale: str) -> None:
    load = os.getloadavg()
    print(f"\noptional resources, {scale} scale (load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f})\n")
    endpoints = sorted({e for _, _, counts in rows for e in counts})
    phases = [phase for phase, _, _ in rows]
    print(f"{'requests per endpoint':<40}" + "".join(f"{p:>14}" for p in phases))
    for e in endpoints:
        print(f"{e:<40}" + "".join(f"{counts[e]:>14,}" for _, _, counts in rows))
    print(f"{'total':<40}" + "".join(f"{sum(counts.values()):>14,}" for _, _, counts in rows))
    print(f"{'seconds (duration_s)':<40}" + "".join(f"{s.duration_s:>14.2f}" for _, s, _ in rows))
    for label, name in (
        ("new events", "activity"),
        ("new comparisons", "comparisons"),
        ("models", "llm_leaderboard"),
    ):
        print(f"{label:<40}" + "".join(f"{s.counts.get(name, 0):>14,}" for _, s, _ in rows))
    print()
    for phase, summary, _ in rows:
        print(f"{phase}: {summary.optional_line()}")
        for w in summary.warnings:
            print(f"  warning: {w}")
    for phase, summary, _ in rows:
        print(f"{phase}: {' '.join(summary.quality_lines()[-1:])}")
    unchanged = rows[1][2][COMPARISONS]
    info = rows[1][1].figures("comparisons", ComparisonsFigures)
    verdict = "met" if unchanged == info.requested else "NOT met"
    print(
        f"\ntarget: an unchanged re-snapshot sends only its audit share and the backlog the budget left: "
        f"{unchanged} sent ({info.audited} audit, {info.pending} lists still pending) -> {verdict}"
    )


if __name__ == "__main__":
    main()
