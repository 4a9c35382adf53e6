"""The report a user opens, checked figure by figure against the platform's truth: the headline figures and
their growth, every row of the leaderboard table and the pages of three bots (renamed, tied, suspended),
read out of the HTML the report commands write, against SQL written here on the sandbox databases frozen at
each snapshot (never solvelens.analysis).

The scenario is ``tied_history`` and its pages ``tied_pages`` (:mod:`tests.truth.conftest`)."""

from __future__ import annotations

import datetime as dt
import html
import re
import sqlite3
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from solvelens.sandbox.ids import IdCodec
from tests.truth.conftest import snap_of
from tests.truth.scenario import Scenario

_FIGURE = re.compile(
    r'<div class="figure"><div class="label">(.*?)</div><div class="value">(.*?)</div>\s*'
    r'(?:<div class="detail">(.*?)</div>)?',
    re.S,
)
_ROW = re.compile(
    r'<tr data-name="[^"]*"><td class="num">(\d+)</td><td class="nowrap" title="([^"]*)">(.*?)</td>\s*'
    r'<td class="num" data-value="[^"]*">(.*?)</td><td class="num" data-value="[^"]*">(.*?)</td>\s*'
    r'<td class="num" data-value="[^"]*">.*?</td><td class="num" data-value="[^"]*">(.*?)</td>\s*'
    r'<td class="\w+" data-value="[^"]*">(.*?)</td><td class="\w+" data-value="[^"]*">.*?</td>'
    r'<td class="\w+" data-value="[^"]*">(.*?)</td>',
    re.S,
)
_SOLUTION = re.compile(
    r'<tr><td>([^<]*)</td><td>[^<]*</td><td class="num">(\d+=?)</td><td class="num">(\d+)</td>'
)


def _sql(db: Path, query: str, *args: Any) -> list[tuple]:
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return con.execute(query, args).fetchall()
    finally:
        con.close()


def _int(text: str) -> int:
    return int(text.replace(",", "").replace("+", ""))


def _ranked(db: Path) -> dict[str, dict[str, Any]]:
    """Active bots (the leaderboard) by public id: competition rank over points (equal points share the best
    rank), name, points, solutions and votes, from the sandbox's ``bots`` table."""
    rows = _sql(
        db,
        "SELECT id, rank() OVER (ORDER BY total_points DESC), name, total_points, total_solutions, "
        "total_votes FROM bots WHERE status = 'active'",
    )
    codec = IdCodec(int(_sql(db, "SELECT value FROM meta WHERE key = 'seed'")[0][0]))
    keys = ("rank", "name", "points", "solutions", "votes")
    return {codec.encode("bot", r[0]): dict(zip(keys, r[1:], strict=True)) for r in rows}


def _arrow(change: int) -> str:
    """A rank change as the page shows it (up = positive)."""
    return "=" if change == 0 else (f"▲ {change}" if change > 0 else f"▼ {-change}")


def _figures(page: str) -> dict[str, tuple[str, str]]:
    return {html.unescape(k): (html.unescape(v), html.unescape(d or "")) for k, v, d in _FIGURE.findall(page)}


def test_the_headline_figures_are_the_platforms_at_the_newest_snapshot(
    tied_history: Scenario, tied_pages: dict[str, str]
) -> None:
    newest = snap_of(tied_history, "tied").truth
    figures = _figures(tied_pages["report"])
    ranked = _ranked(newest)
    problems, solutions, votes = _sql(
        newest,
        "SELECT count(*), (SELECT count(*) FROM solutions s JOIN problems q ON q.id = s.problem_id "
        "WHERE q.status != 'rejected'), total(comparison_count) FROM problems WHERE status != 'rejected'",
    )[0]
    assert _int(figures["Ranked bots"][0]) == len(ranked)
    assert _int(figures["Problems"][0]) == problems
    assert _int(figures["Solutions"][0]) == solutions
    assert _int(figures["Snapshots"][0]) == len(tied_history.snaps)
    assert _int(figures["Comparisons"][0]) == int(votes)
    leaders = [bot for bot in ranked.values() if bot["rank"] == 1]
    label = "Leader" if len(leaders) == 1 else f"Leaders ({len(leaders)} tied)"
    value, detail = figures[label]
    assert value in {bot["name"] for bot in leaders}
    assert detail == f"{leaders[0]['points']:,} points"
    clock = dt.datetime.fromtimestamp(
        int(_sql(newest, "SELECT value FROM meta WHERE key = 'clock_ms'")[0][0]) / 1000, dt.UTC
    )
    assert figures["Newest snapshot"][0] == f"{clock:%Y-%m-%d %H:%M} UTC"


def test_the_growth_lines_are_the_platforms_change_per_day(
    tied_history: Scenario, tied_pages: dict[str, str]
) -> None:
    """Two simulated days, no gap: each line is the sandbox's change from the first snapshot to the newest
    divided by the days between their clocks."""
    figures = _figures(tied_pages["report"])
    first, newest = snap_of(tied_history, "fresh").truth, snap_of(tied_history, "tied").truth
    query = (
        "SELECT (SELECT value FROM meta WHERE key = 'clock_ms'), count(*), (SELECT count(*) FROM solutions s "
        "JOIN problems q ON q.id = s.problem_id WHERE q.status != 'rejected') FROM problems "
        "WHERE status != 'rejected'"
    )
    (t0, p0, s0), (t1, p1, s1) = _sql(first, query)[0], _sql(newest, query)[0]
    days = (int(t1) - int(t0)) / 86_400_000
    assert days >= 1.9
    for label, change in (("Problems", p1 - p0), ("Solutions", s1 - s0)):
        detail = figures[label][1]
        found = re.match(r"([+-][\d,.]+) per day \(over ", detail)
        assert found, detail
        assert float(found.group(1).replace(",", "")) == pytest.approx(change / days, abs=0.05), detail
    assert s1 > s0, "the platform grew"


def test_every_leaderboard_row_is_the_platforms_rank_name_points_and_change(
    tied_history: Scenario, tied_pages: dict[str, str]
) -> None:
    now = _ranked(snap_of(tied_history, "tied").truth)
    before = _ranked(snap_of(tied_history, "day").truth)
    first = _ranked(snap_of(tied_history, "fresh").truth)
    rows = [tuple(html.unescape(cell) for cell in row) for row in _ROW.findall(tied_pages["report"])]
    assert [int(r[0]) for r in rows] == sorted(int(r[0]) for r in rows), "the table runs by rank"
    shown = {bot_id: (int(rank), name, _int(points)) for rank, bot_id, name, points, *_ in rows}
    assert shown == {bot_id: (b["rank"], b["name"], b["points"]) for bot_id, b in now.items()}
    assert sorted(b["rank"] for b in now.values())[:6] == [1, 1, 3, 4, 5, 5], "the planted ties"
    for _rank, bot_id, _name, _points, points_change, solutions, move, move_first in rows:
        if bot_id in first:  # against the first snapshot, days earlier
            assert move_first == _arrow(first[bot_id]["rank"] - now[bot_id]["rank"]), (bot_id, move_first)
        if bot_id not in before:
            assert move == "new", bot_id
            continue
        assert move == _arrow(before[bot_id]["rank"] - now[bot_id]["rank"]), (bot_id, move)
        assert _int(points_change) == now[bot_id]["points"] - before[bot_id]["points"], bot_id
        assert _int(solutions) == now[bot_id]["solutions"], bot_id
    assert [row[6] for row in rows if row[2] == "TruthNewcomer"] == ["new"]
    assert tied_history.marks["renamed"] in shown and shown[tied_history.marks["renamed"]][1] == "RenamedBot"


@pytest.mark.parametrize("which", ["renamed", "tied"])
def test_the_bot_page_is_the_platforms_rank_points_and_solutions(
    tied_history: Scenario, tied_pages: dict[str, str], which: str
) -> None:
    newest, previous = snap_of(tied_history, "tied").truth, snap_of(tied_history, "day").truth
    bot_id = tied_history.marks[which]
    now, before = _ranked(newest), _ranked(previous)
    me = now[bot_id]
    page = tied_pages[which]
    assert f"<code>{bot_id}</code>" in page and f"Figures of {html.escape(me['name'])}" in page
    assert (me["name"] == "RenamedBot") == (which == "renamed")
    figures = _figures(page)
    tied = sum(bot["points"] == me["points"] for bot in now.values())
    rank, detail = figures["Rank now"]
    assert rank == f"#{me['rank']}"
    assert detail.startswith(f"of {len(now)} ranked bots")
    assert (f"tied on points with {tied - 1} other(s)" in detail) == (tied > 1)
    assert tied > 1 or which != "tied"
    assert _int(figures["Points"][0]) == me["points"]
    below = sum(bot["points"] < me["points"] for bot in now.values()) + (tied - 1) / 2
    assert figures["Percentile"][0] == f"{below / (len(now) - 1):.0%}"
    ranks = [_ranked(snap.truth).get(bot_id, {}).get("rank") for snap in tied_history.snaps]
    assert figures["Peak rank"][0] == f"#{min(r for r in ranks if r is not None)}"
    assert figures["Rank change vs previous"][0] == _arrow(before[bot_id]["rank"] - me["rank"])
    first = _ranked(snap_of(tied_history, "fresh").truth)
    if bot_id in first:
        assert (
            f"vs first {_arrow(first[bot_id]['rank'] - me['rank'])}" in figures["Rank change vs previous"][1]
        )
    assert figures["Solutions / votes"][0] == f"{me['solutions']:,} / {me['votes']:,}"
    # its solutions on listed problems, each with its competition rank within the problem
    internal = IdCodec(int(_sql(newest, "SELECT value FROM meta WHERE key = 'seed'")[0][0])).decode(
        "bot", bot_id
    )
    truth = _sql(
        newest,
        "SELECT title, r, n FROM (SELECT s.bot_id, p.title, "
        "rank() OVER (PARTITION BY s.problem_id ORDER BY round(s.bt_score, 4) DESC) AS r, "
        "count(*) OVER (PARTITION BY s.problem_id) AS n FROM solutions s JOIN problems p "
        "ON p.id = s.problem_id WHERE p.status != 'rejected') WHERE bot_id = ?",
        internal,
    )
    shown = [
        (html.unescape(t), int(r.rstrip("=")), int(n))
        for t, r, n in _SOLUTION.findall(page.split("<h3>Solutions by problem</h3>")[1])
    ]
    assert shown, "the page lists its solutions"
    assert len(shown) == min(len(truth), 40)
    assert not Counter(shown) - Counter(truth), sorted(set(shown) - set(truth))
    if len(truth) > 40:
        assert f"The 40 best of {len(truth)} are shown." in page


def test_the_page_of_a_suspended_bot_says_it_is_not_ranked_and_gives_its_past_ranks(
    tied_history: Scenario, tied_pages: dict[str, str]
) -> None:
    bot_id = tied_history.marks["suspended"]
    page = tied_pages["suspended"]
    past = [_ranked(snap.truth).get(bot_id) for snap in tied_history.snaps]
    assert past[-1] is None and past[-2] is not None
    figures = _figures(page)
    assert figures["Rank now"][0] == "not ranked"
    assert f"{html.escape(past[-2]['name'])} is not on the leaderboard at the newest snapshot" in page
    assert figures["Peak rank"][0] == f"#{min(r['rank'] for r in past if r is not None)}"
