"""Every figure of a snapshot, of its summary and of ``solvelens diff`` checked against the platform's truth.

Each ``*_checks`` function returns ``{figure: [mismatch line, ...]}`` (empty lists when everything agrees), so
a test asserts one figure and ``benchmarks/truth.py`` counts them all. The shown side is read the way a user
reads it (the store's public views with DuckDB SQL, the command's printed output, ``--json``, ``--csv``); the
truth side is :mod:`tests.truth.sandbox_truth` on the snapshot's frozen copy of the sandbox database.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import re
from pathlib import Path
from typing import Any

from tests.truth import sandbox_truth as truth
from tests.truth.compare import mismatches
from tests.truth.scenario import Scenario, Snap
from tests.truth.store_views import view_rows

Checks = dict[str, list[str]]

#: view -> (truth function, key columns)
VIEWS: dict[str, tuple[Any, tuple[str, ...]]] = {
    "problems": (truth.problems, ("problem_id",)),
    "solutions": (truth.solutions, ("solution_id",)),
    "categories": (truth.categories, ("slug",)),
    "leaderboard": (truth.leaderboard, ("bot_id",)),
    "bots": (truth.bots, ("bot_id",)),
    "platform_stats": (truth.platform_stats, ("metric",)),
}
_ACTIVITY_FIELDS = ("action", "bot_id", "bot_name", "problem_id", "problem_title", "created_at")


def view_checks(scenario: Scenario, snap: Snap) -> Checks:
    """Every row and field of each store view at ``snap`` against the truth, plus the activity feed, the
    bot's own profile, the model leaderboard and the data-quality rows."""
    assert snap.snapshot_id is not None, f"{snap.label}: no snapshot written\n{snap.output}"
    out: Checks = {}
    for view, (fn, key) in VIEWS.items():
        shown = view_rows(scenario.store, view, snap.snapshot_id)
        out[view] = mismatches(f"{view} @ {snap.label}", shown, fn(snap.truth), key)
    out["activity"] = activity_checks(scenario, snap)
    out["bot_me"] = bot_me_checks(scenario, snap)
    out["llm_leaderboard"] = llm_leaderboard_checks(scenario, snap)
    out["llm_families"] = llm_families_checks(scenario, snap)
    out["data_quality"] = data_quality_checks(scenario, snap)
    return out


def bot_me_checks(scenario: Scenario, snap: Snap) -> list[str]:
    """``bot_me`` at ``snap``: the profile of the bot whose key the snapshot used (``marks['me']``), its
    current name included; no row when the scenario has no key."""
    shown = view_rows(scenario.store, "bot_me", snap.snapshot_id)
    me = scenario.marks.get("me") if scenario.api_key else None
    figure = f"bot_me @ {snap.label}"
    if me is None:
        return [f"{figure}: {len(shown)} row(s) shown without an API key"] if shown else []
    return mismatches(figure, shown, truth.bot_me(snap.truth, me), ("bot_id",))


def llm_leaderboard_checks(scenario: Scenario, snap: Snap) -> list[str]:
    """``llm_leaderboard`` at ``snap``: every model's row and rank (empty when not fetched)."""
    if "llm_leaderboard" not in scenario.resources:
        return []
    shown = view_rows(scenario.store, "llm_leaderboard", snap.snapshot_id)
    return mismatches(
        f"llm_leaderboard @ {snap.label}", shown, truth.llm_leaderboard(snap.truth), ("model_name",)
    )


def llm_families_checks(scenario: Scenario, snap: Snap) -> list[str]:
    """``llm_families`` at ``snap``: every model family and its number of models (empty when not fetched)."""
    if "llm_families" not in scenario.resources:
        return []
    shown = view_rows(scenario.store, "llm_families", snap.snapshot_id)
    return mismatches(
        f"llm_families @ {snap.label}", shown, truth.llm_families(snap.truth), ("family",), ("model_count",)
    )


def _earlier(scenario: Scenario, snap: Snap) -> list[Path]:
    """The frozen truths of the snapshots written before ``snap`` (a vote read then stays stored)."""
    taken = [s for s in scenario.snaps if s.snapshot_id is not None]
    return [s.truth for s in taken[: next((i for i, s in enumerate(taken) if s is snap), len(taken))]]


def data_quality_checks(scenario: Scenario, snap: Snap) -> list[str]:
    """Every ``data_quality`` row of ``snap`` (announced, stored, a reason exactly when they differ), and no
    other row, against :func:`tests.truth.sandbox_truth.data_quality`."""
    shown = [
        {**r, "differs": r["reason"] is not None}
        for r in view_rows(scenario.store, "data_quality", snap.snapshot_id)
    ]
    want = truth.data_quality(
        snap.truth,
        llm="llm_leaderboard" in scenario.resources,
        families="llm_families" in scenario.resources,
        families_total=scenario.mode != "platform",  # the real platform's families answer has no total
        votes="comparisons" in scenario.resources,
        earlier=_earlier(scenario, snap),
    )
    return mismatches(
        f"data_quality @ {snap.label}", shown, want, ("resource", "scope"), ("announced", "stored", "differs")
    )


def activity_gap_checks(scenario: Scenario, before: Snap | None, after: Snap) -> list[str]:
    """``activity_gaps`` rows of ``after``: one exactly when the feed no longer reaches the newest event the
    feed served at ``before`` (none for the first snapshot), with its events, times, rate and cadence."""
    shown = view_rows(scenario.store, "activity_gaps", after.snapshot_id)
    want = [] if before is None else truth.activity_gap(before.truth, after.truth)
    return mismatches(f"activity_gaps @ {after.label}", shown, want, ("newest_stored_event_id",), rel=1e-6)


def activity_checks(scenario: Scenario, snap: Snap) -> list[str]:
    """The feed's newest 50 events at ``snap`` are all stored by then, and those first stored by ``snap``
    carry the fields (names included) the platform held at that moment."""
    sid = snap.snapshot_id
    stored = view_rows(scenario.store, "activity", where=f"first_snapshot_id <= {sid}")
    feed = truth.activity_feed(snap.truth)
    ids = {e["event_id"] for e in feed}
    figure = f"activity @ {snap.label}"
    lines = mismatches(figure, [e for e in stored if e["event_id"] in ids], feed, ("event_id",), fields=[])
    fresh = [e for e in stored if e["first_snapshot_id"] == sid and e["event_id"] in ids]
    fresh_ids = {e["event_id"] for e in fresh}
    lines += mismatches(
        figure, fresh, [e for e in feed if e["event_id"] in fresh_ids], ("event_id",), _ACTIVITY_FIELDS
    )
    return lines


def vote_checks(scenario: Scenario, snap: Snap) -> Checks:
    """The votes stored by ``snap``: each one the platform recorded, with its fields (``comparisons``),
    every vote a client can reach through its solutions' lists stored (``comparisons reachable``), the
    votes announced and stored (``vote_coverage``) and each solution announcing more votes than any list
    serves (``comparison_coverage``)."""
    stored = view_rows(scenario.store, "comparisons", where=f"first_snapshot_id <= {snap.snapshot_id}")
    keys = ("problem_id", "solution_a_id", "solution_b_id", "winner", "voter_bot_id")
    figure = f"comparisons @ {snap.label}"
    recorded = mismatches(figure, stored, truth.votes(snap.truth), ("comparison_id",), keys)
    ids = {v["comparison_id"] for v in stored}
    sid = snap.snapshot_id
    coverage = view_rows(scenario.store, "vote_coverage", sid)
    short = view_rows(scenario.store, "comparison_coverage", sid)
    return {
        "vote_coverage": mismatches(
            f"vote_coverage @ {snap.label}",
            coverage,
            [
                {"snapshot_id": sid, **row}
                for row in truth.vote_coverage(snap.truth, earlier=_earlier(scenario, snap))
            ],
            ("snapshot_id",),
        ),
        "comparison_coverage": mismatches(
            f"comparison_coverage @ {snap.label}",
            short,
            truth.comparison_coverage(snap.truth, earlier=_earlier(scenario, snap)),
            ("solution_id",),
        ),
        "comparisons": [line for line in recorded if " missing " not in line],
        "comparisons reachable": [
            f"{figure}: comparison_id={v['comparison_id']} reachable but not stored"
            for v in truth.reachable_votes(snap.truth)
            if v["comparison_id"] not in ids
        ],
    }


_SUMMARY_ROW = re.compile(r"^\W*(\w+)\s+\W\s+([\d,]+)\s+\W\s+([\d,]+)", re.MULTILINE)


def summary_checks(snap: Snap) -> Checks:
    """The snapshot summary's rows per resource and the feed's size against the truth."""
    rows = {m.group(1): int(m.group(2).replace(",", "")) for m in _SUMMARY_ROW.finditer(snap.output)}
    want = {
        "problems": len(truth.problems(snap.truth)),
        "solutions": len(truth.solutions(snap.truth)),
        "categories": len(truth.categories(snap.truth)),
        "leaderboard": len(truth.leaderboard(snap.truth)),
        "bots": len(truth.bots(snap.truth)),
        "platform_stats": len(truth.platform_stats(snap.truth)),
    }
    out: Checks = {
        "summary rows": [
            f"summary @ {snap.label}: {k}: shown {rows.get(k)}, truth {v}"
            for k, v in want.items()
            if rows.get(k) != v
        ]
    }
    feed = re.search(r"activity stored \((\d+) events in the feed", snap.output)
    feed_truth = len(truth.activity_feed(snap.truth))
    shown = int(feed.group(1)) if feed else None
    out["summary feed"] = (
        [] if shown == feed_truth else [f"summary @ {snap.label}: feed shown {shown}, truth {feed_truth}"]
    )
    return out


def clock_of(snap: Snap) -> dt.datetime:
    """The platform's simulated clock frozen with ``snap`` (UTC)."""
    return dt.datetime.fromtimestamp(truth.clock_ms(snap.truth) / 1000, dt.UTC)


# -- solvelens diff ----------------------------------------------------------------------------------------

TOP_N, MIN_MOVE = 10, 3
#: diff kind -> (terminal heading, key columns, compared fields)
DIFF_KINDS: dict[str, tuple[str, tuple[str, ...], tuple[str, ...]]] = {
    "problems_added": ("Problems added", ("problem_id",), ("title", "status", "category")),
    "problems_removed": ("Problems no longer listed", ("problem_id",), ("title", "status")),
    "status_changes": ("Problem status changes", ("problem_id",), ("before", "after")),
    "solutions_added": ("Solutions added", ("problem_id",), ("before", "after", "added")),
    "top_solution_changes": ("Top solution changed hands", ("problem_id",), ()),
    "top_entered": (f"Entered the top {TOP_N}", ("bot_id",), ("rank_before", "rank_after")),
    "top_left": (f"Left the top {TOP_N}", ("bot_id",), ("rank_before", "rank_after")),
    "rank_moves": (f"Rank moves of {MIN_MOVE}+ places", ("bot_id",), ("rank_before", "rank_after", "move")),
    "points": ("Points gained", ("bot_id",), ("points_before", "points_after", "gained")),
    "new_bots": ("New bots", ("bot_id",), ("name",)),
    "renamed_bots": ("Bots renamed", ("bot_id",), ("name_before", "name_after")),
    "stats_deltas": ("Platform statistics", ("metric",), ("before", "after", "delta")),
}


def diff_truth(a: Snap, b: Snap) -> dict[str, list[dict[str, Any]]]:
    """Every kind of change from ``a`` to ``b`` by SQL on their frozen databases."""
    x, y = a.truth, b.truth
    return {
        "problems_added": truth.problems_added(x, y),
        "problems_removed": truth.problems_removed(x, y),
        "status_changes": truth.status_changes(x, y),
        "solutions_added": truth.solutions_added(x, y),
        "top_solution_changes": truth.top_solution_changes(x, y),
        "top_entered": truth.top_entered(x, y, TOP_N),
        "top_left": truth.top_left(x, y, TOP_N),
        "rank_moves": truth.rank_moves(x, y, MIN_MOVE),
        "points": truth.points(x, y),
        "new_bots": truth.new_bots(x, y),
        "renamed_bots": truth.renamed_bots(x, y),
        "stats_deltas": truth.stats_deltas(x, y),
    }


def _diff_args(scenario: Scenario, a: Snap, b: Snap, *fmt: str) -> list[str]:
    return ["diff", str(a.snapshot_id), str(b.snapshot_id), "--db", str(scenario.store), *fmt]


def diff_checks(scenario: Scenario, a: Snap, b: Snap) -> Checks:
    """``solvelens diff A B`` on the terminal, ``--json`` and ``--csv`` against :func:`diff_truth`:
    figures ``diff json <kind>`` (rows and fields), ``diff json counts``, ``diff terminal``, ``diff csv``,
    ``diff renamed`` (a rename shows) and ``diff times`` (the pair's times are the platform's)."""
    want = diff_truth(a, b)
    solutions_n = truth.solutions_added_count(a.truth, b.truth)
    label = f"{a.label} -> {b.label}"
    out: Checks = {}
    code, text = scenario.cli(*_diff_args(scenario, a, b, "--json"))
    data = json.loads(text) if code == 0 else {}
    for kind, (_, key, fields) in DIFF_KINDS.items():
        out[f"diff json {kind}"] = mismatches(
            f"diff --json {kind} {label}", data.get(kind, []), want[kind], key, fields
        )
    counts = {k: len(v) for k, v in want.items()} | {"solutions_added": solutions_n}
    shown_counts = data.get("counts", {})
    out["diff json counts"] = [
        f"diff --json counts.{k} {label}: shown {shown_counts.get(k, 0)}, truth {v}"
        for k, v in counts.items()
        if shown_counts.get(k, 0) != v
    ]
    out["diff times"] = _time_checks(data, a, b, label)
    code, text = scenario.cli(*_diff_args(scenario, a, b))
    out["diff terminal"] = _terminal_checks(code, text, counts, label)
    out["diff csv"] = _csv_checks(scenario, a, b, want, solutions_n, label)
    out["diff renamed"] = [
        f"diff terminal {label}: rename {r['name_before']} -> {r['name_after']} not shown"
        for r in want["renamed_bots"]
        if f"{r['name_before']} -> {r['name_after']}" not in text
    ]
    return out


def _time_checks(data: dict[str, Any], a: Snap, b: Snap, label: str) -> list[str]:
    lines = []
    for side, snap in (("a", a), ("b", b)):
        shown = data.get(side, {}).get("taken_at")
        got = dt.datetime.fromisoformat(shown.replace("Z", "+00:00")) if shown else None
        if got != clock_of(snap):
            lines.append(
                f"diff --json {side}.taken_at {label}: shown {shown}, "
                f"truth {clock_of(snap):%Y-%m-%dT%H:%M:%SZ}"
            )
    return lines


def _terminal_checks(code: int, text: str, counts: dict[str, int], label: str) -> list[str]:
    if code != 0:
        return [f"diff terminal {label}: exit {code}: {text.strip()[:200]}"]
    lines = []
    for kind, (heading, _, _) in DIFF_KINDS.items():
        found = re.search(rf"^{re.escape(heading)} \(([\d,]+)\)", text, re.MULTILINE)
        shown = int(found.group(1).replace(",", "")) if found else 0
        if shown != counts[kind]:
            lines.append(f"diff terminal {label}: '{heading} (N)': shown {shown}, truth {counts[kind]}")
    nothing = "Nothing changed." in text
    if nothing != (not any(counts.values())):
        lines.append(f"diff terminal {label}: 'Nothing changed.' shown={nothing}, truth changes={counts}")
    return lines


def _csv_checks(
    scenario: Scenario, a: Snap, b: Snap, want: dict[str, list[dict[str, Any]]], solutions_n: int, label: str
) -> list[str]:
    code, text = scenario.cli(*_diff_args(scenario, a, b, "--csv"))
    rows = list(csv.DictReader(io.StringIO(text))) if code == 0 else []
    lines = []
    for kind in DIFF_KINDS:
        ids = sorted(r["id"] for r in rows if r["kind"] == kind)
        key = DIFF_KINDS[kind][1][0]
        if ids != sorted(str(r[key]) for r in want[kind]):
            lines.append(f"diff --csv {label}: {kind}: {len(ids)} rows shown, truth {len(want[kind])}")
    added = sum(int(float(r["change"])) for r in rows if r["kind"] == "solutions_added")
    if added != solutions_n:
        lines.append(
            f"diff --csv {label}: solutions added (sum of change): shown {added}, truth {solutions_n}"
        )
    return lines


def feed_gap_checks(before: Snap, after: Snap) -> list[str]:
    """The summary's warning of events missed between two snapshots: shown exactly when the feed at
    ``after`` no longer reaches the newest event of the feed at ``before`` (event ids are serial), naming
    those two events."""
    newest = max(int(e["event_id"]) for e in truth.activity_feed(before.truth))
    oldest = min(int(e["event_id"]) for e in truth.activity_feed(after.truth))
    want = (newest, oldest) if oldest > newest + 1 else None
    found = re.search(r"events missed between event (\d+) .*?and event (\d+)", after.output, re.DOTALL)
    shown = (int(found.group(1)), int(found.group(2))) if found else None
    if shown == want:
        return []
    return [f"summary @ {after.label}: events missed shown {shown}, truth {want} (ids between them)"]
