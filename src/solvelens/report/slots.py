"""The building blocks of a report page: headline figures, chart slots, and value formatting."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import altair as alt

from solvelens.analysis.timescale import format_time


@dataclass(frozen=True)
class Figure:
    """A headline figure: a label, its formatted value and an optional detail line."""

    label: str
    value: str
    detail: str = ""


@dataclass(frozen=True)
class ChartSlot:
    """One chart of the report: a stable key (used for the PNG name and the HTML id), a heading, a caption,
    and either the chart (untitled: the page's heading names it) or a note saying why it is missing."""

    key: str
    heading: str
    caption: str
    chart: alt.TopLevelMixin | None = None
    note: str = ""


def slot(
    key: str, heading: str, caption: str, build: Callable[[], alt.TopLevelMixin], ready: bool, note: str
) -> ChartSlot:
    """A :class:`ChartSlot` holding ``build()`` when ``ready``, else ``note``."""
    return ChartSlot(key, heading, caption, chart=build() if ready else None, note="" if ready else note)


def fmt_int(value: float | int | None) -> str:
    """``1,234`` (rounded), ``–`` for None."""
    return "–" if value is None else f"{round(value):,}"


#: ``2026-01-31 06:00 UTC``, ``–`` for None (:func:`solvelens.analysis.format_time`).
fmt_time = format_time
