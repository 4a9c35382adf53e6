"""Fewer garbage collections while a snapshot fetches.

Every page of JSON becomes thousands of dicts and lists; CPython's cyclic collector runs its young
generation every 700 net allocations and, every few of those, scans every object alive in the process (the
imported modules of httpx, pyarrow, DuckDB, typer, rich, ...). During a medium snapshot that cost 0.15-0.45 s
of the fetching thread's CPU (measured with ``gc.callbacks``), which on loopback is the bottleneck.
:func:`fewer_collections` freezes what exists when the fetch starts (those objects are never scanned again)
and collects the young generation every 50,000 allocations instead; cycles are still collected, so memory
stays bounded (a large snapshot stays under 1 GB peak RSS).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

#: Net allocations between two collections of the young generation while fetching.
FETCH_GC_THRESHOLD = 50_000


@contextmanager
def fewer_collections() -> Iterator[None]:
    """For the block: ``gc.freeze()`` and a young-generation threshold of :data:`FETCH_GC_THRESHOLD`;
    afterwards the previous thresholds, and the frozen objects are scanned again (``gc.unfreeze()``)."""
    saved = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(FETCH_GC_THRESHOLD, *saved[1:])
    try:
        yield
    finally:
        gc.set_threshold(*saved)
        gc.unfreeze()
