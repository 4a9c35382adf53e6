"""What the leaderboard history report shows, computed from a loaded store (no HTML here).

:func:`report_content` puts the report together from its parts, each in its own module:

- :mod:`solvelens.report.frames`: every frame, computed once (:class:`~solvelens.report.frames.ReportFrames`);
- :mod:`solvelens.report.notices`: simulated dates, a short history, days without a snapshot;
- :mod:`solvelens.report.headline`: the headline figures;
- :mod:`solvelens.report.sections`: one builder per chart section (a chart, or a note saying why it cannot be
  drawn yet, e.g. movers with one snapshot);
- :mod:`solvelens.report.rows`, :mod:`solvelens.report.table`: the tables;
- :mod:`solvelens.report.bot`: the key's own bot when ``bot_me`` history exists.

Rates are per day only when the history spans a day or more (else per hour), per unit of platform time.
Dates are labelled simulated when the snapshots' platform declared a simulated clock
(:func:`solvelens.analysis.simulated_label`), never because of its address.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from solvelens import analysis as an
from solvelens import charts as ch
from solvelens.analysis.frames import EmptyStoreError, Frames
from solvelens.report.bot import BotSection, bot_section
from solvelens.report.changes import ChangeBlock, change_blocks
from solvelens.report.evidence import MODEL_TABLE_CAPTION, model_table_rows
from solvelens.report.frames import ReportFrames, report_frames
from solvelens.report.headline import report_headline
from solvelens.report.notices import report_notices
from solvelens.report.rows import (
    baselines,
    gap_rows,
    model_rows,
    models_note,
    stability_text,
    volatility_rows,
)
from solvelens.report.sections import chart_sections
from solvelens.report.slots import ChartSlot, Figure
from solvelens.report.table import table_rows

__all__ = ["ChartSlot", "EmptyStoreError", "Figure", "ReportContent", "report_content"]


@dataclass(frozen=True)
class ReportContent:
    """Everything the report template renders. Times are UTC."""

    db_path: str
    generated_at: dt.datetime
    snapshot_count: int
    first_taken_at: dt.datetime
    last_taken_at: dt.datetime
    notices: list[str]
    headline: list[Figure]
    leaderboard: list[dict[str, Any]]
    table: pl.DataFrame
    baselines: dict[str, str]
    stability: str
    volatility: list[dict[str, Any]]
    sections: dict[str, list[ChartSlot]]
    models: list[dict[str, Any]]
    models_note: str
    gaps: list[dict[str, Any]]
    freshness: an.Freshness
    simulated: str
    age: str
    rate_unit: an.RateUnit
    me: BotSection | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    #: The arena beside the platform's /llm-leaderboard and the percentile leaderboard
    #: (:func:`solvelens.report.evidence.model_table_rows`), the sentence on where they disagree, and the
    #: one-line notes shown instead of the arena / activity sections when their data is absent.
    arena_models: list[dict[str, Any]] = field(default_factory=list)
    arena_disagreement: str = ""
    arena_models_caption: str = MODEL_TABLE_CAPTION
    arena_note: str = ""
    activity_note: str = ""
    changes: list[ChangeBlock] = field(default_factory=list)
    platform: str = ""
    platform_label: str = ""
    other_platforms: list[dict[str, Any]] = field(default_factory=list)
    #: The newest snapshot's lists stored with another count than announced
    #: (:func:`solvelens.analysis.data_quality_of` rows, numbers formatted) and one sentence on them.
    data_quality: list[dict[str, Any]] = field(default_factory=list)
    data_quality_line: str = ""


def _age(f: ReportFrames) -> str:
    """The newest snapshot's age against the wall clock, or "simulated clock" when its platform declared
    one (its date is not a real date)."""
    if an.newest_is_simulated(f.snapshots):
        return "simulated clock"
    hours = f.fresh.age_hours
    return ("–" if hours is None else an.format_duration(max(hours, 0.0) * 3600)) + " old"


def other_platform_rows(store: Frames) -> list[dict[str, Any]]:
    """The store's other platforms (not in this report): platform (id or URL), label, snapshots, last
    (time of its newest snapshot, text)."""
    others = store.other_platforms
    if others is None:
        return []
    return [
        {
            "platform": row["platform"],
            "label": row["label"],
            "snapshots": row["snapshots"],
            "last": an.format_time(row["last_taken_at"]),
        }
        for row in others.iter_rows(named=True)
    ]


def data_quality_rows(store: Frames) -> list[dict[str, Any]]:
    """The newest snapshot's data-quality rows as shown: resource, scope ("whole list" for ""), announced,
    stored, difference (signed), reason."""
    return [
        {
            "resource": row["resource"],
            "scope": row["scope"] or "whole list",
            "announced": f"{row['announced']:,}" if row["announced"] is not None else "–",
            "stored": f"{row['stored']:,}" if row["stored"] is not None else "–",
            "difference": f"{row['difference']:+,}" if row["difference"] is not None else "–",
            "reason": row["reason"] or "",
        }
        for row in an.data_quality_of(store).iter_rows(named=True)
    ]


def own_bot_section(f: ReportFrames) -> BotSection | None:
    """The section of the API key's own bot (``bot_me`` history, its newest name), or ``None`` when no
    snapshot recorded ``/bot/me``."""
    own = f.store.bot_me.collect()
    if not own.height:
        return None
    newest = own.join(f.snapshots.select("snapshot_id", "taken_at"), on="snapshot_id").sort("taken_at")
    row = newest.tail(1).row(0, named=True)
    return bot_section(
        f.store,
        f.history,
        row["bot_id"],
        name=row["name"],
        profiles=own,
        prefix="me",
        top_n=f.top_n,
        window=f.window,
    )


def report_content(
    store: Frames,
    *,
    top_n: int = 10,
    movers_window: dt.timedelta = dt.timedelta(days=7),
    now: dt.datetime | None = None,
    min_model_solutions: int = an.models.MIN_SOLUTIONS,
    bootstrap: int = an.models.N_BOOT,
) -> ReportContent:
    """Compute the report's content from ``store`` (see :func:`solvelens.analysis.load`).

    ``top_n`` bots appear in the rank and trend charts; the table lists every ranked bot; changes compare
    the newest snapshot with the previous one, the one ``movers_window`` earlier and the first one. Models
    with fewer than ``min_model_solutions`` contested solutions are listed but not ranked. The intervals
    (model leaderboard, arena) come from ``bootstrap`` resamples (default 1,000; fewer is faster and
    coarser). Raises
    :class:`solvelens.analysis.EmptyStoreError` when the store has no complete snapshot.
    """
    f = report_frames(
        store,
        top_n=top_n,
        window=movers_window,
        now=now,
        min_model_solutions=min_model_solutions,
        bootstrap=bootstrap,
    )
    simulated = an.simulated_label(f.snapshots)
    age = _age(f)
    with ch.simulated_time(bool(simulated)):  # the time axes say "Simulated time (UTC)" then
        sections = chart_sections(f)
        me = own_bot_section(f)
    if me is not None:
        sections["me"] = me.charts
    return ReportContent(
        db_path=str(store.path),
        generated_at=f.generated,
        snapshot_count=f.snapshots.height,
        first_taken_at=f.snapshots["taken_at"][0],
        last_taken_at=f.snapshots["taken_at"][-1],
        notices=report_notices(f, simulated),
        headline=report_headline(f, age),
        leaderboard=table_rows(f.table),
        table=f.table,
        baselines=baselines(f),
        stability=stability_text(f.volatility, top_n, f.span),
        volatility=volatility_rows(f.volatility),
        sections=sections,
        models=model_rows(f.board),
        models_note=models_note(f.board, min_model_solutions),
        gaps=gap_rows(f.gaps),
        freshness=f.fresh,
        simulated=simulated,
        age=age,
        rate_unit=f.unit,
        me=me,
        arena_models=model_table_rows(f.model_table) if f.arena is not None else [],
        arena_disagreement=an.disagreement(f.model_table),
        arena_models_caption=f.model_caption,
        arena_note=f.arena_note,
        activity_note=f.activity_note,
        changes=change_blocks(f.changes, an.format_duration(f.window)),
        platform=store.platform or "",
        platform_label=store.platform_label,
        other_platforms=other_platform_rows(store),
        data_quality=data_quality_rows(store),
        data_quality_line=an.data_quality_line(store),
    )
