"""The notices at the top of the report: simulated dates, a short history, days without a snapshot."""

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


def report_notices(frames: ReportFrames, simulated: str) -> list[str]:
    """The report's notices, in order: ``simulated`` (the simulated-dates sentence, when not empty), a short
    history, days without a snapshot."""
    notices = [simulated] if simulated else []
    short = _short_history(frames)
    if short:
        notices.append(short)
    if frames.gaps.height:
        notices.append(
            f"{frames.fresh.missing_days} day(s) without a snapshot between the first and the newest "
            "snapshot; see Data freshness and coverage."
        )
    return notices
