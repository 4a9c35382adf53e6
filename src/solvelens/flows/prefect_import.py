"""Importing Prefect without the parts of its import chain a flow run never uses.

Prefect imports ``jsonschema`` (it validates deployment parameters against their JSON schema). On import,
``jsonschema`` sets up a checker for some string formats whenever an optional package that checks it is
installed (JupyterLab brings them: ``jupyter-events`` needs ``jsonschema[format-nongpl]``):

- ``rfc3987_syntax`` (``iri``, ``iri-reference``): builds an Earley grammar with lark, 1.7-2.8 s of CPU on
  this 2-core machine (``python -X importtime``: ``rfc3987_syntax.syntax_helpers``), more than the rest of
  Prefect's own import (~1.5 s);
- ``rfc3986_validator`` (``uri``, ``uri-reference``): compiles its grammar's regular expressions, 40-50 ms;
- ``isoduration`` (``duration``): imports ``arrow`` and its locales, 20-25 ms.

No parameter of our flows declares any of these formats (a :class:`~solvelens.flows.plan.SnapshotPlan`
holds strings, numbers and lists; ``tests/flows/test_prefect_import.py`` checks every flow's parameter
schema), so nothing checks them.

:func:`prefect_imported` hides these packages while its block imports Prefect: ``jsonschema`` then goes
without those format checkers, exactly as when the packages are not installed (such a value would pass
unchecked, as every format without a checker does). After the block the packages are importable again. It
changes nothing when ``jsonschema`` was imported before (its formats are set by then).

The block also runs with fewer garbage collections (:func:`solvelens.flows.gc_tuning.fewer_collections`):
Prefect's import builds ~140,000 objects (pydantic classes and their schemas) and the cyclic collector ran
~200 times over them, 0.04-0.09 s of the import's ~1 s of CPU, on the thread every flow run waits on.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Final

from solvelens.flows.gc_tuning import fewer_collections, no_collection_at_exit
from solvelens.lean_imports import modules_hidden

#: The optional package behind ``jsonschema``'s ``iri`` / ``iri-reference`` format checkers.
IRI_GRAMMAR_MODULE: Final = "rfc3987_syntax"

#: The optional packages ``jsonschema`` imports for format checkers no flow parameter of ours uses, each
#: with the formats it checks.
UNUSED_FORMAT_MODULES: Final[dict[str, tuple[str, ...]]] = {
    IRI_GRAMMAR_MODULE: ("iri", "iri-reference"),
    "rfc3986_validator": ("uri", "uri-reference"),
    "isoduration": ("duration",),
}

__all__ = [
    "IRI_GRAMMAR_MODULE",
    "UNUSED_FORMAT_MODULES",
    "lean_spawned_child",
    "prefect_imported",
]


@contextmanager
def prefect_imported() -> Iterator[None]:
    """For the block (which imports Prefect or a module that does), ``import`` of each package of
    :data:`UNUSED_FORMAT_MODULES` raises ``ImportError`` unless it or ``jsonschema`` is imported already;
    afterwards each imports as usual. The objects alive when the block starts are not scanned by the
    collector during it, and its young generation is collected every
    :data:`~solvelens.flows.gc_tuning.FETCH_GC_THRESHOLD` allocations (the thresholds are restored after)."""
    with (
        modules_hidden(() if "jsonschema" in sys.modules else UNUSED_FORMAT_MODULES),
        fewer_collections(),
    ):
        yield


def lean_spawned_child() -> bool:
    """In a process ``multiprocessing`` started (it names each ``Process-N`` before the child imports the
    parent's main script; the parent is ``MainProcess``), import ``jsonschema`` now inside
    :func:`prefect_imported`; returns whether it did. Elsewhere nothing happens.

    Why: ``solvelens schedule`` serves its deployments with Prefect's ``Runner``, which executes every
    scheduled flow run in a spawned process. Such a process first runs the parent's main script (the
    ``solvelens`` command, which imports :mod:`solvelens.cli`, whose import calls this when
    ``multiprocessing`` is imported), then imports Prefect to unpickle the run, outside
    :func:`prefect_imported`: without this, each scheduled snapshot, report and compaction built jsonschema's
    IRI grammar again (1.7-2.8 s of CPU, more than the rest of Prefect's import). With ``jsonschema``
    imported here first, Prefect's import finds its format checkers set, without the ones no flow of ours
    uses. A started process that runs no flow pays ~50 ms of ``jsonschema`` import. Such a process also
    skips the collection at its exit (:func:`solvelens.flows.gc_tuning.no_collection_at_exit`: ~0.3 s of
    CPU after a flow run, over Prefect's objects).

    Not covered: a parent started as ``python -m solvelens`` (``multiprocessing`` does not run a package's
    ``__main__`` in the child) and a Prefect worker's ``python -m prefect.engine`` process: both import
    Prefect before any module of ours."""
    import multiprocessing

    if multiprocessing.current_process().name == "MainProcess":
        return False
    with prefect_imported():
        import jsonschema  # noqa: F401
    no_collection_at_exit()
    return True
