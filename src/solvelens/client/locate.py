"""Where the records are in an answer: the list of a list endpoint, the resource of a single one, the
figures of ``/stats``, the lists of ``/search`` -- found once per endpoint and read in the canonical form.

- Lists (:func:`find_records`): a bare JSON array (selector ``$``), or the first list under
  ``data``/``items``/``results``/``records``/``value`` (OData)/``edges`` (Relay)/a named key (``problems``,
  ``bots``, ...), HAL's ``_embedded.<name>``, a list one level down (``data.problems.edges``), or the only
  list in the envelope. The dot path found is the endpoint's ``data_selector`` (:func:`read_records`
  remembers it in the endpoint's state, or uses the profile's).
- Single resources (``/problems/{id}``, ``/bots/{id}``, ``/bot/me``, ``/solutions/{id}``): unwrapped from
  ``{"data": ...}``, ``{"node": ...}``, ``{"<resource>": ...}`` (:func:`unwrap_single`, :func:`read_single`).
- ``/stats``: an object, nested objects or a list of name/value pairs becomes one dict of figures
  (:func:`stats_figures`, :func:`read_stats`).
- ``/search``: its ``problems`` and ``bots`` lists (:func:`read_search`).

Records are normalised by the endpoint's :class:`~solvelens.client.records.RecordStyle`. No HTTP here: the
functions take decoded bodies and an endpoint's state (:class:`EndpointView`, the client's
:class:`~solvelens.client.memory.EndpointState`).
"""

from __future__ import annotations

from typing import Any, Protocol

from solvelens.client.errors import ConfigurationError, PaginationError, UnrecognizedResponseError
from solvelens.client.pagination import META_KEYS, get_path, norm_key
from solvelens.client.records import NOT_FIELDS, RecordStyle, camel_deep, flat_record, to_camel

__all__ = [
    "ITEM_KEYS",
    "EndpointView",
    "extract_items",
    "find_records",
    "read_records",
    "read_search",
    "read_single",
    "read_stats",
    "select_records",
    "shape",
    "stats_figures",
    "unwrap_single",
]


class EndpointView(Protocol):
    """What record location reads and keeps of an endpoint (the client's
    :class:`~solvelens.client.memory.EndpointState`): its ``name``, where its records are (``data_selector``,
    ``selector_declared`` when a profile says so) and its record style (decided from the first record)."""

    name: str
    data_selector: str | None
    selector_declared: bool

    def record_style(self, sample: Any) -> RecordStyle:
        """The endpoint's record style, detected from ``sample`` the first time."""
        ...


#: Envelope keys that hold the list, tried in this order (the named lists are the real platform's).
ITEM_KEYS: tuple[str, ...] = (
    "data",
    "items",
    "results",
    "records",
    "value",
    "edges",
    "problems",
    "solutions",
    "bots",
    "categories",
    "entries",
    "rows",
)


def _lists_in(obj: dict[str, Any], prefix: str, depth: int) -> list[tuple[str, list[Any]]]:
    """``(dot path, list)`` of every list in ``obj`` down to ``depth`` more levels, shallowest first."""
    found: list[tuple[str, list[Any]]] = []
    nested: list[tuple[str, dict[str, Any]]] = []
    for key, value in obj.items():
        if isinstance(value, list):
            found.append((f"{prefix}{key}", value))
        elif isinstance(value, dict) and depth > 0 and norm_key(key) not in META_KEYS | {"links"}:
            nested.append((f"{prefix}{key}.", value))
    for path, inner in nested:
        found.extend(_lists_in(inner, path, depth - 1))
    return found


def find_records(body: Any, items_key: str | None = None) -> tuple[str, list[Any]]:
    """``(data_selector, records)`` of an answer: where its list of records is, and the list.

    A bare array is ``"$"``; otherwise the list under ``items_key`` (when given) or one of
    :data:`ITEM_KEYS`, HAL's ``_embedded.<name>``, a known key one level down (``data.problems.edges``), or
    the
    only list in the envelope. An envelope whose known list key is ``null`` counts as empty. Raises
    :class:`PaginationError` when no list can be found.
    """
    if isinstance(body, list):
        return "$", body
    if body is None:
        return "$", []
    if isinstance(body, dict):
        keys = (items_key, *ITEM_KEYS) if items_key else ITEM_KEYS
        for key in keys:
            value = body.get(key)
            if isinstance(value, list):
                return key, value
        lists = _lists_in(body, "", 2)
        for prefix in ("_embedded.", ""):
            for key in keys:
                for path, value in lists:
                    if path == f"{prefix}{key}" or path.endswith(f".{key}"):
                        return path, value
        embedded = [(p, v) for p, v in lists if p.startswith("_embedded.")]
        if len(embedded) == 1:
            return embedded[0]
        top = [(p, v) for p, v in lists if "." not in p]
        if len(top) == 1:
            return top[0]
        if not lists and any(body.get(k, 0) is None for k in keys):
            return next(k for k in keys if k in body), []
    shape = f"keys {sorted(body)}" if isinstance(body, dict) else type(body).__name__
    raise PaginationError(f"cannot find the list of records in the response ({shape})")


def select_records(body: Any, selector: str) -> list[Any] | None:
    """The records at ``selector`` (a dot path, ``"$"`` for a bare array): a list, ``[]`` for ``null``, or
    ``None`` when the path is not in the body at all."""
    if selector == "$":
        return body if isinstance(body, list) else ([] if body is None else None)
    value = get_path(body, selector)
    if isinstance(value, list):
        return value
    if value is None and isinstance(body, dict) and _has_path(body, selector):
        return []
    return None


def _has_path(body: dict[str, Any], selector: str) -> bool:
    head, _, rest = selector.rpartition(".")
    parent = get_path(body, head) if head else body
    return isinstance(parent, dict) and rest in parent


def extract_items(body: Any, items_key: str | None = None) -> list[Any]:
    """The list of records in a response body (see :func:`find_records`)."""
    return find_records(body, items_key)[1]


#: Keys that wrap a single resource (JSON:API ``data``, Relay ``node``, others).
_WRAPPERS = ("data", "node", "item", "result", "resource", "task")
#: Keys that may sit beside the wrapper without being part of the resource.
_DOCUMENT_KEYS = frozenset({"links", "meta", "included", "jsonapi", "_links", "@odata.context"})


def unwrap_single(body: Any, resource: str | None = None) -> Any:
    """The resource object of a single-resource answer: the value of ``data``/``node``/``item``/``result``/
    ``<resource>`` when that is the answer's only content (JSON:API document keys aside), else the body."""
    if not isinstance(body, dict):
        return body
    content = [k for k in body if k not in _DOCUMENT_KEYS]
    if len(content) == 1:
        key = content[0]
        if (key in _WRAPPERS or key == resource) and isinstance(body[key], dict):
            return body[key]
    return body


def read_single(state: EndpointView, body: Any, resource: str | None) -> dict[str, Any]:
    """A single-resource answer (``problem``, ``bot``, ``bot_me``, ``solution``) in the canonical form:
    unwrapped from its envelope (or found at the profile's ``data_selector``), flattened, camelCase, id under
    ``id``. Identity on the real platform. Raises :class:`ConfigurationError` when a declared
    ``data_selector`` finds nothing."""
    if state.data_selector is not None:
        obj = get_path(body, state.data_selector)
        if obj is None:
            raise ConfigurationError(
                f"{state.name}: the profile's [endpoints.{state.name}] data_selector = "
                f"{state.data_selector!r} finds nothing in the answer; fix or remove it"
            )
    else:
        obj = unwrap_single(body, resource)
    if not isinstance(obj, dict):
        return {} if obj is None else obj
    result: dict[str, Any] = state.record_style(obj).normalise(obj)
    return result


def read_stats(state: EndpointView, body: Any) -> dict[str, Any]:
    """``/stats`` as one dict of figures (:func:`stats_figures`), at the profile's ``data_selector`` when
    declared."""
    selector = state.data_selector
    return stats_figures(get_path(body, selector) if selector else body)


def read_search(state: EndpointView, body: Any, problems: EndpointView, bots: EndpointView) -> dict[str, Any]:
    """``/search`` with its ``problems`` and ``bots`` lists in the canonical form (each list's record style
    decided once, in ``problems``/``bots``)."""
    out = dict(read_single(state, body, None)) if isinstance(body, dict) else {}
    for key, list_state in (("problems", problems), ("bots", bots)):
        items = out.get(key)
        if isinstance(items, dict):  # a list envelope inside (e.g. {"problems": {"data": [...]}})
            items = next((v for v in items.values() if isinstance(v, list)), None)
        if isinstance(items, list) and items:
            out[key] = list_state.record_style(items[0]).normalise_all(items)
    return out


_PAIR_NAMES = ("name", "metric", "key", "label", "stat")
_PAIR_VALUES = ("value", "count", "total", "amount")


def _pairs(items: list[Any]) -> dict[str, Any] | None:
    """``[{"name": "totalBots", "value": 3}, ...]`` -> ``{"totalBots": 3, ...}``; ``None`` if not such a
    list."""
    out: dict[str, Any] = {}
    for item in items:
        if not isinstance(item, dict):
            return None
        item = flat_record(item, "resource_object" if "attributes" in item else "flat")
        item = {to_camel(k): v for k, v in item.items()}
        name = next((item[k] for k in _PAIR_NAMES if isinstance(item.get(k), str)), None)
        value_key = next((k for k in _PAIR_VALUES if k in item), None)
        if name is None or value_key is None:
            return None
        out[to_camel(name)] = item[value_key]
    return out


def stats_figures(body: Any) -> dict[str, Any]:
    """``/stats`` as one dict of figures (camelCase names, nested objects kept for dotted flattening):
    an object, a JSON:API/Relay wrapper, a list of name/value pairs (bare, or under ``data``/``value``/
    ``items``/``metrics``/``stats``). Raises :class:`UnrecognizedResponseError` for anything else."""
    body = unwrap_single(body, "stats")
    if isinstance(body, dict) and len([k for k in body if k not in _DOCUMENT_KEYS]) == 1:
        (key,) = [k for k in body if k not in _DOCUMENT_KEYS]
        if isinstance(body[key], list) and key in ("data", "value", "items", "metrics", "stats", "results"):
            body = body[key]
    if isinstance(body, list):
        pairs = _pairs(body)
        if pairs is None:
            raise UnrecognizedResponseError(
                "GET /stats: a list that is not name/value pairs; add to your profile: "
                '[endpoints.stats] data_selector = "<path to the figures>"',
                endpoint="stats",
                keys=[],
            )
        return pairs
    if not isinstance(body, dict):
        raise UnrecognizedResponseError(
            f"GET /stats answered {type(body).__name__}, not figures", endpoint="stats", keys=[]
        )
    flat = flat_record(body, "resource_object" if "attributes" in body and "type" in body else "flat")
    out: dict[str, Any] = {}
    for key, value in flat.items():
        if (key in ("id", "type") and isinstance(value, str)) or key.startswith("@") or key in NOT_FIELDS:
            continue
        if isinstance(value, list) and (pairs := _pairs(value)) is not None:
            value = pairs
        out[to_camel(key)] = camel_deep(value)
    return out


def read_records(state: EndpointView, body: Any, items_key: str | None, template: str) -> list[Any]:
    """The records of an answer in the canonical form: found at the endpoint's ``data_selector`` (found once,
    on the first answer, unless a profile declares it), normalised by its record style (decided once, from
    the first record). Raises :class:`PaginationError` naming the profile setting that does not fit."""
    raw: list[Any] | None = None
    if state.data_selector is not None:
        raw = select_records(body, state.data_selector)
        if raw is None and state.selector_declared:
            raise PaginationError(
                f"GET {template}: the profile's [endpoints.{state.name}] data_selector = "
                f"{state.data_selector!r} finds no list in the answer ({shape(body)}); fix or remove it"
            )
    if raw is None:
        selector, raw = find_records(body, items_key)
        state.data_selector = state.data_selector or selector
    if not raw:
        return raw
    style = state.record_style(raw[0])
    if style.declared and style.id_field and not style.identity and not _has_id(raw[0], style):
        fields = ", ".join(sorted(map(str, _fields(raw[0], style))))
        raise PaginationError(
            f"GET {template}: the profile's [endpoints.{state.name}] id_field = {style.id_field!r} is not a "
            f"field of its records (fields: {fields})"
        )
    return style.normalise_all(raw)


def shape(body: Any) -> str:
    """A short description of an answer for error messages: its top-level keys, or its JSON type."""
    return (
        f"top-level keys: {', '.join(sorted(map(str, body)))}"
        if isinstance(body, dict)
        else type(body).__name__
    )


def _fields(record: Any, style: RecordStyle) -> list[Any]:
    if not isinstance(record, dict):
        return []
    inner = record.get("attributes") if style.record == "resource_object" else record.get("node")
    return [*record, *(inner if isinstance(inner, dict) else [])]


def _has_id(record: Any, style: RecordStyle) -> bool:
    if style.id_field is not None and "." in style.id_field:  # a dotted path into a nested reference
        head = style.id_field.split(".", 1)[0]
        return head in _fields(record, style) and style.normalise(record).get(style.canonical_id) is not None
    return style.id_field in _fields(record, style)
