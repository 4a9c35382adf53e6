"""The leaderboard history report: one self-contained HTML file (Vega inlined, opens offline), PNGs optional.

``build_report(db_path, out_path, png_dir=None)`` is the entry point (also ``solvelens report``).
"""

from solvelens.report.build import build_report
from solvelens.report.content import EmptyStoreError, ReportContent, report_content
from solvelens.report.html import render_html

__all__ = ["EmptyStoreError", "ReportContent", "build_report", "render_html", "report_content"]
