"""The report's headline "Comparisons" against the truth (issue 29): the votes the store holds, with the
platform's stated figure (``/stats totalComparisons``, the sum of the problems' counts, which undercounts
votes whose counts never moved) beside it, never the platform's figure alone. The ``votes`` scenario holds a
vote no count announces; the truth is SQL on its store and on the sandbox frozen at the newest snapshot."""

from __future__ import annotations

import html
import re
import sqlite3

import duckdb

from tests.truth.scenario import Scenario

_FIGURE = re.compile(
    r'<div class="figure"><div class="label">(.*?)</div><div class="value">(.*?)</div>\s*'
    r'(?:<div class="detail">(.*?)</div>)?',
    re.S,
)


def test_the_headline_comparisons_are_the_stored_votes_beside_the_platforms_figure(
    votes: Scenario, votes_report: str
) -> None:
    with duckdb.connect(str(votes.store), read_only=True) as con:
        stored = con.execute("SELECT count(DISTINCT comparison_id) FROM comparisons").fetchone()[0]
    newest = votes.snaps[-1].truth
    with sqlite3.connect(f"file:{newest}?mode=ro", uri=True) as con:
        stated = con.execute(
            "SELECT total(comparison_count) FROM problems WHERE status != 'rejected'"
        ).fetchone()[0]
    assert stored != int(stated)  # the scenario's hidden vote, the capped and the rejected problem's votes
    figures = {
        html.unescape(k): (html.unescape(v), html.unescape(d or ""))
        for k, v, d in _FIGURE.findall(votes_report)
    }
    value, detail = figures["Comparisons"]
    assert int(value.replace(",", "")) == stored
    assert f"the platform states {int(stated):,}" in detail, detail
