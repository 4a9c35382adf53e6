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
- a single or layered view with a legend at its right (Vega-Lite's default place) carries
  ``usermeta.solvelens_fit = {"kind": "legend", ...}``: in a box narrower than :data:`NARROW_PX` the page's
  script puts that legend below the plot (several legends one under the other: side by side the rank
  chart's "Fit" ran past the edge), in as many columns as its longest label lets fit, before embedding (and
  again when a resize crosses the width): at 390 px a legend at the right took ~110 of the ~350 px and
  squeezed the "Models over time" plot to ~180 px;
- Vega-Lite cannot size concatenated or faceted views by their container (``"container"`` works only for
  single and layered views, https://vega.github.io/vega-lite/docs/size.html), so those keep their numbers and
  carry ``usermeta.solvelens_fit`` for the page's script, which sets each stacked view's width, or a facet's
  column count, from the container's width before embedding and again after a resize.
"""

from __future__ import annotations

import textwrap
from typing import Any

#: ``usermeta`` key read by the report's embedding script.
FIT_KEY = "solvelens_fit"
#: Characters beyond which an x-axis title is drawn on two lines of about half its length (~6 px a character:
#: a line of up to ~30 fits a phone's ~200 px plot; "Bradley–Terry score (Elo scale)", 31, stays whole).
TITLE_LINE_CHARS = 40
#: Pixels a stacked view leaves for its axis titles and labels (the page subtracts them from the container).
STACK_MARGIN_PX = 80
#: A box narrower than this (px; a phone, the report's 640 px breakpoint less the page's margins) gets the
#: legend of a single or layered view below the plot instead of at its right.
NARROW_PX = 600
#: Pixels a legend entry takes besides its label (the symbol, the gap to the label and to the next column).
LEGEND_ENTRY_PX = 30
#: Pixels a legend label takes per character at the theme's 11 px (DejaVu Sans: ~6.4 on average; rounded
#: up, so a column is never narrower than its widest label: "claude-sonnet-4-20250514" needs ~155 px).
LEGEND_CHAR_PX = 7
#: Channels whose legend Vega-Lite draws at the right of the plot unless told otherwise.
_LEGEND_CHANNELS = ("color", "fill", "stroke", "shape", "size", "opacity", "strokeDash")


def fit_container(spec: dict[str, Any]) -> dict[str, Any]:
    """A copy of the Vega-Lite ``spec`` (from :func:`solvelens.charts.chart_spec`) sized by its container.

    Single and layered views: ``width`` becomes ``"container"`` (also removed from the layers, which must
    not contradict it), ``autosize`` ``{"type": "fit-x", "contains": "padding"}``; the height is unchanged.
    Long x-axis titles are drawn on two lines (module docstring). A single or layered view with a legend at
    its right also gets ``usermeta.solvelens_fit = {"kind": "legend", "narrow": NARROW_PX, "column": px}``:
    the page moves the legend below the plot in a box narrower than ``narrow``, in ``box // column``
    columns (at least one) of ``column`` px each, :data:`LEGEND_ENTRY_PX` + :data:`LEGEND_CHAR_PX` per
    character of the longest value the legend shows (read from the spec's ``datasets``). ``vconcat``:
    ``usermeta.solvelens_fit = {"kind": "stack", "margin": STACK_MARGIN_PX}``. ``facet`` with ``columns``:
    ``{"kind": "columns", "panel": <the panel width in px>}``. Anything else is returned as is.
    ``spec`` is not changed; only the parts changed are copied (the data rows are shared, never copied: a
    deep copy of a year history's specs took ~7 % of the report's time).
    """
    out = _x_titles_wrapped(spec)
    if "layer" in out or "mark" in out:
        out["width"] = "container"
        out["autosize"] = {"type": "fit-x", "contains": "padding"}
        if "layer" in out:
            out["layer"] = [{k: v for k, v in layer.items() if k != "width"} for layer in out["layer"]]
        fields = _legend_fields_at_right(out)
        if fields:
            column = LEGEND_ENTRY_PX + LEGEND_CHAR_PX * _longest_value(out, fields)
            hint = {"kind": "legend", "narrow": NARROW_PX, "column": column}
            out["usermeta"] = {**out.get("usermeta", {}), FIT_KEY: hint}
    elif "vconcat" in out:
        out["usermeta"] = {**out.get("usermeta", {}), FIT_KEY: {"kind": "stack", "margin": STACK_MARGIN_PX}}
    elif "facet" in out and "columns" in out:
        panel = out.get("spec", {}).get("width", 200)
        out["usermeta"] = {**out.get("usermeta", {}), FIT_KEY: {"kind": "columns", "panel": panel}}
    return out


def _legend_fields_at_right(spec: dict[str, Any]) -> list[tuple[str | None, str]]:
    """The legends a single or layered ``spec`` draws at the right of its plot that the page may move, as
    (the view's dataset name or None, field): a field on a legend channel (:data:`_LEGEND_CHANNELS`) whose
    legend is not ``None`` and is placed by no ``orient`` of its own nor of the config (Vega-Lite's default
    is ``"right"``). A legend whose builder chose its place (``orient`` given) stays there: none."""
    if "orient" in spec.get("config", {}).get("legend", {}):
        return []
    found = []
    for view in [spec, *spec.get("layer", [])]:
        encoding = view.get("encoding", {}) if isinstance(view, dict) else {}
        data = view.get("data", spec.get("data"))
        name = data.get("name") if isinstance(data, dict) else None
        for channel in _LEGEND_CHANNELS:
            definition = encoding.get(channel)
            if not isinstance(definition, dict) or "field" not in definition:
                continue
            legend = definition.get("legend", {})
            if legend is not None and "orient" not in legend:
                found.append((name, str(definition["field"])))
    return found


def _longest_value(spec: dict[str, Any], fields: list[tuple[str | None, str]]) -> int:
    """Characters of the longest value of ``fields`` (dataset name, field) in the spec's ``datasets`` (a
    quantitative legend's labels are short numbers: at least 6)."""
    datasets = spec.get("datasets", {})
    longest = 6
    for name, field in fields:
        for row in datasets.get(name, []) if name else []:
            value = row.get(field) if isinstance(row, dict) else None
            if isinstance(value, str):
                longest = max(longest, len(value))
    return longest


def _two_lines(title: object) -> object:
    """A title longer than :data:`TITLE_LINE_CHARS` characters as two lines of about half its length, broken
    at spaces (``"Mean rank percentile within problem (100% = always best)"`` as ``["Mean rank percentile
    within", "problem (100% = always best)"]``); any other title as it is."""
    if not isinstance(title, str) or len(title) <= TITLE_LINE_CHARS:
        return title
    return textwrap.wrap(title, width=len(title) // 2 + 2)


def _x_titles_wrapped(spec: Any) -> Any:
    """``spec`` with every x-axis title (its layers, concatenated and faceted views included) on two lines
    when :func:`_two_lines` splits it. ``spec`` is not changed: the dicts on the way to a title are copied
    shallowly, everything else (the data rows) is shared."""
    if isinstance(spec, list):
        return [_x_titles_wrapped(item) for item in spec]
    if not isinstance(spec, dict):
        return spec
    out = dict(spec)
    if isinstance(spec.get("encoding"), dict):
        encoding = dict(spec["encoding"])
        for channel in ("x", "x2"):
            if isinstance(encoding.get(channel), dict):
                encoding[channel] = _channel_titles_wrapped(encoding[channel])
        out["encoding"] = encoding
    for key in ("layer", "vconcat", "hconcat", "concat", "spec"):
        if key in spec:
            out[key] = _x_titles_wrapped(spec[key])
    return out


def _channel_titles_wrapped(channel: dict[str, Any]) -> dict[str, Any]:
    out = dict(channel)
    if "title" in out:
        out["title"] = _two_lines(out["title"])
    if isinstance(out.get("axis"), dict) and "title" in out["axis"]:
        out["axis"] = {**out["axis"], "title": _two_lines(out["axis"]["title"])}
    return out
