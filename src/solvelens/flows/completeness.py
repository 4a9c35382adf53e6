"""Exact or loud: what a snapshot holds against what the platform announced for it.

A snapshot is complete only when every list holds what the platform announced (a total in the body or the
headers, a problem's ``solutionCount``, a solution's ``comparisonCount``, the ``/stats`` totals). A fetch step
tells two kinds of shortfall apart:

- **the client could read more** (a paging walk that ends with fewer distinct records than its own announced
  total, after re-reads of the pages a reshuffled tie spans and one re-walk of a list that moved while it was
  read): the client's
  :class:`~solvelens.client.IncompleteListError` (re-exported here), the snapshot fails in one line naming the
  resource, both counts and the fix, and nothing is written;
- **the platform cannot serve more** (a list capped at 50, a count that disagrees with the rows it lists): the
  snapshot is complete and the gap is a data-quality row (:func:`quality_row`: resource, scope, announced,
  stored, reason), written in the snapshot's transaction to the ``data_quality`` view
  (:mod:`solvelens.store.quality`).

Steps report their rows in their report's ``data_quality`` (:class:`~solvelens.store.reports.QualityRow`); the
writer adds the checks that need the whole run (``/stats`` totals, votes per solution).

Whether a list was read whole is decided in one layer, the client's walk: it hands out each record once,
re-reads the pages a reshuffled tie spans and re-walks a short list itself, and raises
:class:`~solvelens.client.IncompleteListError` (attributes ``endpoint``, ``announced``, ``read``,
``rereads``); :func:`solvelens.flows.fetch.collect_pages` walks nothing again, it only classifies (a short
list whose total is a count announced elsewhere: the count disagrees with its rows). The reasons are defined
once, with the rows' type (:mod:`solvelens.store.reports`).
"""

from __future__ import annotations

from solvelens.client import IncompleteListError
from solvelens.store.reports import CAPPED, COUNT_DISAGREES, TOTAL_BELOW_ROWS, QualityRow

__all__ = [
    "CAPPED",
    "COUNT_DISAGREES",
    "TOTAL_BELOW_ROWS",
    "IncompleteListError",
    "quality_row",
]

#: The reasons of data-quality rows are defined once, with the rows' type (:mod:`solvelens.store.reports`).


def quality_row(resource: str, scope: str, announced: int, stored: int, reason: str) -> QualityRow:
    """One data-quality row: ``resource`` (a view name, e.g. ``solutions``), ``scope`` (the
    problem or solution id the list belongs to, ``''`` for a whole list), ``announced`` and ``stored``
    (records), ``reason`` (one of this module's reasons, or a sentence)."""
    return QualityRow(resource, scope, int(announced), int(stored), reason)
