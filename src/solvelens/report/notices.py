"""The notices at the top of the report: simulated dates, the store's other platforms, snapshots left out
for their clock, a short history, gaps no rate is taken across, days without a snapshot."""

from __future__ import annotations

import datetime as dt

from solvelens import analysis as an
from solvelens.report.frames import ReportFrames


def _short_history(frames: ReportFrames) -> str:
    """Why rank history, movers and growth are thin, or ``""`` for a week or more of snapshots."""
    snapshots, unit = frames.snapshots, frames.unit
    if not frames.multi:
        return (
            "The history is short: the store holds one snapshot, so rank history, movers and growth "
            "need more. Run `solvelens snapshot` again later (e.g. daily) to build the history."
        )
    if frames.span >= dt.timedelta(days=7):
        return ""
    return (
        f"The history is short: {snapshots.height} snapshots over {an.format_duration(frames.span)}, so "
        f"rates are {unit.label}"
        + (" (not extrapolated to a day)" if unit.name != "day" else "")
        + ". Trends firm up after a week or more of daily snapshots."
    )


def _other_platforms(frames: ReportFrames) -> str:
    """Which platform this report covers when the store holds others, and how to report on them."""
    store = frames.store
    others = store.other_platforms
    if others is None or others.is_empty():
        return ""
    listed = "; ".join(
        f"{row['label']} ({row['snapshots']} snapshot(s), newest {an.format_time(row['last_taken_at'])}, "
        f"--platform {row['platform']})"
        for row in others.iter_rows(named=True)
    )
    return (
        f"This report covers one platform: {store.platform_label}. The store also holds {others.height} "
        f"other platform(s), left out here: {listed}. `solvelens report --platform ID` reports on one "
        "of them."
    )


def _rate_gaps(frames: ReportFrames) -> str:
    """Where the history has gaps no rate is taken across (:func:`solvelens.analysis.history_gaps`)."""
    gaps = frames.rate_gaps
    if gaps.is_empty():
        return ""
    shown = [
        f"{an.format_time(r['gap_start'])} to {an.format_time(r['gap_end'])} "
        f"({an.format_duration(r['elapsed_s'])})"
        for r in gaps.tail(3).iter_rows(named=True)
    ]
    more = f" and {gaps.height - 3} earlier" if gaps.height > 3 else ""
    typical = an.format_duration(float(gaps["typical_s"][0]))
    return (
        f"The history has {gaps.height} gap(s), intervals over {an.GAP_FACTOR:g} times the usual {typical} "
        f"between snapshots: {'; '.join(shown)}{more}. No rate is taken across a gap (it would spread what "
        "happened during it evenly over it); growth figures and charts leave those intervals out."
    )


def report_notices(frames: ReportFrames, simulated: str) -> list[str]:
    """The report's notices, in order: ``simulated`` (the simulated-dates sentence, when not empty), the
    store's other platforms, snapshots left out for their clock, which snapshots a long history's charts
    draw (:mod:`solvelens.analysis.points`), a short history, gaps in the history,
    days without a snapshot."""
    notices = [simulated] if simulated else []
    for notice in (
        _other_platforms(frames),
        frames.store.clock_note,
        frames.store.points.rule if frames.store.points is not None else "",
        _short_history(frames),
        _rate_gaps(frames),
    ):
        if notice:
            notices.append(notice)
    if frames.gaps.height:
        notices.append(
            f"{frames.fresh.missing_days} day(s) without a snapshot between the first and the newest "
            "snapshot; see Data freshness and coverage."
        )
    return notices
