"""What "stored" means for a vote the platform's cap of 50 now hides (docs/evidence-budget.md): a vote read
while it was among the newest 50 of one of its solutions stays stored, so the truth a store is checked
against is the union of the votes reachable at each snapshot so far, not only those reachable now."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from solvelens.sandbox.generate import build_platform
from tests.truth import sandbox_truth as truth


def test_a_vote_the_cap_hides_later_stays_in_the_truth_of_what_is_stored(tmp_path: Path):
    before = tmp_path / "before.sqlite"
    build_platform(before, seed=3, scale="small")
    after = tmp_path / "after.sqlite"
    shutil.copyfile(before, after)
    con = sqlite3.connect(after)
    try:  # a vote of two solutions of a listed problem; then 50 newer votes between the same two solutions
        problem, a, b, newest = con.execute(
            "SELECT c.problem_id, c.solution_a, c.solution_b, (SELECT max(created_at) FROM comparisons) "
            "FROM comparisons c JOIN problems p ON p.id = c.problem_id WHERE p.status != 'rejected' "
            "ORDER BY c.created_at DESC LIMIT 1"
        ).fetchone()
        con.executemany(
            "INSERT INTO comparisons (problem_id, solution_a, solution_b, winner, voter_bot_id, created_at) "
            "VALUES (?, ?, ?, 'a', NULL, ?)",
            [(problem, a, b, newest + 1 + i) for i in range(50)],
        )
        con.commit()
    finally:
        con.close()
    ids_before = {v["comparison_id"] for v in truth.reachable_votes(before)}
    ids_now = {v["comparison_id"] for v in truth.reachable_votes(after)}
    hidden = ids_before - ids_now  # pushed out of both their lists by the 50 newer votes
    assert hidden and hidden <= {v["comparison_id"] for v in truth.votes(after)}  # on the platform, hidden
    stored = {v["comparison_id"] for v in truth.stored_votes(after, [before])}
    assert stored == ids_now | hidden
    (coverage,) = truth.vote_coverage(after, earlier=[before])
    assert (
        coverage["stored"]
        == len(ids_now) + len(hidden)
        == truth.vote_coverage(after)[0]["stored"] + len(hidden)
    )
