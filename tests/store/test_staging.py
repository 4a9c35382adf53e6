"""Staging: the version keys computed in bulk equal :func:`version_key` record by record."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest

from solvelens.store.staging import StagingArea, dump_json, version_key


def test_bulk_version_keys_equal_version_key(tmp_path: Path):
    area = StagingArea(tmp_path / "run").create(base_url="u", taken_at="t", started_at="t")
    records = [{"id": f"s{i}", "text": "ü" * i, "btScore": i / 3} for i in range(5)]
    with area.writer("solutions") as w:
        w.append(problem_id=["p1"] * 3, rank=[1, 2, 3], raw=records[:3])  # one scope
        w.append(problem_id=["p2", "p3"], rank=[1, 1], raw=records[3:])  # several scopes
    with area.writer("bots") as w:
        w.append(raw=records)
    solutions = pq.read_table(area.table_path("solutions")).to_pylist()
    scopes = ["p1", "p1", "p1", "p2", "p3"]
    assert [r["version_id"] for r in solutions] == [
        version_key(dump_json(rec), scope) for rec, scope in zip(records, scopes, strict=True)
    ]
    assert [r["raw"] for r in solutions] == [dump_json(rec).decode() for rec in records]
    bots = pq.read_table(area.table_path("bots")).to_pylist()
    assert [r["version_id"] for r in bots] == [version_key(dump_json(rec)) for rec in records]


def test_mismatched_column_lengths_are_refused(tmp_path: Path):
    area = StagingArea(tmp_path / "run").create(base_url="u", taken_at="t", started_at="t")
    with pytest.raises(ValueError), area.writer("solutions") as w:
        w.append(problem_id=["p1"], rank=[1, 2], raw=[{"id": 1}, {"id": 2}])


def test_raw_is_the_same_bytes_whatever_form_a_record_comes_in(tmp_path: Path):
    """A plain dict (serialised on the fast path), a dict subclass (the client's typed results), JSON text,
    JSON bytes and a list each stage as :func:`dump_json`'s bytes, keyed alike."""

    class Typed(dict):  # the client's models subclass dict
        pass

    record = {"id": "s1", "text": "naïve ✓", "n": 3, "nested": {"b": [1, 2.5, None]}}
    forms = [record, Typed(record), dump_json(record).decode(), dump_json(record), [record, 1]]
    area = StagingArea(tmp_path / "run").create(base_url="u", taken_at="t", started_at="t")
    with area.writer("bots") as w:
        w.append(raw=forms)
    rows = pq.read_table(area.table_path("bots")).to_pylist()
    expected = [dump_json(record)] * 4 + [dump_json([record, 1])]
    assert [r["raw"].encode() for r in rows] == expected
    assert [r["version_id"] for r in rows] == [version_key(b) for b in expected]
