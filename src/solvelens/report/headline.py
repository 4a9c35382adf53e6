"""The report's headline figures: the leader, ranked bots, problems and solutions with their growth,
comparisons, snapshots and the newest snapshot's age."""

from __future__ import annotations

import datetime as dt

import polars as pl

from solvelens import analysis as an
from solvelens.analysis.timescale import unit_for_span
from solvelens.report.frames import ReportFrames
from solvelens.report.slots import Figure, fmt_int, fmt_time


def growth_detail(
    growth: pl.DataFrame, column: str, unit: an.RateUnit, gaps: pl.DataFrame | None = None
) -> str:
    """The headline's growth line per unit of platform time (``taken_at``): per day over the last 7 days,
    else per hour over the history; never per snapshot (a snapshot at the same platform time changes
    nothing), never across a gap (``gaps``: :func:`solvelens.analysis.history_gaps`: only the snapshots
    since the newest gap count, and with fewer than two of them the line says so), and never over less than
    :data:`solvelens.analysis.MIN_RATE_SPAN` ("too short to rate: ...")."""
    if growth.height < 2:
        return ""
    frame = growth
    if gaps is not None and gaps.height:
        last = gaps.sort("gap_end").row(-1, named=True)
        frame = growth.filter(pl.col("taken_at") >= last["gap_end"])
        if frame.height < 2:
            return f"no rate: a gap of {an.format_duration(last['elapsed_s'])} before the newest snapshot"
        growth = frame
        since_gap = unit_for_span(frame["taken_at"][-1] - frame["taken_at"][0])
        if since_gap.seconds < unit.seconds:  # never extrapolate a short stretch
            unit = since_gap
    if unit.name == "day":
        frame = growth.filter(pl.col("taken_at") >= growth["taken_at"][-1] - dt.timedelta(days=7))
        if frame.height < 2:
            frame = growth.tail(2)
    span = frame["taken_at"][-1] - frame["taken_at"][0]
    if span < an.MIN_RATE_SPAN:
        return an.too_short(span)
    change = float(frame[column][-1] - frame[column][0])
    units = span.total_seconds() / unit.seconds
    window = (
        "last 7 days"
        if unit.name == "day" and span >= dt.timedelta(days=7)
        else f"over {an.format_duration(span)}"
    )
    return f"{change / units:+,.1f} {unit.label} ({window})"


def _leader(table: pl.DataFrame) -> Figure:
    leader = table.row(0, named=True) if table.height else None
    tied = table.filter(pl.col("rank") == 1).height if table.height else 0
    return Figure(
        "Leader" if tied < 2 else f"Leaders ({tied} tied)",
        leader["name"] if leader else "–",
        f"{fmt_int(leader['points'])} points" if leader else "no ranked bot",
    )


def _comparisons(frames: ReportFrames) -> Figure:
    """The votes the store holds, with the platform's stated figure beside it (``/stats totalComparisons``
    is the sum of the problems' counts: it undercounts votes whose counts never moved); the platform's
    figure alone, said to be its, when no vote was stored."""
    stated = fmt_int(frames.latest["totalComparisons"])
    stored = frames.stored_votes
    if not stored:
        return Figure("Comparisons", stated, "as the platform states it (no votes stored)")
    return Figure("Comparisons", fmt_int(stored), f"votes stored; the platform states {stated}")


def report_headline(frames: ReportFrames, age: str) -> list[Figure]:
    """The headline figures; ``age`` is the newest snapshot's detail line (its age, or "simulated clock")."""
    growth, unit, gaps = frames.growth, frames.unit, frames.rate_gaps
    newest = growth.tail(1).row(0, named=True)
    figures = [
        _leader(frames.table),
        Figure("Ranked bots", fmt_int(frames.table.height)),
        Figure("Problems", fmt_int(newest["problems"]), growth_detail(growth, "problems", unit, gaps)),
        Figure("Solutions", fmt_int(newest["solutions"]), growth_detail(growth, "solutions", unit, gaps)),
        Figure(
            "Snapshots",
            fmt_int(frames.snapshots.height),
            f"over {an.format_duration(frames.span)}" if frames.multi else "one snapshot",
        ),
        Figure("Newest snapshot", fmt_time(frames.fresh.last_taken_at), age),
    ]
    if "totalComparisons" in frames.latest:
        figures.insert(4, _comparisons(frames))
    return figures
