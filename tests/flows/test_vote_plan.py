"""The order a snapshot asks for vote lists depends on the store and the platform only, never on the order
the concurrent fetch staged the lists in (the backlog test's prediction was off by one snapshot in 1 of 6
runs when ties on the votes not known were broken by staging order)."""

from __future__ import annotations

import random

from solvelens.flows.optional import Cover, Wanted, _Plan


def _asked(wanted: list[Wanted], allowance: int) -> list[list[str]]:
    plan = _Plan([], wanted, Cover(set()), allowance)
    batches: list[list[str]] = []
    sent = 0
    while batch := plan.next_batch(4, sent, []):
        batches.append([w.solution_id for w in batch])
        sent += len(batch)
    return batches


def test_lists_tied_on_votes_not_known_are_asked_in_the_same_order_whatever_order_they_were_staged_in():
    # 40 lists on 10 problems, in 3 groups of equal counts: most ties are broken by the rule, not by the data
    wanted = [Wanted(f"s{i:02d}", f"p{i % 10}", count=5 + 5 * (i % 3), last=None) for i in range(40)]
    expected = _asked(list(wanted), allowance=30)
    assert sum(len(b) for b in expected) == 30
    for seed in range(5):
        staged = list(wanted)
        random.Random(seed).shuffle(staged)
        assert _asked(staged, allowance=30) == expected
