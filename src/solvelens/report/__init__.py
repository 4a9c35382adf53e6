"""The leaderboard history report: one self-contained HTML file (Vega inlined, opens offline) with the bot
table as CSV beside it, PNGs optional; and the page of one bot.

``build_report(db_path, out_path, png_dir=None)`` and ``build_bot_report(db_path, bot, out_path)`` are the
entry points (also ``solvelens report`` and ``solvelens report --bot NAME_OR_ID``).
"""

from solvelens.report.bot import BotPage, BotSection, bot_page, bot_page_content
from solvelens.report.build import build_bot_report, build_report, csv_path
from solvelens.report.content import EmptyStoreError, ReportContent, report_content
from solvelens.report.html import render_bot_html, render_html

__all__ = [
    "BotPage",
    "BotSection",
    "EmptyStoreError",
    "ReportContent",
    "bot_page",
    "bot_page_content",
    "build_bot_report",
    "build_report",
    "csv_path",
    "render_bot_html",
    "render_html",
    "report_content",
]
