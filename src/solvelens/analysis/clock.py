"""Whose clock the snapshots' dates are on: what each snapshot's platform declared (``snapshots.platform``,
read from its ``X-Platform-Clock`` response header at snapshot time), never guessed from its address.

The sandbox declares ``simulated``: its dates run on a simulated clock. The real platform declares nothing:
real dates, also when it is reached on 127.0.0.1 or through an SSH tunnel.
"""

from __future__ import annotations

import polars as pl

from solvelens.analysis.timescale import format_time

#: The ``clock`` a platform declares when its dates are simulated.
SIMULATED = "simulated"


def simulated_snapshots(snapshots: pl.DataFrame) -> pl.Series:
    """Boolean per row of ``snapshots`` (with a ``platform`` JSON text column): the platform declared a
    simulated clock. A snapshot without a declaration (``{}``) or with an unknown one (null) is not
    simulated."""
    if "platform" not in snapshots.columns:
        return pl.Series("simulated", [False] * snapshots.height, dtype=pl.Boolean)
    clock = snapshots["platform"].str.json_path_match("$.clock")
    return (clock == SIMULATED).fill_null(False).alias("simulated")


def newest_is_simulated(snapshots: pl.DataFrame) -> bool:
    """Whether the newest snapshot (by ``taken_at``) comes from a platform that declared a simulated clock
    (then its age against the wall clock means nothing)."""
    if snapshots.is_empty():
        return False
    ordered = snapshots.sort("taken_at")
    return bool(simulated_snapshots(ordered)[-1])


def simulated_label(snapshots: pl.DataFrame) -> str:
    """A sentence saying which dates are simulated, with their range; empty when no snapshot's platform
    declared a simulated clock.

    ``snapshots``: the ``snapshots`` frame of :func:`solvelens.analysis.load` (``taken_at``, ``platform``).
    """
    simulated = snapshots.filter(simulated_snapshots(snapshots))
    if simulated.is_empty():
        return ""
    first, last = simulated["taken_at"].min(), simulated["taken_at"].max()
    dates = (
        f"Simulated dates run from {format_time(first)} to {format_time(last)} "  # type: ignore[arg-type]
        "(simulated time, not real dates)"
    )
    if simulated.height == snapshots.height:
        return (
            "Simulated data: every snapshot comes from a sandbox platform, which declares a simulated clock. "
            f"{dates}; the bots, problems and solutions are generated."
        )
    return (
        f"Partly simulated data: {simulated.height} of {snapshots.height} snapshots come from a sandbox "
        f"platform, which declares a simulated clock. {dates}; the other snapshots carry real dates."
    )
