"""The report's chart data (rank history, points trend, movers, rank moves since the previous snapshot,
growth, bot activity, score distribution, categories, ``/stats``, coverage) and the bot pages' (rank, points,
categories), read out of the Vega-Lite specs the report's HTML embeds, against
SQL on the sandbox databases frozen at each snapshot (:mod:`tests.truth.chart_checks`), for two reports:
``tied`` (ties at ranks 1 and 5, a suspension, a newcomer and a rename, a day apart) and ``history`` (an hour,
a gap of days, a problem rejected, a rename, ties reshuffled on every call)."""

from __future__ import annotations

import pytest

from tests.truth import sandbox_truth as truth
from tests.truth.chart_checks import CHART_CHECKS, bot_category_checks, bot_rank_checks, chart_rows
from tests.truth.compare import report
from tests.truth.scenario import Scenario

REPORTS = ("tied", "history")


def _report(request: pytest.FixtureRequest, which: str) -> tuple[Scenario, str]:
    if which == "tied":
        return request.getfixturevalue("tied_history"), request.getfixturevalue("tied_pages")["report"]
    return request.getfixturevalue("history"), request.getfixturevalue("history_report")


@pytest.mark.parametrize("which", REPORTS)
@pytest.mark.parametrize("chart", list(CHART_CHECKS))
def test_chart_data_is_the_platforms(request: pytest.FixtureRequest, which: str, chart: str) -> None:
    scenario, page = _report(request, which)
    lines = CHART_CHECKS[chart](scenario, page)
    assert not lines, report(lines)


@pytest.mark.parametrize("which", REPORTS)
def test_the_charts_checked_are_drawn(request: pytest.FixtureRequest, which: str) -> None:
    """Each chart the checks read is on the page (a chart missing would pass its check vacuously)."""
    _, page = _report(request, which)
    drawn = {key for key in CHART_CHECKS if chart_rows(page, key)}
    assert drawn >= set(CHART_CHECKS) - {"changes_moves"}, sorted(set(CHART_CHECKS) - drawn)


@pytest.mark.parametrize("which", ["renamed", "tied", "suspended"])
def test_bot_page_chart_data_is_the_platforms(
    tied_history: Scenario, tied_pages: dict[str, str], which: str
) -> None:
    bot_id = tied_history.marks[which]
    page = tied_pages[which]
    newest = [s for s in tied_history.snaps if bot_id in truth.ranked(s.truth)]
    name = truth.ranked(newest[-1].truth)[bot_id]["name"]
    assert chart_rows(page, "bot_rank", "rank") and chart_rows(page, "bot_categories", "value"), which
    lines = bot_rank_checks(tied_history, page, bot_id) + bot_category_checks(
        tied_history, page, bot_id, name
    )
    assert not lines, report(lines)
