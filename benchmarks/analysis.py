"""Benchmark: the report, the analysis and the store on a long history (issue 30).

Builds (or reuses, cached under ``benchmarks/.cache/``) a history of ``--days`` x ``--per-day`` snapshots of
``--bots`` bots in the store's real format (:mod:`tests.fixtures.history`: versioned rows, a fifth of the
bots changing each snapshot), in a child process so the peak RSS below is the analysis' alone. Then times
(median of ``--repeat`` runs) the load, leaderboard history + movers, the full report, one bot's page, the
diff of the two newest snapshots, and prints the peak RSS and the store's size before and after
``solvelens db compact`` (on a copy), each beside its target (issue 30's, for a year of hourly snapshots x
2,000 bots) with met / not met.

Run: ``.venv/bin/python benchmarks/analysis.py --days 365 --per-day 24 --bots 2000`` (a year hourly);
``--days 600 --per-day 1 --bots 2000`` and ``--days 90 --per-day 24 --bots 2000`` are the other sizes issue 30
asks for. Timings mean something only on a quiet machine.
"""

from __future__ import annotations

import argparse
import datetime as dt
import multiprocessing
import resource
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for tests.fixtures.history

import polars as pl
from tests.fixtures.history import cached_history

from solvelens import analysis as an
from solvelens.report import build_bot_report, build_report
from solvelens.store import compact


def _time(fn: Callable[[], object], repeat: int) -> float:
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        runs.append(time.perf_counter() - start)
    return statistics.median(runs)


def _build(days: int, per_day: int, bots: int) -> None:
    cached_history(days=days, per_day=per_day, bots=bots)


def _store(args: argparse.Namespace) -> Path:
    """The cached history (built in a child process when missing)."""
    start = time.perf_counter()
    child = multiprocessing.get_context("spawn").Process(
        target=_build, args=(args.days, args.per_day, args.bots)
    )
    child.start()
    child.join()
    if child.exitcode != 0:
        raise SystemExit(f"building the history failed (exit {child.exitcode})")
    path, _ = cached_history(days=args.days, per_day=args.per_day, bots=args.bots)
    print(f"history: {path.name}, ready in {time.perf_counter() - start:.1f} s (cached between runs)")
    return path


def _row(name: str, value: float, unit: str, target: float | None) -> tuple[str, str, str, str]:
    shown = f"{value:,.2f} {unit}"
    if target is None:
        return name, shown, "-", "-"
    return name, shown, f"< {target:g} {unit}", "met" if value < target else "NOT MET"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=int, default=365)
    parser.add_argument("--per-day", type=int, default=24)
    parser.add_argument("--bots", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-compact", action="store_true", help="skip the compaction (a copy of the store)")
    args = parser.parse_args()
    db = _store(args)
    rows = []
    load_s = _time(lambda: an.load(db), args.repeat)
    rows.append(_row("load (bounded: the drawn snapshots)", load_s, "s", None))
    store = an.load(db)
    snapshots = store.snapshots.collect()

    def history_and_movers() -> None:
        history = an.leaderboard_history(store.leaderboard, snapshots)
        an.top_movers(history, window=dt.timedelta(days=7))

    rows.append(_row("history + movers", _time(history_and_movers, args.repeat), "s", 1.0))
    with tempfile.TemporaryDirectory(prefix="solvelens-bench-") as tmp:
        out = Path(tmp) / "report.html"
        rows.append(_row("full report", _time(lambda: build_report(db, out), args.repeat), "s", 10.0))
        bot = str(store.leaderboard.filter(pl.col("rank") > 20).select("bot_id").first().collect().item())
        page = Path(tmp) / "bot.html"
        rows.append(
            _row("one bot's page", _time(lambda: build_bot_report(db, bot, page), args.repeat), "s", 3.0)
        )
        rows.append(_row("diff, two newest snapshots", _time(lambda: an.diff(db), args.repeat), "s", None))
        rss_gb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 / 1024
        rows.append(_row("peak RSS (this process)", rss_gb, "GB", 2.0))
        rows.append(_row("store size", db.stat().st_size / 1e6, "MB", None))
        if not args.no_compact:
            copy = Path(tmp) / "copy.duckdb"
            shutil.copy(db, copy)
            start = time.perf_counter()
            compact(copy)
            took = time.perf_counter() - start
            rows.append(
                _row(f"store size after db compact ({took:.0f} s)", copy.stat().st_size / 1e6, "MB", 2000.0)
            )
    drawn = store.points.snapshot_ids.len() if store.points else snapshots.height
    print(
        f"\n{args.days} days x {args.per_day} snapshots/day = {snapshots.height:,} snapshots x "
        f"{args.bots:,} bots; charts draw {drawn:,} of them (timings: median of {args.repeat})"
    )
    width = max(len(r[0]) for r in rows)
    print(f"{'measure':<{width}}  {'measured':>12}  {'target':>10}  result")
    for name, shown, target, result in rows:
        print(f"{name:<{width}}  {shown:>12}  {target:>10}  {result}")


if __name__ == "__main__":
    main()
