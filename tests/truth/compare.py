"""Comparing what a user reads with the platform's truth, and saying how they differ in a readable way.

:func:`mismatches` returns one line per difference (a row missing, a row that should not be there, a field
that differs), so a failing test prints exactly what is wrong, e.g.
``solutions @ snapshot 3: solution_id=ce3e... bot_name: shown 'OldName', truth 'NewName'``.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Iterable, Sequence
from typing import Any

Row = dict[str, Any]
#: Lines of a mismatch report shown before "... and N more".
SHOWN = 12


def _norm(value: Any) -> Any:
    """Timestamps as epoch ms, numbers as float, everything else as is."""
    if isinstance(value, dt.datetime):
        return round(value.timestamp() * 1000)
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        return float(value)
    return value


def _same(got: Any, want: Any, rel: float) -> bool:
    got, want = _norm(got), _norm(want)
    if isinstance(got, float) and isinstance(want, float):
        return math.isclose(got, want, rel_tol=rel, abs_tol=1e-9)
    return bool(got == want)


def mismatches(
    figure: str,
    shown: Iterable[Row],
    truth: Iterable[Row],
    key: Sequence[str],
    fields: Sequence[str] | None = None,
    *,
    rel: float = 1e-9,
) -> list[str]:
    """Differences between the rows a user is shown and the truth's rows, matched on ``key``; ``fields``
    (default: every truth field) are compared (numbers within ``rel``, timestamps to the millisecond).
    Returns ``["<figure>: <key>: <what differs>", ...]``, empty when they agree. Duplicate keys shown
    count as a mismatch."""
    shown_by: dict[tuple[Any, ...], Row] = {}
    out: list[str] = []
    for row in shown:
        k = tuple(row[c] for c in key)
        if k in shown_by:
            out.append(f"{figure}: {_label(key, k)} shown twice")
        shown_by[k] = row
    truth_by = {tuple(r[c] for c in key): r for r in truth}
    for k in truth_by.keys() - shown_by.keys():
        out.append(f"{figure}: {_label(key, k)} missing (truth: {_brief(truth_by[k])})")
    for k in shown_by.keys() - truth_by.keys():
        out.append(f"{figure}: {_label(key, k)} shown but not on the platform ({_brief(shown_by[k])})")
    for k in truth_by.keys() & shown_by.keys():
        want, got = truth_by[k], shown_by[k]
        for field in [f for f in want if f not in key] if fields is None else fields:
            if not _same(got.get(field), want[field], rel):
                out.append(
                    f"{figure}: {_label(key, k)} {field}: shown {got.get(field)!r}, truth {want[field]!r}"
                )
    return sorted(out)


def _label(key: Sequence[str], values: tuple[Any, ...]) -> str:
    return ", ".join(f"{c}={v}" for c, v in zip(key, values, strict=True))


def _brief(row: Row) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in list(row.items())[:4])


def report(lines: Sequence[str]) -> str:
    """The first :data:`SHOWN` lines and how many more, for an assertion message."""
    more = f"\n... and {len(lines) - SHOWN} more" if len(lines) > SHOWN else ""
    return f"{len(lines)} mismatch(es):\n" + "\n".join(lines[:SHOWN]) + more


def assert_matches(
    figure: str, shown: Iterable[Row], truth: Iterable[Row], key: Sequence[str], **kw: Any
) -> None:
    """Raise ``AssertionError`` with :func:`report` when :func:`mismatches` finds any."""
    lines = mismatches(figure, shown, truth, key, **kw)
    assert not lines, report(lines)
