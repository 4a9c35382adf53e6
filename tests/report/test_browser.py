"""The report in a real browser: headless Chromium renders every chart (an <svg> per chart container)
with no console output and no script errors, with all network access blocked; the rank chart's end labels
do not overlap (their bounding boxes, measured in the page); a screenshot of the page is taken.

Needs the Debian package ``chromium``. Without it the test FAILS when the environment variable ``CI`` is set
(CI installs it in ``.ci/run``) and is skipped otherwise.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import shutil
import struct
import subprocess
from html import unescape
from html.parser import HTMLParser
from pathlib import Path

import duckdb
import polars as pl
import pytest

from solvelens import charts as ch
from solvelens.charts.responsive import fit_container
from solvelens.report import build_report
from tests.charts.test_arena import diverging_fit
from tests.fixtures.store import FEW_RESAMPLES

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


def _render(
    report: Path, profile: Path, *extra: str, shot: tuple[Path, int, int] | None = None
) -> tuple[str, str]:
    """Load ``report`` in headless Chromium, run its scripts to the end of a 30 s virtual time budget and
    return (the DOM, Chromium's log). ``shot=(png, width, height)`` also takes a screenshot of the page as
    drawn at that moment (``--window-size`` in ``extra`` must give that size), in the same browser run:
    the page the DOM was measured in, not a second rendering of it (one Chromium start and one drawing of
    every chart fewer); the file is checked by :func:`_check_shot`."""
    command = [
        _chromium(),
        *FLAGS,
        *extra,
        f"--user-data-dir={profile}",
        "--host-resolver-rules=MAP * ~NOTFOUND",  # any network request would fail: the page must not need one
        "--enable-logging=stderr",
        "--v=0",
        "--virtual-time-budget=30000",
        "--dump-dom",
        *([f"--screenshot={shot[0]}"] if shot else []),
        report.resolve().as_uri(),
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-2000:]
    if shot:
        _check_shot(*shot)
    return done.stdout, done.stderr


@pytest.fixture(scope="module")
def store_report(store_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The report of the session's generated store (:func:`build_report` with its defaults), built once for
    the tests of this module that read it (each writes its probe pages and Chromium profile in a folder of
    its own, never this file)."""
    return build_report(store_db, tmp_path_factory.mktemp("store-report") / "report.html")


def test_every_chart_renders_without_console_errors(store_report: Path, tmp_path: Path) -> None:
    _chromium()
    dom, log = _render(store_report, tmp_path / "profile")
    parser = _Charts()
    parser.feed(dom)
    assert parser.root.get("data-rendered") == "true", "every vegaEmbed promise settled"
    assert parser.root.get("data-errors") == "0", dom[dom.find("render-problems") :][:2000]
    assert len(parser.charts) == 15
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


#: Appended to a copy of the report: once every chart has rendered, writes the bounding box of each rank
#: label, the svg count per chart container and the sortable table's first rows after a click into the DOM.
_MEASURE = """
<script>
(function () {
  function measure() {
    var done = document.documentElement.getAttribute("data-rendered") === "true";
    if (!done) { setTimeout(measure, 50); return; }
    var boxes = Array.prototype.map.call(
      document.querySelectorAll("#chart-rank_history g.rank_labels_marks text"),
      function (t) { var r = t.getBoundingClientRect();
        return {text: t.textContent, left: r.left, top: r.top, right: r.right, bottom: r.bottom}; });
    var svgs = {};
    Array.prototype.forEach.call(document.querySelectorAll("div[data-chart]"), function (el) {
      svgs[el.getAttribute("data-chart")] = el.querySelectorAll("svg").length; });
    var header = document.querySelector("#bot-table thead th:nth-child(3)");
    header.click(); header.click();  // points, descending
    var names = Array.prototype.slice.call(document.querySelectorAll("#bot-table tbody tr"), 0, 3)
      .map(function (row) { return row.cells[2].getAttribute("data-value"); });
    var out = document.createElement("pre");
    out.id = "measured";
    out.textContent = JSON.stringify({labels: boxes, svgs: svgs, sorted: names});
    document.body.appendChild(out);
  }
  measure();
})();
</script>
"""


def test_rank_labels_do_not_overlap_and_every_chart_has_an_svg(store_db: Path, tmp_path: Path) -> None:
    _chromium()
    # Three bots tied on points at the newest snapshot share rank 2: their labels start at the same height.
    db = tmp_path / "tied.duckdb"
    shutil.copy(store_db, db)
    with duckdb.connect(str(db)) as con:
        con.execute(
            "UPDATE leaderboard SET points = (SELECT points FROM leaderboard WHERE rank = 2 AND snapshot_id "
            "= "
            "(SELECT max(snapshot_id) FROM snapshots)) WHERE rank IN (3, 4) AND snapshot_id = "
            "(SELECT max(snapshot_id) FROM snapshots)"
        )
    report = build_report(db, tmp_path / "report.html")
    assert report.read_text(encoding="utf-8").count("  #2") >= 3, "three end labels read #2"
    html = report.read_text(encoding="utf-8")
    probe = tmp_path / "probe.html"
    head, tail = html.rsplit("</body>", 1)
    probe.write_text(head + _MEASURE + "</body>" + tail, encoding="utf-8")
    dom, _ = _render(probe, tmp_path / "profile", "--window-size=1200,2000")
    found = re.search(r'<pre id="measured">(.*?)</pre>', dom, re.S)
    assert found, "the measuring script ran after every chart rendered"
    measured = json.loads(unescape(found.group(1)))
    labels = measured["labels"]
    assert len(labels) == 10, "one end label per bot of the top 10"
    for a, b in itertools.combinations(labels, 2):
        overlap = (
            a["left"] < b["right"]
            and b["left"] < a["right"]
            and a["top"] < b["bottom"]
            and b["top"] < a["bottom"]
        )
        assert not overlap, f"labels overlap: {a} and {b}"
    assert all(label["bottom"] - label["top"] > 5 for label in labels), "labels have a real size"
    assert measured["svgs"] and all(count >= 1 for count in measured["svgs"].values()), measured["svgs"]
    points = [int(value) for value in measured["sorted"]]
    assert points == sorted(points, reverse=True), "clicking Points twice sorts the table descending"


def test_screenshot_of_the_report(store_report: Path, tmp_path: Path) -> None:
    _chromium()
    report = store_report
    shot = tmp_path / "report.png"
    command = [
        _chromium(),
        *FLAGS,
        f"--user-data-dir={tmp_path / 'profile'}",
        "--host-resolver-rules=MAP * ~NOTFOUND",
        "--hide-scrollbars",
        "--window-size=1200,6000",
        "--virtual-time-budget=30000",
        f"--screenshot={shot}",
        report.resolve().as_uri(),
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-2000:]
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert (width, height) == (1200, 6000)
    assert len(data) > 200_000, "a page full of charts, not a blank screenshot"


#: Appended to a copy of the report shown in an iframe of the width under test (headless Chromium has no
#: window narrower than 500 px): once every chart has rendered, posts to the parent page the frame's scroll
#: width, each chart box's width and scroll width with its svg's width and right edge, and the bot table's
#: columns (shown or hidden, left and right edges).
_FIT = """
<script>
(function () {
  function measure() {
    var root = document.documentElement;
    if (root.getAttribute("data-rendered") !== "true") { setTimeout(measure, 50); return; }
    setTimeout(function () {
      var charts = {};
      Array.prototype.forEach.call(document.querySelectorAll("div[data-chart]"), function (el) {
        var svg = el.querySelector("svg"); var r = svg ? svg.getBoundingClientRect() : null;
        charts[el.getAttribute("data-chart")] = {box: el.clientWidth, scroll: el.scrollWidth,
          svg_width: r ? r.width : 0, svg_right: r ? r.right : 0};
      });
      var headers = document.querySelectorAll("#bot-table thead th");
      var columns = Array.prototype.map.call(headers, function (th) {
        var r = th.getBoundingClientRect();
        return {text: th.textContent.trim(), shown: getComputedStyle(th).display !== "none",
          left: r.left, right: r.right};
      });
      parent.postMessage(JSON.stringify({page: root.scrollWidth, viewport: window.innerWidth,
        charts: charts, columns: columns}), "*");
    }, 300);
  }
  measure();
})();
</script>
"""

#: The page under test in a frame ``{width}`` px wide; writes what the frame posts into ``<pre id=measured>``.
_FRAME = """<!doctype html><html><body style="margin:0">
<iframe src="probe.html" style="border:0;width:{width}px;height:3000px"></iframe>
<script>window.addEventListener("message", function (e) {{
  var out = document.createElement("pre"); out.id = "measured"; out.textContent = e.data;
  document.body.appendChild(out); }});</script></body></html>"""


def _check_shot(shot: Path, width: int, height: int) -> None:
    """``shot`` is a PNG of ``width`` x ``height`` px holding a page with charts (not blank)."""
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", data[16:24]) == (width, height)
    assert len(data) > 50_000, "a page with charts, not a blank screenshot"


@pytest.mark.parametrize("width", [390, 1600])
def test_report_fits_a_phone_and_a_wide_screen(store_report: Path, tmp_path: Path, width: int) -> None:
    """At 390 px (a phone) and 1600 px: the page never scrolls sideways, no chart is wider than its box or
    scrolls inside it (so the newest data of the rank chart is on screen), single and layered charts fill
    their box, and the bot table shows rank, bot and the change since the previous snapshot.

    A screenshot is taken at each width (``shot-<width>.png`` in the test's folder); at 390 px it shows the
    frame in a 500 px window (headless Chromium's narrowest)."""
    _chromium()
    html = store_report.read_text(encoding="utf-8")
    head, tail = html.rsplit("</body>", 1)
    (tmp_path / "probe.html").write_text(head + _FIT + "</body>" + tail, encoding="utf-8")
    frame = tmp_path / "frame.html"
    frame.write_text(_FRAME.format(width=width), encoding="utf-8")
    window = max(width, 500)
    shot = (tmp_path / f"shot-{width}.png", window, 3000)
    dom, _ = _render(frame, tmp_path / "profile", f"--window-size={window},3000", shot=shot)
    found = re.search(r'<pre id="measured">(.*?)</pre>', dom, re.S)
    assert found, "the measuring script ran after every chart rendered"
    measured = json.loads(unescape(found.group(1)))
    assert measured["viewport"] == width
    assert measured["page"] <= width, f"the page scrolls sideways: {measured['page']} px wide at {width} px"
    specs_block = re.search(r'id="chart-specs">(.*?)</script>', html, re.S)
    assert specs_block
    specs = json.loads(specs_block.group(1))
    assert measured["charts"].keys() == specs.keys()
    for key, chart in measured["charts"].items():
        assert chart["scroll"] <= chart["box"] + 1, f"chart {key} scrolls sideways in its box: {chart}"
        assert chart["svg_right"] <= width, f"chart {key} ends off-screen: {chart}"
        if specs[key].get("width") == "container":
            assert chart["svg_width"] >= 0.9 * chart["box"], f"chart {key} does not fill its box: {chart}"
    shown = {
        c["text"].rstrip(" ⇅▲▼")
        for c in measured["columns"]
        if c["shown"] and c["left"] >= 0 and c["right"] <= width
    }
    assert {"Rank", "Bot", "vs previous"} <= shown, measured["columns"]


#: Appended to a copy of the evidence report: once every chart has rendered, measures the text a reader
#: must be able to read: the heatmap's cell labels, the activity legend's labels (truncated with "…" or
#: past the chart's right edge = clipped), the score histogram's axis labels, the phone list shown instead
#: of the heatmap, the bot names (one line box each = never broken) and the shown table columns. Posts to
#: the parent page when framed, else writes ``<pre id=measured>``.
_READ = """
<script>
(function () {
  function boxes(selector) {
    // Labels Vega hid (labelOverlap: opacity 0) are not read.
    var seen = Array.prototype.filter.call(document.querySelectorAll(selector), function (t) {
      return parseFloat(getComputedStyle(t).opacity) > 0; });
    return seen.map(function (t) {
      var r = t.getBoundingClientRect();
      return {text: t.textContent, left: r.left, top: r.top, right: r.right, bottom: r.bottom};
    }).filter(function (b) { return b.right > b.left; });
  }
  function shown(el) { return !!el && el.getClientRects().length > 0; }
  function columns(id) {
    return Array.prototype.filter.call(document.querySelectorAll("#" + id + " thead th"), shown)
      .map(function (th) { return th.textContent.trim(); });
  }
  function measure() {
    var root = document.documentElement;
    if (root.getAttribute("data-rendered") !== "true") { setTimeout(measure, 50); return; }
    setTimeout(function () {
      var activity = document.getElementById("chart-activity_timeline");
      var list = document.querySelector('[data-phone-list="arena_win_rate"]');
      var names = Array.prototype.map.call(document.querySelectorAll("#bot-table tbody td:nth-child(2)"),
        function (td) { var range = document.createRange(); range.selectNodeContents(td);
          return {text: td.textContent, lines: range.getClientRects().length}; });
      var out = JSON.stringify({
        width: window.innerWidth,
        heat_shown: shown(document.getElementById("chart-arena_win_rate")),
        heat_cells: boxes("#chart-arena_win_rate g.role-mark text"),
        list_shown: shown(list),
        list_items: list ? list.querySelectorAll("li").length : 0,
        legend: boxes("#chart-activity_timeline g.role-legend-label text"),
        activity_right: activity.getBoundingClientRect().right,
        score_ticks: boxes("#chart-score_distribution g.role-axis-label text"),
        names: names,
        bot_columns: columns("bot-table"),
        model_columns: columns("model-rankings")
      });
      if (window.parent !== window) { parent.postMessage(out, "*"); return; }
      var pre = document.createElement("pre"); pre.id = "measured"; pre.textContent = out;
      document.body.appendChild(pre);
    }, 300);
  }
  measure();
})();
</script>
"""


def _overlaps(items: list[dict]) -> list[tuple[dict, dict]]:
    return [
        (a, b)
        for a, b in itertools.combinations(items, 2)
        if a["left"] < b["right"] - 0.5
        and b["left"] < a["right"] - 0.5
        and a["top"] < b["bottom"] - 0.5
        and b["top"] < a["bottom"] - 0.5
    ]


@pytest.fixture(scope="module")
def evidence_probe(evidence_store_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The evidence report (arena, heatmap, activity) with the measuring script, and a frame page."""
    folder = tmp_path_factory.mktemp("readable")
    html = build_report(evidence_store_db, folder / "report.html", bootstrap=FEW_RESAMPLES).read_text(
        encoding="utf-8"
    )
    head, tail = html.rsplit("</body>", 1)
    (folder / "probe.html").write_text(head + _READ + "</body>" + tail, encoding="utf-8")
    return folder


@pytest.mark.parametrize("width", [390, 1440])
def test_every_text_can_be_read_on_a_phone_and_a_desktop(evidence_probe: Path, width: int) -> None:
    """390 px (a phone, framed) and 1440 px: the heatmap shows on the desktop with no two cell labels
    overlapping, and gives way to its list of pairs on the phone; the activity legend is never clipped; the
    score histogram's tick labels never touch; bot names are never broken; the tables keep their
    priority-1 columns. Screenshots: ``readable-<width>.png`` in the test's folder."""
    _chromium()
    if width < 500:
        page = evidence_probe / "frame.html"
        page.write_text(_FRAME.format(width=width), encoding="utf-8")
    else:
        page = evidence_probe / "probe.html"
    window = max(width, 500)
    shot = (evidence_probe / f"readable-{width}.png", window, 3000)
    dom, _ = _render(page, evidence_probe / f"profile-{width}", f"--window-size={window},3000", shot=shot)
    found = re.search(r'<pre id="measured">(.*?)</pre>', dom, re.S)
    assert found, "the measuring script ran after every chart rendered"
    m = json.loads(unescape(found.group(1)))
    assert m["width"] == width
    if width < 640:
        assert not m["heat_shown"] and m["list_shown"] and m["list_items"] == 10
    else:
        assert m["heat_shown"] and not m["list_shown"]
        assert len(m["heat_cells"]) == 30, "a label per off-diagonal cell of the 6 models"
        assert _overlaps(m["heat_cells"]) == []
    assert len(m["legend"]) == 5, m["legend"]
    for label in m["legend"]:
        assert not label["text"].endswith("…") and label["right"] <= m["activity_right"] + 0.5, label
    assert len(m["score_ticks"]) >= 4 and _overlaps(m["score_ticks"]) == [], m["score_ticks"]
    assert m["names"] and all(n["lines"] == 1 for n in m["names"]), [n for n in m["names"] if n["lines"] != 1]
    bot = [c.rstrip(" ⇅▲▼") for c in m["bot_columns"]]
    assert {"Rank", "Bot", "Points", "vs previous"} <= set(bot), bot
    assert {"Model", "Arena rank", "Platform rank", "Percentile rank"} <= set(m["model_columns"])
    if width >= 1440:
        assert len(bot) == 9 and len(m["model_columns"]) == 8, "a desktop shows every column"


#: Appended to a copy of the report framed at a phone's width: once every chart has rendered, reports each
#: table of the page: its caption (or id), the columns hidden by data-fit and the note naming them, whether
#: its box scrolls sideways and the note saying so, and every shown cell whose text is cut: wider than the
#: cell (text clipped inside it) or ending past the edge of a box that does not say it scrolls.
_PHONE = """
<script>
(function () {
  function scroller(table) {
    return getComputedStyle(table).overflowX !== "visible" ? table : table.parentElement;
  }
  function notes(table) {
    var box = table.parentElement.classList.contains("table-scroll") ? table.parentElement : table;
    var found = {}; var el = box.previousElementSibling;
    while (el && el.classList.contains("table-note")) {
      found[el.getAttribute("data-kind")] = el.textContent; el = el.previousElementSibling;
    }
    return found;
  }
  function measure() {
    var root = document.documentElement;
    if (root.getAttribute("data-rendered") !== "true") { setTimeout(measure, 50); return; }
    setTimeout(function () {
      var tables = Array.prototype.map.call(document.querySelectorAll("main table"), function (table) {
        var box = scroller(table);
        var right = box.getBoundingClientRect().right;
        var scrolls = box.scrollWidth > box.clientWidth + 1;
        var headers = Array.prototype.slice.call(table.tHead ? table.tHead.rows[0].cells : []);
        var first = table.tBodies.length && table.tBodies[0].rows[0];
        // A column is hidden when its header and its cells are (a card layout hides only the header row).
        var hidden = headers.filter(function (th, i) {
          var cell = first && first.cells[i];
          return th.getClientRects().length === 0 && !(cell && cell.getClientRects().length);
        }).map(function (th) { return th.textContent.trim(); });
        var cut = [];
        Array.prototype.forEach.call(table.querySelectorAll("th, td"), function (cell) {
          if (!cell.getClientRects().length || !cell.textContent.trim()) { return; }
          var r = cell.getBoundingClientRect();
          var text = cell.textContent.trim();
          if (cell.scrollWidth > cell.clientWidth + 1) { cut.push({text: text, why: "clipped"}); }
          else if (r.right > right + 1 && !scrolls) { cut.push({text: text, why: "past the edge"}); }
        });
        var caption = table.caption ? table.caption.textContent.trim() : (table.id || "");
        return {caption: caption, hidden: hidden, scrolls: scrolls, notes: notes(table), cut: cut,
          page_right: right <= window.innerWidth + 1};
      });
      parent.postMessage(JSON.stringify({width: window.innerWidth, tables: tables}), "*");
    }, 300);
  }
  measure();
})();
</script>
"""


def test_phone_tables_name_what_they_hide_and_say_when_they_scroll(
    store_report: Path, tmp_path: Path
) -> None:
    """At 390 px (framed): a table that hides columns to fit names how many and which, above it; a table
    whose box scrolls sideways says so; no shown cell has its text cut (clipped inside the cell, or past the
    edge of a box that does not scroll); "Top solution changed hands" shows all its columns. Screenshot:
    ``phone-tables.png`` in the test's folder."""
    _chromium()
    html = store_report.read_text(encoding="utf-8")
    head, tail = html.rsplit("</body>", 1)
    (tmp_path / "probe.html").write_text(head + _PHONE + "</body>" + tail, encoding="utf-8")
    frame = tmp_path / "frame.html"
    frame.write_text(_FRAME.format(width=390), encoding="utf-8")
    shot = (tmp_path / "phone-tables.png", 500, 3000)
    dom, _ = _render(frame, tmp_path / "profile", "--window-size=500,3000", shot=shot)
    found = re.search(r'<pre id="measured">(.*?)</pre>', dom, re.S)
    assert found, "the measuring script ran after every chart rendered"
    m = json.loads(unescape(found.group(1)))
    assert m["width"] == 390
    tables = {t["caption"]: t for t in m["tables"]}
    bot = tables["bot-table"]
    assert len(bot["hidden"]) >= 3, "a phone cannot show the leaderboard's 9 columns"
    note = bot["notes"].get("hidden", "")
    assert note.startswith(f"{len(bot['hidden'])} more columns (") and "wider screen" in note, note
    assert all(name in note for name in bot["hidden"]), (bot["hidden"], note)
    for t in m["tables"]:
        assert not t["hidden"] or str(len(t["hidden"])) in t["notes"].get("hidden", ""), t
        assert not t["scrolls"] or "scrolls sideways" in t["notes"].get("scrolls", ""), t
        assert t["cut"] == [], t
        assert t["page_right"], t
    assert any(t["scrolls"] for t in m["tables"]), "at 390 px some table scrolls (and says so)"
    hands = tables["Top solution changed hands"]
    assert not hands["hidden"] and not hands["scrolls"], hands


#: Appended to a copy of the evidence report: once every chart has rendered, reports each chart's titles,
#: axis titles and labels and legend titles and labels as drawn (text, role, box) with the box of the
#: chart's svg, for comparison with the spec's titles; also the plot's box (the root group's background:
#: Vega's data rectangle), each legend's box and every point (symbol) drawn only in part: past the svg's
#: edge, or across the edge of the clip rectangle of a group that clips (a point wholly outside a clip is
#: hidden on purpose: the rank chart's bots below its top). Posts to the parent page when framed.
_CHART_TEXT = """
<script>
(function () {
  var ROLES = ["role-title-text", "role-title-subtitle", "role-axis-title", "role-axis-label",
               "role-legend-title", "role-legend-label"];
  function role(text) {
    for (var el = text; el && el.tagName !== "svg"; el = el.parentElement) {
      for (var i = 0; i < ROLES.length; i++) { if (el.classList.contains(ROLES[i])) { return ROLES[i]; } }
    }
    return null;
  }
  function clipBox(el) {
    // The clip rectangle of the nearest clipping group, in page pixels (null: nothing clips el).
    for (var g = el.parentElement; g && g.tagName !== "svg"; g = g.parentElement) {
      var ref = g.getAttribute("clip-path");
      if (!ref) { continue; }
      var rect = document.getElementById(ref.replace(/^url\\(["']?#/, "").replace(/["']?\\)$/, ""));
      rect = rect && rect.querySelector("rect");
      if (!rect) { return null; }
      var m = g.getScreenCTM(), pt = g.ownerSVGElement.createSVGPoint();
      pt.x = rect.x.baseVal.value; pt.y = rect.y.baseVal.value; var a = pt.matrixTransform(m);
      pt.x += rect.width.baseVal.value; pt.y += rect.height.baseVal.value; var b = pt.matrixTransform(m);
      return {left: a.x, top: a.y, right: b.x, bottom: b.y};
    }
    return null;
  }
  function cutPoints(svg, box) {
    var cut = [];
    Array.prototype.forEach.call(svg.querySelectorAll("g.mark-symbol path"), function (path) {
      var r = path.getBoundingClientRect();
      if (!r.width || parseFloat(getComputedStyle(path).opacity) === 0) { return; }
      var clip = clipBox(path);
      var edge = clip || box;
      var inside = r.left >= edge.left - 0.5 && r.right <= edge.right + 0.5 && r.top >= edge.top - 0.5 &&
                   r.bottom <= edge.bottom + 0.5;
      var outside = r.right <= edge.left || r.left >= edge.right || r.bottom <= edge.top ||
                    r.top >= edge.bottom;
      if (!inside && !(clip && outside)) {
        cut.push({left: r.left, right: r.right, top: r.top, bottom: r.bottom, edge: edge, clipped: !!clip});
      }
    });
    return cut;
  }
  function measure() {
    var root = document.documentElement;
    if (root.getAttribute("data-rendered") !== "true") { setTimeout(measure, 50); return; }
    setTimeout(function () {
      var charts = {};
      Array.prototype.forEach.call(document.querySelectorAll("div[data-chart]"), function (div) {
        var svg = div.querySelector("svg");
        if (!svg || !svg.getClientRects().length) { return; }
        var box = svg.getBoundingClientRect();
        var texts = [];
        Array.prototype.forEach.call(svg.querySelectorAll("text"), function (t) {
          var kind = role(t);
          if (!kind || parseFloat(getComputedStyle(t).opacity) === 0 || !t.textContent.trim()) { return; }
          var r = t.getBoundingClientRect();
          // a facet's header labels its panel with a data value: not a title of the spec
          var header = !!t.closest("g[class*='header'], g[class*='role-scope'], g[class*='cell']");
          texts.push({role: kind, text: t.textContent, header: header, left: r.left, right: r.right,
                      top: r.top, bottom: r.bottom});
        });
        var plot = svg.querySelector("g.role-frame.root > g > path.background");
        var p = plot ? plot.getBoundingClientRect() : null;
        var legends = Array.prototype.map.call(svg.querySelectorAll("g.role-legend"), function (g) {
          var r = g.getBoundingClientRect();
          return {left: r.left, right: r.right, top: r.top, bottom: r.bottom}; });
        charts[div.getAttribute("data-chart")] = {left: box.left, right: box.right, top: box.top,
          bottom: box.bottom, texts: texts, legends: legends, points_cut: cutPoints(svg, box),
          plot: p ? {left: p.left, right: p.right, top: p.top, bottom: p.bottom} : null};
      });
      var out = JSON.stringify({width: window.innerWidth, charts: charts});
      if (window.parent !== window) { parent.postMessage(out, "*"); return; }
      var pre = document.createElement("pre"); pre.id = "measured"; pre.textContent = out;
      document.body.appendChild(pre);
    }, 300);
  }
  measure();
})();
</script>
"""


def _spec_titles(spec: object) -> set[str]:
    """Every title written in a Vega-Lite spec (chart, axis, legend; a list of lines joined too)."""
    found: set[str] = set()
    if isinstance(spec, dict):
        for key, value in spec.items():
            if key in ("title", "subtitle") and isinstance(value, str):
                found.add(value)
            elif key in ("title", "subtitle") and isinstance(value, list):
                found.add("".join(str(v) for v in value))
                found.update(str(v) for v in value)
            else:
                found |= _spec_titles(value)
    elif isinstance(spec, list):
        for item in spec:
            found |= _spec_titles(item)
    return found


@pytest.fixture(scope="module", params=[390, 1440])
def drawn_charts(evidence_probe: Path, request: pytest.FixtureRequest) -> tuple[int, dict, dict, Path]:
    """The evidence report drawn at 390 px (a phone, framed) and 1440 px, measured by ``_CHART_TEXT``:
    (width, the measurements, the page's chart specs by key, the page), with a screenshot of the page as
    measured (``chart-text-<width>.png`` beside it). Drawn once per width for the tests below."""
    width = int(request.param)
    _chromium()
    html = (evidence_probe / "report.html").read_text(encoding="utf-8")
    head, tail = html.rsplit("</body>", 1)
    probe = evidence_probe / f"chart-text-{width}.html"
    probe.write_text(head + _CHART_TEXT + "</body>" + tail, encoding="utf-8")
    if width < 500:
        page = evidence_probe / f"chart-text-frame-{width}.html"
        page.write_text(_FRAME.format(width=width).replace("probe.html", probe.name), encoding="utf-8")
    else:
        page = probe
    window = max(width, 500)
    shot = (evidence_probe / f"chart-text-{width}.png", window, 3000)
    dom, _ = _render(
        page, evidence_probe / f"profile-text-{width}", f"--window-size={window},3000", shot=shot
    )
    found = re.search(r'<pre id="measured">(.*?)</pre>', dom, re.S)
    assert found, "the measuring script ran after every chart rendered"
    m = json.loads(unescape(found.group(1)))
    assert m["width"] == width
    specs_block = re.search(r'id="chart-specs">(.*?)</script>', html, re.S)
    assert specs_block
    assert m["charts"], "charts were measured"
    return width, m, json.loads(specs_block.group(1)), page


def test_no_chart_text_is_cut_on_a_phone_or_a_desktop(drawn_charts: tuple[int, dict, dict, Path]) -> None:
    """390 px (a phone, framed) and 1440 px: every chart title, axis title and label, legend title and label
    is drawn whole: no Vega truncation ("…"), every title drawn is one written in the chart's spec (or one
    of its lines), and no text reaches past its chart's svg or the screen (where the page clips it).
    Screenshot: ``chart-text-<width>.png`` in the fixture's folder (taken by the run that measured)."""
    width, m, specs, page = drawn_charts
    cut = []

    def titled(t: dict) -> bool:
        return t["role"] in ("role-title-text", "role-axis-title", "role-legend-title") and not t["header"]

    for key, chart in m["charts"].items():
        titles = _spec_titles(specs[key])
        assert any(t["role"] == "role-axis-label" for t in chart["texts"]) or key == "arena_win_rate", key
        for t in chart["texts"]:
            text = t["text"]
            if text.endswith("…"):
                cut.append((key, t["role"], text, "truncated"))
            elif titled(t) and text not in titles:
                cut.append((key, t["role"], text, "not a title of the spec"))
            elif t["left"] < max(chart["left"], 0) - 1 or t["right"] > min(chart["right"], width) + 1:
                edge = f"{t['left']:.0f}-{t['right']:.0f} px in {chart['left']:.0f}-{chart['right']:.0f} px"
                cut.append((key, t["role"], text, f"past the edge ({edge})"))
    assert cut == [], "\n".join(map(str, cut))
    _check_shot(page.parent / f"chart-text-{width}.png", max(width, 500), 3000)  # drawn with ``m``


#: Charts whose builders leave their legend where Vega-Lite puts it (at the right of the plot).
_RIGHT_LEGENDS = ("points_trend", "model_trend", "arena_rank", "category_problems", "category_maturity")


def test_legends_leave_the_plot_its_width_and_every_point_is_drawn_whole(
    drawn_charts: tuple[int, dict, dict, Path],
) -> None:
    """390 px (a phone, framed) and 1440 px. The legends Vega-Lite puts at the right of the plot (e.g.
    "Models over time") are below the plot on the phone, where the plot then takes at least 80 % of the
    chart's width (at the right they squeezed the plot to ~180 of ~350 px), and stay at the right on the
    desktop. No point is drawn in part: a point at 100 % (or any edge) lies wholly inside its svg, and
    inside the clip of a clipping plot or wholly outside it."""
    width, m, _, _ = drawn_charts
    for key in _RIGHT_LEGENDS:
        chart = m["charts"][key]
        plot, legends = chart["plot"], chart["legends"]
        assert plot and legends, (key, plot, legends)
        if width < 640:
            assert all(legend["top"] >= plot["bottom"] for legend in legends), (key, plot, legends)
            assert plot["right"] - plot["left"] >= 0.8 * (chart["right"] - chart["left"]), (key, plot, chart)
        else:
            assert all(legend["left"] >= plot["right"] for legend in legends), (key, plot, legends)
    cut = {key: chart["points_cut"][:3] for key, chart in m["charts"].items() if chart["points_cut"]}
    assert cut == {}, cut


#: Model names as long as the platform's, for the rank chart of :func:`diverging_fit` (its are 1-4 letters).
_LONG_NAMES = {
    "solo": "claude-sonnet-4-20250514",
    "a": "gemini-2.5-pro-preview",
    "b": "llama-3.1-70b-instruct",
    "c": "mistral-large-2411",
    "low": "qwen-2.5-72b-instruct",
}


def test_the_rank_charts_two_legends_stack_below_the_plot_on_a_phone(evidence_probe: Path) -> None:
    """A rank chart whose windows' fits diverged has two legends at its right ("Entry", and "Fit" saying
    what its hollow points mean). The page moves both below the plot on a phone, where Vega put them side by
    side: at 390 px "Fit" began right of the model names and ran past the chart's edge ("diverged, unranked
    o"). Drawn by the report page's own script (the evidence report with that chart in place of its rank
    chart): the legends below the plot, one under the other, every text inside the chart."""
    _chromium()
    over = diverging_fit().over_time.with_columns(pl.col("label").replace(_LONG_NAMES))
    html = (evidence_probe / "report.html").read_text(encoding="utf-8")
    found = re.search(r'(id="chart-specs">)(.*?)(</script>)', html, re.S)
    assert found
    specs = json.loads(found.group(2))
    specs["arena_rank"] = fit_container(ch.chart_spec(ch.arena_rank_chart(over, title="")))
    text = json.dumps(specs, separators=(",", ":")).replace("<", "\\u003c").replace(">", "\\u003e")
    html = html[: found.start(2)] + text.replace("&", "\\u0026") + html[found.end(2) :]
    head, tail = html.rsplit("</body>", 1)
    folder = evidence_probe / "two-legends"
    folder.mkdir(exist_ok=True)
    (folder / "probe.html").write_text(head + _CHART_TEXT + "</body>" + tail, encoding="utf-8")
    page = folder / "frame.html"
    page.write_text(_FRAME.format(width=390), encoding="utf-8")
    dom, _ = _render(page, folder / "profile", "--window-size=500,3000")
    measured = re.search(r'<pre id="measured">(.*?)</pre>', dom, re.S)
    assert measured, "the measuring script ran after every chart rendered"
    chart = json.loads(unescape(measured.group(1)))["charts"]["arena_rank"]
    plot, legends = chart["plot"], sorted(chart["legends"], key=lambda legend: legend["top"])
    assert len(legends) == 2 and all(legend["top"] >= plot["bottom"] for legend in legends), (plot, legends)
    assert legends[1]["top"] >= legends[0]["bottom"] - 0.5, ("one under the other", legends)
    titles = {t["text"] for t in chart["texts"] if t["role"] == "role-legend-title"}
    assert titles == {"Entry", "Fit"}, titles
    edge = min(chart["right"], 390)
    past = [t for t in chart["texts"] if t["left"] < max(chart["left"], 0) - 1 or t["right"] > edge + 1]
    assert past == [] and not any(t["text"].endswith("…") for t in chart["texts"]), (edge, past)
