"""``benchmarks/snapshot.py``'s figure lines from given runs (no subprocess, no server): the pairing's
arithmetic and verdicts, which the ``--quick`` smoke run cannot show (it starts no Prefect server and runs
loopback only) and whose timings it never asserts."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("snapshot_bench", ROOT / "benchmarks" / "snapshot.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _prefect_pair(bench: ModuleType, pairs: list[tuple[float, float]]) -> tuple[object, object]:
    """The in-process row and a flow-run row as :func:`prefect_pairs` returns it after ``pairs``
    (in-process, flow-run walls, seconds)."""
    ours = bench.Run(bench.OURS, 0, wall_s=pairs[0][0], inner_s=4.0)
    flow = bench.Run(bench.OURS_PREFECT, 0, wall_s=pairs[0][1])
    plain_walls = [p for p, _ in pairs]
    flow.extra.update(walls=[f for _, f in pairs], plain_walls=plain_walls, pairs=pairs, mode="prefect")
    return ours, flow


def test_the_prefect_row_is_the_median_of_the_per_pair_differences(bench: ModuleType) -> None:
    # Differences +1.0, +3.5, +1.5: median +1.5 (met). The medians of the walls (5.0 and 7.5) differ by
    # +2.5 (over): the two figures disagree, and the verdict follows the paired one.
    ours, flow = _prefect_pair(bench, [(5.0, 6.0), (4.0, 7.5), (6.5, 8.0)])
    verdicts: list[tuple[str, str, bool]] = []
    lines = bench._prefect_lines(0, ours, flow, verdicts)
    assert re.search(
        r"^\[0 ms\] ours \(CLI, Prefect server\) \(prefect\): \+1\.50 s over the in-process path, median of "
        r"the per-pair differences of 3 alternated pairs \(\+1\.00, \+3\.50, \+1\.50 s\) \(target <= \+2 s: "
        r"met\); difference of medians \+2\.50 s \(3 vs 3 runs",
        lines[0],
    ), lines[0]
    assert verdicts == [("[0 ms] Prefect flow-run path <= +2 s", "+1.50 s (median of 3 pairs)", True)]
    assert len(lines) == 1  # no timelines: no timeline line


def test_the_prefect_timeline_line_stays_with_the_paired_in_process_runs(bench: ModuleType) -> None:
    ours, flow = _prefect_pair(bench, [(5.0, 6.0), (4.0, 7.5), (6.5, 8.0)])
    stamps = {"created": 2.0, "running": 2.1, "completed": 6.0, "exited": 6.3, "tasks": 6.0, "task_s": 3.5}
    flow.extra.update(timelines=[stamps, {**stamps, "created": 3.0}], plain_inner=[3.0, 2.0, 4.5])
    line = bench._prefect_lines(0, ours, flow, [])[1]
    assert line.startswith("[0 ms] the flow run by Prefect's timestamps (median of 2, seconds after spawn): ")
    assert "created 2.50" in line and line.endswith("the in-process path: 5.00 s in all, 3.00 s its own run")


def test_the_prefect_row_says_not_met_when_the_paired_median_is_over(bench: ModuleType) -> None:
    ours, flow = _prefect_pair(bench, [(5.0, 7.5), (5.0, 6.0), (5.0, 8.0), (6.0, 8.2)])
    verdicts: list[tuple[str, str, bool]] = []
    line = bench._prefect_lines(50, ours, flow, verdicts)[0]
    # differences +2.50, +1.00, +3.00, +2.20: median +2.35
    assert "+2.35 s over the in-process path" in line and "(target <= +2 s: NOT met)" in line, line
    assert verdicts[0][2] is False


def test_prefect_pairs_alternate_which_runs_first_and_pair_each_difference(
    bench: ModuleType, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The order within a pair alternates and each pair keeps its own two walls (the runs stand in for
    ``solvelens snapshot`` subprocesses, whose timings are not the question here); a pair with a failed
    run is left out of the pairs, not paired with a neighbour's run; the row is the first flow run."""
    calls: list[str] = []
    walls = iter([5.0, 6.5, 10.0, 3.0, 4.0, 9.0, 0.0, 5.0, 12.0, 6.0])  # in call order; 0.0: a failed run

    def fake_run(name: str, *args: object, prefect_api: str | None = None, **kw: object) -> object:
        calls.append("flow" if prefect_api else "plain")
        wall = next(walls)
        run = bench.Run(name, 0, wall_s=wall, returncode=0 if wall else 1, error="" if wall else "boom")
        run.extra["mode"] = "prefect" if prefect_api else "plain"
        return run

    monkeypatch.setattr(bench, "run_ours_cli", fake_run)
    row = bench.prefect_pairs("http://x", 0, tmp_path, tmp_path, "http://api", 5)
    assert calls == ["plain", "flow", "flow", "plain", "plain", "flow", "flow", "plain", "plain", "flow"]
    assert (row.name, row.wall_s, row.extra["mode"]) == (bench.OURS_PREFECT, 6.5, "prefect")
    # pair 2: flow 10.0, plain 3.0; pair 3: plain 4.0, flow 9.0; pair 4: the flow run failed; pair 5
    assert row.extra["pairs"] == [(5.0, 6.5), (3.0, 10.0), (4.0, 9.0), (12.0, 6.0)]
    assert row.extra["plain_walls"] == [5.0, 3.0, 4.0, 5.0, 12.0]
    assert row.extra["walls"] == [6.5, 10.0, 9.0, 6.0]


def test_a_failed_first_flow_run_is_the_row_and_stops_the_pairs(
    bench: ModuleType, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    calls: list[str] = []

    def fake_run(name: str, *args: object, prefect_api: str | None = None, **kw: object) -> object:
        calls.append("flow" if prefect_api else "plain")
        return bench.Run(name, 0, wall_s=1.0, returncode=1 if prefect_api else 0, error="no server")

    monkeypatch.setattr(bench, "run_ours_cli", fake_run)
    row = bench.prefect_pairs("http://x", 50, tmp_path, tmp_path, "http://api", 3)
    assert calls == ["plain", "flow"] and not row.ok and row.name == bench.OURS_PREFECT


def test_the_50_ms_row_is_the_median_of_per_pair_ratios(bench: ModuleType) -> None:
    ours = bench.Run(bench.OURS, 50, wall_s=20.0)
    floor = bench.Run(bench.FLOOR, 50, wall_s=10.0)  # alone: 2.00x; paired: 1.10x
    floor.extra["pairs"] = [(20.0, 10.0), (16.5, 15.0), (11.0, 10.0)]
    verdicts: list[tuple[str, str, bool]] = []
    parts = bench._floor_parts(50, ours, floor, bench.TARGET_VS_FLOOR_LATENCY, "medium", verdicts)
    assert parts[:2] == [
        "1.10x the floor (target <= 1.15: met)",
        "median of 3 alternated pairs (2.00, 1.10, 1.10)",
    ]
    assert verdicts == [("[50 ms] <= 1.15x the floor (medium)", "1.10x", True)]


def test_pair_with_floor_alternates_which_runs_first(
    bench: ModuleType, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    calls: list[str] = []
    walls = iter([7.0, 6.0, 5.0, 4.0, 9.0, 8.0])  # pairs 2-4 in call order

    def fake_ours(name: str, *args: object, **kw: object) -> object:
        calls.append("ours")
        return bench.Run(name, 50, wall_s=next(walls))

    def fake_floor(kind: str, name: str, *args: object) -> object:
        calls.append("floor")
        return bench.Run(name, 50, wall_s=next(walls))

    monkeypatch.setattr(bench, "run_ours_cli", fake_ours)
    monkeypatch.setattr(bench, "run_worker", fake_floor)
    ours, floor = bench.Run(bench.OURS, 50, wall_s=3.0), bench.Run(bench.FLOOR, 50, wall_s=2.0)
    bench.pair_with_floor(ours, floor, "http://x", tmp_path, tmp_path, 4)
    assert calls == ["floor", "ours", "ours", "floor", "floor", "ours"]
    assert floor.extra["pairs"] == [(3.0, 2.0), (6.0, 7.0), (5.0, 4.0), (8.0, 9.0)]


def test_the_convergence_rows_divide_by_the_median_of_the_floor_runs(bench: ModuleType) -> None:
    floor = bench.Run(bench.FLOOR, 0, wall_s=4.0)  # the first pair's floor run alone would say 3.00x
    floor.extra["pairs"] = [(7.0, 4.0), (7.5, 6.0), (6.0, 5.0)]  # floor runs 4.0, 6.0, 5.0: median 5.0
    first = bench.Run(bench.DEFAULT_FIRST, 0, wall_s=12.0)
    first.extra["coverage"] = {"announced": 100, "stored": 7, "lists_pending": 9, "snapshots_to_go": 2}
    converged = bench.Run(bench.DEFAULT_CONVERGED, 0, wall_s=6.0)
    points = [{"wall_s": w, "requests": 10, "pending": p, "predicted": 2} for w, p in [(12.0, 9), (13.0, 4)]]
    converged.extra.update(
        taken=4, pending_left=0, series=[*points, {**points[0], "wall_s": 6.0, "pending": 0}]
    )
    verdicts: list[tuple[str, str, bool]] = []
    group = {bench.DEFAULT_FIRST: first, bench.DEFAULT_CONVERGED: converged}
    text = "\n".join(bench._default_lines(group, floor, verdicts, "small"))
    which = "(the median of this run's 3 floor runs, 5.00 s)"
    assert f"ours defaults, first: 12.00 s = 2.40x the floor {which} (target <= 2.5x: met)" in text, text
    assert f"the next one took 6.00 s = 1.20x the full floor {which}" in text, text
    assert f"slowest snapshot 13.00 s = 2.60x the floor {which} (target <= 2.5x)" in text, text
    assert ("first snapshot with the defaults <= 2.5x the floor", "2.40x", True) in verdicts
    assert ("each default snapshot <= 2.5x the floor", "2.60x", False) in verdicts
