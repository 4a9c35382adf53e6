"""The notebook renderer ``"solvelens"``: interactive charts in JupyterLab 4.6 and a static SVG everywhere
else, offline.

JupyterLab 4.6 renders Vega-Lite natively only up to v5 (MIME type ``application/vnd.vegalite.v5+json``),
while Altair 6 emits v6 specs, which it would show as plain text. The charts in this package use nothing
v6-only, so this renderer sends each spec under the v5 MIME type with a v5 ``$schema`` (JupyterLab draws it
with tooltips, offline, from its own bundled Vega), plus the chart rendered to SVG by vl-convert (what
nbconvert, GitHub and plain Jupyter show; also what the notebook tests count).
"""

from __future__ import annotations

from typing import Any

import altair as alt
import vl_convert as vlc

from solvelens.charts.theme import THEME_NAME

RENDERER_NAME = "solvelens"
#: The Vega-Lite version whose schema the interactive output names (the newest v5 vl-convert knows).
V5_VERSION = "5.21"
V5_SCHEMA = f"https://vega.github.io/schema/vega-lite/v{V5_VERSION.split('.')[0]}.json"
V5_MIMETYPE = "application/vnd.vegalite.v5+json"


def as_v5(spec: dict[str, Any]) -> dict[str, Any]:
    """The spec with a Vega-Lite v5 ``$schema`` (the content is unchanged)."""
    return {**spec, "$schema": V5_SCHEMA}


def render(spec: dict[str, Any], **_: Any) -> dict[str, Any]:
    """Altair renderer: ``{v5 MIME type: spec, "image/svg+xml": svg, "text/plain": ...}``."""
    v5 = as_v5(spec)
    svg = vlc.vegalite_to_svg(v5, vl_version=V5_VERSION)
    return {V5_MIMETYPE: v5, "image/svg+xml": svg, "text/plain": "<solvelens chart>"}


alt.renderers.register(RENDERER_NAME, render)


def enable_notebook_charts(*, interactive: bool = True) -> None:
    """Use the solvelens theme and renderer in a notebook: interactive in JupyterLab (``interactive``),
    else Altair's offline ``"svg"`` renderer only."""
    alt.theme.enable(THEME_NAME)
    alt.renderers.enable(RENDERER_NAME if interactive else "svg")
