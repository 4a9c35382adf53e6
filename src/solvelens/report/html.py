"""Render :class:`~solvelens.report.content.ReportContent` as one self-contained HTML page.

The Vega, Vega-Lite and vega-embed JavaScript is inlined ONCE (from vl-convert, no CDN) and every chart is
embedded as a Vega-Lite spec in one JSON block, so the file opens offline in any browser. The page marks
each chart container with ``data-status`` ("pending", "ok" or "error") and counts script errors in
``<html data-errors>``; a failed chart shows a readable message instead of a blank space.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Iterable
from pathlib import Path

import jinja2
from markupsafe import Markup

from solvelens.charts import chart_spec, vega_javascript, vegalite_version
from solvelens.charts.responsive import fit_container
from solvelens.report.bot import BotPage
from solvelens.report.content import ReportContent
from solvelens.report.slots import ChartSlot

TEMPLATES = Path(__file__).parent / "templates"


#: A command or name quoted in backticks in a caption or notice.
_CODE = re.compile(r"`([^`]+)`")


def code_spans(text: str) -> Markup:
    """``text`` escaped for HTML, each `quoted` span shown as a ``<code>`` element (captions and notices
    quote commands in backticks; a page never shows a literal backtick)."""
    return Markup(_CODE.sub(r"<code>\1</code>", str(Markup.escape(text))))


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=jinja2.select_autoescape(["html", "j2"]),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["code"] = code_spans
    return env


def _script_json(value: object) -> str:
    """JSON safe inside a <script> element (no ``</script>``, no HTML comment openers)."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _when(value: dt.datetime) -> str:
    return value.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")


def _specs(slots: Iterable[ChartSlot]) -> dict[str, object]:
    """Each chart's Vega-Lite spec, sized by its box on the page (:mod:`solvelens.charts.responsive`)."""
    return {slot.key: fit_container(chart_spec(slot.chart)) for slot in slots if slot.chart is not None}


def _common(specs: dict[str, object]) -> dict[str, object]:
    return {
        "vega_js": Markup(vega_javascript()),
        "specs_json": Markup(_script_json(specs)),
        "vl_version": vegalite_version(),
    }


def render_html(
    content: ReportContent, *, title: str = "Leaderboard history", csv_name: str = "leaderboard.csv"
) -> str:
    """The report page as a string (UTF-8 text, ~1 MiB of which ~0.9 MiB is the inlined Vega JavaScript).

    ``csv_name`` is the file name of the bot table's CSV written beside the page (linked from it).
    """
    specs = _specs(slot for slots in content.sections.values() for slot in slots)
    template = _environment().get_template("report.html.j2")
    return template.render(
        title=title,
        content=content,
        first_taken=_when(content.first_taken_at),
        last_taken=_when(content.last_taken_at),
        generated=_when(content.generated_at),
        csv_name=csv_name,
        **_common(specs),
    )


def render_bot_html(page: BotPage) -> str:
    """The page of one bot as a string (self-contained like :func:`render_html`)."""
    template = _environment().get_template("bot.html.j2")
    return template.render(
        title=f"Bot {page.bot.name}",
        page=page,
        first_taken=_when(page.first_taken_at),
        last_taken=_when(page.last_taken_at),
        generated=_when(page.generated_at),
        **_common(_specs(page.bot.charts)),
    )
