"""The report's model rankings checked against the platform's truth (:mod:`tests.truth.model_truth`): the
arena's charts (scores with intervals, predicted win rates, rank over time) and caption, the three-rankings
table and its sentence, and the percentile leaderboard chart, read from the report's HTML (the embedded
Vega-Lite specs and the page's text) as a user reads them.

Each ``*_checks`` function takes the scenario and the report's HTML text and returns mismatch lines (empty
when the page agrees). :data:`MODEL_CHECKS` run on every report; :data:`ARENA_CHECKS` need a store holding
votes (``--resources comparisons``). Tolerances: :data:`tests.truth.model_truth.REL` for scores and bounds,
whole points as the table rounds them (±0.5 and that tolerance), ranks exact unless two bounds lie within
the tolerance of each other.
"""

from __future__ import annotations

import functools
import html
import itertools
import re
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.truth import model_truth as mt
from tests.truth import separation_truth as st
from tests.truth.chart_checks import chart_rows
from tests.truth.checks import clock_of
from tests.truth.compare import mismatches
from tests.truth.scenario import Scenario, Snap

Row = dict[str, Any]
#: The arena chart draws the best 20 ranked models, the heatmap 12 (a phone lists its 10 most one-sided
#: pairs instead), the rank chart today's best 10.
SCORES_TOP, HEATMAP_TOP, RANK_TOP, PHONE_PAIRS = 20, 12, 10, 10
DASH = "–"
#: Elo points: the separated models' shift is a difference of two fits, each stopped by the analysis at
#: choix's ``tol=1e-6·n`` (seen: 3e-6 off the fits to 1e-10 here).
SHIFT_TOL = 0.005


def _written(scenario: Scenario) -> list[Snap]:
    return [s for s in scenario.snaps if s.snapshot_id is not None]


def _when(snap: Snap) -> str:
    return f"{clock_of(snap):%Y-%m-%dT%H:%M:%SZ}"


@functools.cache
def _windows(truths: tuple[Path, ...]) -> tuple[tuple[int, mt.Votes, dict[str, Row]], ...]:
    """(index of the snapshot, its votes, its fit) per snapshot that first stored a decisive vote; the
    newest window is the full fit (:data:`~tests.truth.model_truth.N_BOOT` resamples)."""
    newest = truths[-1]
    votes = [mt.arena_votes(list(truths[: k + 1]), newest) for k in range(len(truths))]
    keep = [
        k for k, v in enumerate(votes) if v.decisive.keys() - (votes[k - 1].decisive.keys() if k else set())
    ]
    if not keep:
        return ()
    return tuple(
        (k, votes[k], mt.arena_fit(votes[k], mt.N_BOOT if k == keep[-1] else mt.WINDOW_BOOT)) for k in keep
    )


def arena_windows(scenario: Scenario) -> tuple[tuple[Snap, mt.Votes, dict[str, Row]], ...]:
    """The arena's truth at each window of ``scenario`` (cached per scenario state)."""
    snaps = _written(scenario)
    return tuple((snaps[k], v, f) for k, v, f in _windows(tuple(s.truth for s in snaps)))


@functools.cache
def _fits(truths: tuple[Path, ...]) -> dict[int, st.Separation]:
    return dict(st.windows(list(truths)))


def window_fits(scenario: Scenario) -> dict[int, st.Separation]:
    """How the arena's fit stands at each window of ``scenario`` (:mod:`tests.truth.separation_truth`), by
    snapshot id (cached per scenario state)."""
    snaps = _written(scenario)
    return {snaps[k].snapshot_id: sep for k, sep in _fits(tuple(s.truth for s in snaps)).items()}


def settle(want: Row, shown: Row | None) -> Row:
    """``want`` with the shown rank where the tolerance allows it (``ranks``), ``ranks`` dropped."""
    out = {k: v for k, v in want.items() if k != "ranks"}
    if shown is not None and shown["rank"] in want["ranks"]:
        out["rank"] = shown["rank"]
    return out


def _best(fit: dict[str, Row], top: int) -> list[str]:
    """The ``top`` ranked models by score, best first."""
    ranked = sorted((m for m, r in fit.items() if r["ranked"]), key=lambda m: (-fit[m]["score"], m))
    return ranked[:top]


def arena_scores_checks(scenario: Scenario, page: str) -> list[str]:
    """The arena scores chart: the best 20 ranked models ("#rank  model"), each with its score, interval,
    rank, decisive votes and wins."""
    fit = arena_windows(scenario)[-1][2]
    rows = [r for r in chart_rows(page, "arena_scores", "label", "score")]
    shown = {r["label"]: r for r in rows}
    want = []
    for model in _best(fit, SCORES_TOP):
        row = settle({"label": model, **fit[model]}, shown.get(model))
        row.pop("ranked")
        want.append(row | {"name": f"#{row['rank']}  {model}"})
    return mismatches("arena_scores", rows, want, ("label",), rel=mt.REL)


def arena_win_rate_checks(scenario: Scenario, page: str) -> list[str]:
    """The predicted win-rate heatmap: every ordered pair of the best 12 ranked models, the fitted
    probability that the row's model wins."""
    fit = arena_windows(scenario)[-1][2]
    best = _best(fit, HEATMAP_TOP)
    want = [
        {"label_a": a, "label_b": b, "p_a_wins": mt.win_probability(fit[a]["score"], fit[b]["score"])}
        for a in best
        for b in best
        if a != b
    ]
    rows = chart_rows(page, "arena_win_rate", "label_a", "p_a_wins")
    return mismatches("arena_win_rate", rows, want, ("label_a", "label_b"), rel=mt.REL)


#: The rank chart's legend "Fit": how each way a window's fit stands is drawn (filled only where measured).
_FIT_MARKS = {
    "measured": "measured",
    "separated": "diverged, unranked only",
    "diverged": "diverged among ranked",
}


def _fit_mark(window: st.Separation) -> str:
    """The legend entry of a window's points: as its fit stands, or "diverged, one ranked" when it diverged
    while fewer than 2 models were ranked (no ranking among ranked models there)."""
    alone = window.fit == "diverged" and len(window.ranked) < 2
    return "diverged, one ranked" if alone else _FIT_MARKS[window.fit]


def arena_rank_checks(scenario: Scenario, page: str) -> list[str]:
    """The arena rank over time: at each snapshot that first stored a decisive vote, today's best 10
    ranked models (by rank, then score) where ranked then, with that window's rank, score, interval,
    decisive votes so far and how its fit stands (``fit``: measured, separated or diverged; ``fit_mark``: the
    legend entry its point is drawn as)."""
    windows = arena_windows(scenario)
    fits = window_fits(scenario)
    newest = windows[-1][2]
    keep = sorted((m for m, r in newest.items() if r["ranked"]), key=lambda m: (newest[m]["rank"],
                  -newest[m]["score"]))[:RANK_TOP]  # fmt: skip
    rows = chart_rows(page, "arena_rank", "snapshot_id", "label", "rank")
    shown = {(r["snapshot_id"], r["label"]): r for r in rows}
    want = []
    for snap, _votes, fit in windows:
        for model in keep:
            if model not in fit or not fit[model]["ranked"]:
                continue
            row = settle(fit[model], shown.get((snap.snapshot_id, model)))
            want.append(
                {"snapshot_id": snap.snapshot_id, "taken_at": _when(snap), "label": model}
                | {k: row[k] for k in ("rank", "score", "lower", "upper", "comparisons")}
                | {"fit": fits[snap.snapshot_id].fit, "fit_mark": _fit_mark(fits[snap.snapshot_id])}
            )
    return mismatches("arena_rank", rows, want, ("snapshot_id", "label"), rel=mt.REL)


_PAIR = re.compile(r"<li>(.*?) over (.*?): (\d+)%</li>")


def phone_pairs_checks(scenario: Scenario, page: str) -> list[str]:
    """The list a phone shows instead of the heatmap: the 10 most one-sided pairs of the best 12 ranked
    models, each "favourite over other: p%" with the favourite's fitted win probability, most one-sided
    first; the heading names how many pairs of how many models."""
    fit = arena_windows(scenario)[-1][2]
    best = _best(fit, HEATMAP_TOP)
    p = {(a, b): mt.win_probability(fit[a]["score"], fit[b]["score"]) for a in best for b in best if a != b}
    block = page.split('data-phone-list="arena_win_rate"', 1)[-1].split("</div>", 1)[0]
    shown = [(html.unescape(a), html.unescape(b), int(pct)) for a, b, pct in _PAIR.findall(block)]
    want_n = min(PHONE_PAIRS, len(best) * (len(best) - 1) // 2)
    lines = []
    if (
        len(shown) != want_n
        or f"The {want_n} most one-sided pairs of the {len(best)} best-ranked" not in block
    ):
        lines.append(f"phone pairs: {len(shown)} shown, truth {want_n} pairs of {len(best)} models")
    cut = sorted((v for v in p.values() if v >= 0.5), reverse=True)[want_n - 1] if want_n else 1.0
    for a, b, pct in shown:
        v = p.get((a, b))
        if v is None or v < 0.5 - mt.REL or abs(100 * v - pct) > 0.5 + 1e-6 or v < cut - mt.REL:
            lines.append(f"phone pairs: '{a} over {b}: {pct}%', truth {v!r} (the 10th largest {cut:.4f})")
    values = [p.get((a, b), 0.0) for a, b, _ in shown]
    if any(x < y - mt.REL for x, y in itertools.pairwise(values)):
        lines.append(f"phone pairs: not most one-sided first: {values}")
    return lines


def caption_after(page: str, heading: str) -> str:
    """The caption under the chart headed ``heading``, as text ("" when none)."""
    found = re.search(re.escape(heading) + r'</h3>\s*<p class="caption">(.*?)</p>', page, re.S)
    return html.unescape(found.group(1)) if found else ""


def arena_caption_checks(scenario: Scenario, page: str) -> list[str]:
    """The arena scores' caption: the decisive votes fitted, the skips, the votes between two solutions of
    one model and those on solutions no longer listed, the resamples and the votes needed to be ranked."""
    votes = arena_windows(scenario)[-1][1]
    left_out = f"{votes.skips:,} skips, {votes.same_entry:,} votes between two solutions of one model"
    if votes.unmatched:
        left_out += f", {votes.unmatched:,} votes on solutions no longer listed"
    want = [
        f"fitted to {len(votes.decisive):,} stored votes between two models' solutions "
        f"(left out: {left_out})",
        f"95% intervals from {mt.N_BOOT:,} bootstrap resamples of the votes",
        f"models with fewer than {mt.MIN_COMPARISONS} votes are not ranked",
    ]
    caption = caption_after(page, "Arena scores with 95% intervals")
    out = [f"arena caption: {w!r} not in {caption!r}" for w in want if w not in caption]
    return out + _evidence_note_checks(scenario, votes, caption)


def separation_caption_checks(scenario: Scenario, page: str) -> list[str]:
    """The arena scores' caption on a diverged fit (:attr:`ArenaResult.diverged`): none when the newest
    fit is measured; when it diverges only for unranked models, those models, why ("never lost", or "one-sided
    (X never lost; Y never won)") and the bound of the ranked scores' shift without their votes (the truth's
    shift rounded up to a tenth of a point; either tenth within :data:`SHIFT_TOL` of one); else the
    warning that the scores only order the models."""
    truth = list(window_fits(scenario).values())[-1]
    caption = caption_after(page, "Arena scores with 95% intervals")
    if truth.fit == "measured":
        return [f"arena caption: the fit is measured, yet {caption!r}"] if "diverges" in caption else []
    if truth.fit == "diverged" or truth.shift is None:
        head = "The fit diverges: the votes are perfectly separated"
        return [] if caption.startswith(head) else [f"arena caption: {head!r} does not open {caption!r}"]
    many = len(truth.separated) > 1
    if set(truth.separated) <= set(truth.never_lost):
        why = " and never lost"
    elif set(truth.separated) <= set(truth.never_won):
        why = " and never won"
    else:
        named = [f"{', '.join(names)} never {what}" for names, what in
                 ((truth.never_lost, "lost"), (truth.never_won, "won")) if names]  # fmt: skip
        why = f" and one-sided ({'; '.join(named)})"
    head = (
        f"The fit diverges only for {', '.join(truth.separated)}, which {'are' if many else 'is'} not ranked "
        f"(fewer than {mt.MIN_COMPARISONS} votes){why}: no finite Bradley–Terry score fits"
    )
    found = re.search(r"moves none of them by more than (\d+\.\d) points", caption)
    bounds = {st.shift_bound(max(truth.shift + d, 0.0)) for d in (-SHIFT_TOL, 0.0, SHIFT_TOL)}
    out = [] if caption.startswith(head) else [f"arena caption: {head!r} does not open {caption!r}"]
    if not found or found.group(1) not in bounds:
        out.append(f"arena caption: shift bound {found and found.group(1)!r}, truth {truth.shift:.4f}")
    return out


def rank_caption_checks(scenario: Scenario, page: str) -> list[str]:
    """The rank-over-time caption: at how many of the windows the fit diverged only for models not ranked
    then (named: every model separated at one of them), at how many among the ranked models (2 or more
    ranked), and at how many while at most one model was ranked; no such sentence when no window's fit did."""
    fits = list(window_fits(scenario).values())
    caption = caption_after(page, "Arena rank over time")
    if len(fits) < 2:
        return []
    separated = [f for f in fits if f.fit == "separated"]
    diverged = [f for f in fits if f.fit == "diverged" and len(f.ranked) >= 2]
    alone = [f for f in fits if f.fit == "diverged" and len(f.ranked) < 2]
    names = ", ".join(sorted({m for f in separated for m in f.separated}))
    want = {
        "separated": (
            f"At {len(separated)} of the {len(fits)} snapshots the fit diverged only for models not ranked "
            f"then ({names}): the ranks there are measured among the ranked models"
        ),
        "diverged": (
            f"At {len(diverged)} of the {len(fits)} snapshots the fit diverged among the ranked models: the "
            "ranks there only order them"
        ),
        "alone": (
            f"At {len(alone)} of the {len(fits)} snapshots the fit diverged while at most one model was "
            "ranked: no ranking among ranked models existed there"
        ),
    }
    markers = {
        "separated": "diverged only for",
        "diverged": "diverged among the ranked",
        "alone": "while at most one model was ranked",
    }
    out = []
    for kind, windows in (("separated", separated), ("diverged", diverged), ("alone", alone)):
        if windows and want[kind] not in caption:
            out.append(f"rank caption: {want[kind]!r} not in {caption!r}")
        if not windows and markers[kind] in caption:
            out.append(f"rank caption: no window is {kind}, yet {caption!r}")
    return out


def _evidence_note_checks(scenario: Scenario, votes: mt.Votes, caption: str) -> list[str]:
    """Issue 29 ("fitted to 889 of 1,662 votes"): the caption names the votes stored (every vote reachable at
    a snapshot so far) and those the platform states (the problems' counts, not rejected, at the newest
    snapshot) and says the scores move as the rest arrive, when fewer are stored; no such note otherwise."""
    stored = len(votes.decisive) + votes.skips + votes.same_entry + votes.unmatched
    with sqlite3.connect(f"file:{_written(scenario)[-1].truth}?mode=ro", uri=True) as con:
        (stated,) = con.execute(
            "SELECT coalesce(sum(comparison_count), 0) FROM problems WHERE status != 'rejected'"
        ).fetchone()
    if stored >= stated:
        if "not stored yet" in caption:
            return [f"arena caption: {stored:,} votes stored >= {stated:,} stated, yet {caption!r}"]
        return []
    want = [f"{stored:,} of the {stated:,} votes the platform states", f"{stated - stored:,} not stored yet"]
    return [f"arena caption: {w!r} not in {caption!r}" for w in want if w not in caption]


_TABLE_ROW = re.compile(
    r'<tr><td class="nowrap">([^<]*)</td><td class="num">([^<]*)</td><td class="num nowrap">([^<]*)</td>'
    r'<td class="num">([^<]*)</td><td class="num">([^<]*)</td><td class="num">([^<]*)</td>'
    r'<td class="num">([^<]*)</td><td class="num">([^<]*)</td></tr>'
)
_TABLE_KEYS = ("model", "arena_rank", "arena_score", "platform_rank", "platform_score",
               "platform_win_rate", "percentile_rank", "percentile")  # fmt: skip


def table_rows(page: str) -> list[Row]:
    """The three-rankings table's rows as shown (text cells), in the page's order."""
    body = page.split('<table id="model-rankings"', 1)[-1].split("</table>", 1)[0]
    return [dict(zip(_TABLE_KEYS, map(html.unescape, r), strict=True)) for r in _TABLE_ROW.findall(body)]


def _truth_table(scenario: Scenario, page: str) -> list[Row]:
    """The table's truth: per model ranked by the arena or listed by the platform, each source's rank and
    figure (None where it does not list the model), in the arena's order, then the platform's."""
    fit = arena_windows(scenario)[-1][2]
    newest = _written(scenario)[-1].truth
    platform, board = mt.platform_ranks(newest), mt.percentile_board(newest)
    shown = {r["model"]: r for r in table_rows(page)}
    out = []
    for model in {m for m, r in fit.items() if r["ranked"]} | platform.keys():
        arena = fit[model] if model in fit and fit[model]["ranked"] else None
        if arena is not None:
            shown_rank = shown.get(model, {}).get("arena_rank", "")
            arena = settle(arena, {"rank": int(shown_rank)} if shown_rank.isdigit() else None)
        pct = board.get(model) if model in board and board[model]["ranked"] else None
        if pct is not None:
            shown_rank = shown.get(model, {}).get("percentile_rank", "")
            pct = settle(pct, {"rank": int(shown_rank)} if shown_rank.isdigit() else None)
        out.append({"model": model, "arena": arena, "platform": platform.get(model), "percentile": pct})
    return sorted(
        out,
        key=lambda r: (
            r["arena"] is None,
            -r["arena"]["score"] if r["arena"] else 0.0,
            r["platform"] is None,
            r["platform"]["rank"] if r["platform"] else 0,
            r["model"],
        ),
    )


def _near(text: str, value: float) -> bool:
    """Whether ``text`` ("1,704") is ``value`` rounded to whole points, within the tolerance."""
    shown = float(text.replace(",", ""))
    return abs(shown - value) <= 0.5 + mt.REL * abs(value)


def model_table_checks(scenario: Scenario, page: str) -> list[str]:
    """The three-rankings table: every model the arena ranks or the platform lists, in that order; arena
    rank and score [interval], the platform's rank (equal average scores share one), average score and win
    rate as served, the percentile leaderboard's rank and mean percentile; "–" where a source has none."""
    rows = table_rows(page)
    want = _truth_table(scenario, page)
    lines = []
    if [r["model"] for r in rows] != [w["model"] for w in want]:
        lines.append(f"model table: models {[r['model'] for r in rows]}, truth {[w['model'] for w in want]}")
    shown = {r["model"]: r for r in rows}
    for w in want:
        got = shown.get(w["model"])
        if got is None:
            continue
        a, p, q = w["arena"], w["platform"], w["percentile"]
        expect = {
            "arena_rank": DASH if a is None else str(a["rank"]),
            "platform_rank": DASH if p is None else str(p["rank"]),
            "platform_score": DASH if p is None else f"{p['avg_bt_score']:,.0f}",
            "platform_win_rate": DASH if p is None else f"{p['win_rate']:.1%}",
            "percentile_rank": DASH if q is None else str(q["rank"]),
            "percentile": DASH if q is None else f"{q['value']:.1%}",
        }
        lines += [
            f"model table: {w['model']} {k}: shown {got[k]!r}, truth {v!r}"
            for k, v in expect.items()
            if got[k] != v
        ]
        numbers = re.findall(r"[\d,]+", got["arena_score"])
        ok = (got["arena_score"] == DASH) if a is None else (
            len(numbers) == 3
            and all(_near(t, a[k]) for t, k in zip(numbers, ("score", "lower", "upper"), strict=True))
        )  # fmt: skip
        if not ok:
            truth_text = DASH if a is None else f"{a['score']:.2f} [{a['lower']:.2f}, {a['upper']:.2f}]"
            lines.append(
                f"model table: {w['model']} arena_score: shown {got['arena_score']!r}, truth {truth_text}"
            )
    return lines


def _first(table: list[Row], source: str) -> str:
    """Who ``source`` ranks first, as the sentence names it."""
    ranked = [r for r in table if r[source] is not None]
    if not ranked:
        return ""
    best = min(r[source]["rank"] for r in ranked)
    models = sorted(r["model"] for r in ranked if r[source]["rank"] == best)
    if len(models) == 1:
        return models[0]
    if len(models) == len(ranked):
        return f"all {len(models)} models equal"
    return f"{len(models)} models tied" if len(models) > 3 else " and ".join(models) + " (tied)"


def expected_sentence(table: list[Row]) -> str:
    """The sentence the table's truth calls for: who each ranking puts first and, between the arena and the
    platform, the model(s) whose ranks differ most, with each source's count of ranked models."""
    tops = {
        "the arena": _first(table, "arena"),
        "the platform's /llm-leaderboard": _first(table, "platform"),
        "the percentile leaderboard": _first(table, "percentile"),
    }
    named = {k: v for k, v in tops.items() if v}
    if len(named) < 2:
        return ""
    firsts = set(named.values())
    if len(firsts) == 1 and not next(iter(firsts)).startswith("all "):
        head = f"All {len(named)} rankings put {next(iter(firsts))} first."
    else:
        parts = [
            f"{k} ranks {v}" if v.startswith("all ") else f"{k} puts {v} first" for k, v in named.items()
        ]
        head = "They disagree on the top: " + "; ".join(parts) + "."
    both = [r for r in table if r["arena"] is not None and r["platform"] is not None]
    if len(both) < 2:
        return head
    shift = {r["model"]: abs(r["arena"]["rank"] - r["platform"]["rank"]) for r in both}
    most = max(shift.values())
    if most == 0:
        return head + " The arena and the platform rank the models they share the same way."
    worst = sorted(m for m, s in shift.items() if s == most)
    by = {r["model"]: r for r in table}
    arena_n = sum(r["arena"] is not None for r in table)
    platform_n = sum(r["platform"] is not None for r in table)
    named_models = [
        f"{m} (arena rank {by[m]['arena']['rank']} of {arena_n}, platform rank {by[m]['platform']['rank']} "
        f"of {platform_n})"
        for m in worst[:2]
    ]
    more = f" and {len(worst) - 2} other model(s) by as many places" if len(worst) > 2 else ""
    return head + f" The arena and the platform differ most on {' and '.join(named_models)}{more}."


def sentence_checks(scenario: Scenario, page: str) -> list[str]:
    """The three-rankings table's sentence: exactly the one its truth calls for
    (:func:`expected_sentence`)."""
    want = expected_sentence(_truth_table(scenario, page))
    caption = caption_after(page, "Three model rankings")
    if not want:
        return [f"model sentence: truth none, the caption: {caption!r}"] if "differ" in caption else []
    return [] if caption.endswith(want) else [f"model sentence: shown {caption!r}, truth {want!r}"]


def model_leaderboard_checks(scenario: Scenario, page: str) -> list[str]:
    """The percentile leaderboard chart: every model with contested solutions at the newest snapshot, its
    solutions, contested ones, mean rank percentile and 95% interval, ranked ("#rank  model") or not."""
    board = mt.percentile_board(_written(scenario)[-1].truth)
    rows = chart_rows(page, "model_leaderboard", "llm_model", "value")
    shown = {r["llm_model"]: r for r in rows}
    want = []
    for model, b in board.items():
        if b["value"] is None:
            continue
        found = re.match(r"#(\d+) ", shown.get(model, {}).get("label", ""))
        row = settle(b, {"rank": int(found.group(1))} if found else None)
        label = f"#{row['rank']}  {model}" if b["ranked"] else f"{model} (not ranked)"
        status = "ranked" if b["ranked"] else "too few solutions"
        fields = ("solutions", "contested_solutions", "value", "lo", "hi")
        want.append({"llm_model": model, "label": label, "status": status} | {k: row[k] for k in fields})
    return mismatches("model_leaderboard", rows, want, ("llm_model",), rel=mt.REL)


_BOARD_ROW = re.compile(
    r'<tr(?: class="not-ranked")?><td class="num">([^<]*)</td><td class="nowrap">([^<]*)</td>'
    r'<td class="num">([^<]*)</td><td class="num">([^<]*)</td><td class="num">([^<]*)</td>'
    r'<td class="num">([^<]*)</td><td class="num">([^<]*)</td></tr>'
)


def percentile_table_checks(scenario: Scenario, page: str) -> list[str]:
    """The percentile leaderboard's table: per model (ranked first, by mean percentile), its rank or "not
    ranked", solutions, solutions in contested problems, and mean percentile, top-1 and top-3 rates each
    with its 95% interval ("60.3% [53.5%, 66.4%]")."""
    board = mt.percentile_board(_written(scenario)[-1].truth)
    body = page.split('<th class="num">Mean percentile [95% interval]</th>', 1)[-1].split("</table>")[0]
    rows = [[html.unescape(c) for c in r] for r in _BOARD_ROW.findall(body)]
    lines = []

    def cell(b: Row, k: str, suffix: str) -> str:
        return "–" if b[k] is None else f"{b[k]:.1%} [{b[suffix + 'lo']:.1%}, {b[suffix + 'hi']:.1%}]"

    for rank, model, solutions, contested, value, top1, top3 in rows:
        b = board.get(model)
        if b is None:
            lines.append(f"percentile table: {model} shown, no solution on the platform names it")
            continue
        allowed = {str(r) for r in b["ranks"]} if b["ranked"] else {"not ranked"}
        want = {"rank": allowed, "solutions": {str(b["solutions"])},
                "contested": {str(b["contested_solutions"])}, "value": {cell(b, "value", "")},
                "top1": {cell(b, "top1", "top1_")}, "top3": {cell(b, "top3", "top3_")}}  # fmt: skip
        got = dict(zip(want, (rank, solutions, contested, value, top1, top3), strict=True))
        lines += [
            f"percentile table: {model} {k}: shown {got[k]!r}, truth {sorted(v)}"
            for k, v in want.items()
            if got[k] not in v
        ]
    shown_models = [r[1] for r in rows]
    want_models = sorted(board, key=lambda m: (not board[m]["ranked"], -(board[m]["value"] or -1.0),
                         -board[m]["contested_solutions"], m))  # fmt: skip
    if shown_models != want_models:
        lines.append(f"percentile table: models {shown_models}, truth {want_models}")
    return lines


Check = Callable[[Scenario, str], list[str]]


def _with_votes(check: Check) -> Check:
    """``check``, or when the platform holds no decisive vote between two models: no arena on the page."""

    def checked(scenario: Scenario, page: str) -> list[str]:
        if arena_windows(scenario):
            return check(scenario, page)
        drawn = 'data-chart="arena_scores"' in page
        return ["arena: drawn, but the platform holds no vote between two models"] if drawn else []

    return checked


#: chart or text -> its check: on every report, and on a report of a store holding votes.
MODEL_CHECKS: dict[str, Check] = {
    "model_leaderboard": model_leaderboard_checks,
    "percentile table": percentile_table_checks,
}
ARENA_CHECKS: dict[str, Check] = {
    name: _with_votes(check)
    for name, check in {
        "arena_scores": arena_scores_checks,
        "arena_win_rate": arena_win_rate_checks,
        "arena phone pairs": phone_pairs_checks,
        "arena_rank": arena_rank_checks,
        "arena caption": arena_caption_checks,
        "arena separation": separation_caption_checks,
        "arena_rank caption": rank_caption_checks,
        "model table": model_table_checks,
        "model sentence": sentence_checks,
    }.items()
}
