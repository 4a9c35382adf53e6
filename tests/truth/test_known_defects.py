"""The defects issue 23 lists, each a truth test against the sandbox's database (each was a strict xfail
until its fix landed), and what the truth layer found beyond them. Those still open are marked
``xfail(strict=True)`` naming the owner: the mark fails loudly once the fix lands, so it is removed then."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.truth import sandbox_truth as truth
from tests.truth.checks import clock_of, diff_checks, vote_checks
from tests.truth.compare import mismatches, report
from tests.truth.conftest import OTHER_MODES, snap_of
from tests.truth.scenario import Scenario
from tests.truth.store_views import view_rows


def test_diff_counts_solutions_not_problems(history: Scenario):
    checks = diff_checks(history, snap_of(history, "hour"), snap_of(history, "gap"))
    lines = [line for figure in ("diff json counts", "diff terminal") for line in checks[figure]]
    assert truth.solutions_added_count(snap_of(history, "hour").truth, snap_of(history, "gap").truth) > len(
        truth.solutions_added(snap_of(history, "hour").truth, snap_of(history, "gap").truth)
    )  # more solutions than problems gained them: the two counts differ
    assert not lines, report(lines)


def test_a_reversed_diff_is_refused_in_one_line_or_swapped(history: Scenario):
    older, newer = snap_of(history, "fresh"), snap_of(history, "hour")
    code, text = history.cli(
        "diff", str(newer.snapshot_id), str(older.snapshot_id), "--db", str(history.store)
    )
    if code == 2:
        lines = [line for line in text.splitlines() if line.strip()]
        assert len(lines) == 1 and str(older.snapshot_id) in lines[0], text
        return
    assert code == 0, text
    assert not re.search(r"\(-", text), text  # no negative interval
    assert f"#{older.snapshot_id} " in text.split("->")[0], text  # shown in time order, with a note
    assert "swap" in text.lower(), text


def test_a_snapshot_of_a_simulated_platform_is_taken_at_the_platforms_time(history: Scenario, tmp_path: Path):
    """A user serving a sandbox by hand runs ``solvelens snapshot`` without --taken-at."""
    by_hand = Scenario(server=history.server, store=tmp_path / "store.duckdb", workdir=tmp_path)
    snap = by_hand.snapshot("by-hand", taken_at=None)
    assert snap.exit_code == 0, snap.output
    taken = view_rows(by_hand.store, "snapshots", snap.snapshot_id)[0]["taken_at"]
    assert taken == clock_of(snap), f"taken_at {taken}, platform clock {clock_of(snap)}"


@pytest.mark.parametrize("mode", OTHER_MODES)
def test_a_count_that_disagrees_with_the_rows_is_a_data_quality_row(modes: dict[str, Scenario], mode: str):
    scenario = modes[mode]
    snap = snap_of(scenario, "counted")
    assert snap.exit_code == 0 and snap.snapshot_id is not None, snap.output
    problem = scenario.marks["inflated"]
    announced = next(p["solution_count"] for p in truth.problems(snap.truth) if p["problem_id"] == problem)
    stored = sum(1 for s in truth.solutions(snap.truth) if s["problem_id"] == problem)
    rows = view_rows(scenario.store, "data_quality", snap.snapshot_id, where=f"scope = '{problem}'")
    assert [(r["resource"], r["announced"], r["stored"]) for r in rows] == [("solutions", announced, stored)]
    assert rows[0]["reason"], rows


def test_every_snapshot_records_announced_and_stored_per_list(history: Scenario):
    for snap in history.snaps:
        rows = {
            r["resource"]: r
            for r in view_rows(history.store, "data_quality", snap.snapshot_id, where="scope = ''")
        }
        want = {
            "problems": len(truth.problems(snap.truth)),
            "solutions": len(truth.solutions(snap.truth)),
            "leaderboard": len(truth.leaderboard(snap.truth)),
        }
        shown = {k: (rows[k]["announced"], rows[k]["stored"]) if k in rows else None for k in want}
        assert shown == {k: (n, n) for k, n in want.items()}, (snap.label, shown)


def test_db_check_shows_every_list_whole_as_the_platform_holds_it(history: Scenario):
    for snap in history.snaps:
        code, text = history.cli(
            "db", "check", "--db", str(history.store), "--snapshot", str(snap.snapshot_id), "--json"
        )
        records = json.loads(text)["data_quality"] if code in (0, 3) else []
        rows = {r["resource"]: r for r in records if r["scope"] == ""}
        want = {
            "problems": len(truth.problems(snap.truth)),
            "solutions": len(truth.solutions(snap.truth)),
            "leaderboard": len(truth.leaderboard(snap.truth)),
        }
        shown = {k: (rows[k]["announced"], rows[k]["stored"]) if k in rows else None for k in want}
        assert shown == {k: (n, n) for k, n in want.items()}, (snap.label, shown)
        gaps = [(r["resource"], r["scope"], r["announced"], r["stored"]) for r in records if r["reason"]]
        assert gaps == _stats_gaps(snap.truth), (snap.label, gaps)
        assert code == (3 if gaps else 0), (snap.label, code, text)


def _stats_gaps(db: Path) -> list[tuple[str, str, int, int]]:
    """The ``/stats`` total that cannot match the rows: ``totalSolutions`` counts the solutions of rejected
    problems too, which no list serves."""
    announced = next(int(r["value"]) for r in truth.platform_stats(db) if r["metric"] == "totalSolutions")
    listed = len(truth.solutions(db))
    return [] if announced == listed else [("platform_stats", "totalSolutions", announced, listed)]


@pytest.mark.parametrize("mode", OTHER_MODES)
def test_diff_counts_the_solutions_listed_not_the_count_announced(modes: dict[str, Scenario], mode: str):
    """Between ``day`` and ``counted`` no solution was added; one problem's count went up by one."""
    scenario = modes[mode]
    counted = snap_of(scenario, "counted")
    assert counted.exit_code == 0 and counted.snapshot_id is not None, counted.output
    checks = diff_checks(scenario, snap_of(scenario, "day"), counted)
    lines = [
        line
        for figure in ("diff json solutions_added", "diff json counts", "diff csv")
        for line in checks[figure]
    ]
    assert not lines, report(lines)


def test_the_votes_stored_are_the_platforms(votes: Scenario):
    """Every stored vote is one the platform recorded, with its solutions, winner and voter."""
    snap = votes.snaps[0]
    assert view_rows(votes.store, "comparisons"), snap.output
    lines = vote_checks(votes, snap)["comparisons"]
    assert not lines, report(lines)


def test_every_reachable_vote_is_stored_even_one_no_count_announces(votes: Scenario):
    snap = votes.snaps[0]
    assert votes.marks["hidden"] in {v["comparison_id"] for v in truth.reachable_votes(snap.truth)}
    lines = vote_checks(votes, snap)["comparisons reachable"]
    assert not lines, report(lines)


def test_vote_lists_capped_by_the_platform_are_data_quality_rows(votes: Scenario):
    snap = votes.snaps[0]
    capped = truth.capped_vote_lists(snap.truth)
    assert len(capped) == 4, capped  # X and Y (55 votes, 50 reachable), A and B (1 counted, 2 held)
    rows = view_rows(votes.store, "data_quality", snap.snapshot_id, where="resource = 'comparisons'")
    lines = mismatches(
        "data_quality comparisons",
        [{**r, "solution_id": r["scope"]} for r in rows if r["scope"]],
        capped,
        ("solution_id",),
        ("announced", "stored"),
    )
    assert not lines, report(lines)
