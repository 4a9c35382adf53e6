"""How many vote-list requests the backlog still takes: the prediction behind "~N more snapshots".

A pending list (its count moved since its last fetch) holds ``u`` votes not known yet. Reading a list
learns all of its votes, and each names one other solution: a list whose missing votes all appeared in other
lists needs no request (:class:`solvelens.flows.optional.Cover`). So the backlog takes far fewer requests
than it has pending lists, and how many depends on who voted on what, which is unknown until read.
:func:`reads_to_go` models it: within each problem the missing votes are paired at random among the pending
lists (each list keeps its number of missing votes: a configuration model), and the scheduler's rule is
played on that graph (read the list with the most missing votes, credit its votes to their other side,
skip a list left with none; a list the platform's cap truncates is always read). A seeded sample of at most
:data:`SAMPLE_PROBLEMS` problems keeps it cheap (tens of milliseconds at 50,000 lists); the reads are scaled
by the pending lists. Pure and deterministic: no I/O.
"""

from __future__ import annotations

import heapq
import random
from collections import defaultdict
from collections.abc import Iterable
from typing import Final

__all__ = ["SAMPLE_PROBLEMS", "reads_to_go"]

#: Problems played at most (a seeded sample; the reads are scaled by the pending lists).
SAMPLE_PROBLEMS: Final = 200


def _play(missing: list[int], always: list[bool], rng: random.Random) -> int:
    """Reads the greedy rule takes on one problem whose lists miss ``missing`` votes (``always``: a list
    read whatever it misses, e.g. truncated by the platform's cap)."""
    stubs = [i for i, u in enumerate(missing) for _ in range(u)]
    rng.shuffle(stubs)
    edges: dict[int, list[int]] = defaultdict(list)
    for a, b in zip(stubs[::2], stubs[1::2], strict=False):
        if a != b:
            edges[a].append(b)
            edges[b].append(a)
    degree = {i: len(edges[i]) for i in range(len(missing))}
    heap = [(-d, i) for i, d in degree.items() if d > 0 or always[i]]
    heapq.heapify(heap)
    reads, done = 0, set()
    while heap:
        d, i = heapq.heappop(heap)
        if i in done:
            continue
        if -d != degree[i]:  # stale: its degree fell meanwhile
            if degree[i] > 0 or always[i]:
                heapq.heappush(heap, (-degree[i], i))
            continue
        done.add(i)
        reads += 1
        for j in edges[i]:
            if j not in done:
                degree[j] -= 1
        degree[i] = 0
    return reads


def reads_to_go(pending: Iterable[tuple[str, int, bool]], *, seed: int = 0) -> int:
    """Requests the pending vote lists are predicted to take: ``pending`` as ``(problem_id, missing votes,
    always read)`` per list (missing: the list's count less the votes known for it, at least 0). 0 when
    nothing is pending."""
    by_problem: dict[str, list[tuple[int, bool]]] = defaultdict(list)
    for problem, missing, always in pending:
        by_problem[problem].append((max(0, missing), always))
    if not by_problem:
        return 0
    rng = random.Random(seed)
    problems = sorted(by_problem)
    sample = problems if len(problems) <= SAMPLE_PROBLEMS else rng.sample(problems, SAMPLE_PROBLEMS)
    lists = sum(len(by_problem[p]) for p in problems)
    played = sum(len(by_problem[p]) for p in sample)
    reads = 0
    for p in sample:
        rows = by_problem[p]
        reads += _play([m for m, _ in rows], [a for _, a in rows], rng)
    return round(reads * lists / played) if played else 0
