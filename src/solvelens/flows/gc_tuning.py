"""Fewer garbage collections while a snapshot fetches (and while Prefect imports:
:func:`solvelens.flows.prefect_import.prefect_imported`).

Every page of JSON becomes thousands of dicts and lists; CPython's cyclic collector runs its young
generation every 700 net allocations and, every few of those, scans every object alive in the process (the
imported modules of httpx, pyarrow, DuckDB, typer, rich, ...). During a medium snapshot that cost 0.15-0.45 s
of the fetching thread's CPU (measured with ``gc.callbacks``), which on loopback is the bottleneck.
:func:`fewer_collections` freezes what exists when the fetch starts (those objects are never scanned again)
and collects the young generation every 50,000 allocations instead; cycles are still collected, so memory
stays bounded (a large snapshot stays under 1 GB peak RSS).

:func:`no_collection_at_exit` spares a command's process the collection Python runs while it shuts down: a
process that imported Prefect (thousands of pydantic classes, all in reference cycles) spent 0.6-1.0 s
there (``gc_collect_main`` under ``Py_FinalizeEx``, py-spy ``--native``), freeing memory the operating
system takes back at once anyway.
"""

from __future__ import annotations

import atexit
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


def no_collection_at_exit() -> None:
    """At interpreter exit (an ``atexit`` handler, registered once however often this is called), move every
    object alive into the collector's permanent generation (``gc.freeze()``): the collection of shutdown then
    scans none of them, and the cycles among them are left to the process's end instead of being freed one
    by one. ``atexit`` handlers (logging's flushes and closes its handlers), ``weakref.finalize`` callbacks
    and the flush of ``sys.stdout``/``sys.stderr`` still run; ``__del__`` of objects in reference cycles
    does not (Python does not promise it at exit either), so a file left open in a cycle would not be
    flushed: the commands close what they write. For command-line processes, never for a library caller's
    interpreter."""
    atexit.unregister(gc.freeze)
    atexit.register(gc.freeze)
