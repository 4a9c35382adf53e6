"""Flattening ``/stats`` into the long ``platform_stats`` format (metric name, numeric value)."""

from __future__ import annotations

import contextlib
from typing import Any


def flatten_metrics(stats: Any, prefix: str = "") -> list[tuple[str, float | None]]:
    """Flatten a stats JSON value into ``(metric, value)`` pairs.

    Nested objects become dotted names (``{"a": {"b": 1}}`` -> ``("a.b", 1.0)``); a list of name/value pairs
    (``[{"name": "totalBots", "value": 3}]``, also ``metric``/``key`` with ``value``/``count``) becomes one
    figure per pair (``("totalBots", 3.0)``); other list items use their index (``"a.0"``). Numbers become
    floats, booleans 1.0/0.0, ``null`` stays ``None``; strings that parse as numbers are kept, other strings
    are skipped (they are not figures; the raw JSON keeps them).
    """
    out: list[tuple[str, float | None]] = []
    if isinstance(stats, dict):
        for key, value in stats.items():
            out.extend(flatten_metrics(value, f"{prefix}.{key}" if prefix else str(key)))
    elif isinstance(stats, list) and (pairs := _pairs(stats)) is not None:
        for name, value in pairs:
            out.extend(flatten_metrics(value, f"{prefix}.{name}" if prefix else name))
    elif isinstance(stats, list):
        for i, value in enumerate(stats):
            out.extend(flatten_metrics(value, f"{prefix}.{i}" if prefix else str(i)))
    elif isinstance(stats, bool):
        out.append((prefix, 1.0 if stats else 0.0))
    elif isinstance(stats, int | float):
        out.append((prefix, float(stats)))
    elif stats is None:
        out.append((prefix, None))
    elif isinstance(stats, str):
        with contextlib.suppress(ValueError):
            out.append((prefix, float(stats)))
    return out


_NAME_KEYS = ("name", "metric", "key", "label")
_VALUE_KEYS = ("value", "count", "total")


def _pairs(items: list[Any]) -> list[tuple[str, Any]] | None:
    """``[(name, value)]`` when every item is a ``{name, value}`` pair, else ``None``."""
    pairs: list[tuple[str, Any]] = []
    for item in items:
        if not isinstance(item, dict):
            return None
        name = next((item[k] for k in _NAME_KEYS if isinstance(item.get(k), str)), None)
        value_key = next((k for k in _VALUE_KEYS if k in item), None)
        if name is None or value_key is None:
            return None
        pairs.append((name, item[value_key]))
    return pairs or None
