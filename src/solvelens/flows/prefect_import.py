"""Importing Prefect without the one part of its import chain a flow run never uses.

Prefect imports ``jsonschema`` (it validates deployment parameters against their JSON schema). On import,
``jsonschema`` builds a parser for the ``iri`` and ``iri-reference`` string formats whenever the optional
``rfc3987-syntax`` package is installed (JupyterLab brings it: ``jupyter-events`` needs
``jsonschema[format-nongpl]``). Building that Earley grammar with lark costs 1.7-2.8 s of CPU on this
2-core machine (``python -X importtime``: ``rfc3987_syntax.syntax_helpers``), more than the rest of
Prefect's own import (~1.5 s). No parameter of our flows declares either format (a
:class:`~solvelens.flows.plan.SnapshotPlan` holds strings, numbers and lists), so nothing checks them.

:func:`prefect_imported` hides the package while its block imports Prefect: ``jsonschema`` then goes without
those two format checkers, exactly as when the package is not installed (an ``iri`` value would pass
unchecked, as every format without a checker does). After the block the package is importable again. It
changes nothing when ``jsonschema`` was imported before (its formats are set by then).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

#: The optional package behind ``jsonschema``'s ``iri`` / ``iri-reference`` format checkers.
IRI_GRAMMAR_MODULE = "rfc3987_syntax"

__all__ = ["IRI_GRAMMAR_MODULE", "prefect_imported"]


@contextmanager
def prefect_imported() -> Iterator[None]:
    """For the block (which imports Prefect or a module that does), ``import rfc3987_syntax`` raises
    ``ImportError`` unless it or ``jsonschema`` is imported already; afterwards it imports as usual."""
    hide = IRI_GRAMMAR_MODULE not in sys.modules and "jsonschema" not in sys.modules
    if hide:
        sys.modules[IRI_GRAMMAR_MODULE] = None  # type: ignore[assignment]  # the import system's "not found"
    try:
        yield
    finally:
        if hide and sys.modules.get(IRI_GRAMMAR_MODULE, False) is None:
            del sys.modules[IRI_GRAMMAR_MODULE]
