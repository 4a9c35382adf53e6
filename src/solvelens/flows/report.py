"""Prefect flow that writes the leaderboard history report (a thin wrapper over
:func:`solvelens.report.build_report`, which holds the logic and is testable without Prefect)."""

from __future__ import annotations

from prefect import flow, task
from prefect.artifacts import acreate_markdown_artifact

from solvelens.flows.termination import redeliver_swallowed_termination

#: Key of the markdown artifact each run publishes.
ARTIFACT_KEY = "solvelens-report"


@task(name="build-report")
def build_report_task(db_path: str, out: str, png_dir: str | None = None, platform: str | None = None) -> str:
    """Build the report (see :func:`solvelens.report.build_report`); returns the HTML file's path."""
    from solvelens.report import build_report

    return str(build_report(db_path, out, png_dir=png_dir, platform=platform))


@flow(name="solvelens-report", log_prints=False)
async def report_flow(db_path: str, out: str, png_dir: str | None = None, platform: str | None = None) -> str:
    """Write the leaderboard history report of the store ``db_path`` to the HTML file ``out``.

    ``png_dir``: also write each chart as a PNG there. ``platform``: which platform of the store (an id,
    a unique id prefix or a base URL; default the newest snapshot's). Returns the HTML file's path (a
    string) and publishes a markdown artifact (key ``solvelens-report``) naming it. Raises
    :class:`solvelens.analysis.StoreError` (one-line message) when the store is missing, busy or empty.
    """
    redeliver_swallowed_termination()
    path = build_report_task(db_path, out, png_dir, platform)
    lines = ["# Leaderboard history report", "", f"- store: `{db_path}`", f"- report: `{path}`"]
    if platform:
        lines.append(f"- platform: `{platform}`")
    if png_dir:
        lines.append(f"- charts as PNG: `{png_dir}`")
    await acreate_markdown_artifact("\n".join(lines) + "\n", key=ARTIFACT_KEY, description="report written")
    return path
