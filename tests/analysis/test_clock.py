"""Simulated dates are decided by what the snapshots' platform declared, never by its address."""

from __future__ import annotations

import datetime as dt
import json

import polars as pl

from solvelens import analysis as an

SIMULATED = json.dumps({"id": "a-platform", "clock": "simulated"})


def _snapshots(base_url: str, platforms: list[str | None]) -> pl.DataFrame:
    start = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    return pl.DataFrame(
        {
            "snapshot_id": list(range(1, len(platforms) + 1)),
            "taken_at": [start + dt.timedelta(days=i) for i in range(len(platforms))],
            "base_url": [base_url] * len(platforms),
            "platform": platforms,
        },
        schema_overrides={"platform": pl.String},
    )


def test_a_real_platform_on_loopback_is_never_simulated() -> None:
    for url in ("http://127.0.0.1:8000/api/v1", "http://localhost:9/api/v1", "http://[::1]:9/api/v1"):
        snapshots = _snapshots(url, ["{}", "{}"])
        assert an.simulated_label(snapshots) == ""
        assert not an.newest_is_simulated(snapshots)


def test_a_declared_simulated_clock_is_labelled_wherever_the_platform_is() -> None:
    snapshots = _snapshots("https://sandbox.example.org/api/v1", [SIMULATED, SIMULATED])
    label = an.simulated_label(snapshots)
    assert label.startswith("Simulated data: every snapshot comes from a sandbox platform")
    assert "Simulated dates run from 2026-01-01 00:00 UTC to 2026-01-02 00:00 UTC" in label
    assert an.newest_is_simulated(snapshots)


def test_unknown_or_mixed_declarations_are_said_so() -> None:
    unknown = _snapshots("http://127.0.0.1:1/api/v1", [None, None])
    assert an.simulated_label(unknown) == "" and not an.newest_is_simulated(unknown)
    mixed = _snapshots("http://127.0.0.1:1/api/v1", [SIMULATED, "{}", None])
    label = an.simulated_label(mixed)
    assert (
        label.startswith("Partly simulated data: 1 of 3 snapshots") and "other snapshots carry real" in label
    )
    assert not an.newest_is_simulated(mixed)
    assert an.simulated_snapshots(mixed).to_list() == [True, False, False]
