"""The report in a real browser: headless Chromium renders every chart (an <svg> per chart container)
with no console output and no script errors, with all network access blocked.

Needs the Debian package ``chromium``. Without it the test FAILS when the environment variable ``CI`` is set
(CI installs it in ``.ci/run``) and is skipped otherwise.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from solvelens.report import build_report

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def _chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found:
        return found
    message = "headless Chromium is not installed: `apt-get install -y chromium` (Debian package `chromium`)"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


class _Charts(HTMLParser):
    """Collects chart containers (div[data-chart]) with their status and the svg/canvas elements inside."""

    def __init__(self) -> None:
        super().__init__()
        self.charts: dict[str, dict[str, object]] = {}
        self.root: dict[str, str | None] = {}
        self._stack: list[str | None] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "html":
            self.root = a
        current = self._stack[-1] if self._stack else None
        if tag == "div" and a.get("data-chart"):
            current = a["data-chart"]
            self.charts[current] = {"status": a.get("data-status"), "graphics": 0}
        elif current and tag in ("svg", "canvas"):
            self.charts[current]["graphics"] = int(self.charts[current]["graphics"]) + 1  # type: ignore[call-overload]
        if tag not in ("br", "img", "meta", "link", "input", "hr", "path", "rect", "line", "circle"):
            self._stack.append(current)

    def handle_endtag(self, tag: str) -> None:
        if (
            tag not in ("br", "img", "meta", "link", "input", "hr", "path", "rect", "line", "circle")
            and self._stack
        ):
            self._stack.pop()


def _render(report: Path, profile: Path) -> tuple[str, str]:
    command = [
        _chromium(),
        *FLAGS,
        f"--user-data-dir={profile}",
        "--host-resolver-rules=MAP * ~NOTFOUND",  # any network request would fail: the page must not need one
        "--enable-logging=stderr",
        "--v=0",
        "--virtual-time-budget=30000",
        "--dump-dom",
        report.resolve().as_uri(),
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout, done.stderr


def test_every_chart_renders_without_console_errors(store_db: Path, tmp_path: Path) -> None:
    _chromium()
    report = build_report(store_db, tmp_path / "report.html")
    dom, log = _render(report, tmp_path / "profile")
    parser = _Charts()
    parser.feed(dom)
    assert parser.root.get("data-rendered") == "true", "every vegaEmbed promise settled"
    assert parser.root.get("data-errors") == "0", dom[dom.find("render-problems") :][:2000]
    assert len(parser.charts) == 11
    for key, chart in parser.charts.items():
        assert chart["status"] == "ok", f"chart {key}: {chart}"
        assert int(chart["graphics"]) >= 1, f"chart {key} has no svg/canvas"  # type: ignore[call-overload]
    console = [line for line in log.splitlines() if ":CONSOLE" in line]
    assert console == [], "the page wrote to the console:\n" + "\n".join(console)


def test_short_history_report_renders(single_snapshot_store_db: Path, tmp_path: Path) -> None:
    _chromium()
    report = build_report(single_snapshot_store_db, tmp_path / "short.html")
    dom, log = _render(report, tmp_path / "profile")
    parser = _Charts()
    parser.feed(dom)
    assert parser.root.get("data-errors") == "0"
    assert parser.charts and all(c["status"] == "ok" for c in parser.charts.values())
    assert [line for line in log.splitlines() if ":CONSOLE" in line] == []
