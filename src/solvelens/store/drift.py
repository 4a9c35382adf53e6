"""Schema drift: new fields, changed types and missing known fields, compared with what the store has seen.

Types are coarse JSON types (``string``, ``number``, ``boolean``, ``object``, ``array``, ``mixed``); ``null``
values say a field is present but not its type. Drift never fails a snapshot: it is recorded in the snapshot's
``drift`` JSON as a list of entries::

    {"resource": "solutions", "field": "newField", "change": "added", "type": "string"}
    {"resource": "problems", "field": "solutionCount", "change": "type_changed", "type": "string",
     "previous_types": ["number"]}
    {"resource": "bots", "field": "globalElo", "change": "missing", "type": null}
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

_NUMBER_TYPES = {"UBIGINT", "BIGINT", "DOUBLE", "HUGEINT", "UHUGEINT", "INTEGER", "FLOAT", "DECIMAL"}
NULL = "null"


def coarse_type(structure: Any) -> str:
    """Map one entry of DuckDB's ``json_group_structure`` output to a coarse JSON type name."""
    if isinstance(structure, dict):
        return "object"
    if isinstance(structure, list):
        return "array"
    if structure == "VARCHAR":
        return "string"
    if structure == "BOOLEAN":
        return "boolean"
    if structure == "NULL":
        return NULL
    if structure in _NUMBER_TYPES:
        return "number"
    return "mixed"


def observed_fields(group_structure_json: str | None) -> dict[str, str]:
    """Top-level field -> coarse type from a ``json_group_structure(raw)`` result (``{}`` for no rows)."""
    if not group_structure_json:
        return {}
    structure = json.loads(group_structure_json)
    if not isinstance(structure, dict):
        return {}
    return {str(k): coarse_type(v) for k, v in structure.items()}


def compare_fields(
    resource: str,
    observed: Mapping[str, str],
    known: Mapping[str, set[str]],
    expected_keys: Iterable[str],
) -> tuple[list[dict[str, Any]], list[tuple[str, str]]]:
    """Drift entries for ``observed`` fields against ``known`` (field -> types seen before).

    Returns ``(drift_entries, new_pairs)`` where ``new_pairs`` are the (field, type) pairs to remember. When
    nothing is known yet (the resource's first snapshot) nothing counts as added or changed; known fields the
    store extracts (``expected_keys``) that are absent are reported as ``missing`` in every case. With no
    observed fields (no new record versions) there is nothing to compare.
    """
    drift: list[dict[str, Any]] = []
    new_pairs: list[tuple[str, str]] = []
    if not observed:
        return drift, new_pairs
    first_time = not known
    for field, json_type in observed.items():
        seen = known.get(field, set())
        if json_type in seen:
            continue
        new_pairs.append((field, json_type))
        if first_time:
            continue
        if not seen:
            drift.append({"resource": resource, "field": field, "change": "added", "type": json_type})
        elif json_type != NULL and (seen - {NULL}):
            drift.append(
                {
                    "resource": resource,
                    "field": field,
                    "change": "type_changed",
                    "type": json_type,
                    "previous_types": sorted(seen - {NULL}),
                }
            )
    for key in expected_keys:
        if key not in observed:
            drift.append({"resource": resource, "field": key, "change": "missing", "type": None})
    return drift, new_pairs
