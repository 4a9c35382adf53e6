"""Records in the canonical form: whatever the wire style, the client hands out the real platform's records.

Canonical form (what the store keeps as ``raw``): flat JSON objects, camelCase field names (``solutionCount``,
``btScore``, ``botId``), the id under the endpoint's canonical id field (``id``; ``slug`` for categories).

A :class:`RecordStyle` says how an endpoint's records are sent and is decided ONCE per endpoint, from the
first
record (:func:`detect_record_style`) or a profile (``record``, ``field_case``, ``id_field``):

1. ``record``: ``flat``; ``resource_object`` (JSON:API ``{type, id, attributes, relationships}`` ->
   ``{"id": id, **attributes}`` plus ``<name>Id`` for each to-one relationship); ``relay_node`` (Relay
   ``edges[]`` -> ``node``). HAL's ``_links``/``_embedded`` and OData's ``@odata.*`` are dropped from
   records.
2. ``field_case``: ``camel`` (left alone), ``snake`` or ``pascal`` (every name converted to camelCase,
   recursively in nested objects; keys that are not names, e.g. ids used as keys, are left alone).
3. ``id_field``: the field holding the id as sent: ``id``, ``<resource>_id``, ``<resource>Id``, ``Id``,
   ``<Resource>Id`` (resource = problem, solution, bot, category); moved to the canonical field.

On the real platform the style is "flat, camel, ``id``": :attr:`RecordStyle.identity` is true and records are
passed through untouched (no per-record work, the store's ``raw`` stays byte-identical).

Where the records are in an answer (envelopes, single resources, ``/stats`` figures) is
:mod:`solvelens.client.locate`'s; this module only says how one record is normalised.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

from solvelens.client.endpoints import ENDPOINTS, canonical_id, resource_of

__all__ = [
    "NOT_FIELDS",
    "RecordStyle",
    "camel_deep",
    "detect_record_style",
    "flat_record",
    "id_candidates",
    "lift_refs",
    "ref_base",
    "to_camel",
    "with_declared",
]

_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
_RECORD_STYLES = ("flat", "resource_object", "relay_node")
_FIELD_CASES = ("camel", "snake", "pascal")


def to_camel(key: str) -> str:
    """``solution_count``/``SolutionCount`` -> ``solutionCount``; ``ID`` -> ``id``; keys that are not names
    (``@odata.count``, ``_links``, ids such as ``3f2a-...`` or ``42``) are returned unchanged."""
    if not _NAME.match(key):
        return key
    if "_" in key:
        head, *rest = (p for p in key.split("_") if p)
        first = head.lower() if head.isupper() else head[0].lower() + head[1:]
        return first + "".join(
            p[0].upper() + p[1:].lower() if p.isupper() else p[0].upper() + p[1:] for p in rest
        )
    if key.isupper() and len(key) <= 4:
        return key.lower()
    if key[0].isupper():
        return key[0].lower() + key[1:]
    return key


def camel_deep(value: Any) -> Any:
    """``value`` with every object key converted by :func:`to_camel`, recursively."""
    if isinstance(value, dict):
        return {to_camel(k) if isinstance(k, str) else k: camel_deep(v) for k, v in value.items()}
    if isinstance(value, list):
        return [camel_deep(v) for v in value]
    return value


def _flatten_resource(obj: dict[str, Any]) -> dict[str, Any]:
    """JSON:API resource object -> ``{"id": id, **attributes, "<name>Id": related id, ...}``."""
    attributes = obj.get("attributes")
    out: dict[str, Any] = {"id": obj.get("id")} if "id" in obj else {}
    if isinstance(attributes, dict):
        out.update(attributes)
    relationships = obj.get("relationships")
    if isinstance(relationships, dict):
        for name, rel in relationships.items():
            data = rel.get("data") if isinstance(rel, dict) else None
            if isinstance(data, dict) and "id" in data:
                out.setdefault(to_camel(name) + "Id", data["id"])
    return out


def flat_record(obj: Any, record: str) -> Any:
    """One record flattened for its ``record`` style (Relay node unwrapped, JSON:API attributes lifted, HAL
    links and OData annotations dropped); field names as sent."""
    if not isinstance(obj, dict):
        return obj
    if record == "relay_node":
        node = obj.get("node")
        obj = node if isinstance(node, dict) else obj
    elif record == "resource_object" and "attributes" in obj:
        return _flatten_resource(obj)
    if any(k in NOT_FIELDS or k.startswith("@odata.") for k in obj):
        obj = {k: v for k, v in obj.items() if k not in NOT_FIELDS and not k.startswith("@odata.")}
    return obj


#: Keys of a record that are document links, not fields (HAL; OData's ``@odata.*`` are dropped as well).
NOT_FIELDS = frozenset({"_links", "_embedded"})


def id_candidates(endpoint: str) -> tuple[str, ...]:
    """Field names (after camelCase) that may hold an endpoint's id: canonical, ``<resource>Id``, ``_id``.

    An endpoint whose canonical id is a natural key (a category's ``slug``, a model family's ``family``) may
    send that key as ``<resource><Key>`` or as a plain ``id`` (a JSON:API resource object's ``id``)."""
    canonical = canonical_id(endpoint)
    resource = resource_of(endpoint)
    names = [canonical]
    if resource:
        names.append(f"{resource}Id")
        if canonical != "id":
            if canonical != resource:
                names.append(resource + canonical[:1].upper() + canonical[1:])
            names.append("id")
    names.append("_id")
    return tuple(dict.fromkeys(names))


@dataclass(frozen=True, slots=True)
class RecordStyle:
    """How an endpoint sends its records (see the module docstring).

    ``record``: ``flat`` | ``resource_object`` | ``relay_node``. ``field_case``: ``camel`` | ``snake`` |
    ``pascal``. ``id_field``: the id field as sent after flattening (``problem_id``, ``Id``; a dotted path
    into a nested reference object, ``botRef.id``, when the record references its resource that way), or
    ``None`` when no id was found. ``canonical_id``: where the id goes (``id``; ``slug`` for categories).
    ``declared``: from a profile (then a record without ``id_field`` is an error naming the setting).
    ``refs``: keys (camelCase) of nested reference objects (``{"id", "name"}``) lifted to the flat fields the
    canonical record has (:func:`lift_refs`): ``bot: {id, name}`` -> ``botId``, ``botName``; the reference
    holding the record's own id (``botRef`` of a leaderboard entry) -> ``name``. The nested objects are kept.
    """

    record: str = "flat"
    field_case: str = "camel"
    id_field: str | None = "id"
    canonical_id: str = "id"
    declared: bool = False
    refs: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.record not in _RECORD_STYLES:
            raise ValueError(f"record = {self.record!r}: choose one of {', '.join(_RECORD_STYLES)}")
        if self.field_case not in _FIELD_CASES:
            raise ValueError(f"field_case = {self.field_case!r}: choose one of {', '.join(_FIELD_CASES)}")

    @property
    def identity(self) -> bool:
        """True when records are already canonical (the real platform): they are handed out untouched."""
        return (
            self.record == "flat"
            and self.field_case == "camel"
            and self.id_field == self.canonical_id
            and not self.refs
        )

    def normalise(self, obj: Any) -> Any:
        """One record in the canonical form (a non-object is returned as it is)."""
        if self.identity or not isinstance(obj, dict):
            return obj
        flat = flat_record(obj, self.record)
        if self.field_case != "camel":
            flat = camel_deep(flat)
        id_field = self.id_field
        if id_field is not None and self.field_case != "camel":
            id_field = ".".join(map(to_camel, id_field.split(".")))
        if id_field is not None and "." in id_field:  # an id inside a nested reference: the object stays
            value = _dotted(flat, id_field)
            if value is not None:
                flat = {self.canonical_id: value, **flat}
        elif id_field is not None and id_field != self.canonical_id and id_field in flat:
            value = flat.pop(id_field)
            flat = {self.canonical_id: value, **flat}
        if self.refs:
            own = id_field.split(".")[0] if id_field and "." in id_field else None
            flat = lift_refs(flat, self.refs, own)
        return flat

    def normalise_all(self, items: list[Any]) -> list[Any]:
        """Every record of a page in the canonical form; the same list object when :attr:`identity`."""
        if self.identity:
            return items
        return [self.normalise(item) for item in items]


def _dotted(obj: dict[str, Any], path: str) -> Any:
    for part in path.split("."):
        if not isinstance(obj, dict):
            return None
        obj = obj.get(part)  # type: ignore[assignment]
    return obj


#: Fields of a nested reference that hold the referenced resource's name, in order of preference.
REF_NAMES = ("name", "displayName", "username", "title")


def ref_base(key: str) -> str:
    """The resource a reference key names: ``botRef``/``botReference``/``bot`` -> ``bot``."""
    for suffix in ("Reference", "Ref"):
        if key.endswith(suffix) and len(key) > len(suffix):
            return key[: -len(suffix)]
    return key


def lift_refs(flat: dict[str, Any], refs: tuple[str, ...], own: str | None) -> dict[str, Any]:
    """``flat`` with each nested reference in ``refs`` lifted to flat fields that are missing: ``<base>Id``
    and ``<base>Name`` (``bot: {id, name}`` -> ``botId``, ``botName``); for ``own`` (the reference holding
    the record's own id) its name as ``name``. Present fields are never overwritten."""
    out = dict(flat)
    for key in refs:
        ref = flat.get(key)
        if not isinstance(ref, dict):
            continue
        name = next((ref[k] for k in REF_NAMES if k in ref), None)
        if key == own:
            out.setdefault("name", name)
            continue
        base = ref_base(key)
        out.setdefault(f"{base}Id", ref.get("id"))
        out.setdefault(f"{base}Name", name)
    return out


def _nested_refs(
    flat: dict[str, Any], camel: dict[str, str], resource: str | None
) -> tuple[str | None, list[str]]:
    """From one record: the dotted id path when its id is only inside a nested reference (``botRef.id``,
    ``bot.id``, ``author.id``; the resource's own name first), and the camelCase keys of references whose
    flat fields are missing."""
    nested = [k for k in camel if isinstance(flat.get(camel[k]), dict) and "id" in flat[camel[k]]]
    first = [f"{resource}", f"{resource}Ref", f"{resource}Reference"] if resource else []
    order = [k for k in first if k in nested] + [k for k in ("author", "owner", "ref") if k in nested]
    own = order[0] if order else None
    refs = [k for k in nested if k == own or f"{ref_base(k)}Id" not in camel]
    return (f"{camel[own]}.id" if own else None), refs


def _field_case(keys: list[str]) -> str:
    names = [k for k in keys if _NAME.match(k)]
    if any("_" in k for k in names):
        return "snake"
    if names and sum(k[0].isupper() for k in names) * 2 >= len(names):
        return "pascal"
    return "camel"


def detect_record_style(sample: Any, endpoint: str) -> RecordStyle:
    """The :class:`RecordStyle` of an endpoint from one record as sent (the first of a list, or a single
    resource after :func:`unwrap_single`). ``endpoint``: ``problems``, ``solutions``, ``leaderboard``,
    ``categories``, ``problem``, ``bot``, ``bot_me``, ... (picks the resource of ``<resource>_id``)."""
    canonical = canonical_id(endpoint)
    if not isinstance(sample, dict):
        return RecordStyle(canonical_id=canonical, id_field=canonical)
    if isinstance(sample.get("node"), dict) and set(sample) <= {"node", "cursor"}:
        record = "relay_node"
    elif isinstance(sample.get("attributes"), dict) and "type" in sample:
        record = "resource_object"
    else:
        record = "flat"
    flat = flat_record(sample, record)
    case = _field_case(list(flat))
    camel = {to_camel(k): k for k in flat} if case != "camel" else {k: k for k in flat}
    id_field = next((camel[name] for name in id_candidates(endpoint) if name in camel), None)
    refs: list[str] = []
    if endpoint in ENDPOINTS and ENDPOINTS[endpoint].kind == "list":  # single resources stay as sent
        nested_id, refs = _nested_refs(flat, camel, resource_of(endpoint))
        if id_field is None:
            id_field = nested_id
    return RecordStyle(record, case, id_field, canonical, refs=tuple(refs))


def with_declared(style: RecordStyle, **changes: Any) -> RecordStyle:
    """``style`` with profile settings applied (``record``, ``field_case``, ``id_field``), marked declared."""
    return replace(style, declared=True, **{k: v for k, v in changes.items() if v is not None})
