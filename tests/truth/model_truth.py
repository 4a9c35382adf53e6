"""The truth of the report's three model rankings, recomputed from the sandbox's SQLite databases frozen at
each snapshot (:mod:`tests.truth.sandbox_truth`; never solvelens.analysis): the arena (Bradley–Terry on the
platform's own votes), the platform's ``/llm-leaderboard`` order and the percentile leaderboard.

**Arena**, as :mod:`solvelens.analysis.arena`'s docstring defines it, restated here on the platform's rows:

- *votes*: those the store holds by a snapshot: every vote a client could reach at that snapshot or an
  earlier one (:func:`~tests.truth.sandbox_truth.reachable_votes`: the newest 50 of either of its
  solutions), each once (a vote is served in both its solutions' lists);
- *entries*: each side's LLM model as the newest snapshot's listed solutions name it (``unknown`` when the
  solution reports none); a vote on a solution not listed then (its problem rejected since) is
  *unmatched*; skips and votes between two solutions of one model are left out and counted;
- *fit*: ``choix.ilsr_pairwise_dense`` on the matrix of win counts (row beats column) with the weak prior
  ``alpha`` = :data:`ALPHA`; θ centred on the mean of the ranked entries (at least :data:`MIN_COMPARISONS`
  decisive votes; every entry when none is); score = 1500 + 400·θ / ln 10;
- *intervals*: :data:`N_BOOT` resamples (:data:`WINDOW_BOOT` for the earlier windows of the rank-over-time
  chart) of the decisive votes with replacement, each refitted from the point estimate and centred the same
  way; the 2.5th and 97.5th percentiles. The draw is the one the analysis documents for its seeded
  intervals ("the same store gives the same intervals"): ``numpy.random.default_rng(0)``, per resample one
  multinomial draw of as many votes as there are over the non-empty cells of the win matrix (row-major,
  models in name order), so the intervals are compared number for number;
- *rank*: 1 + the number of ranked entries whose lower bound lies above the entry's upper bound.

**Percentile leaderboard** (:mod:`solvelens.analysis.models`' docstring): per model, over its solutions in
contested problems (two solutions or more) of the newest snapshot, the mean rank percentile within the
problem ``(n - r - (t - 1) / 2) / (n - 1)`` (competition rank ``r`` over the scores as served, ``t`` tied);
intervals from :data:`N_BOOT` replicates resampling the contested problems with replacement
(``default_rng(`` :data:`PERCENTILE_SEED` ``)``, per replicate a multinomial draw of as many problems as
there are, problems in the order of their public ids); ranked with :data:`MIN_SOLUTIONS` contested
solutions, ranks by the same interval rule.

**Platform**: ``/llm-leaderboard`` requested with ``sort=avg_score``; the report's platform rank is the
competition rank of the average score as served (4 decimals): equal scores share a rank.

Tolerances (stated where compared): scores and bounds to :data:`REL` relative (1.5e-2 Elo points at 1500;
the report shows whole points: the fits converge to the library's tolerance, not to the last bit), ranks
exact except where a lower and an upper bound lie within that tolerance of each other (either rank then).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import choix
import numpy as np
from threadpoolctl import threadpool_limits

from tests.truth import sandbox_truth as truth

Row = dict[str, Any]

#: The arena's stated constants: prior, votes to be ranked, resamples (full fit, earlier windows), seed.
ALPHA = 1e-3
MIN_COMPARISONS = 30
N_BOOT = 1000
WINDOW_BOOT = 200
SEED = 0
ELO_SCALE = 400.0 / math.log(10.0)
#: The percentile leaderboard's: contested solutions to be ranked, its seed.
MIN_SOLUTIONS = 30
PERCENTILE_SEED = 20240611
#: Relative tolerance of scores and interval bounds (module docstring).
REL = 1e-5
UNKNOWN = "unknown"


@dataclass(frozen=True)
class Votes:
    """The votes of one window: ``decisive`` {comparison id: (winner model, loser model)}, and the votes
    left out."""

    decisive: dict[str, tuple[str, str]]
    skips: int
    same_entry: int
    unmatched: int


def arena_votes(dbs: list[Path], newest: Path, by: str = "model") -> Votes:
    """The votes stored by the snapshots frozen at ``dbs`` (oldest first), each side named by the listed
    solutions of ``newest`` (module docstring): by its LLM model (``by="model"``) or its bot's public id
    (``by="bot"``, the arena of bots the arena notebook draws)."""
    seen: dict[str, Row] = {}
    for db in dbs:
        for vote in truth.reachable_votes(db):
            seen.setdefault(vote["comparison_id"], vote)
    listed = truth.solutions(newest)
    if by == "bot":
        model = {s["solution_id"]: s["bot_id"] for s in listed}
    else:
        model = {s["solution_id"]: s["llm_model"] or UNKNOWN for s in listed}
    decisive: dict[str, tuple[str, str]] = {}
    skips, same, unmatched = 0, 0, 0
    for vote in seen.values():
        a, b = model.get(vote["solution_a_id"]), model.get(vote["solution_b_id"])
        if a is None or b is None:
            unmatched += 1
        elif vote["winner"] not in ("a", "b"):
            skips += 1
        elif a == b:
            same += 1
        else:
            decisive[vote["comparison_id"]] = (a, b) if vote["winner"] == "a" else (b, a)
    return Votes(decisive, skips, same, unmatched)


def _ilsr(wins: np.ndarray, initial: np.ndarray | None = None) -> np.ndarray:
    return choix.ilsr_pairwise_dense(wins, alpha=ALPHA, initial_params=initial, max_iter=10_000, tol=1e-10)


def _ranks(lower: np.ndarray, upper: np.ndarray, ranked: np.ndarray, tol: np.ndarray) -> list[set[int]]:
    """Per entry the ranks the interval rule allows when bounds within ``tol`` of each other may order
    either way (one rank when none is that close)."""
    out = []
    for hi, t in zip(upper, tol, strict=True):
        sure = int((lower[ranked] > hi + t).sum())
        maybe = int((lower[ranked] > hi - t).sum())
        out.append(set(range(1 + sure, 2 + maybe)))
    return out


def arena_fit(votes: Votes, n_boot: int = N_BOOT) -> dict[str, Row]:
    """The arena ranking of ``votes`` by model: ``{model: {score, lower, upper, comparisons, wins, ranked,
    rank, ranks}}`` (``rank`` None when not ranked; ``ranks``: the ranks the tolerance allows)."""
    entries = sorted({m for pair in votes.decisive.values() for m in pair})
    index = {m: i for i, m in enumerate(entries)}
    n = len(entries)
    wins = np.zeros((n, n))
    for winner, loser in votes.decisive.values():
        wins[index[winner], index[loser]] += 1
    comparisons = wins.sum(axis=1) + wins.sum(axis=0)
    ranked = comparisons >= MIN_COMPARISONS
    anchor = ranked if ranked.any() else np.ones(n, dtype=bool)
    theta = _ilsr(wins)
    cells = np.flatnonzero(wins)
    total = int(wins.sum())
    rng = np.random.default_rng(SEED)
    boot = np.empty((n_boot, n))
    with threadpool_limits(limits=1, user_api="blas"):
        for k in range(n_boot):
            resample = np.zeros(n * n)
            resample[cells] = rng.multinomial(total, wins.ravel()[cells] / total)
            boot[k] = _ilsr(resample.reshape(n, n), initial=theta)
    theta = theta - theta[anchor].mean()
    boot = boot - boot[:, anchor].mean(axis=1, keepdims=True)
    low, high = np.percentile(boot, [2.5, 97.5], axis=0)
    score, lower, upper = (1500.0 + ELO_SCALE * x for x in (theta, low, high))
    ranks = _ranks(lower, upper, ranked, REL * np.abs(upper) + REL * np.abs(lower.max()))
    return {
        m: {
            "score": float(score[i]),
            "lower": float(lower[i]),
            "upper": float(upper[i]),
            "comparisons": int(comparisons[i]),
            "wins": int(wins[i].sum()),
            "ranked": bool(ranked[i]),
            "rank": min(ranks[i]) if ranked[i] else None,
            "ranks": ranks[i] if ranked[i] else {None},
        }
        for m, i in index.items()
    }


def win_probability(score_a: float, score_b: float) -> float:
    """The fitted probability that a solution of the model scored ``score_a`` wins against ``score_b``'s."""
    return 1.0 / (1.0 + 10.0 ** ((score_b - score_a) / 400.0))


def _bounds(weights: np.ndarray, sums: np.ndarray, count: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The 2.5th and 97.5th percentiles over the replicates (``weights``: replicates x problems) of each
    model's ``sums / count`` (problems x models); NaN for a model without contested solutions."""
    with np.errstate(invalid="ignore", divide="ignore"):
        replicates = (weights @ sums) / (weights @ count)
    lo, hi = np.full(sums.shape[1], np.nan), np.full(sums.shape[1], np.nan)
    seen = count.sum(axis=0) > 0
    lo[seen], hi[seen] = np.nanpercentile(replicates[:, seen], [2.5, 97.5], axis=0)
    return lo, hi


def percentile_board(db: Path) -> dict[str, Row]:
    """The percentile leaderboard of the listed solutions of ``db`` (module docstring): ``{model:
    {solutions, contested_solutions, value, lo, hi, top1, top1_lo, top1_hi, top3, top3_lo, top3_hi, ranked,
    rank, ranks}}``: ``value`` the mean rank percentile, ``topK`` the mean top-K credit (the share of the
    places ``r .. r + t - 1`` a tie spans that lie within the top K), each with its interval; None for a
    model without contested solutions."""
    sols = truth.solutions(db)
    size: dict[str, int] = {}
    tied: dict[tuple[str, int], int] = {}
    for s in sols:
        size[s["problem_id"]] = size.get(s["problem_id"], 0) + 1
        tied[(s["problem_id"], s["rank"])] = tied.get((s["problem_id"], s["rank"]), 0) + 1
    models = sorted({s["llm_model"] or UNKNOWN for s in sols})
    problems = sorted({p for p, k in size.items() if k > 1})
    m_at, p_at = {m: i for i, m in enumerate(models)}, {p: i for i, p in enumerate(problems)}
    sums = {k: np.zeros((len(problems), len(models))) for k in ("count", "value", "top1", "top3")}
    every = dict.fromkeys(models, 0)
    for s in sols:
        model, pid, r = s["llm_model"] or UNKNOWN, s["problem_id"], s["rank"]
        every[model] += 1
        if size[pid] > 1:
            n, t, at = size[pid], tied[(pid, r)], (p_at[pid], m_at[model])
            sums["count"][at] += 1
            sums["value"][at] += (n - r - (t - 1) / 2) / (n - 1)
            sums["top1"][at] += min(max(1 - r + 1, 0), t) / t
            sums["top3"][at] += min(max(3 - r + 1, 0), t) / t
    rng = np.random.default_rng(PERCENTILE_SEED)
    weights = np.array([rng.multinomial(len(problems), np.full(len(problems), 1 / len(problems)))
                        for _ in range(N_BOOT)], dtype=float)  # fmt: skip
    count = sums["count"]
    contested = count.sum(axis=0)
    bounds = {k: _bounds(weights, sums[k], count) for k in ("value", "top1", "top3")}
    ranked = contested >= MIN_SOLUTIONS
    lo, hi = bounds["value"]
    ranks = _ranks(lo, hi, ranked, REL * np.ones(len(models)))
    board = {}
    for m, i in m_at.items():
        row: Row = {"solutions": every[m], "contested_solutions": int(contested[i])}
        for k, (low, high) in bounds.items():
            known = contested[i] > 0
            suffix = "" if k == "value" else f"{k}_"
            row[k] = float(sums[k][:, i].sum() / contested[i]) if known else None
            row[f"{suffix}lo"] = float(low[i]) if known else None
            row[f"{suffix}hi"] = float(high[i]) if known else None
        board[m] = row | {
            "ranked": bool(ranked[i]),
            "rank": min(ranks[i]) if ranked[i] else None,
            "ranks": ranks[i] if ranked[i] else {None},
        }
    return board


def platform_ranks(db: Path) -> dict[str, Row]:
    """The platform's ``/llm-leaderboard`` per model: ``rank`` (competition rank of the average score as
    served, equal scores sharing the best rank), ``avg_bt_score`` and ``win_rate`` as served."""
    served = truth.llm_leaderboard(db)
    return {
        r["model_name"]: {
            "rank": 1 + sum(o["avg_bt_score"] > r["avg_bt_score"] for o in served),
            "avg_bt_score": r["avg_bt_score"],
            "win_rate": r["win_rate"],
        }
        for r in served
    }
