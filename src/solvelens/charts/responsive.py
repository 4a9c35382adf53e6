"""Chart specs that fit the width of the page they are embedded in (a phone at 390 px, a desktop at 1600 px).

The builders draw at a fixed width (:data:`solvelens.charts.theme.DEFAULT_WIDTH`), which is what a notebook
and a PNG need. On a web page a fixed width is wrong on every screen but one: at 390 px the charts scrolled
sideways in their boxes without a hint and the newest data of the rank chart was off-screen. So the report
embeds :func:`fit_container` of each spec:

- a single view or a layered view gets Vega-Lite's own ``width: "container"`` with ``autosize: fit-x``:
  the chart takes its container's width, axes and labels included, and vega-embed redraws it when the
  window is resized;
- Vega-Lite cannot size concatenated or faceted views by their container (``"container"`` works only for
  single and layered views, https://vega.github.io/vega-lite/docs/size.html), so those keep their numbers and
  carry ``usermeta.solvelens_fit`` for the page's script, which sets each stacked view's width, or a facet's
  column count, from the container's width before embedding and again after a resize.
"""

from __future__ import annotations

from typing import Any

#: ``usermeta`` key read by the report's embedding script.
FIT_KEY = "solvelens_fit"
#: Pixels a stacked view leaves for its axis titles and labels (the page subtracts them from the container).
STACK_MARGIN_PX = 80


def fit_container(spec: dict[str, Any]) -> dict[str, Any]:
    """A copy of the Vega-Lite ``spec`` (from :func:`solvelens.charts.chart_spec`) sized by its container.

    Single and layered views: ``width`` becomes ``"container"`` (also removed from the layers, which must
    not contradict it), ``autosize`` ``{"type": "fit-x", "contains": "padding"}``; the height is unchanged.
    ``vconcat``: ``usermeta.solvelens_fit = {"kind": "stack", "margin": STACK_MARGIN_PX}``. ``facet`` with
    ``columns``: ``{"kind": "columns", "panel": <the panel width in px>}``. Anything else is returned as is.
    ``spec`` is not changed; only the parts changed are copied (the data rows are shared, never copied: a
    deep copy of a year history's specs took ~7 % of the report's time).
    """
    out = dict(spec)
    if "layer" in out or "mark" in out:
        out["width"] = "container"
        out["autosize"] = {"type": "fit-x", "contains": "padding"}
        if "layer" in out:
            out["layer"] = [{k: v for k, v in layer.items() if k != "width"} for layer in out["layer"]]
    elif "vconcat" in out:
        out["usermeta"] = {**out.get("usermeta", {}), FIT_KEY: {"kind": "stack", "margin": STACK_MARGIN_PX}}
    elif "facet" in out and "columns" in out:
        panel = out.get("spec", {}).get("width", 200)
        out["usermeta"] = {**out.get("usermeta", {}), FIT_KEY: {"kind": "columns", "panel": panel}}
    return out
