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

from solvelens.flows.gc_tuning import fewer_collections
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

__all__ = ["IRI_GRAMMAR_MODULE", "UNUSED_FORMAT_MODULES", "prefect_imported"]


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
