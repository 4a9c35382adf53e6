"""Benchmark: leaderboard history analysis and the full report over 365 daily snapshots x 2,000 bots.

Generates a store with the test generator (``tests/fixtures/store.py``) into a temporary directory, then
prints timings (median of a few runs; no asserts). Targets (docs: design "Targets"): leaderboard history +
movers < 1 s, full report < 20 s. Also times the other helpers the report runs (the leaderboard with its
three baselines, per-bot volatility, one bot's history, the model leaderboard with 1,000 bootstrap
replicates) and one bot's page.

Run: ``.venv/bin/python benchmarks/analysis.py [--days 365] [--bots 2000] [--repeat 3]``
"""

from __future__ import annotations

import argparse
import datetime as dt
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for tests.fixtures.store

import polars as pl
from tests.fixtures.store import StoreSpec, write_store

from solvelens import analysis as an
from solvelens.report import build_bot_report, build_report


def _time(fn: Callable[[], object], repeat: int) -> float:
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        runs.append(time.perf_counter() - start)
    return statistics.median(runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=int, default=365)
    parser.add_argument("--bots", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    spec = StoreSpec(
        days=args.days,
        bots=args.bots,
        gap_days=(100, 101, 250),
        extra_snapshot_days=(10,),
        problems_start=200,
        problems_per_day=3,
    )
    with tempfile.TemporaryDirectory(prefix="solvelens-bench-") as tmp:
        db = Path(tmp) / "bench.duckdb"
        start = time.perf_counter()
        write_store(db, spec)
        print(
            f"generated store: {args.days} days x {args.bots} bots in {time.perf_counter() - start:.1f} s, "
            f"{db.stat().st_size / 1e6:.1f} MB"
        )

        load_s = _time(lambda: an.load(db), args.repeat)
        store = an.load(db)
        rows = store.leaderboard.collect().height
        print(f"load (read-only, all views into polars):      {load_s:7.3f} s  ({rows:,} leaderboard rows)")

        history_s = _time(lambda: an.leaderboard_history(store.leaderboard, store.snapshots), args.repeat)
        history = an.leaderboard_history(store.leaderboard, store.snapshots)
        movers_s = _time(lambda: an.top_movers(history, window=dt.timedelta(days=7)), args.repeat)
        stability_s = _time(lambda: an.rank_stability(history, top_n=10), args.repeat)
        bump_s = _time(lambda: an.bump_data(history, top_n=10), args.repeat)
        current_s = _time(lambda: an.current_leaderboard(history), args.repeat)
        volatility_s = _time(lambda: an.rank_volatility(history, top_n=10), args.repeat)
        bot_id = str(an.current_leaderboard(history).filter(pl.col("rank") > 20)["bot_id"][0])
        bot_s = _time(lambda: an.bot_summary(history, bot_id), args.repeat)
        solutions = store.solutions.collect()
        models_s = _time(lambda: an.model_leaderboard(solutions), args.repeat)
        print(f"leaderboard history:                          {history_s:7.3f} s")
        print(f"leaderboard now, changes vs prev/7d/first:    {current_s:7.3f} s")
        print(f"rank volatility + time at #1 (top 10):        {volatility_s:7.3f} s")
        print(f"one bot's summary (outside the top 20):       {bot_s:7.3f} s")
        print(
            f"model leaderboard, 1,000 bootstrap draws:     {models_s:7.3f} s  "
            f"({solutions.height:,} solutions)"
        )
        print(f"top movers (7 days):                          {movers_s:7.3f} s")
        print(f"rank stability (top 10):                      {stability_s:7.3f} s")
        print(f"bump data (top 10, every snapshot):           {bump_s:7.3f} s")
        diff_s = _time(lambda: an.diff(db), args.repeat)
        week_s = _time(lambda: an.diff(db, "7d"), args.repeat)
        print(f"diff, two newest snapshots (reads the pair):  {diff_s:7.3f} s")
        print(f"diff, 7 days (what the report adds twice):    {week_s:7.3f} s")
        total = history_s + movers_s
        print(f"history + movers:                             {total:7.3f} s  (target < 1 s)")
        print(f"load + history + movers:                      {load_s + total:7.3f} s")

        out = Path(tmp) / "report.html"
        report_s = _time(lambda: build_report(db, out), max(1, args.repeat - 1))
        print(
            f"full report (load, analysis, charts, HTML):   {report_s:7.3f} s  (target < 20 s), "
            f"{out.stat().st_size / 1e6:.2f} MB"
        )
        page = Path(tmp) / "bot.html"
        bot_page_s = _time(lambda: build_bot_report(db, bot_id, page), 1)
        print(f"one bot's page (report --bot):                {bot_page_s:7.3f} s")
        png_s = _time(lambda: build_report(db, out, png_dir=Path(tmp) / "png"), 1)
        print(f"full report with PNG export:                  {png_s:7.3f} s")


if __name__ == "__main__":
    main()
