"""File sizes as every command prints them: binary megabytes (MiB, 2**20 bytes), as DuckDB and ``du -h``
count, so ``db info``, ``db compact``, a snapshot's summary and the demo agree on one figure."""

from __future__ import annotations

MIB = 2**20


def mib(n_bytes: int | float, digits: int = 1) -> str:
    """``n_bytes`` as ``"41.7 MiB"`` (``digits`` decimals)."""
    return f"{n_bytes / MIB:.{digits}f} MiB"
