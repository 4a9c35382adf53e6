"""The arena ranking: Bradley–Terry strengths fitted to the platform's own pairwise votes, on the Elo scale,
with bootstrap intervals (the method of the Chatbot Arena leaderboard).

**Input.** The store's ``comparisons`` view (one row per vote: ``solution_a_id``, ``solution_b_id``,
``winner`` ``a``/``b``/``skip``, ``created_at``, ``first_snapshot_id``), each solution mapped to its entry
through the ``solutions`` view: its ``bot_id`` (``by="bot"``) or its ``llm_model`` (``by="model"``; the model
the solution itself reports, ``"unknown"`` when it reports none). Left out, and counted in
:class:`ArenaResult`: skips (no winner), votes between two solutions of the same entry (they say nothing
about one entry against another) and votes naming a solution no snapshot stored (no entry to credit).

**Model.** Bradley–Terry: entry *i* beats entry *j* with probability ``1 / (1 + 10^((s_j - s_i) / 400))``.
The strengths are the maximum-likelihood estimate of choix's ``ilsr_pairwise_dense`` (iterative Luce
spectral ranking) on the matrix of win counts, with a weak prior (``alpha`` = :data:`ALPHA`: an entry that
never won or never lost gets a finite score); ``score = 1500 + 400·θ/ln 10`` with θ centred on the mean
of the ranked entries (every entry when none is ranked): the mean ranked entry sits at 1500, the platform's
own starting score, and a rarely compared entry's swings do not move the others' intervals.

**Intervals.** ``bootstrap`` resamples of the comparisons, drawn with replacement (as many as there are;
numpy ``default_rng(seed)``: the same store gives the same intervals), each refitted starting from the
point estimate; ``lower``/``upper`` are the 2.5th/97.5th percentiles of the resampled scores (95%).

**Rank.** As on the Chatbot Arena leaderboard: 1 + the number of ranked entries whose ``lower`` lies above
this entry's ``upper`` (entries whose intervals overlap usually, not always, share a rank). Entries with
fewer than ``min_comparisons`` comparisons are listed with ``ranked = False`` and a null rank.

**Over time.** One fit per snapshot: the ranking as it stood when the snapshot was taken, from every
comparison first stored by it or an earlier snapshot (cumulative). At most ``max_windows`` snapshots
(evenly spaced, the newest always included); intervals over time use ``window_bootstrap`` resamples,
except the newest window, which is the full :attr:`ArenaResult.ranking`. Each window says how its own
fit stands (``fit``): ``measured``, ``separated`` (it diverges only for entries not ranked then: the ranked
entries are measured among themselves) or ``diverged`` (the divergence reaches the ranked entries: the ranks
only order them), as :attr:`ArenaResult.diverged` and :attr:`ArenaResult.separated` say of the full fit.
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
import polars as pl
from threadpoolctl import threadpool_limits

from solvelens.analysis.frames import Frames

FrameLike = pl.DataFrame | pl.LazyFrame
By = Literal["model", "bot"]

#: Weak prior of the fit (choix's ``alpha``: transition rates the spectral chain starts with).
ALPHA = 1e-3
#: The Elo scale: 400 points = a factor 10 in the odds of winning; the mean entry sits at 1500.
ELO_SCALE = 400.0 / math.log(10.0)
ELO_CENTER = 1500.0
#: Defaults: comparisons needed to be ranked, bootstrap resamples, seed, windows over time.
MIN_COMPARISONS = 30
N_BOOT = 1000
SEED = 0
MAX_WINDOWS = 12
WINDOW_BOOTSTRAP = 200
#: Label of solutions that report no LLM model.
UNKNOWN_MODEL = "unknown"
#: How a fit stands (``over_time``'s ``fit``): votes not separated; separated only for unranked entries (the
#: ranked ones measured among themselves); separated across the ranked entries (their scores only order them).
MEASURED, SEPARATED, DIVERGED = "measured", "separated", "diverged"

_UTC = pl.Datetime("us", "UTC")
#: The fit's input: one row per stored vote, each side mapped to its entry (:func:`arena_outcomes`).
OUTCOME_SCHEMA: dict[str, pl.DataType] = {
    "comparison_id": pl.String(),
    "first_snapshot_id": pl.Int64(),
    "created_at": _UTC,
    "entry_a": pl.String(),
    "label_a": pl.String(),
    "entry_b": pl.String(),
    "label_b": pl.String(),
    "winner": pl.String(),
}
RANKING_SCHEMA: dict[str, pl.DataType] = {
    "rank": pl.Int32(),
    "entry": pl.String(),
    "label": pl.String(),
    "score": pl.Float64(),
    "lower": pl.Float64(),
    "upper": pl.Float64(),
    "comparisons": pl.Int64(),
    "wins": pl.Int64(),
    "ranked": pl.Boolean(),
}
WIN_RATE_SCHEMA: dict[str, pl.DataType] = {
    "entry_a": pl.String(),
    "label_a": pl.String(),
    "entry_b": pl.String(),
    "label_b": pl.String(),
    "p_a_wins": pl.Float64(),
}
OVER_TIME_SCHEMA: dict[str, pl.DataType] = {
    "snapshot_id": pl.Int64(),
    "taken_at": _UTC,
    "entry": pl.String(),
    "label": pl.String(),
    "score": pl.Float64(),
    "lower": pl.Float64(),
    "upper": pl.Float64(),
    "rank": pl.Int32(),
    "comparisons": pl.Int64(),
    "wins": pl.Int64(),
    "ranked": pl.Boolean(),
    "fit": pl.String(),
    "separated": pl.Boolean(),
}


@dataclass(frozen=True)
class ArenaResult:
    """One arena fit (see the module docstring for the method). Frames are polars, times UTC.

    - ``ranking``: rank Int32 (null when not ranked), entry String (the model name, or the bot id),
      label String (the model name, or the bot's newest name), score Float64 (Elo scale, mean ranked entry
      1500),
      lower Float64, upper Float64 (the ``confidence`` bootstrap interval), comparisons Int64 (decisive
      votes between this entry and another), wins Int64, ranked Boolean (``comparisons >= min_comparisons``);
      ranked entries first, each part by score descending.
    - ``win_rate``: entry_a, label_a, entry_b, label_b, p_a_wins Float64 (the fitted probability that
      entry_a's solution wins a vote against entry_b's), every ordered pair of distinct entries, in the
      ranking's order.
    - ``over_time``: snapshot_id Int64, taken_at, entry, label, score, lower, upper, rank Int32,
      comparisons Int64, wins Int64, ranked Boolean, fit String (the window's fit: :data:`MEASURED`,
      :data:`SEPARATED` or :data:`DIVERGED`, as ``diverged`` and ``separated`` below say of the full fit),
      separated Boolean (the entry is one the window's divergence is confined to): the ranking at each
      snapshot window; sorted by taken_at, rank.

    Counts of the votes read: ``comparisons`` (used), ``skips``, ``same_entry`` (both solutions of one
    entry) and ``unmatched`` (a solution no snapshot stored), all left out of the fit.

    Divergence: ``diverged`` is True when the votes are perfectly separated (their win graph is not
    strongly connected: some group of entries never lost to the others), so the maximum-likelihood
    strengths do not exist and the scores are set by the weak prior :data:`ALPHA` alone (issue 29: 5,605
    ... -2,461, "100 %" win rates): such scores order the entries but measure nothing; ``never_lost`` /
    ``never_won``: the labels of the entries that won (lost) every decisive vote they had.
    ``separated``: when the divergence reaches no ranked entry (the ranked entries lie in one strongly
    connected group of the win graph), the labels of the entries outside that group, all unranked (the
    truth sweep's default budget: "unknown", 3 votes, all won); their scores are set by the prior, the
    ranked entries' are measured among themselves; ``separated_shift``: the largest change (Elo points) of a
    ranked entry's score when the votes touching ``separated`` are left out of the point fit (0.06 there).
    Empty and None when nothing diverges or the divergence splits the ranked entries.
    """

    by: str
    ranking: pl.DataFrame
    win_rate: pl.DataFrame
    over_time: pl.DataFrame
    comparisons: int
    skips: int
    same_entry: int
    unmatched: int
    bootstrap: int
    seed: int
    min_comparisons: int
    confidence: float
    diverged: bool = False
    never_lost: tuple[str, ...] = ()
    never_won: tuple[str, ...] = ()
    separated: tuple[str, ...] = ()
    separated_shift: float | None = None

    def is_empty(self) -> bool:
        """Whether no decisive comparison between two entries was stored (nothing to rank)."""
        return self.ranking.is_empty()


@dataclass(frozen=True)
class _Fit:
    entries: list[str]
    labels: list[str]
    score: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    comparisons: np.ndarray
    wins: np.ndarray


def win_matrix(winners: np.ndarray, losers: np.ndarray, n: int) -> np.ndarray:
    """The (n x n) Float64 matrix of win counts: ``[i, j]`` = how often entry i beat entry j."""
    counts = np.zeros((n, n))
    np.add.at(counts, (winners, losers), 1.0)
    return counts


def bt_scores(wins: np.ndarray, *, initial: np.ndarray | None = None) -> np.ndarray:
    """Bradley–Terry θ (natural-log strengths, mean 0) of a win-count matrix, by choix's
    ``ilsr_pairwise_dense`` with the weak prior :data:`ALPHA`; ``initial`` warm-starts the iteration."""
    # choix imports scipy (~1.5 s): only a fit pays it, not every importer of solvelens.analysis (the diff of
    # a Prefect run's artifact, the alert check after a snapshot).
    import choix

    n = wins.shape[0]
    if n == 1:
        return np.zeros(1)
    return choix.ilsr_pairwise_dense(wins, alpha=ALPHA, initial_params=initial, max_iter=1000, tol=1e-6 * n)


def separation(decisive: pl.DataFrame) -> tuple[bool, tuple[str, ...], tuple[str, ...]]:
    """Whether decisive votes (:data:`OUTCOME_SCHEMA`, winner ``a``/``b``) are perfectly separated (their
    win graph, an edge from each loser to its winner, is not strongly connected: the Bradley–Terry
    maximum-likelihood estimate diverges), and the labels of the entries that never lost and never won,
    sorted."""
    sides = _sides(decisive)
    group = _strong_groups(sides)
    if len(group) < 2:
        return False, (), ()
    labels = _labels(sides)
    winners, losers = set(sides["won"].to_list()), set(sides["lost"].to_list())
    never_lost = tuple(sorted(labels[e] for e in winners - losers))
    never_won = tuple(sorted(labels[e] for e in losers - winners))
    return len(set(group.values())) > 1, never_lost, never_won


def confined_separation(decisive: pl.DataFrame, ranked: list[str]) -> dict[str, str]:
    """The entries (id -> label) outside the strongly connected group of the win graph that holds every
    entry of ``ranked`` (entry ids): a divergence that reaches no ranked entry. Empty when ``ranked`` has
    fewer than 2 entries (nothing measured among them) or spans several groups, or when nothing is
    separated."""
    sides = _sides(decisive)
    group = _strong_groups(sides)
    core = {group.get(e) for e in ranked}
    if len(ranked) < 2 or len(core) != 1 or None in core:
        return {}
    labels = _labels(sides)
    return {e: labels[e] for e, g in group.items() if g not in core}


def fit_state(decisive: pl.DataFrame, ranked: list[str]) -> tuple[str, dict[str, str]]:
    """How the fit of decisive votes stands: (:data:`MEASURED`, {}) when they are not separated,
    (:data:`SEPARATED`, the entries id -> label the divergence is confined to) when it reaches none of
    ``ranked`` (entry ids; :func:`confined_separation`), else (:data:`DIVERGED`, {})."""
    if not separation(decisive)[0]:
        return MEASURED, {}
    confined = confined_separation(decisive, ranked)
    return (SEPARATED, confined) if confined else (DIVERGED, {})


def _sides(decisive: pl.DataFrame) -> pl.DataFrame:
    """Each decisive vote as its winner and loser: won, lost (entry ids), won_label, lost_label."""
    return decisive.select(
        won=pl.when(pl.col("winner") == "a").then("entry_a").otherwise("entry_b"),
        lost=pl.when(pl.col("winner") == "a").then("entry_b").otherwise("entry_a"),
        won_label=pl.when(pl.col("winner") == "a").then("label_a").otherwise("label_b"),
        lost_label=pl.when(pl.col("winner") == "a").then("label_b").otherwise("label_a"),
    )


def _labels(sides: pl.DataFrame) -> dict[str, str]:
    return dict(zip(sides["won"], sides["won_label"], strict=True)) | dict(
        zip(sides["lost"], sides["lost_label"], strict=True)
    )


def _strong_groups(sides: pl.DataFrame) -> dict[str, int]:
    """Entry id -> its strongly connected group of the win graph (an edge from each loser to its winner)."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    entries = sorted(set(sides["won"].to_list()) | set(sides["lost"].to_list()))
    index = {e: i for i, e in enumerate(entries)}
    rows = [index[e] for e in sides["lost"].to_list()]
    cols = [index[e] for e in sides["won"].to_list()]
    graph = csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(entries), len(entries)))
    _, group = connected_components(graph, directed=True, connection="strong")
    return {e: int(group[i]) for e, i in index.items()}


def shift_without(decisive: pl.DataFrame, left_out: set[str], ranking: pl.DataFrame) -> float:
    """The largest change (Elo points) of a ranked entry's ``score`` in ``ranking`` when the votes touching
    the entries ``left_out`` (entry ids) are dropped and the point estimate refitted, centred as the fit is
    (the mean of the same ranked entries at 1500)."""
    kept = decisive.filter(~pl.col("entry_a").is_in(left_out) & ~pl.col("entry_b").is_in(left_out))
    sides = _sides(kept)
    entries = sorted(set(sides["won"].to_list()) | set(sides["lost"].to_list()))
    index = {e: i for i, e in enumerate(entries)}
    wins = win_matrix(
        np.array([index[e] for e in sides["won"].to_list()], dtype=np.int64),
        np.array([index[e] for e in sides["lost"].to_list()], dtype=np.int64),
        len(entries),
    )
    theta = bt_scores(wins)
    ranked = ranking.filter(pl.col("ranked") & pl.col("entry").is_in(entries))
    at = np.array([index[e] for e in ranked["entry"].to_list()], dtype=np.int64)
    refit = ELO_CENTER + ELO_SCALE * (theta[at] - theta[at].mean())
    return float(np.abs(refit - ranked["score"].to_numpy()).max())


def bootstrap_scores(wins: np.ndarray, theta: np.ndarray, *, n_boot: int, seed: int) -> np.ndarray:
    """``n_boot`` x n bootstrap θ: each resample draws as many comparisons as ``wins`` holds, with
    replacement (a multinomial draw over its non-empty cells, in chunks of 100), refitted from ``theta``."""
    n = wins.shape[0]
    cells = np.flatnonzero(wins)
    counts = wins.ravel()[cells]
    total = int(counts.sum())
    out = np.empty((n_boot, n))
    if total == 0 or n_boot < 1:
        out[:] = theta
        return out
    rng = np.random.default_rng(seed)
    p = counts / counts.sum()
    flat = np.zeros(n * n)
    # Each refit solves small dense systems: BLAS threads only contend for the cores (40x slower on a busy
    # 2-core machine), so the loop runs single-threaded.
    with threadpool_limits(limits=1, user_api="blas"):
        for start in range(0, n_boot, 100):
            draws = rng.multinomial(total, p, size=min(100, n_boot - start))
            for k, draw in enumerate(draws):
                flat[cells] = draw
                out[start + k] = bt_scores(flat.reshape(n, n), initial=theta)
    return out


def _fit(frame: pl.DataFrame, *, n_boot: int, seed: int, confidence: float, min_comparisons: int) -> _Fit:
    """Fit the decisive outcomes of ``frame`` (entry_a, label_a, entry_b, label_b, winner in a/b)."""
    sides = pl.concat(
        [
            frame.select(entry="entry_a", label="label_a"),
            frame.select(entry="entry_b", label="label_b"),
        ]
    )
    names = sides.unique("entry", keep="last", maintain_order=True).sort("entry")
    entries, labels = names["entry"].to_list(), names["label"].to_list()
    index = {e: i for i, e in enumerate(entries)}
    a = frame["entry_a"].replace_strict(index, return_dtype=pl.Int64).to_numpy()
    b = frame["entry_b"].replace_strict(index, return_dtype=pl.Int64).to_numpy()
    a_won = (frame["winner"] == "a").to_numpy()
    winners, losers = np.where(a_won, a, b), np.where(a_won, b, a)
    n = len(entries)
    wins = win_matrix(winners, losers, n)
    comparisons = np.bincount(np.concatenate([a, b]), minlength=n)
    # The scale's zero: the mean of the ranked entries (all when none is), in the fit and in every resample,
    # so a rarely compared entry's swings do not shift everyone's interval.
    anchor = comparisons >= min_comparisons
    anchor = anchor if anchor.any() else np.ones(n, dtype=bool)
    theta = bt_scores(wins)
    boot = bootstrap_scores(wins, theta, n_boot=n_boot, seed=seed)
    theta = theta - theta[anchor].mean()
    boot = boot - boot[:, anchor].mean(axis=1, keepdims=True)
    tail = (1.0 - confidence) / 2.0 * 100.0
    low, high = np.percentile(boot, [tail, 100.0 - tail], axis=0)
    return _Fit(
        entries=entries,
        labels=labels,
        score=ELO_CENTER + ELO_SCALE * theta,
        lower=ELO_CENTER + ELO_SCALE * low,
        upper=ELO_CENTER + ELO_SCALE * high,
        comparisons=comparisons,
        wins=np.bincount(winners, minlength=n),
    )


def _ranking(fit: _Fit, min_comparisons: int) -> pl.DataFrame:
    """The ranking frame of one fit (:data:`RANKING_SCHEMA`)."""
    ranked = fit.comparisons >= min_comparisons
    lower_ranked = fit.lower[ranked]
    rank = np.array([1 + int((lower_ranked > hi).sum()) for hi in fit.upper], dtype=np.int64)
    frame = pl.DataFrame(
        {
            "rank": pl.Series(rank).cast(pl.Int32),
            "entry": fit.entries,
            "label": fit.labels,
            "score": fit.score,
            "lower": fit.lower,
            "upper": fit.upper,
            "comparisons": fit.comparisons.astype(np.int64),
            "wins": fit.wins.astype(np.int64),
            "ranked": ranked,
        }
    ).with_columns(rank=pl.when(pl.col("ranked")).then(pl.col("rank")))
    return (
        frame.sort(["ranked", "score", "entry"], descending=[True, True, False])
        .select(list(RANKING_SCHEMA))
        .cast(RANKING_SCHEMA)  # type: ignore[arg-type]
    )


def _win_rates(ranking: pl.DataFrame) -> pl.DataFrame:
    """Every ordered pair of distinct entries with the fitted probability that the first wins."""
    side = ranking.select("entry", "label", "score").with_row_index("order")
    pairs = (
        side.join(side, how="cross", suffix="_b")
        .filter(pl.col("entry") != pl.col("entry_b"))
        .with_columns(p_a_wins=1.0 / (1.0 + 10.0 ** ((pl.col("score_b") - pl.col("score")) / 400.0)))
        .sort("order", "order_b")
    )
    return pairs.select(
        entry_a="entry", label_a="label", entry_b="entry_b", label_b="label_b", p_a_wins="p_a_wins"
    ).cast(WIN_RATE_SCHEMA)  # type: ignore[arg-type]


def _windows(decisive: pl.DataFrame, snapshots: pl.DataFrame | None, max_windows: int) -> pl.DataFrame:
    """The snapshots to fit over time (snapshot_id, taken_at): those that first stored a decisive vote, at
    most ``max_windows`` evenly spaced, the newest included."""
    seen = decisive.select("first_snapshot_id").unique()
    if snapshots is None:
        frame = seen.select(snapshot_id="first_snapshot_id", taken_at=pl.lit(None, dtype=_UTC))
    else:
        frame = snapshots.select("snapshot_id", "taken_at").join(
            seen, left_on="snapshot_id", right_on="first_snapshot_id", how="semi"
        )
    frame = frame.sort("taken_at", "snapshot_id", nulls_last=True)
    if frame.height > max_windows > 0:
        picks = np.unique(np.linspace(0, frame.height - 1, max_windows).round().astype(int))
        frame = frame[picks.tolist()]
    return frame


def _window_index(
    decisive: pl.DataFrame, windows: pl.DataFrame, snapshots: pl.DataFrame | None
) -> np.ndarray:
    """Per outcome, the first window that includes it (its first snapshot at or before the window's in the
    snapshots' order: taken_at, then snapshot_id, so of two snapshots taken at one time the later one's
    votes are not in the earlier one's window); -1 for a vote first stored by a snapshot outside
    ``snapshots`` (an earlier one: every window has it)."""
    if snapshots is None:
        keys = windows["snapshot_id"].to_numpy()
        mine = decisive["first_snapshot_id"].to_numpy()
        return np.searchsorted(keys, mine, side="left")
    order = (
        snapshots.select("snapshot_id", "taken_at")
        .sort("taken_at", "snapshot_id", nulls_last=True)
        .with_row_index("position")
        .select("snapshot_id", pl.col("position").cast(pl.Int64))
    )
    keys = windows.join(order, on="snapshot_id", how="left", maintain_order="left")["position"].to_numpy()
    position = decisive.join(
        order, left_on="first_snapshot_id", right_on="snapshot_id", how="left", maintain_order="left"
    )["position"]
    index = np.searchsorted(keys, position.fill_null(0).to_numpy(), side="left")
    return np.where(position.is_null().to_numpy(), -1, index)


def _over_time(
    decisive: pl.DataFrame,
    snapshots: pl.DataFrame | None,
    ranking: pl.DataFrame,
    state: tuple[str, dict[str, str]],
    *,
    max_windows: int,
    window_bootstrap: int,
    seed: int,
    confidence: float,
    min_comparisons: int,
) -> pl.DataFrame:
    """One ranking per snapshot window, from the comparisons stored up to it, with how its fit stands
    (module docstring); ``state``: the full fit's (:func:`fit_state`), the newest window's."""
    windows = _windows(decisive, snapshots, max_windows)
    if windows.is_empty():
        return pl.DataFrame(schema=OVER_TIME_SCHEMA)
    stamped = decisive.with_columns(window=pl.Series(_window_index(decisive, windows, snapshots)))
    frames = []
    for k, (snapshot_id, taken_at) in enumerate(windows.iter_rows()):
        if k == windows.height - 1:
            ranked, (fit, confined) = ranking, state  # the newest window holds every comparison: the full fit
        else:
            upto = stamped.filter(pl.col("window") <= k)
            ranked = _ranking(
                _fit(
                    upto,
                    n_boot=window_bootstrap,
                    seed=seed,
                    confidence=confidence,
                    min_comparisons=min_comparisons,
                ),
                min_comparisons,
            )
            fit, confined = fit_state(upto, ranked.filter("ranked")["entry"].to_list())
        frames.append(
            ranked.with_columns(
                snapshot_id=pl.lit(snapshot_id, dtype=pl.Int64),
                taken_at=pl.lit(taken_at, dtype=_UTC),
                fit=pl.lit(fit, dtype=pl.String),
                separated=pl.col("entry").is_in(list(confined)),
            )
        )
    return (
        pl.concat(frames)
        .select(list(OVER_TIME_SCHEMA))
        .cast(OVER_TIME_SCHEMA)  # type: ignore[arg-type]
        .sort("taken_at", "snapshot_id", "rank", nulls_last=True)
    )


def arena_outcomes(comparisons: FrameLike, solutions: FrameLike, *, by: By = "model") -> pl.DataFrame:
    """Each stored vote with both solutions mapped to their entry (:data:`OUTCOME_SCHEMA`).

    ``comparisons``: comparison_id, solution_a_id, solution_b_id, winner, created_at, first_snapshot_id
    (the store's ``comparisons`` view). ``solutions``: solution_id, bot_id, bot_name, llm_model, and
    snapshot_id when several snapshots are given (the newest row of each solution names it). ``by="bot"``:
    entry = bot_id, label = bot name; ``by="model"``: entry = label = the solution's llm_model
    (``"unknown"`` when null). A side whose solution is not in ``solutions`` has a null entry.
    Raises ``ValueError`` for another ``by``.
    """
    if by not in ("model", "bot"):
        raise ValueError(f"by must be 'model' or 'bot', not {by!r}")
    sols = solutions.lazy()
    if "snapshot_id" in sols.collect_schema().names():
        sols = sols.sort("snapshot_id").unique("solution_id", keep="last")
    if by == "bot":
        names = sols.filter(pl.col("bot_id").is_not_null()).select(
            "solution_id", entry=pl.col("bot_id"), label=pl.coalesce("bot_name", "bot_id")
        )
    else:
        model = pl.col("llm_model").fill_null(UNKNOWN_MODEL)
        names = sols.select("solution_id", entry=model, label=model)
    votes = comparisons.lazy().select(
        "comparison_id", "first_snapshot_id", "created_at", "solution_a_id", "solution_b_id", "winner"
    )
    for side in ("a", "b"):
        votes = votes.join(
            names.rename(
                {"solution_id": f"solution_{side}_id", "entry": f"entry_{side}", "label": f"label_{side}"}
            ),
            on=f"solution_{side}_id",
            how="left",
        )
    return (
        votes.select(list(OUTCOME_SCHEMA))
        .cast(OUTCOME_SCHEMA)  # type: ignore[arg-type]
        .sort("created_at", "comparison_id", nulls_last=True)
        .collect()
    )


def fit_arena(
    outcomes: pl.DataFrame,
    *,
    snapshots: FrameLike | None = None,
    by: str = "model",
    min_comparisons: int = MIN_COMPARISONS,
    bootstrap: int = N_BOOT,
    seed: int = SEED,
    confidence: float = 0.95,
    max_windows: int = MAX_WINDOWS,
    window_bootstrap: int = WINDOW_BOOTSTRAP,
) -> ArenaResult:
    """The arena ranking of ``outcomes`` (:data:`OUTCOME_SCHEMA`; the pure function under :func:`arena`).

    ``snapshots`` (snapshot_id, taken_at) orders and dates the windows of ``over_time``; without it,
    windows follow ``first_snapshot_id`` and ``taken_at`` is null. Skips, votes within one entry and votes
    with an unknown side are counted and left out. Raises ``ValueError`` for ``bootstrap < 1`` or a
    ``confidence`` outside (0, 1).
    """
    if bootstrap < 1 or window_bootstrap < 1:
        raise ValueError("bootstrap and window_bootstrap must be at least 1 resample")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must lie between 0 and 1, not {confidence}")
    known = outcomes.filter(pl.col("entry_a").is_not_null() & pl.col("entry_b").is_not_null())
    skips = int((known["winner"] == "skip").sum())
    decided = known.filter(pl.col("winner").is_in(["a", "b"]))
    decisive = decided.filter(pl.col("entry_a") != pl.col("entry_b"))
    snaps = None if snapshots is None else snapshots.lazy().select("snapshot_id", "taken_at").collect()
    diverged, never_lost, never_won = separation(decisive)
    separated: tuple[str, ...] = ()
    shift: float | None = None
    if decisive.is_empty():
        ranking, win_rate, over_time = (
            pl.DataFrame(schema=s) for s in (RANKING_SCHEMA, WIN_RATE_SCHEMA, OVER_TIME_SCHEMA)
        )
    else:
        fit = _fit(
            decisive, n_boot=bootstrap, seed=seed, confidence=confidence, min_comparisons=min_comparisons
        )
        ranking = _ranking(fit, min_comparisons)
        win_rate = _win_rates(ranking)
        state = fit_state(decisive, ranking.filter("ranked")["entry"].to_list())
        confined = state[1]
        over_time = _over_time(
            decisive,
            snaps,
            ranking,
            state,
            max_windows=max_windows,
            window_bootstrap=window_bootstrap,
            seed=seed,
            confidence=confidence,
            min_comparisons=min_comparisons,
        )
        if confined:
            separated = tuple(sorted(confined.values()))
            shift = shift_without(decisive, set(confined), ranking)
    return ArenaResult(
        by=by,
        ranking=ranking,
        win_rate=win_rate,
        over_time=over_time,
        comparisons=decisive.height,
        skips=skips,
        same_entry=decided.height - decisive.height,
        unmatched=outcomes.height - known.height,
        bootstrap=bootstrap,
        seed=seed,
        min_comparisons=min_comparisons,
        confidence=confidence,
        diverged=diverged,
        never_lost=never_lost,
        never_won=never_won,
        separated=separated,
        separated_shift=shift,
    )


def arena(
    store: Frames,
    by: By = "model",
    since: dt.datetime | None = None,
    *,
    min_comparisons: int = MIN_COMPARISONS,
    bootstrap: int = N_BOOT,
    seed: int = SEED,
    confidence: float = 0.95,
    max_windows: int = MAX_WINDOWS,
    window_bootstrap: int = WINDOW_BOOTSTRAP,
) -> ArenaResult:
    """The arena ranking of the LLM models (``by="model"``) or bots (``by="bot"``) from the votes stored in
    ``store`` (see the module docstring for the method and :class:`ArenaResult` for the frames).

    Votes come from ``store.comparisons`` (the store's ``comparisons`` view; source: the platform's ``GET
    /solutions/{id}/comparisons``; for a store loaded with ``last_days``, ``since`` or one of several
    platforms, the votes its selected snapshots first stored), each solution named by the newest snapshot's
    ``solutions`` (``store.solutions``: a vote on a solution that snapshot no longer lists is counted as
    unmatched). ``since`` keeps votes cast at or after that instant (timezone-aware, or naive meaning UTC).
    Windows over time are the snapshots of ``store.snapshots``. The same store and ``seed`` give the same
    intervals. A store without votes (written before they were collected, or of a platform that does not offer
    the endpoint) gives an empty result (:meth:`ArenaResult.is_empty`).

    Raises :class:`solvelens.analysis.EmptyStoreError` when the store has no complete snapshot,
    ``ValueError`` for a bad ``by``, ``bootstrap`` or ``confidence``.
    """
    if by not in ("model", "bot"):
        raise ValueError(f"by must be 'model' or 'bot', not {by!r}")
    store.require_snapshots()
    votes = store.comparisons.collect()
    if since is not None:
        when = since if since.tzinfo else since.replace(tzinfo=dt.UTC)
        votes = votes.filter(pl.col("created_at") >= when)
    return fit_arena(
        arena_outcomes(votes, store.solutions, by=by),
        snapshots=store.snapshots,
        by=by,
        min_comparisons=min_comparisons,
        bootstrap=bootstrap,
        seed=seed,
        confidence=confidence,
        max_windows=max_windows,
        window_bootstrap=window_bootstrap,
    )
