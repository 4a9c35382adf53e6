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


def test_the_writers_structure_sql_is_duckdbs_json_group_structure():
    # The writer spells json_group_structure out over the raw text (one parse instead of three); over
    # records of every kind (mixed and merged types, nulls, nested, empty containers, a NULL record, a
    # non-object) it must give what DuckDB's own macro gives, below and above the sample size.
    import json

    import duckdb

    from solvelens.store.writer import DRIFT_SAMPLE_ROWS, _structure_sql

    records = [
        '{"a":1,"b":"x","n":null}',
        '{"a":1.5,"b":null,"c":[1,2],"d":{"x":1}}',
        '{"a":"s","c":[],"d":{"y":[{"z":true}]},"e":{}}',
        '{"b":true,"f":-3,"g":18446744073709551615}',
        None,
        '{"k":"caf\\u00e9 \\"q\\"","a":2}',
    ]
    con = duckdb.connect()
    for batch in (records, [*records, "[1,2]"]):
        for n in (len(batch), DRIFT_SAMPLE_ROWS + 5):
            rows = [batch[i % len(batch)] for i in range(n)]
            con.execute("CREATE OR REPLACE TABLE src AS SELECT unnest(?::VARCHAR[]) AS raw", [rows])
            ours = con.execute(_structure_sql(n, "src")).fetchall()[0][0]
            duckdbs = con.execute("SELECT json_group_structure(raw::JSON)::VARCHAR FROM src").fetchall()[0][0]
            assert json.loads(ours) == json.loads(duckdbs)  # key order follows the (parallel) scan's
    assert observed_fields(ours) == {}  # a non-object among the records: no field structure
    con.execute("CREATE OR REPLACE TABLE src AS SELECT unnest(?::VARCHAR[]) AS raw", [records])
    observed = observed_fields(con.execute(_structure_sql(len(records), "src")).fetchall()[0][0])
    assert observed["a"] == "mixed" and observed["d"] == "object" and observed["c"] == "array"
