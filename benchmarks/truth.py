"""Benchmark: the truth sweep -- every figure the truth layer checks, over seeds x modes x cadences.

For each seed and each convention mode (``platform``, ``jsonapi``, ``hal``, ``odata``, ``relay``) a small
sandbox is served (real uvicorn on 127.0.0.1, ties reshuffled on every call) and snapshotted with
``solvelens snapshot`` (in-process, ``--resources activity,llm_leaderboard``, with the API key of the busiest
bot, so ``/bot/me`` is recorded) at:

- ``fresh``: the platform as built;
- ``hour``: one simulated hour later (a day committed in 60-minute steps, the snapshot after the first);
- ``day``: the rest of that day and one more simulated day later;
- ``gap``: a problem rejected, a vote recorded without its counts moving, two days simulated by hand
  (``solvelens sandbox simulate``): ~2 days and the activity feed turned over;
- ``renamed``: that bot renamed itself (the settings route), nothing else changed (an incremental snapshot);
- ``ties`` (leaderboard ties): the bots ranked 2nd and 6th given the points of the 1st and 5th, the 10th
  suspended, a newcomer above the 8th; the sandbox serves the tied bots in another order on each call;
- ``deadlocks`` (deadlocked votes): a simulated day whose votes deadlock at 30 % (the vote row written, no
  count moved; the sandbox's default is 4 %, ``--deadlock-share``);
- ``guidance`` (guidance tasks): new bots answer solve tasks advising "Aim for 400-1200 characters" with
  answers of 32, 300 and 1,400 characters, all valid (the platform validates 10-2,000);
- ``lazy`` (a lazy model board): new bots solve with two models the platform has not seen: the model board
  lists them at its stale figures (win rate 0, scores 1500), tied, beside models last recalculated earlier.

The sandbox runs with its defaults, which are the real platform's behaviours (guidance instructions, 4 %
deadlocked votes in the simulator and on submit, a lazy model board, ties shuffled on every call).

After each snapshot every store view (``bot_me``, ``llm_leaderboard`` and ``data_quality`` included; the
votes' views with ``--resources ...,comparisons``) and the summary are compared with plain SQL on a frozen
copy of the sandbox database (:mod:`tests.truth.checks`), and ``solvelens diff`` (terminal, ``--json``,
``--csv``) and ``activity_gaps`` for each consecutive pair; then the report of the whole history is built
and each chart's data compared over every snapshot (:mod:`tests.truth.chart_checks`, scenario ``report``),
the percentile leaderboard's values and intervals and, with ``comparisons``, the arena's charts, caption,
three-rankings table and sentence against a Bradley–Terry fit of the platform's votes made here
(:mod:`tests.truth.model_checks`).
Prints a table figure x scenario x mismatches (a cell per mode: mismatches summed over seeds and that row's
snapshots or pairs), then the first mismatch line of each failing (figure, scenario) cell. The target is 0
everywhere; issue 23's open defects show as non-zero rows until fixed. Asserts nothing.

Under the snapshot's default request budget the votes are read over several snapshots (the budget's
backfill), so the votes' views and the arena differ from every vote the platform serves until then: add
``--budget all`` to compare them exactly. At any budget each mismatch is tagged with the store's
``data_quality`` row that explains it (:data:`EXPLAINED_BY`: e.g. "comparisons: announced 4847, stored
4595: 120 vote lists left for the next snapshots") or counted as unexplained; the target at the default
budget is 0 unexplained, at ``--budget all`` 0 mismatches. ``--every`` prints each mismatch line tagged.

Run: ``.venv/bin/python benchmarks/truth.py [--seeds 1,2,3] [--modes platform,jsonapi,...]
[--resources activity,llm_leaderboard,comparisons --budget all] [--every]`` (~15-30 s per seed and mode on
an idle 2-core machine).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import duckdb

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the truth layer's helpers live in tests/truth

from tests.truth.chart_checks import CHART_CHECKS  # noqa: E402
from tests.truth.checks import (  # noqa: E402
    activity_gap_checks,
    diff_checks,
    feed_gap_checks,
    summary_checks,
    view_checks,
    vote_checks,
)
from tests.truth.model_checks import ARENA_CHECKS, MODEL_CHECKS  # noqa: E402
from tests.truth.sandbox_truth import clock_ms  # noqa: E402
from tests.truth.scenario import Scenario  # noqa: E402

from solvelens.report import build_report  # noqa: E402

MODES = ("platform", "jsonapi", "hal", "odata", "relay")
#: cell key -> mismatch lines: (figure, step, mode) where step is a snapshot label or "a -> b".
Cells = dict[tuple[str, str, str], list[str]]
#: cell key -> per mismatch line, the store's ``data_quality`` row that explains it ("" when none does).
Explained = dict[tuple[str, str, str], list[str]]

#: The ``data_quality`` resources whose rows (``reason`` not null) explain a figure's difference from the
#: truth: the votes' figures and everything fitted to or counted from the votes by ``comparisons`` (a vote
#: list left for the next snapshots, more votes than the cap serves, a count the rows disagree with) and
#: ``/stats totalComparisons``; each list's own figure by its own resource. A figure not named here is
#: never explained: any difference in it is a defect.
_VOTES = ("comparisons", "platform_stats")
EXPLAINED_BY: dict[str, tuple[str, ...]] = {
    "comparisons": _VOTES,
    "comparisons reachable": _VOTES,
    "comparison_coverage": _VOTES,
    "vote_coverage": _VOTES,
    "data_quality": _VOTES,
    "chart arena caption": _VOTES,
    "chart arena phone pairs": _VOTES,
    "chart arena_rank": _VOTES,
    "chart arena_rank caption": _VOTES,
    "chart arena separation": _VOTES,
    "chart arena_scores": _VOTES,
    "chart arena_win_rate": _VOTES,
    "chart model sentence": _VOTES,
    "chart model table": _VOTES,
    "problems": ("problems",),
    "solutions": ("solutions",),
    "leaderboard": ("leaderboard",),
    "llm_leaderboard": ("llm_leaderboard",),
}
#: What a votes' row must say to explain a votes' figure: a vote the platform serves is missing from the store
#: only while vote lists are left for the next snapshots or lists trusted by their counts are re-read in
#: turn (a vote counted on neither side); a row saying only that a count disagrees explains no missing vote.
VOTE_REASONS = ("left for the next snapshots", "trusted by their counts")
_RESOURCE_NAMED = re.compile(r"resource=(\w+)")


def explains(figure: str, line: str, resource: str, reason: str) -> bool:
    """Whether the ``data_quality`` row of ``resource`` with ``reason`` explains the mismatch ``line`` of
    ``figure``: the resource is one :data:`EXPLAINED_BY` names for the figure (for a ``data_quality`` line,
    the resource the line names); a votes' row must give one of :data:`VOTE_REASONS`."""
    wanted = EXPLAINED_BY.get(figure, ())
    named = _RESOURCE_NAMED.search(line) if figure == "data_quality" else None
    if named is not None:
        wanted = tuple(r for r in wanted if r == named.group(1))
    if resource not in wanted:
        return False
    return resource not in _VOTES or any(phrase in reason for phrase in VOTE_REASONS)


def drive(
    workdir: Path,
    seed: int,
    mode: str,
    resources: str,
    budget: str | None = None,
    deadlock_share: float = 0.3,
) -> Scenario:
    """Serve and snapshot one (seed, mode) through fresh, hour, day, gap, renamed, ties, deadlocks, guidance
    and lazy (module doc); ``budget``: each snapshot's ``--budget`` (None: the default); ``deadlock_share``:
    the share of the ``deadlocks`` day's votes that deadlock."""
    scenario = Scenario.start(workdir, seed=seed, mode=mode, resources=resources)
    try:
        scenario.extra = ("--budget", budget) if budget else ()
        me, name = scenario.busiest_bot()
        scenario.marks["me"] = scenario.sign_in_as(name)
        scenario.snapshot("fresh")
        scenario.hourly(1, "hour")
        scenario.advance_days(1)
        scenario.snapshot("day")
        scenario.marks["rejected"] = scenario.reject_problem(clock_ms(scenario.snaps[-1].truth))
        scenario.marks["hidden"] = scenario.hidden_vote()
        code, output = scenario.simulate_by_hand(2)
        if code:
            raise RuntimeError(f"sandbox simulate failed: {output}")
        scenario.snapshot("gap")
        scenario.marks["renamed"], _ = scenario.rename_bot(f"Renamed{seed}", me)
        scenario.snapshot("renamed")
        scenario.marks["tied"], scenario.marks["suspended"] = scenario.tie_top_ranks()
        scenario.snapshot("ties")
        scenario.marks["deadlocked"] = str(scenario.deadlocked_day(deadlock_share))
        scenario.snapshot("deadlocks")
        scenario.marks["guided"] = ",".join(scenario.guided_solutions())
        scenario.snapshot("guidance")
        scenario.marks["models"] = ",".join(scenario.new_models())
        scenario.snapshot("lazy")
    except BaseException:
        scenario.stop()  # the served sandbox goes with the failed drive
        raise
    return scenario


def quality_reasons(scenario: Scenario) -> dict[int, list[tuple[str, str, str]]]:
    """The store's ``data_quality`` rows whose counts differ, per snapshot id: ``(resource, "resource
    [scope]: announced A, stored S: reason", reason)``, read with SQL from the scenario's DuckDB store."""
    with duckdb.connect(str(scenario.store), read_only=True) as con:
        rows = con.execute(
            "SELECT snapshot_id, resource, scope, announced, stored, reason FROM data_quality "
            "WHERE reason IS NOT NULL ORDER BY snapshot_id, resource, scope"
        ).fetchall()
    out: dict[int, list[tuple[str, str, str]]] = defaultdict(list)
    for sid, resource, scope, announced, stored, reason in rows:
        where = f"{resource} {scope}".strip()
        text = f"{where}: announced {announced}, stored {stored}: {reason}"
        out[int(sid)].append((resource, text, str(reason)))
    return out


def explain(scenario: Scenario, mode: str, cells: Cells, explained: Explained) -> None:
    """For each mismatch line of ``mode`` in ``cells``, the ``data_quality`` row of the store that explains
    it (:func:`explains`) at the step's snapshot (a pair: either snapshot; the report: any snapshot), or ""
    when none does."""
    reasons = quality_reasons(scenario)
    ids = {s.label: s.snapshot_id for s in scenario.snaps if s.snapshot_id is not None}
    for (figure, step, m), lines in cells.items():
        if m != mode or not lines:
            continue
        if step == "report":
            sids = list(ids.values())
        else:
            sids = [ids[label] for label in step.split(" -> ") if label in ids]
        done = len(explained[(figure, step, m)])
        for line in lines[done:]:
            why = next(
                (
                    text
                    for sid in sids
                    for res, text, reason in reasons.get(sid, [])
                    if explains(figure, line, res, reason)
                ),
                "",
            )
            explained[(figure, step, m)].append(why)


def check(scenario: Scenario, mode: str, cells: Cells) -> None:
    """Add every figure's mismatches of one driven scenario to ``cells``."""
    for snap in scenario.snaps:
        if snap.snapshot_id is None:
            cells[("snapshot written", snap.label, mode)].append(f"{snap.label}: exit {snap.exit_code}")
            continue
        figures = {**view_checks(scenario, snap), **summary_checks(snap)}
        if "comparisons" in scenario.resources:
            figures |= vote_checks(scenario, snap)
        for figure, lines in figures.items():
            cells[(figure, snap.label, mode)].extend(lines)
    written = [s for s in scenario.snaps if s.snapshot_id is not None]
    if written:
        first = activity_gap_checks(scenario, None, written[0])
        cells[("activity_gaps", written[0].label, mode)].extend(first)
    for a, b in zip(scenario.snaps, scenario.snaps[1:], strict=False):
        if a.snapshot_id is None or b.snapshot_id is None:
            continue
        cells[("summary events missed", f"{a.label} -> {b.label}", mode)].extend(feed_gap_checks(a, b))
        cells[("activity_gaps", f"{a.label} -> {b.label}", mode)].extend(activity_gap_checks(scenario, a, b))
        for figure, lines in diff_checks(scenario, a, b).items():
            cells[(figure, f"{a.label} -> {b.label}", mode)].extend(lines)
    if written:
        page = build_report(scenario.store, scenario.workdir / "report.html").read_text(encoding="utf-8")
        checks = CHART_CHECKS | MODEL_CHECKS
        if "comparisons" in scenario.resources:  # the arena: fitted here to the platform's votes
            checks |= ARENA_CHECKS
        for chart, check in checks.items():
            cells[(f"chart {chart}", "report", mode)].extend(check(scenario, page))


def print_table(cells: Cells, explained: Explained, modes: list[str], seeds: list[int], every: bool) -> None:
    """The figure x scenario x mismatches table, then per non-zero cell how many a ``data_quality`` row of
    the store explains and its first line; ``every``: each mismatch line, tagged explained or not."""
    rows = sorted({(figure, step) for figure, step, _ in cells}, key=lambda r: (r[0], r[1]))
    width = max(len(f"{f} @ {s}") for f, s in rows)
    print(f"\nmismatches per figure and scenario (seeds {', '.join(map(str, seeds))}; target 0)")
    print(f"{'figure @ scenario':<{width}}  " + "  ".join(f"{m:>8}" for m in modes))
    total = unexplained = 0
    for figure, step in rows:
        counts = [len(cells.get((figure, step, m), [])) for m in modes]
        total += sum(counts)
        print(f"{figure + ' @ ' + step:<{width}}  " + "  ".join(f"{c:>8,}" for c in counts))
    print(f"\ntotal mismatches: {total:,} over {len(rows)} figure x scenario rows x {len(modes)} modes")
    for key, lines in sorted(cells.items()):
        if not lines:
            continue
        whys = explained.get(key, [""] * len(lines))
        bare = sum(1 for w in whys if not w)
        unexplained += bare
        figure, step, mode = key
        first = next((w for w in whys if w), "")
        said = f"{len(lines) - bare} explained by data_quality ({first})" if first else "0 explained"
        print(f"- {figure} @ {step} [{mode}]: {len(lines)}, {said}, {bare} unexplained; e.g. {lines[0]}")
        if every:
            for line, why in zip(lines, whys, strict=True):
                print(f"    {'explained: ' + why if why else 'UNEXPLAINED'} | {line}")
    print(f"unexplained by any data_quality row: {unexplained:,} of {total:,} (target 0)")


def main() -> None:
    """Parse the options, drive and check every (seed, mode), print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", default="1,2,3", help="comma-separated sandbox seeds (default 1,2,3)")
    parser.add_argument("--modes", default=",".join(MODES), help="comma-separated convention modes")
    parser.add_argument(
        "--resources",
        default="activity,llm_leaderboard",
        help="snapshot --resources (add comparisons to check the votes)",
    )
    parser.add_argument(
        "--budget",
        default=None,
        help="snapshot --budget (e.g. 'all': every vote list read at once, so the votes' figures and the "
        "arena compare with every vote the platform serves; default: the snapshot's own budget)",
    )
    parser.add_argument(
        "--deadlock-share",
        type=float,
        default=0.3,
        help="share of the votes of the 'deadlocks' day that deadlock (default 0.3; the sandbox's own 0.04)",
    )
    parser.add_argument(
        "--every",
        action="store_true",
        help="print every mismatch line, tagged with the data_quality row that explains it or UNEXPLAINED",
    )
    args = parser.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    modes = [m for m in args.modes.split(",") if m]
    cells: Cells = defaultdict(list)
    explained: Explained = defaultdict(list)
    started = time.perf_counter()
    print(f"load average {os.getloadavg()[0]:.1f} (2-core machine: figures taken at high load are slower)")
    with tempfile.TemporaryDirectory(prefix="solvelens-truth-") as tmp:
        for seed in seeds:
            for mode in modes:
                t0 = time.perf_counter()
                try:
                    scenario = drive(
                        Path(tmp) / f"{seed}-{mode}",
                        seed,
                        mode,
                        args.resources,
                        args.budget,
                        args.deadlock_share,
                    )
                except Exception as exc:  # a scenario that cannot be driven is a row, not the sweep's end
                    cells[("scenario driven", "drive", mode)].append(
                        f"seed {seed}: {type(exc).__name__}: {exc}"
                    )
                    explained[("scenario driven", "drive", mode)].append("")
                    print(f"seed {seed} {mode}: not driven ({type(exc).__name__}: {exc})", flush=True)
                    continue
                try:
                    check(scenario, mode, cells)
                    explain(scenario, mode, cells, explained)
                finally:
                    scenario.stop()
                print(
                    f"seed {seed} {mode}: driven and checked in {time.perf_counter() - t0:.1f} s", flush=True
                )
    print_table(cells, explained, modes, seeds, args.every)
    print(f"\nsweep: {time.perf_counter() - started:.1f} s wall, load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
