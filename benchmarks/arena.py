"""Benchmark: the arena fit (Bradley–Terry + 1,000 bootstrap resamples) over 100,000 comparisons.

Draws ``--comparisons`` votes between ``--entries`` entries of known strengths (normal θ, sd 1; 4% skips;
the pair drawn uniformly), then times :func:`solvelens.analysis.fit_arena` with ``--bootstrap`` resamples
and one window (the fit alone), and with the default windows over time (4 snapshots) when ``--over-time``.
Prints wall seconds per entry count (median of ``--repeat`` runs), the time per resample, and the
Spearman correlation of the fitted scores with the true strengths (a sanity check, not a speed figure).
Target (design "Targets"): < 10 s for 100,000 comparisons with 1,000 resamples. No asserts.

Run: ``.venv/bin/python benchmarks/arena.py [--entries 12,50,200] [--comparisons 100000] [--bootstrap 1000]``
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import statistics
import time

import numpy as np
import polars as pl

from solvelens.analysis.arena import OUTCOME_SCHEMA, fit_arena

T0 = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)


def outcomes(entries: int, comparisons: int, seed: int) -> tuple[np.ndarray, pl.DataFrame]:
    """True θ per entry and ``comparisons`` votes drawn from them (first stored by snapshots 1-4)."""
    rng = np.random.default_rng(seed)
    theta = rng.normal(0.0, 1.0, entries)
    a = rng.integers(0, entries, comparisons)
    b = (a + rng.integers(1, entries, comparisons)) % entries  # never the same entry
    a_wins = rng.random(comparisons) < 1.0 / (1.0 + np.exp(theta[b] - theta[a]))
    winner = np.where(rng.random(comparisons) < 0.04, "skip", np.where(a_wins, "a", "b"))
    names = np.array([f"entry-{i:04d}" for i in range(entries)])
    snapshot = np.sort(rng.integers(1, 5, comparisons))
    frame = pl.DataFrame(
        {
            "comparison_id": np.arange(comparisons).astype(str),
            "first_snapshot_id": snapshot,
            "created_at": pl.Series([T0] * comparisons),
            "entry_a": names[a],
            "label_a": names[a],
            "entry_b": names[b],
            "label_b": names[b],
            "winner": winner,
        }
    ).cast(OUTCOME_SCHEMA)  # type: ignore[arg-type]
    return theta, frame


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", default="12,50,200", help="comma-separated entry counts")
    parser.add_argument("--comparisons", type=int, default=100_000)
    parser.add_argument("--bootstrap", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--over-time", action="store_true", help="also time the default windows over time")
    args = parser.parse_args()

    print(
        f"arena benchmark: {args.comparisons:,} comparisons, {args.bootstrap:,} bootstrap resamples "
        f"(target < 10 s); load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    )
    print(f"{'entries':>8} {'fit s':>8} {'ms/resample':>12} {'spearman':>9} {'over time s':>12}")
    for entries in (int(e) for e in args.entries.split(",")):
        theta, frame = outcomes(entries, args.comparisons, seed=entries)
        runs = []
        result = None
        for _ in range(args.repeat):
            start = time.perf_counter()
            result = fit_arena(frame, bootstrap=args.bootstrap, max_windows=1)
            runs.append(time.perf_counter() - start)
        assert result is not None
        wall = statistics.median(runs)
        fitted = result.ranking.sort("entry")["score"].to_numpy()
        truth = theta[np.argsort([f"entry-{i:04d}" for i in range(entries)])]
        spearman = pl.DataFrame({"f": fitted, "t": truth}).select(pl.corr("f", "t", method="spearman")).item()
        over = "-"
        if args.over_time:
            start = time.perf_counter()
            fit_arena(frame, bootstrap=args.bootstrap)
            over = f"{time.perf_counter() - start:.2f}"
        print(f"{entries:>8} {wall:>8.2f} {1000 * wall / args.bootstrap:>12.2f} {spearman:>9.3f} {over:>12}")


if __name__ == "__main__":
    main()
