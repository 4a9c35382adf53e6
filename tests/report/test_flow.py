"""solvelens.flows.report: a real Prefect flow run writes the report and publishes an artifact."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from solvelens.analysis import StoreError


def test_report_flow_writes_the_report(
    prefect_harness: None, store_db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from prefect.client.orchestration import get_client

    from solvelens.flows.report import ARTIFACT_KEY, report_flow

    out = tmp_path / "flow.html"
    monkeypatch.setattr(sys, "unraisablehook", sys.__unraisablehook__)
    result = asyncio.run(report_flow(str(store_db), str(out), str(tmp_path / "png")))
    # the run's body installed it (tests/flows/test_termination.py: a SIGTERM inside a callback)
    assert getattr(sys.unraisablehook, "redelivers_termination", False)
    assert result == str(out)
    assert out.stat().st_size > 900_000
    assert (tmp_path / "png" / "rank_history.png").exists()

    async def artifact() -> str:
        async with get_client() as client:
            found = await client.read_latest_artifacts()
            return next(a.data for a in found if a.key == ARTIFACT_KEY)

    assert str(out) in asyncio.run(artifact())


def test_report_flow_fails_on_an_empty_store(
    prefect_harness: None, empty_store_db: Path, tmp_path: Path
) -> None:
    from solvelens.flows.report import report_flow

    with pytest.raises(StoreError, match="solvelens snapshot"):
        asyncio.run(report_flow(str(empty_store_db), str(tmp_path / "x.html")))
