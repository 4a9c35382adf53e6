"""Chart specs that fit the width of the page they are embedded in (a phone at 390 px, a desktop at 1600 px).

The builders draw at a fixed width (:data:`solvelens.charts.theme.DEFAULT_WIDTH`), which is what a notebook
and a PNG need. On a web page a fixed width is wrong on every screen but one: at 390 px the charts scrolled
sideways in their boxes without a hint and the newest data of the rank chart was off-screen. So the report
embeds :func:`fit_container` of each spec:

- a single view or a layered view gets Vega-Lite's own ``width: "container"`` with ``autosize: fit-x``:
  the chart takes its container's width, axes and labels included, and vega-embed redraws it when the
  window is resized;
- an x-axis title longer than :data:`TITLE_LINE_CHARS` characters, e.g. "Mean rank percentile within
  problem (95% bootstrap interval)", is drawn on two lines: Vega centres an axis title on the plot and cuts
  it to the plot's width ("... (95% bootstra"), and on a phone a plot beside long labels is ~200 px wide;
- Vega-Lite cannot size concatenated or faceted views by their container (``"container"`` works only for
  single and layered views, https://vega.github.io/vega-lite/docs/size.html), so those keep their numbers and
  carry ``usermeta.solvelens_fit`` for the page's script, which sets each stacked view's width, or a facet's
  column count, from the container's width before embedding and again after a resize.
"""

from __future__ import annotations

import copy
import textwrap
from typing import Any

#: ``usermeta`` key read by the report's embedding script.
FIT_KEY = "solvelens_fit"
#: Characters beyond which an x-axis title is drawn on two lines of about half its length (~6 px a character:
#: a line of up to ~30 fits a phone's ~200 px plot; "Bradley–Terry score (Elo scale)", 31, stays whole).
TITLE_LINE_CHARS = 40
#: Pixels a stacked view leaves for its axis titles and labels (the page subtracts them from the container).
STACK_MARGIN_PX = 80


def fit_container(spec: dict[str, Any]) -> dict[str, Any]:
    """A copy of the Vega-Lite ``spec`` (from :func:`solvelens.charts.chart_spec`) sized by its container.

    Single and layered views: ``width`` becomes ``"container"`` (also removed from the layers, which must
    not contradict it), ``autosize`` ``{"type": "fit-x", "contains": "padding"}``; the height is unchanged.
    Long x-axis titles are drawn on two lines (module docstring). ``vconcat``:
    ``usermeta.solvelens_fit = {"kind": "stack", "margin": STACK_MARGIN_PX}``. ``facet`` with ``columns``:
    ``{"kind": "columns", "panel": <the panel width in px>}``. Anything else is returned as is.
    """
    out = copy.deepcopy(spec)
    _wrap_x_titles(out)
    if "layer" in out or "mark" in out:
        out["width"] = "container"
        out["autosize"] = {"type": "fit-x", "contains": "padding"}
        for layer in out.get("layer", []):
            layer.pop("width", None)
    elif "vconcat" in out:
        out.setdefault("usermeta", {})[FIT_KEY] = {"kind": "stack", "margin": STACK_MARGIN_PX}
    elif "facet" in out and "columns" in out:
        panel = out.get("spec", {}).get("width", 200)
        out.setdefault("usermeta", {})[FIT_KEY] = {"kind": "columns", "panel": panel}
    return out


def _two_lines(title: object) -> object:
    """A title longer than :data:`TITLE_LINE_CHARS` characters as two lines of about half its length, broken
    at spaces (``"Mean rank percentile within problem (100% = always best)"`` as ``["Mean rank percentile
    within", "problem (100% = always best)"]``); any other title as it is."""
    if not isinstance(title, str) or len(title) <= TITLE_LINE_CHARS:
        return title
    return textwrap.wrap(title, width=len(title) // 2 + 2)


def _wrap_x_titles(spec: Any) -> None:
    """In place: every x-axis title of ``spec`` (its layers, concatenated and faceted views included) on two
    lines when :func:`_two_lines` splits it."""
    if isinstance(spec, list):
        for item in spec:
            _wrap_x_titles(item)
        return
    if not isinstance(spec, dict):
        return
    for channel in ("x", "x2"):
        encoding = spec.get("encoding", {}).get(channel)
        if isinstance(encoding, dict):
            if "title" in encoding:
                encoding["title"] = _two_lines(encoding["title"])
            if isinstance(encoding.get("axis"), dict) and "title" in encoding["axis"]:
                encoding["axis"]["title"] = _two_lines(encoding["axis"]["title"])
    for key in ("layer", "vconcat", "hconcat", "concat", "spec"):
        if key in spec:
            _wrap_x_titles(spec[key])
