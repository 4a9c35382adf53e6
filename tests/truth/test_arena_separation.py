"""The arena's divergence figures against the platform's truth (:mod:`tests.truth.separation_truth`: SQL on
the sandbox's frozen databases, the strongly connected groups of the win graph, choix refitted here), on the
``votes`` scenario. Its ``day`` snapshot is separated already: ``unknown`` (the capped pair's solutions)
lost the one vote the simulated day cast on that problem against another model's new solution, and never
won. Its ``again`` snapshot adds the truth sweep's case (seed 1, default budget: ``unknown``, 3 votes, all
won): 3 votes all won by a solution of a new model (``truth-unbeaten``) against a ranked model's
(``marks['unbeaten']``). The store and report are the scenario's own: no snapshot is added."""

from __future__ import annotations

import polars as pl
import pytest

from solvelens import analysis as an
from tests.truth.compare import report
from tests.truth.model_checks import (
    SHIFT_TOL,
    arena_rank_checks,
    rank_caption_checks,
    separation_caption_checks,
    window_fits,
)
from tests.truth.scenario import Scenario


@pytest.fixture(scope="module")
def point_fit(votes: Scenario) -> an.ArenaResult:
    """The arena of the ``votes`` store; one resample (the figures checked here are the point fit's)."""
    return an.arena(an.load(votes.store), bootstrap=1, window_bootstrap=1)


def test_the_separated_models_and_their_shift_are_the_platforms(
    votes: Scenario, point_fit: an.ArenaResult
) -> None:
    truth = list(window_fits(votes).values())[-1]
    assert truth.fit == "separated" and truth.separated == ("truth-unbeaten", "unknown"), truth
    assert len(truth.ranked) >= 5 and truth.shift is not None
    result = point_fit
    assert result.comparisons == truth.votes
    assert (result.diverged, result.never_lost, result.never_won) == (True, truth.never_lost, truth.never_won)
    assert result.separated == truth.separated
    assert result.separated_shift == pytest.approx(truth.shift, abs=SHIFT_TOL)


def test_the_caption_names_the_separated_models_and_the_bound_of_their_shift(
    votes: Scenario, votes_report: str
) -> None:
    """The report's caption of the arena scores: the models the divergence is confined to, why ("X never
    lost; Y never won"), and the shift's bound (:func:`~tests.truth.model_checks.separation_caption_checks`,
    which the truth sweep runs on every seed)."""
    assert list(window_fits(votes).values())[-1].fit == "separated"
    lines = separation_caption_checks(votes, votes_report)
    assert not lines, report(lines)


def test_each_rank_window_says_whether_its_fit_was_separated(
    votes: Scenario, votes_report: str, point_fit: an.ArenaResult
) -> None:
    """The rank over time fits each snapshot's votes so far: the ``day`` window is separated already
    (``unknown`` lost its one vote against another model), ``again`` too (and the planted model). Each
    window's ``fit`` and separated models are the truth's; the chart's points carry it and its caption counts
    those windows."""
    truth = window_fits(votes)
    over = point_fit.over_time
    shown = {
        sid: (sorted(fits), tuple(sorted(names)))
        for sid, fits, names in over.group_by("snapshot_id")
        .agg(pl.col("fit").unique(), pl.col("label").filter("separated"))
        .iter_rows()
    }
    assert shown == {sid: ([sep.fit], sep.separated) for sid, sep in truth.items()}
    separated = [sep for sep in truth.values() if sep.fit == "separated"]
    assert len(separated) >= 2 and len(truth) >= 3, "the scenario has windows of both kinds"
    lines = rank_caption_checks(votes, votes_report) + arena_rank_checks(votes, votes_report)
    assert not lines, report(lines)
