"""Unit tests of the pure pieces: drift comparison and /stats flattening."""

from __future__ import annotations

from solvelens.store.drift import coarse_type, compare_fields, observed_fields
from solvelens.store.metrics import flatten_metrics


def test_flatten_metrics_dotted_names_and_numbers():
    stats = {
        "totalBots": 3,
        "ratio": 0.5,
        "nested": {"a": 1, "list": [2, {"b": True}]},
        "label": "x",
        "n": "7",
    }
    assert flatten_metrics(stats) == [
        ("totalBots", 3.0),
        ("ratio", 0.5),
        ("nested.a", 1.0),
        ("nested.list.0", 2.0),
        ("nested.list.1.b", 1.0),
        ("n", 7.0),
    ]
    assert flatten_metrics({"missing": None}) == [("missing", None)]


def test_flatten_metrics_name_value_pairs_are_one_figure_each():
    pairs = [{"name": "totalBots", "value": 3}, {"metric": "activeBots", "count": 1}]
    assert flatten_metrics(pairs) == [("totalBots", 3.0), ("activeBots", 1.0)]
    assert flatten_metrics({"by": [{"key": "solve", "total": 2}]}) == [("by.solve", 2.0)]


def test_observed_fields_uses_coarse_types():
    observed = observed_fields(
        '{"a":"VARCHAR","b":"UBIGINT","c":"DOUBLE","d":{"x":"NULL"},"e":["JSON"],"f":"NULL"}'
    )
    assert observed == {"a": "string", "b": "number", "c": "number", "d": "object", "e": "array", "f": "null"}
    assert coarse_type("JSON") == "mixed"
    assert observed_fields(None) == {}


def test_compare_fields_first_time_then_added_changed_missing():
    drift, pairs = compare_fields("bots", {"id": "string", "n": "number"}, {}, ["id", "n"])
    assert drift == []
    assert sorted(pairs) == [("id", "string"), ("n", "number")]
    known = {"id": {"string"}, "n": {"number"}, "opt": {"null"}}
    drift, pairs = compare_fields(
        "bots", {"id": "string", "n": "string", "extra": "array", "opt": "string"}, known, ["id", "n", "gone"]
    )
    assert {(d["field"], d["change"]) for d in drift} == {
        ("n", "type_changed"),
        ("extra", "added"),
        ("gone", "missing"),
    }
    assert next(d for d in drift if d["field"] == "n")["previous_types"] == ["number"]
    assert ("opt", "string") in pairs  # a field only seen as null gets its type without a drift entry
    # Nothing new observed: nothing to compare.
    assert compare_fields("bots", {}, known, ["id"]) == ([], [])
