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
    and either the chart (untitled: the page's heading names it) or a note saying why it is missing.

    ``phone_list``: what a phone shows instead of the chart (lines of text, a heading first), for a chart a
    390 px screen cannot show readably (a heatmap); empty: the chart is shown on every screen."""

    key: str
    heading: str
    caption: str
    chart: alt.TopLevelMixin | None = None
    note: str = ""
    phone_list: tuple[str, ...] = ()


def slot(
    key: str,
    heading: str,
    caption: str,
    build: Callable[[], alt.TopLevelMixin],
    ready: bool,
    note: str,
    phone_list: tuple[str, ...] = (),
) -> ChartSlot:
    """A :class:`ChartSlot` holding ``build()`` (and ``phone_list``) when ``ready``, else ``note``."""
    if not ready:
        return ChartSlot(key, heading, caption, note=note)
    return ChartSlot(key, heading, caption, chart=build(), phone_list=phone_list)


def fmt_int(value: float | int | None) -> str:
    """``1,234`` (rounded), ``–`` for None."""
    return "–" if value is None else f"{round(value):,}"


#: ``2026-01-31 06:00 UTC``, ``–`` for None (:func:`solvelens.analysis.format_time`).
fmt_time = format_time
