"""The data of the report's charts, read as the page carries it (the Vega-Lite specs embedded in the report's
HTML, ``<script id="chart-specs">``: exactly what the browser draws), checked against the platform's truth
over every snapshot of a scenario (:mod:`tests.truth.sandbox_truth` on the frozen databases; never
solvelens.analysis).

Each ``*_checks`` function takes the scenario and the report's HTML text and returns mismatch lines (empty
when the chart agrees), so a test asserts one chart and ``benchmarks/truth.py`` counts them.

Rates follow the rule the report states (:mod:`solvelens.analysis.timescale`'s docstring, restated here on
the platform's clocks): per day when the longest stretch of snapshots without a gap spans a day, per hour
when an hour, else per snapshot; a gap is an interval longer than 3 times the lower median interval and
longer than an hour (needs three snapshots); no rate is drawn across a gap or over no time.
"""

from __future__ import annotations

import datetime as dt
import itertools
import json
import re
import statistics
from typing import Any

from tests.truth import sandbox_truth as truth
from tests.truth.checks import clock_of
from tests.truth.compare import mismatches
from tests.truth.scenario import Scenario, Snap

Row = dict[str, Any]
_SPECS = re.compile(r'<script type="application/json" id="chart-specs">(.*?)</script>', re.S)
#: The report's rank charts show today's top N; the movers chart the N biggest rises and falls.
TOP_N, MOVERS_N = 10, 5
MOVERS_WINDOW = dt.timedelta(days=7)
DAY_S, HOUR_S = 86_400.0, 3_600.0


def chart_rows(page: str, key: str, *columns: str) -> list[Row]:
    """The rows of chart ``key``'s inline datasets holding every one of ``columns`` ([] when the page draws
    no such chart)."""
    found = _SPECS.search(page)
    assert found, "the report embeds its chart specs"
    spec = json.loads(found.group(1)).get(key, {})
    return [
        row for rows in spec.get("datasets", {}).values() for row in rows if all(c in row for c in columns)
    ]


def chart_text(page: str, key: str) -> str:
    """Chart ``key``'s whole spec as JSON text ('' when absent): titles, axes, encodings."""
    found = _SPECS.search(page)
    assert found
    spec = json.loads(found.group(1)).get(key)
    return "" if spec is None else json.dumps(spec)


def _written(scenario: Scenario) -> list[Snap]:
    return [s for s in scenario.snaps if s.snapshot_id is not None]


def _when(snap: Snap) -> str:
    """A snapshot's time as the chart data writes it (ISO-8601 UTC to the second)."""
    return f"{clock_of(snap):%Y-%m-%dT%H:%M:%SZ}"


def _numbered(rows: list[Row]) -> list[Row]:
    """``rows`` with ``n``: the how-manieth row of its bot at its time (two snapshots taken at one platform
    time, e.g. one right after a rename, are two points at the same time)."""
    seen: dict[tuple[str, str], int] = {}
    out = []
    for row in rows:
        key = (row["bot_id"], row["taken_at"])
        seen[key] = seen.get(key, 0) + 1
        out.append({**row, "n": seen[key]})
    return out


def _numbered_by(rows: list[Row], column: str) -> list[Row]:
    """``rows`` with ``n``: the how-manieth row of its ``column`` value at its time (:func:`_numbered`)."""
    return _numbered([{**r, "bot_id": r[column]} for r in rows])


def _top(newest: dict[str, Row], n: int) -> tuple[set[str], set[str]]:
    """(bots that must be in the top ``n`` by competition rank, bots tied at the cut that may be)."""
    ranks = sorted(b["rank"] for b in newest.values())
    cut = ranks[n - 1] if len(ranks) >= n else max(ranks, default=0) + 1
    must = {b for b, r in newest.items() if r["rank"] < cut}
    may = {b for b, r in newest.items() if r["rank"] == cut}
    return must, may


def rank_history_checks(scenario: Scenario, page: str, key: str = "rank_history") -> list[str]:
    """The rank chart (``rank_history``) or the points chart (``points_trend``): today's top 10 by the
    platform's competition rank (a tie at the cut: any of the tied bots), at every snapshot where each was
    ranked its rank and points then, always under its name now (one line per bot); for the rank chart each
    end label "<name now>  #<rank now>"."""
    snaps = _written(scenario)
    newest = truth.ranked(snaps[-1].truth)
    rows = [r for r in chart_rows(page, key, "bot_id", "final_rank", "taken_at") if "label" not in r]
    shown = {r["bot_id"] for r in rows}
    must, may = _top(newest, TOP_N)
    lines = []
    if not must <= shown <= must | may or len(shown) != min(TOP_N, len(newest)):
        lines.append(
            f"{key}: bots shown {len(shown)}, truth the top {TOP_N}: {sorted(must - shown)} missing, "
            f"{sorted(shown - must - may)} not in it"
        )
    want = []
    for snap in snaps:
        then = truth.ranked(snap.truth)
        want += [
            {
                "bot_id": b,
                "taken_at": _when(snap),
                "rank": then[b]["rank"],
                "points": then[b]["points"],
                "name": newest[b]["name"],
            }
            for b in shown & then.keys()
        ]
    lines += mismatches(key, _numbered(rows), _numbered(want), ("bot_id", "taken_at", "n"))
    if key == "rank_history":
        labels = chart_rows(page, key, "bot_id", "label")
        want_labels = [{"bot_id": b, "label": f"{newest[b]['name']}  #{newest[b]['rank']}"} for b in shown]
        lines += mismatches(f"{key} end labels", labels, want_labels, ("bot_id",))
    return lines


def _baseline(snaps: list[Snap]) -> Snap:
    """The movers' baseline: the latest snapshot at least 7 days before the newest, else the first."""
    cutoff = clock_of(snaps[-1]) - MOVERS_WINDOW
    earlier = [s for s in snaps if clock_of(s) <= cutoff]
    return earlier[-1] if earlier else snaps[0]


def _moves(a: Snap, b: Snap) -> list[Row]:
    before, after = truth.ranked(a.truth), truth.ranked(b.truth)
    return [
        {
            "bot_id": bot,
            "name": now["name"],
            "rank_start": before[bot]["rank"],
            "rank_end": now["rank"],
            "rank_change": before[bot]["rank"] - now["rank"],
            "points_gain": now["points"] - before[bot]["points"],
            "direction": "up" if before[bot]["rank"] > now["rank"] else "down",
        }
        for bot, now in after.items()
        if bot in before and before[bot]["rank"] != now["rank"]
    ]


def movers_checks(scenario: Scenario, page: str) -> list[str]:
    """The movers chart: against the baseline (7 days before the newest snapshot, else the first), the 5
    bots that rose most then the 5 that fell most by the platform's competition rank (ties by points
    gained, then name, then id), in that order, with their ranks, change and points gained."""
    snaps = _written(scenario)
    if len(snaps) < 2:
        return []
    moved = _moves(_baseline(snaps), snaps[-1])
    up = sorted(
        (m for m in moved if m["rank_change"] > 0),
        key=lambda m: (-m["rank_change"], -m["points_gain"], m["name"], m["bot_id"]),
    )
    down = sorted(
        (m for m in moved if m["rank_change"] < 0),
        key=lambda m: (m["rank_change"], m["points_gain"], m["name"], m["bot_id"]),
    )
    want = up[:MOVERS_N] + down[:MOVERS_N]
    rows = chart_rows(page, "movers", "bot_id", "rank_change")
    lines = mismatches("movers", rows, want, ("bot_id",))
    order = [r["bot_id"] for r in rows]
    if not lines and order != [m["bot_id"] for m in want]:
        lines.append(f"movers: bars in the order {order}, truth {[m['bot_id'] for m in want]}")
    return lines


def changes_moves_checks(scenario: Scenario, page: str, min_move: int = 3) -> list[str]:
    """The "Rank moves since the previous snapshot" chart: every bot that moved ``min_move`` places or
    more between the two newest snapshots (competition ranks), with its ranks and points gained."""
    snaps = _written(scenario)
    if len(snaps) < 2:
        return []
    want = [
        {k: m[k] for k in ("bot_id", "rank_start", "rank_end", "rank_change", "points_gain", "direction")}
        for m in _moves(snaps[-2], snaps[-1])
        if abs(m["rank_change"]) >= min_move
    ]
    return mismatches("changes_moves", chart_rows(page, "changes_moves", "bot_id"), want, ("bot_id",))


def rate_rule(clocks_s: list[float]) -> tuple[str, float | None, float | None]:
    """The report's stated rate rule on snapshot times (seconds, oldest first): (unit name, unit length in
    seconds or None per snapshot, the longest interval a rate is taken over or None for no limit)."""
    gaps = [b - a for a, b in itertools.pairwise(clocks_s)]
    threshold = None
    if len(gaps) >= 2:
        threshold = max(3 * sorted(gaps)[(len(gaps) - 1) // 2], HOUR_S)
    stretch, longest = 0.0, 0.0
    for g in gaps:
        stretch = 0.0 if threshold is not None and g > threshold else stretch + g
        longest = max(longest, stretch)
    if longest >= DAY_S:
        return "day", DAY_S, threshold
    if longest >= HOUR_S:
        return "hour", HOUR_S, threshold
    return "snapshot", None, threshold


def _rates(snaps: list[Snap], totals: list[dict[str, float]]) -> tuple[str, list[Row]]:
    """Per snapshot after the first whose interval is no gap and not empty: each total's change since the
    previous snapshot in the rule's unit, keyed by ``taken_at``; and the unit's name."""
    clocks = [truth.clock_ms(s.truth) / 1000 for s in snaps]
    unit, seconds, threshold = rate_rule(clocks)
    out = []
    for i in range(1, len(snaps)):
        elapsed = clocks[i] - clocks[i - 1]
        if elapsed <= 0 or (threshold is not None and elapsed > threshold):
            continue
        units = elapsed / seconds if seconds else 1.0
        row: Row = {"taken_at": _when(snaps[i])}
        row |= {k: (totals[i][k] - totals[i - 1][k]) / units for k in totals[i]}
        out.append(row)
    return unit, out


def growth_checks(scenario: Scenario, page: str) -> list[str]:
    """The growth chart: problems and solutions the platform lists, their change since the previous
    snapshot per the stated unit (named in each axis title), one bar per interval that is no gap."""
    snaps = _written(scenario)
    if len(snaps) < 2:
        return []
    totals = []
    for s in snaps:
        t = truth.listed_totals(s.truth)
        totals.append({"problems_rate": t["problems"], "solutions_rate": t["solutions"]})
    unit, want = _rates(snaps, totals)
    lines = []
    for column in ("problems_rate", "solutions_rate"):
        rows = chart_rows(page, "platform_growth", "taken_at", column)
        lines += mismatches(f"platform_growth {column}", rows, want, ("taken_at",), (column,))
    text = chart_text(page, "platform_growth")
    for label in ("Problems", "Solutions"):
        if f"{label} per {unit}" not in text:
            lines.append(f"platform_growth: axis '{label} per {unit}' not shown (truth unit: per {unit})")
    return lines


def bot_activity_checks(scenario: Scenario, page: str) -> list[str]:
    """The bot activity chart: solutions and votes added, summed over the bots ranked at both ends of an
    interval (profile counters; a counter that went down adds nothing), per the stated unit; no point over
    a gap or over no time."""
    snaps = _written(scenario)
    if len(snaps) < 2:
        return []
    clocks = [truth.clock_ms(s.truth) / 1000 for s in snaps]
    unit, seconds, threshold = rate_rule(clocks)
    want: list[Row] = []
    for i in range(1, len(snaps)):
        elapsed = clocks[i] - clocks[i - 1]
        if elapsed <= 0 or (threshold is not None and elapsed > threshold):
            continue
        before, after = truth.ranked(snaps[i - 1].truth), truth.ranked(snaps[i].truth)
        units = elapsed / seconds if seconds else 1.0
        for measure, column in (("Solutions", "solutions"), ("Votes", "votes")):
            added = sum(max(after[b][column] - before[b][column], 0) for b in after.keys() & before.keys())
            want.append({"taken_at": _when(snaps[i]), "measure": measure, "rate": added / units})
    rows = chart_rows(page, "bot_activity", "taken_at", "measure", "rate")
    lines = mismatches("bot_activity", rows, want, ("taken_at", "measure"))
    if rows and f"Per {unit}" not in chart_text(page, "bot_activity"):
        lines.append(f"bot_activity: axis 'Per {unit}' not shown")
    return lines


def score_distribution_checks(scenario: Scenario, page: str) -> list[str]:
    """The score histogram: each bar the number of the newest snapshot's solutions (of listed problems, as
    served) of its rank group (by competition rank within the problem: 1, 2-3, 4+) whose score lies in the
    bar's interval (the last one closed), the bars spanning the lowest to the highest score, no solution
    left out."""
    snaps = _written(scenario)
    scores = truth.solution_scores(snaps[-1].truth)
    rows = chart_rows(page, "score_distribution", "group", "bin_start", "bin_end", "solutions")
    if not scores:
        return [f"score_distribution: {len(rows)} bars, truth no solution"] if rows else []

    def group(rank: int) -> str:
        return "rank 1" if rank == 1 else "rank 2-3" if rank <= 3 else "rank 4+"

    low, high = min(s["score"] for s in scores), max(s["score"] for s in scores)
    lines = []
    for row in rows:
        last = abs(row["bin_end"] - high) <= 1e-9 * max(abs(high), 1)
        n = sum(
            1
            for s in scores
            if group(s["rank"]) == row["group"]
            and row["bin_start"] <= s["score"]
            and (s["score"] <= row["bin_end"] if last else s["score"] < row["bin_end"])
        )
        if n != row["solutions"]:
            lines.append(
                f"score_distribution: {row['group']} [{row['bin_start']:.4f}, {row['bin_end']:.4f}): "
                f"shown {row['solutions']}, truth {n}"
            )
    for name in ("rank 1", "rank 2-3", "rank 4+"):
        shown = sum(r["solutions"] for r in rows if r["group"] == name)
        want = sum(1 for s in scores if group(s["rank"]) == name)
        if shown != want:
            lines.append(f"score_distribution: {name}: {shown} solutions in the bars, truth {want}")
    starts, ends = [r["bin_start"] for r in rows], [r["bin_end"] for r in rows]
    if rows and (abs(min(starts) - low) > 1e-6 or abs(max(ends) - high) > 1e-6):
        lines.append(f"score_distribution: bars span {min(starts)}..{max(ends)}, truth scores {low}..{high}")
    return lines


def category_checks(scenario: Scenario, page: str, key: str = "category_problems") -> list[str]:
    """The category charts (``category_problems`` stacked, ``category_maturity``): at every snapshot each
    category's listed problems, mature ones and their share; a category without problems then is 0."""
    want: list[Row] = []
    names: set[str] = set()
    per_snap = [(s, truth.category_counts(s.truth)) for s in _written(scenario)]
    for _, rows in per_snap:
        names |= {r["name"] for r in rows}
    for snap, rows in per_snap:
        by = {r["name"]: r for r in rows}
        for name in names:
            n, mature = (by[name]["problems"], by[name]["mature"]) if name in by else (0, 0)
            row = {"taken_at": _when(snap), "name": name, "maturity_rate": mature / n if n else 0.0}
            want.append(row | ({"problems": n, "mature": mature} if key == "category_problems" else {}))
    rows = chart_rows(page, key, "taken_at", "name", "maturity_rate")
    return mismatches(key, _numbered_by(rows, "name"), _numbered_by(want, "name"), ("taken_at", "name", "n"))


def platform_stats_checks(scenario: Scenario, page: str) -> list[str]:
    """The ``/stats`` chart: every figure the platform served at every snapshot."""
    want = [
        {"taken_at": _when(s), **row} for s in _written(scenario) for row in truth.platform_stats(s.truth)
    ]
    rows = chart_rows(page, "platform_stats", "taken_at", "metric", "value")
    return mismatches(
        "platform_stats chart", _numbered_by(rows, "metric"), _numbered_by(want, "metric"),
        ("taken_at", "metric", "n"),
    )  # fmt: skip


def coverage_checks(scenario: Scenario, page: str) -> list[str]:
    """The coverage chart: every UTC day from the first snapshot's to the newest's, with its snapshots."""
    days = [clock_of(s).date() for s in _written(scenario)]
    want = []
    day = min(days)
    while day <= max(days):
        n = days.count(day)
        want.append({"day": day.isoformat(), "snapshots": n, "covered": n > 0})
        day += dt.timedelta(days=1)
    return mismatches("coverage", chart_rows(page, "coverage", "day", "snapshots"), want, ("day",))


def bot_rank_checks(scenario: Scenario, page: str, bot_id: str) -> list[str]:
    """A bot page's rank and points charts: at every snapshot the ranked bots and, where the bot was ranked,
    its competition rank, points, Elo and percentile (the share of the other ranked bots it is ahead of, a
    bot tied on points counting half); where it was not, no rank, points or Elo (a gap in the line)."""
    ranks, points = [], []
    for snap in _written(scenario):
        then = truth.ranked(snap.truth)
        if bot_id not in then:  # a gap in its lines
            empty = {"rank": None, "ranked_bots": len(then), "points": None, "percentile": None}
            ranks.append({"taken_at": _when(snap), **empty})
            points.append({"taken_at": _when(snap), "points": None, "elo": None})
            continue
        me, n = then[bot_id], len(then)
        below = sum(b["points"] < me["points"] for b in then.values())
        tied = sum(b["points"] == me["points"] for b in then.values())
        when = _when(snap)
        ranks.append(
            {
                "taken_at": when,
                "rank": me["rank"],
                "ranked_bots": n,
                "points": me["points"],
                "percentile": (below + (tied - 1) / 2) / (n - 1) if n > 1 else None,
            }
        )
        elo = next(b["elo"] for b in truth.bots(snap.truth) if b["bot_id"] == bot_id)
        points.append({"taken_at": when, "points": me["points"], "elo": elo})
    lines = mismatches("bot_rank", chart_rows(page, "bot_rank", "taken_at", "rank"), ranks, ("taken_at",))
    if len(ranks) >= 2:
        shown = chart_rows(page, "bot_points", "taken_at", "points")
        lines += mismatches("bot_points", shown, points, ("taken_at",))
    return lines


def _percentiles(
    snap: Snap, by: str = "bot_id", split: bool = True
) -> dict[str, dict[str, list[float | None]]]:
    """``by`` (a solution column: bot id, llm model) -> category (and ``all``; only ``all`` without
    ``split``) -> each of its solutions' rank percentile within its problem (None for a problem with a
    single solution): (n - rank - (tied - 1) / 2) / (n - 1)."""
    sols = truth.solutions(snap.truth)
    category = {p["problem_id"]: p["category"] or "uncategorised" for p in truth.problems(snap.truth)}
    size: dict[str, int] = {}
    ties: dict[tuple[str, int], int] = {}
    for s in sols:
        size[s["problem_id"]] = size.get(s["problem_id"], 0) + 1
        ties[(s["problem_id"], s["rank"])] = ties.get((s["problem_id"], s["rank"]), 0) + 1
    out: dict[str, dict[str, list[float | None]]] = {}
    for s in sols:
        n, t = size[s["problem_id"]], ties[(s["problem_id"], s["rank"])]
        value = (n - s["rank"] - (t - 1) / 2) / (n - 1) if n > 1 else None
        mine = out.setdefault(s[by] or "unknown", {})
        for key in (category[s["problem_id"]], "all") if split else ("all",):
            mine.setdefault(key, []).append(value)
    return out


def bot_category_checks(scenario: Scenario, page: str, bot_id: str, name: str) -> list[str]:
    """A bot page's category chart at the newest snapshot: per category it has solutions in (and ``all``)
    its solutions, its mean rank percentile over its contested ones, and the median over every bot with
    contested solutions there of that bot's mean."""

    def mean(values: list[float | None]) -> float | None:
        known = [v for v in values if v is not None]
        return sum(known) / len(known) if known else None

    every = _percentiles(_written(scenario)[-1])
    want = []
    for cat, values in every.get(bot_id, {}).items():
        if mean(values) is None:
            continue
        means = [m for bot in every.values() if (m := mean(bot.get(cat, []))) is not None]
        base = {"category": cat, "solutions": len(values)}
        want.append({**base, "who": name, "value": mean(values)})
        want.append({**base, "who": "median bot", "value": statistics.median(means)})
    rows = chart_rows(page, "bot_categories", "category", "who", "value")
    return mismatches("bot_categories", rows, want, ("category", "who"))


def model_trend_checks(scenario: Scenario, page: str) -> list[str]:
    """The models-over-time chart: at every snapshot each model shown, its solutions and the mean rank
    percentile within their problems of its contested ones (see :func:`_percentiles`)."""
    want = []
    for snap in _written(scenario):
        for model, parts in _percentiles(snap, "llm_model", split=False).items():
            known = [v for v in parts["all"] if v is not None]
            value = sum(known) / len(known) if known else None
            want.append({"taken_at": _when(snap), "llm_model": model, "solutions": len(parts["all"])})
            want[-1]["value"] = value
    rows = chart_rows(page, "model_trend", "taken_at", "llm_model", "value")
    shown = {r["llm_model"] for r in rows}
    want = [w for w in want if w["llm_model"] in shown]  # the ranked models the chart names
    return mismatches(
        "model_trend", _numbered_by(rows, "llm_model"), _numbered_by(want, "llm_model"),
        ("taken_at", "llm_model", "n"),
    )  # fmt: skip


#: chart key -> its check, for the tests and the sweep.
CHART_CHECKS = {
    "rank_history": rank_history_checks,
    "points_trend": lambda scenario, page: rank_history_checks(scenario, page, "points_trend"),
    "movers": movers_checks,
    "changes_moves": changes_moves_checks,
    "platform_growth": growth_checks,
    "bot_activity": bot_activity_checks,
    "score_distribution": score_distribution_checks,
    "category_problems": category_checks,
    "category_maturity": lambda scenario, page: category_checks(scenario, page, "category_maturity"),
    "platform_stats": platform_stats_checks,
    "coverage": coverage_checks,
    "model_trend": model_trend_checks,
}
