"""Serialise charts: Vega-Lite specs with the solvelens theme, offline HTML files, PNG files, and the
bundled Vega JavaScript (from vl-convert, no network) for pages that embed many charts.
"""

from __future__ import annotations

import functools
import os
from importlib.metadata import version
from pathlib import Path
from typing import Any

import altair as alt
import vl_convert as vlc

from solvelens.charts.theme import THEME_NAME

#: Any Altair top-level chart.
AnyChart = alt.TopLevelMixin


def vegalite_version() -> str:
    """The Vega-Lite version Altair emits, as vl-convert names it (e.g. ``"6.4"``)."""
    major_minor = ".".join(alt.SCHEMA_VERSION.lstrip("v").split(".")[:2])
    return major_minor if major_minor in vlc.get_vegalite_versions() else vlc.get_vegalite_versions()[-1]


def chart_spec(chart: AnyChart) -> dict[str, Any]:
    """The chart's Vega-Lite spec (a JSON-ready dict), with the solvelens theme applied."""
    with alt.theme.enable(THEME_NAME):
        return chart.to_dict()


#: Exposes the bundled libraries as globals (what vl-convert's default snippet does).
_GLOBALS_SNIPPET = "window.vegaEmbed = vegaEmbed; window.vega = vega; window.vegaLite = vegaLite;"


def _cache_file() -> Path:
    root = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return root / "solvelens" / f"vega-bundle-vlc{version('vl-convert-python')}-vl{vegalite_version()}.js"


@functools.cache
def vega_javascript() -> str:
    """Vega, Vega-Lite and vega-embed in one script (~900 KB) that sets ``window.vegaEmbed``; offline.

    Bundling takes vl-convert a few seconds, so the result is kept in ``$XDG_CACHE_HOME/solvelens`` (default
    ``~/.cache/solvelens``), keyed by the vl-convert and Vega-Lite versions; a cache that cannot be read or
    written is ignored.
    """
    cache = _cache_file()
    try:
        text = cache.read_text(encoding="utf-8")
        if "window.vegaEmbed" in text[-2000:]:  # a complete bundle ends by exposing the globals
            return text
    except OSError:
        pass
    bundle = vlc.javascript_bundle(_GLOBALS_SNIPPET, vl_version=vegalite_version())
    try:
        cache.parent.mkdir(parents=True, exist_ok=True)
        partial = cache.with_suffix(f".{os.getpid()}.tmp")
        partial.write_text(bundle, encoding="utf-8")
        partial.replace(cache)
    except OSError:
        pass
    return bundle


def save_html(chart: AnyChart, path: str | Path) -> Path:
    """Write ``chart`` as a standalone HTML file with the Vega JavaScript inlined (opens offline)."""
    out = Path(path)
    html = vlc.vegalite_to_html(chart_spec(chart), vl_version=vegalite_version(), bundle=True)
    out.write_text(html, encoding="utf-8")
    return out


def save_png(chart: AnyChart, path: str | Path, *, scale: float = 2.0) -> Path:
    """Render ``chart`` to a PNG file with vl-convert (offline; ``scale`` multiplies the pixel size)."""
    out = Path(path)
    out.write_bytes(vlc.vegalite_to_png(chart_spec(chart), vl_version=vegalite_version(), scale=scale))
    return out
