"""The truth of the arena's divergence figures, computed here from the sandbox's SQLite databases frozen at
each snapshot with SQL of its own (never solvelens.analysis), as :mod:`solvelens.analysis.arena`'s docstring
defines them:

- *decisive votes*: those a store holds by a snapshot: every vote among the newest 50 of either of its
  solutions (``/solutions/{id}/comparisons`` serves no more) of a listed problem at that snapshot or an
  earlier one, each once; each side named by its LLM model as the newest snapshot's listed solutions report
  it (``unknown`` when none); skips, votes within one model and votes on solutions no longer listed left out;
- *win graph*: an edge from each vote's loser to its winner; the fit *diverges* when the graph is not
  strongly connected (``scipy.sparse.csgraph.connected_components(connection="strong")``);
- *ranked*: at least :data:`~tests.truth.model_truth.MIN_COMPARISONS` decisive votes; *separated*: when at
  least two models are ranked and all lie in one strongly connected group, the models outside it (the
  divergence reaches no ranked model);
- *shift*: the largest change (Elo points) of a ranked model's score when the separated models' votes are
  left out and the point estimate refitted (choix's ``ilsr_pairwise_dense``, ``alpha`` = 1e-3, the mean
  ranked model at 1500, fitted to 1e-10 here).

A window's *fit* is ``measured`` (the graph is strongly connected), ``separated`` (it diverges only for
unranked models: the ranked ones are measured among themselves) or ``diverged`` (the divergence reaches
the ranked models, or fewer than two are ranked).
"""

from __future__ import annotations

import math
import sqlite3
from dataclasses import dataclass
from pathlib import Path

import choix
import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components

from tests.truth import model_truth as mt

#: The votes one solution's list serves (the newest first).
LIST_CAP = 50

#: The votes the platform serves at the database attached as ``{db}``: among the newest 50 of either of
#: their solutions, of a problem listed there.
_REACHABLE = """
SELECT c.id FROM {db}.comparisons c JOIN {db}.problems p ON p.id = c.problem_id
WHERE p.status != 'rejected' AND c.id IN (
    SELECT id FROM (
        SELECT id, row_number() OVER (PARTITION BY s ORDER BY created_at DESC, id DESC) AS n FROM (
            SELECT id, solution_a AS s, created_at FROM {db}.comparisons
            UNION ALL SELECT id, solution_b, created_at FROM {db}.comparisons))
    WHERE n <= {cap})
"""

#: The decisive votes between two models among the ``stored`` ids, as (winner model, loser model), each side
#: named by the solutions listed in ``main`` (the newest snapshot's database).
_DECISIVE = """
WITH stored AS ({stored}),
named AS (
    SELECT s.id, coalesce(s.llm_model, 'unknown') AS model FROM main.solutions s
    JOIN main.problems p ON p.id = s.problem_id WHERE p.status != 'rejected')
SELECT CASE c.winner WHEN 'a' THEN a.model ELSE b.model END AS won,
       CASE c.winner WHEN 'a' THEN b.model ELSE a.model END AS lost
FROM main.comparisons c JOIN stored ON stored.id = c.id
JOIN named a ON a.id = c.solution_a JOIN named b ON b.id = c.solution_b
WHERE c.winner IN ('a', 'b') AND a.model != b.model
ORDER BY c.id
"""


@dataclass(frozen=True)
class Separation:
    """One window's divergence: ``fit`` (module docstring), the models that never lost / never won,
    ``separated`` (sorted; empty unless ``fit == "separated"``), ``shift`` (Elo points; None unless
    separated), ``ranked`` (the ranked models), ``votes`` (decisive votes)."""

    fit: str
    never_lost: tuple[str, ...]
    never_won: tuple[str, ...]
    separated: tuple[str, ...]
    shift: float | None
    ranked: tuple[str, ...]
    votes: int


def decisive_votes(stored_by: list[Path], newest: Path) -> list[tuple[str, str]]:
    """(winner model, loser model) of each decisive vote stored by the snapshots frozen at ``stored_by``,
    each side named by the listed solutions of the newest snapshot's database ``newest``."""
    con = sqlite3.connect(f"file:{newest}?mode=ro", uri=True)
    try:
        for k, db in enumerate(stored_by):
            con.execute(f"ATTACH DATABASE 'file:{db}?mode=ro' AS t{k}")
        stored = " UNION ".join(_REACHABLE.format(db=f"t{k}", cap=LIST_CAP) for k in range(len(stored_by)))
        return [(won, lost) for won, lost in con.execute(_DECISIVE.format(stored=stored))]
    finally:
        con.close()


def _theta(pairs: list[tuple[str, str]]) -> dict[str, float]:
    """Bradley–Terry θ per model of the (winner, loser) ``pairs``, choix directly."""
    models = sorted({m for pair in pairs for m in pair})
    index = {m: i for i, m in enumerate(models)}
    wins = np.zeros((len(models), len(models)))
    for won, lost in pairs:
        wins[index[won], index[lost]] += 1
    theta = choix.ilsr_pairwise_dense(wins, alpha=mt.ALPHA, max_iter=10_000, tol=1e-10)
    return dict(zip(models, theta, strict=True))


def _scores(theta: dict[str, float], ranked: tuple[str, ...]) -> dict[str, float]:
    """Elo-scale scores of the ``ranked`` models, their mean at 1500."""
    mean = float(np.mean([theta[m] for m in ranked]))
    return {m: 1500.0 + mt.ELO_SCALE * (theta[m] - mean) for m in ranked}


def separation(pairs: list[tuple[str, str]]) -> Separation:
    """The divergence figures of the decisive votes ``pairs`` (module docstring)."""
    models = sorted({m for pair in pairs for m in pair})
    index = {m: i for i, m in enumerate(models)}
    count = dict.fromkeys(models, 0)
    for won, lost in pairs:
        count[won] += 1
        count[lost] += 1
    ranked = tuple(m for m in models if count[m] >= mt.MIN_COMPARISONS)
    graph = csr_matrix(
        (np.ones(len(pairs)), ([index[lost] for _, lost in pairs], [index[won] for won, _ in pairs])),
        shape=(len(models), len(models)),
    )
    groups, group = connected_components(graph, directed=True, connection="strong")
    winners, losers = {w for w, _ in pairs}, {lost for _, lost in pairs}
    never_lost, never_won = tuple(sorted(winners - losers)), tuple(sorted(losers - winners))
    core = {int(group[index[m]]) for m in ranked}
    if groups == 1:
        return Separation("measured", never_lost, never_won, (), None, ranked, len(pairs))
    if len(ranked) < 2 or len(core) != 1:
        return Separation("diverged", never_lost, never_won, (), None, ranked, len(pairs))
    separated = tuple(m for m in models if int(group[index[m]]) not in core)
    full = _scores(_theta(pairs), ranked)
    kept = [(w, lost) for w, lost in pairs if w not in separated and lost not in separated]
    refit = _scores(_theta(kept), ranked)
    shift = max(abs(refit[m] - full[m]) for m in ranked)
    return Separation("separated", never_lost, never_won, separated, shift, ranked, len(pairs))


def windows(truths: list[Path]) -> list[tuple[int, Separation]]:
    """(index into ``truths``, its :class:`Separation`) per snapshot that first stored a decisive vote
    (the arena's windows over time), oldest first; the last is the full fit's."""
    out: list[tuple[int, Separation]] = []
    seen = 0
    for k in range(len(truths)):
        pairs = decisive_votes(truths[: k + 1], truths[-1])
        if len(pairs) > seen:
            out.append((k, separation(pairs)))
            seen = len(pairs)
    return out


def shift_bound(shift: float) -> str:
    """The bound the caption states for ``shift`` (rounded up to a tenth of a point), "0.1"."""
    return f"{math.ceil(shift * 10) / 10:.1f}"
