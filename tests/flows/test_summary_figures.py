"""The steps' typed figures (:mod:`solvelens.flows.figures`) and the summary that reads them by attribute:
its JSON form read back (``--json``, :meth:`SnapshotSummary.from_dict`) says the same lines as the typed
summary of the run."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import pytest

from solvelens.flows.figures import (
    FIGURES,
    ActivityFigures,
    CarryoverFigures,
    ComparisonsFigures,
    KindFigures,
    LeaderboardFigures,
    OptionalFigures,
    PacingFigures,
    ProblemsFigures,
    QuotaFigures,
    figures_of,
    kind_of,
)
from solvelens.flows.steps import FETCH_STEPS
from solvelens.flows.summary import SnapshotSummary
from solvelens.store.reports import StepFigures, StepReport


def _summary() -> SnapshotSummary:
    return SnapshotSummary(
        snapshot_id=3,
        taken_at="2026-01-01T00:00:00Z",
        base_url="http://127.0.0.1:1/api/v1",
        counts={"activity": 7, "comparisons": 40, "models": 5},
        duration_s=1.0,
        warnings=[],
        drift=[],
        fetch={
            "problems": ProblemsFigures(refetched=4, carried_over=96),
            "leaderboard": LeaderboardFigures(profiles_refetched=3, profiles_carried_over=12),
            "carryover": CarryoverFigures(requests=5, stale_lists=2, rotation_lists=3, renamed_bots=1),
            "activity": ActivityFigures(fetched=50, events_per_hour=12.5, span_s=14400.0),
            "comparisons": ComparisonsFigures(
                requested=9, skipped=2, pending=1, budget=10, quota=QuotaFigures(left=90, reserve=30, room=60)
            ),
            "llm_families": OptionalFigures(absent="HTTP 404 on GET /llm-leaderboard/families"),
            "pacing": PacingFigures(1, interface=KindFigures(100, 4, 2.25), optional=KindFigures(9, 0, 0.0)),
        },
        resources={"activity": "stored", "comparisons": "stored", "llm_families": "not offered"},
    )


def test_the_summary_reads_each_steps_figures_by_attribute_and_says_it_in_its_lines():
    summary = _summary()
    assert summary.carryover_line() == (
        "Solution lists refetched for 4 problems, carried over for 91 (of the carried lists 5 re-read: 2 "
        "naming one of 1 renamed bots, 3 in rotation); bot profiles refetched for 3, carried over for 12."
    )
    optional = summary.optional_line()
    assert "activity stored (50 events in the feed, 7 new; 12.5 events/hour)" in optional
    assert "comparisons stored (9 requests for the solutions whose vote count moved, 2 more" in optional
    assert "the platform's quota left 90 requests without waiting, 30 kept" in optional
    assert "the vote lists spent 9 of the 60 left to them" in optional
    assert "llm_families not offered (HTTP 404 on GET /llm-leaderboard/families)" in optional
    assert summary.pacing_line() == (
        "Requests held for the platform's quota: 4 of the 100 interface requests (2.2 s in all); none of "
        "the 9 optional requests; the platform answered 429 to 1 request."
    )


def test_the_json_form_read_back_says_the_same_lines_and_types_the_figures_again():
    summary = _summary()
    data = json.loads(json.dumps(summary.as_dict()))
    assert data["fetch"]["comparisons"]["quota"] == {"left": 90, "reserve": 30, "room": 60}
    assert data["fetch"]["pacing"]["interface"] == {"requests": 100, "held": 4, "waited_s": 2.25}
    back = SnapshotSummary.from_dict(data)
    for line in ("carryover_line", "optional_line", "pacing_line"):
        assert getattr(back, line)() == getattr(summary, line)()
    votes = back.figures("comparisons", ComparisonsFigures)
    assert votes == summary.fetch["comparisons"] and votes.quota == QuotaFigures(90, 30, 60)
    assert back.figures("pacing", PacingFigures).interface == KindFigures(100, 4, 2.25)


def test_a_step_that_did_not_run_reads_as_its_kinds_defaults():
    summary = SnapshotSummary(1, "2026-01-01T00:00:00Z", "http://x/api/v1", {}, 1.0, [], [])
    assert summary.figures("comparisons", ComparisonsFigures) == ComparisonsFigures()
    assert summary.pacing_line() == ""
    assert summary.carryover_line().startswith("Solution lists refetched for 0 problems, carried over for 0")


def test_figures_read_by_attribute_and_type_again_from_their_json_form():
    figures = ComparisonsFigures(requested=3, quota=QuotaFigures(1, 2, 3))
    assert isinstance(figures, StepFigures) and not isinstance(figures, Mapping)
    assert figures.as_json()["quota"] == {"left": 1, "reserve": 2, "room": 3}
    assert ComparisonsFigures.of_json(figures.as_json()) == figures
    assert ComparisonsFigures.of_json({"requested": 3, "not_a_field": 1}) == ComparisonsFigures(requested=3)
    with pytest.raises(TypeError, match="ProblemsFigures are not ComparisonsFigures"):
        ComparisonsFigures.of_json(ProblemsFigures())


def test_every_step_has_its_figures_kind_by_name():
    names = {s.name for s in FETCH_STEPS} | {"pacing"}
    assert set(FIGURES) <= names and names - set(FIGURES) == {"reference", "platform"}
    assert kind_of("reference") is StepFigures and figures_of("llm_families", None) == OptionalFigures()


def test_a_reports_staged_form_keeps_its_figures_json():
    report = StepReport.of("problems", {"problems": 2}, requests=3, figures=ProblemsFigures(refetched=2))
    data = json.loads(json.dumps(report.to_json()))
    assert data["figures"] == {"refetched": 2, "carried_over": 0}
    staged = StepReport.from_json(data, kind_of)
    assert staged.requests == 3 and staged.figures == report.figures
    assert StepReport.from_json(data).figures == StepFigures()  # the store reads no figures
    assert StepReport.of("reference", {}).figures == StepFigures()


_OLD = Path(__file__).parent / "data" / "summary_aab078f.json"  # `snapshot --json` of main at aab078f


def test_a_summary_read_back_holds_typed_figures_even_one_written_by_an_older_version():
    data = json.loads(_OLD.read_text(encoding="utf-8"))
    back = SnapshotSummary.from_dict(data)
    votes = back.fetch["comparisons"]
    assert isinstance(votes, ComparisonsFigures) and votes.quota == QuotaFigures(2287, reserve=23, room=2264)
    assert (votes.requested, votes.pending, votes.snapshots_to_go, votes.audit_cycle) == (187, 435, 3, 5)
    assert back.fetch["problems"] == ProblemsFigures(refetched=0, carried_over=106)
    assert back.fetch["leaderboard"] == LeaderboardFigures(profiles_refetched=0, profiles_carried_over=28)
    assert back.fetch["carryover"] == CarryoverFigures(requests=3, rotation_lists=3)
    pacing = back.fetch["pacing"]
    assert isinstance(pacing, PacingFigures) and pacing.optional == KindFigures(190, 0, 0.0)
    activity = back.fetch["activity"]
    assert isinstance(activity, ActivityFigures) and (activity.fetched, activity.span_s) == (50, 4468.472)
    assert back.fetch["llm_leaderboard"] == OptionalFigures() and back.fetch["platform"] == StepFigures()
    assert back.carryover_line() == (
        "Solution lists refetched for 0 problems, carried over for 103 (of the carried lists 3 re-read: 0 "
        "naming one of 0 renamed bots, 3 in rotation); bot profiles refetched for 0, carried over for 28."
    )
    assert "the vote lists spent 187 of the 2,264 left to them" in back.optional_line()
    assert not any(isinstance(f, Mapping) for f in back.fetch.values())  # read by attribute only


def test_a_summary_given_untyped_figures_says_so_in_one_line() -> None:
    """A plain mapping in ``fetch`` would read as the step's defaults (0 events, no rate): refused."""
    with pytest.raises(TypeError, match=r"^fetch figures of activity are not StepFigures: build them with"):
        SnapshotSummary(
            snapshot_id=1,
            taken_at="2026-01-01T00:00:00Z",
            base_url="http://127.0.0.1:1/api/v1",
            counts={},
            duration_s=1.0,
            warnings=[],
            drift=[],
            fetch={"activity": {"fetched": 50}},  # type: ignore[dict-item]
        )
