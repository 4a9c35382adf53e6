"""Benchmark: what a tie order that changes on every call costs, with position ranks and with ours.

Serves a sandbox platform with ``tie_order="shuffle"`` (equal scores in a random order on every call, as the
real platform: real-platform-notes §13), then

- walks every problem's solutions twice over HTTP and counts the solutions that share their score with
  another of their problem, the solutions whose *list position* differs between the two calls (what a
  rank = position snapshot stores as rank moves) and whose *competition rank* differs (what we store);
- walks ``/problems`` twice and counts the problems whose raw JSON differs (``topSolution`` switched
  between tied solutions) and whose version key differs (:mod:`solvelens.store.canonical`);
- takes a full snapshot and a second ``--full`` snapshot into a temporary DuckDB store and prints the new
  versions per resource, new solution manifests and changed solution ranks of the second one (targets: 0);
- times :func:`solvelens.store.canonical.tie_free_form` per problem record;
- reads the leaderboard and every problem's solutions with the client, at the largest page size the platform
  allows and at ``--small-page`` (10), and prints per list kind: lists read, records against the sandbox's
  SQLite, the lists that needed tie re-reads, the rounds (most in one list; bound
  :data:`solvelens.client.walk.MAX_TIE_ROUNDS`) and the pages read again (:meth:`PageWalk.next_round`);
- the worst case: a copy of the platform whose active bots all tie on 0 points, its leaderboard read
  ``--tied-reads`` times at each of those page sizes: the rounds each read took (mean, most) and the reads
  that failed (IncompleteListError, target 0).

Prints figures, asserts nothing. Run: ``.venv/bin/python benchmarks/ties.py [--scale small|medium]``
(medium: ~10 s to build into ``/tmp/solvelens-bench/<scale>.sqlite`` once).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from solvelens.analysis import diff
from solvelens.client import IncompleteListError, PlatformClient
from solvelens.client.memory import EndpointState
from solvelens.client.walk import MAX_TIE_ROUNDS
from solvelens.flows.ranks import competition_ranks
from solvelens.flows.steps import SnapshotPlan, run_snapshot
from solvelens.sandbox.process import start_sandbox
from solvelens.store import read_frame
from solvelens.store.canonical import tie_free_form
from solvelens.store.staging import dump_json, version_key


def _problems(client: httpx.Client) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    page = 1
    while True:
        body = client.get("/problems", params={"page": page, "limit": 50, "sort": "oldest"}).json()
        out += body["problems"]
        if page >= body["pagination"]["totalPages"]:
            return out
        page += 1


def _lists(client: httpx.Client, problems: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    return {
        p["id"]: client.get(f"/problems/{p['id']}/solutions", params={"limit": 100}).json()["solutions"]
        for p in problems
    }


def _moves(
    first: dict[str, list[dict[str, Any]]], second: dict[str, list[dict[str, Any]]]
) -> tuple[int, int]:
    """(solutions whose list position differs, solutions whose competition rank differs)."""
    positions = ranks = 0
    for pid, a in first.items():
        b = second[pid]
        pos_a = {s["id"]: i for i, s in enumerate(a)}
        pos_b = {s["id"]: i for i, s in enumerate(b)}
        positions += sum(pos_a[k] != pos_b.get(k) for k in pos_a)
        rank_a = dict(zip([s["id"] for s in a], competition_ranks(a)[0], strict=True))
        rank_b = dict(zip([s["id"] for s in b], competition_ranks(b)[0], strict=True))
        ranks += sum(rank_a[k] != rank_b.get(k) for k in rank_a)
    return positions, ranks


def _snapshots(base_url: str) -> None:
    with tempfile.TemporaryDirectory(prefix="solvelens-ties-") as tmp:
        db = Path(tmp) / "store.duckdb"
        plan = SnapshotPlan(base_url=base_url, db_path=str(db), use_api_key=False)
        first = run_snapshot(plan)
        items = "SELECT count(DISTINCT manifest_id) AS n FROM solvelens_store.solution_manifest_items"
        ranks_sql = "SELECT solution_id, rank FROM solutions WHERE snapshot_id = ?"
        manifests = read_frame(db, items)["n"][0]
        before = set(read_frame(db, ranks_sql, [first.snapshot_id]).iter_rows())
        again = run_snapshot(plan.model_copy(update={"full": True}))
        after = set(read_frame(db, ranks_sql, [again.snapshot_id]).iter_rows())
        print(f"re-snapshot (--full, nothing changed): new versions {again.new_versions}")
        print(f"  new solution manifests: {read_frame(db, items)['n'][0] - manifests} (target 0)")
        print(f"  solutions whose stored rank changed: {len(before ^ after) // 2} (target 0)")
        changes = diff(db, first.snapshot_id, again.snapshot_id, min_move=1)
        print(f"  changes (solvelens diff): {sum(changes.rows().values())} (target 0)")


class _Tally:
    """Tie re-reads of one list kind, read from the client's per-endpoint counters around each list."""

    def __init__(self, state: EndpointState) -> None:
        self.state = state
        self.lists = self.records = self.needed = self.most = 0

    def around(self, walk: Any) -> list[dict[str, Any]]:
        rounds = self.state.tie_rounds
        records = list(walk)
        spent = self.state.tie_rounds - rounds
        self.needed += spent > 0
        self.most = max(self.most, spent)
        self.lists += 1
        self.records += len(records)
        return records

    def line(self, kind: str, truth: int) -> str:
        return (
            f"  {kind}: {self.lists:,} lists, {self.records:,} records read (SQLite: {truth:,}); "
            f"{self.needed:,} needed tie re-reads, most rounds in one list {self.most} "
            f"(bound {MAX_TIE_ROUNDS}), "
            f"{self.state.rereads:,} pages read again in {self.state.tie_rounds:,} rounds"
        )


def _client_reads(base_url: str, db_path: str, page_size: int | None) -> None:
    """The leaderboard and every problem's solutions read with the client at ``page_size`` (``None``: the
    largest the platform allows); prints the tie re-reads each list kind took."""
    con = sqlite3.connect(db_path)
    try:
        bots = con.execute("SELECT count(*) FROM bots WHERE status = 'active'").fetchone()[0]
        solutions = con.execute("SELECT count(*) FROM solutions").fetchone()[0]
    finally:
        con.close()
    with PlatformClient(base_url, read_env=False) as client:
        board = _Tally(client.endpoints["leaderboard"])
        board.around(client.list_leaderboard(page_size=page_size))
        lists = _Tally(client.endpoints["solutions"])
        for problem in client.list_problems():
            lists.around(client.list_solutions(problem["id"], page_size=page_size))
    print(f"client reads at page size {page_size or 'max (leaderboard 100, solutions 100)'}:")
    print(board.line("leaderboard", bots))
    print(lists.line("solutions", solutions))


def _all_tied(cache: Path, scale: str, reads: int, page_sizes: tuple[int | None, ...]) -> None:
    """Every active bot of a copy of the platform at 0 points, served with shuffled ties; its leaderboard read
    ``reads`` times per page size, printing the tie rounds each read took and the reads that failed."""
    with tempfile.TemporaryDirectory(prefix="solvelens-ties-") as tmp:
        path = Path(tmp) / "tied.sqlite"
        shutil.copy(cache, path)
        con = sqlite3.connect(path)
        try:
            con.execute("UPDATE bots SET total_points = 0 WHERE status = 'active'")
            bots = con.execute("SELECT count(*) FROM bots WHERE status = 'active'").fetchone()[0]
            con.commit()
        finally:
            con.close()
        server = start_sandbox(path, scale=scale, tie_order="shuffle")
        try:
            print(f"every one of {bots:,} active bots at 0 points, the leaderboard read {reads} times:")
            for page_size in page_sizes:
                rounds: list[int] = []
                failed = wrong = 0
                with PlatformClient(server.base_url, read_env=False) as client:
                    state = client.endpoints["leaderboard"]
                    for _ in range(reads):
                        before = state.tie_rounds
                        try:
                            ids = [b["id"] for b in client.list_leaderboard(page_size=page_size)]
                        except IncompleteListError:
                            failed += 1
                            continue
                        wrong += len(ids) != bots or len(set(ids)) != bots
                        rounds.append(state.tie_rounds - before)
                    pages = state.rereads
                print(
                    f"  page size {page_size or 'max (100)'}: rounds per read mean "
                    f"{statistics.fmean(rounds or [0]):.1f}, most {max(rounds, default=0)} (bound "
                    f"{MAX_TIE_ROUNDS}); {pages:,} pages read again in all; reads failed {failed}, "
                    f"reads with a wrong count {wrong} (targets 0)"
                )
        finally:
            server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", default="small", choices=("small", "medium"))
    parser.add_argument("--cache-dir", type=Path, default=Path("/tmp/solvelens-bench"))
    parser.add_argument("--small-page", type=int, default=10, help="the small page size of the client reads")
    parser.add_argument("--tied-reads", type=int, default=20, help="reads of the all-tied leaderboard")
    args = parser.parse_args()
    args.cache_dir.mkdir(parents=True, exist_ok=True)
    cache = args.cache_dir / f"{args.scale}.sqlite"
    server = start_sandbox(cache, scale=args.scale, tie_order="shuffle")
    try:
        print(
            f"{args.scale} sandbox, tie order shuffled on every call; load average {os.getloadavg()[0]:.2f}"
        )
        with httpx.Client(base_url=server.base_url, timeout=60) as client:
            problems_a = _problems(client)
            lists_a = _lists(client, problems_a)
            problems_b = _problems(client)
            lists_b = _lists(client, problems_b)
        n = sum(len(v) for v in lists_a.values())
        tied = sum(1 for v in lists_a.values() for s in v if sum(t["btScore"] == s["btScore"] for t in v) > 1)
        positions, ranks = _moves(lists_a, lists_b)
        print(f"{len(problems_a):,} problems, {n:,} solutions; {tied:,} share their score with another")
        print(f"second walk: {positions:,} list positions moved; {ranks} competition ranks moved (target 0)")
        raws = [(dump_json(a), dump_json(b)) for a, b in zip(problems_a, problems_b, strict=True)]
        raw_changed = sum(a != b for a, b in raws)
        key_changed = sum(version_key(tie_free_form(a)) != version_key(tie_free_form(b)) for a, b in raws)
        print(
            f"problems whose raw JSON changed (topSolution switch): {raw_changed}; version key: {key_changed}"
        )
        records = [a for a, _ in raws] * max(1, 20_000 // max(len(raws), 1))
        t0 = time.perf_counter()
        for raw in records:
            tie_free_form(raw)
        per = (time.perf_counter() - t0) / len(records) * 1e6
        print(f"tie_free_form: {per:.1f} us per problem record ({len(records):,} timed)")
        _snapshots(server.base_url)
        for page_size in (None, args.small_page):
            _client_reads(server.base_url, str(server.db_path), page_size)
    finally:
        server.stop()
    _all_tied(cache, args.scale, args.tied_reads, (None, args.small_page))


if __name__ == "__main__":
    main()
