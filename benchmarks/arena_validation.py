"""Validation: the arena ranking against the sandbox's hidden truth, through the real pipeline.

Builds a sandbox platform (``--scale``, default medium: 200 bots, ~51,000 solutions, ~150,000 votes), serves
it on 127.0.0.1, takes one snapshot with ``solvelens snapshot`` (which stores the votes of
``/solutions/{id}/comparisons``), fits :func:`solvelens.analysis.arena` to the store, and compares with
the simulator's latent skill (``solvelens.sandbox.truth.hidden_skill``; no simulated day passes, so the
skill the votes were drawn from is the one read):

- bots: Spearman of arena score vs skill over the bots with at least ``--min-comparisons`` votes (done
  when >= 0.9);
- models: Spearman of arena score vs the mean skill of each model's bots (as the issue states it), and vs
  the mean weighted by each bot's solutions (what the votes measure: a busy bot's solutions dominate);
- intervals: Spearman of interval width vs a bot's votes, and the median width per band of votes.

The same figures from the sandbox's complete vote table (its SQLite, read-only) are printed beside them as a
reference (what a fit to every vote would give). Prints figures; asserts nothing.

Run: ``.venv/bin/python benchmarks/arena_validation.py [--scale medium] [--seed 0]``
"""

from __future__ import annotations

import argparse
import datetime as dt
import itertools
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import polars as pl

from solvelens import analysis as an
from solvelens.analysis.arena import OUTCOME_SCHEMA, ArenaResult, fit_arena
from solvelens.sandbox.ids import IdCodec
from solvelens.sandbox.process import start_sandbox
from solvelens.sandbox.truth import hidden_skill

BANDS = [30, 100, 300, 1000, 3000]


def spearman(frame: pl.DataFrame, a: str, b: str) -> float:
    return float(frame.select(pl.corr(a, b, method="spearman")).item())


def sandbox_outcomes(db: Path, by: str) -> pl.DataFrame:
    """Every vote of the sandbox's own table, each side named by bot (public id) or model."""
    con = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True)
    try:
        seed = int(con.execute("SELECT value FROM meta WHERE key = 'seed'").fetchone()[0])
        side = "s{0}.bot_id" if by == "bot" else "s{0}.llm_model"
        rows = con.execute(
            f"SELECT c.id, {side.format('a')}, {side.format('b')}, c.winner FROM comparisons c "
            "JOIN solutions sa ON sa.id = c.solution_a JOIN solutions sb ON sb.id = c.solution_b"
        ).fetchall()
    finally:
        con.close()
    codec = IdCodec(seed)
    name = (lambda v: codec.encode("bot", v)) if by == "bot" else (lambda v: v or "unknown")
    a = [name(r[1]) for r in rows]
    b = [name(r[2]) for r in rows]
    return pl.DataFrame(
        {
            "comparison_id": [str(r[0]) for r in rows],
            "first_snapshot_id": [1] * len(rows),
            "created_at": [dt.datetime(2026, 1, 1, tzinfo=dt.UTC)] * len(rows),
            "entry_a": a,
            "label_a": a,
            "entry_b": b,
            "label_b": b,
            "winner": [r[3] for r in rows],
        }
    ).cast(OUTCOME_SCHEMA)  # type: ignore[arg-type]


def report(label: str, bots: ArenaResult, models: ArenaResult, truth: pl.DataFrame, minimum: int) -> None:
    joined = bots.ranking.join(truth, left_on="entry", right_on="bot_id")
    enough = joined.filter(pl.col("comparisons") >= minimum)
    per_model = truth.group_by("llm_model").agg(
        mean_skill=pl.col("skill").mean(),
        weighted_skill=(pl.col("skill") * pl.col("solutions")).sum() / pl.col("solutions").sum(),
    )
    m = models.ranking.join(per_model, left_on="entry", right_on="llm_model")
    widths = joined.with_columns(width=pl.col("upper") - pl.col("lower"))
    print(f"\n{label}: {bots.comparisons:,} decisive votes between two bots ({bots.skips:,} skips left out)")
    print(
        f"  bots with >= {minimum} votes: {enough.height} of {truth.height}; Spearman(score, skill) = "
        f"{spearman(enough, 'score', 'skill'):.3f}"
    )
    print(
        f"  models: {m.height}; Spearman(score, mean skill of its bots) = "
        f"{spearman(m, 'score', 'mean_skill'):.3f}; weighted by solutions = "
        f"{spearman(m, 'score', 'weighted_skill'):.3f}"
    )
    print(f"  intervals: Spearman(width, votes) = {spearman(widths, 'width', 'comparisons'):.3f}")
    edges = [0, *BANDS, 10**9]
    for lo, hi in itertools.pairwise(edges):
        band = widths.filter((pl.col("comparisons") >= lo) & (pl.col("comparisons") < hi))
        if band.height:
            print(f"    {lo:>5}-{hi if hi < 10**9 else '':<5} votes: {band.height:>3} bots, median width "
                  f"{band['width'].median():,.0f} Elo points")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", default="medium")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--min-comparisons", type=int, default=30)
    parser.add_argument("--keep", type=Path, help="keep the sandbox database and the store in this folder")
    args = parser.parse_args()
    print(f"arena validation: {args.scale} sandbox, seed {args.seed}; load average {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory(prefix="solvelens-arena-") as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        db, store_path = folder / f"{args.scale}.sqlite", folder / "store.duckdb"
        start = time.perf_counter()
        server = start_sandbox(db, seed=args.seed, scale=args.scale)
        try:
            print(f"sandbox up in {time.perf_counter() - start:.1f} s at {server.base_url}")
            start = time.perf_counter()
            cmd = [sys.executable, "-m", "solvelens", "snapshot", "--base-url", server.base_url]
            done = subprocess.run(
                [*cmd, "--db", str(store_path), "--no-bot-me"], capture_output=True, text=True
            )
            print(f"snapshot exit {done.returncode} in {time.perf_counter() - start:.1f} s")
            if done.returncode:
                sys.exit(done.stderr[-2000:])
        finally:
            server.stop()
        solutions = (
            sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True)
            .execute("SELECT bot_id, count(*) FROM solutions GROUP BY bot_id")
            .fetchall()
        )
        codec = IdCodec(args.seed)
        counts = pl.DataFrame(
            {"bot_id": [codec.encode("bot", r[0]) for r in solutions], "solutions": [r[1] for r in solutions]}
        )
        truth = pl.DataFrame(hidden_skill(db)).join(counts, on="bot_id", how="left").fill_null(0)
        store = an.load(store_path)
        start = time.perf_counter()
        bots = an.arena(store, by="bot", max_windows=1)
        models = an.arena(store, by="model", max_windows=1)
        print(f"arena fits (bots + models, 1,000 resamples each): {time.perf_counter() - start:.1f} s")
        report(
            "through the pipeline (the store's comparisons view)", bots, models, truth, args.min_comparisons
        )
        reference = (
            fit_arena(sandbox_outcomes(db, "bot"), max_windows=1),
            fit_arena(sandbox_outcomes(db, "model"), max_windows=1),
        )
        report("reference: the sandbox's complete vote table", *reference, truth, args.min_comparisons)


if __name__ == "__main__":
    main()
