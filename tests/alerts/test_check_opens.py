"""The alert check after a snapshot reads the store through one read-only connection: the snapshot list,
the platform's identity and last finish time, the ``/bot/me`` row and the pair's rows the diff needs, all in
one open (each open of a read-only DuckDB file checks the whole file and the views: ~0.015 CPU s apiece).

Counted on the real module: every ``duckdb.connect`` the store's connection module makes (readers pass
``read_only=True``; the alert state's write is the one read-write open), against a real DuckDB file written
by the store's own write path."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import solvelens.store.connection as connection
from solvelens.flows.alerts import alerts_after_snapshot
from solvelens.store import latest_solution_state, write_snapshot
from tests.store.fakes import BASE_URL, FakePlatform, make_platform, stage_run


@dataclass(frozen=True)
class Plan:
    """The fields of a snapshot plan the alert check reads (``solvelens.flows.alerts.AlertPlan``)."""

    db_path: str
    alerts: list[str] | None
    alerts_file: str | None = None
    backfill: bool = False
    lock_timeout_s: float = 10.0


class Opens:
    """``duckdb.connect`` as the store's connection module calls it, counted by ``read_only``."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, db: Path) -> None:
        self.read_only = 0
        self.read_write = 0
        real = connection.duckdb.connect

        def connect(database: Any = ":memory:", *args: Any, **kwargs: Any) -> Any:
            if str(database) == str(db):
                if kwargs.get("read_only"):
                    self.read_only += 1
                else:
                    self.read_write += 1
            return real(database, *args, **kwargs)

        monkeypatch.setattr(connection.duckdb, "connect", connect)


@pytest.fixture(scope="module")
def two_snapshots(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, FakePlatform]:
    """A store of two snapshots of one platform; bot 2 takes the lead in the second; the API key's bot
    (``/bot/me``) is bot 5, never first."""
    root = tmp_path_factory.mktemp("alert-opens")
    db = root / "store.duckdb"
    plat = make_platform()
    write_snapshot(db, stage_run(root, plat, me=plat.bots[5]))
    plat.bots[2]["totalPoints"] = 5000
    carry = latest_solution_state(db, BASE_URL)
    write_snapshot(db, stage_run(root, plat, taken_at="2026-02-02T00:00:00Z", carry=carry, me=plat.bots[5]))
    return db, plat


RULES = ["new-leader", "top 3 entered", "rank-drop >= 1", "my-bot rank > 1", "problem matured"]


def test_the_check_after_a_snapshot_opens_the_store_read_only_once(
    two_snapshots: tuple[Path, FakePlatform], monkeypatch: pytest.MonkeyPatch
) -> None:
    db, plat = two_snapshots
    opens = Opens(monkeypatch, db)
    after = alerts_after_snapshot(Plan(str(db), RULES), 2, want_diff=True)
    assert after.summary["warnings"] == [] and after.outcome is not None
    assert after.outcome.diff is not None and after.outcome.diff.b.snapshot_id == 2
    fired = {a["kind"]: a for a in after.summary["fired"]}
    assert fired["new-leader"]["subject_id"] == plat.bots[2]["id"]
    assert fired["my-bot-rank"]["subject_id"] == plat.bots[5]["id"]
    assert (opens.read_only, opens.read_write) == (1, 1)  # the state's write is the one read-write open


def test_the_check_after_a_platforms_first_snapshot_opens_the_store_read_only_once(
    two_snapshots: tuple[Path, FakePlatform], monkeypatch: pytest.MonkeyPatch
) -> None:
    db, _plat = two_snapshots
    opens = Opens(monkeypatch, db)
    after = alerts_after_snapshot(Plan(str(db), ["my-bot rank > 2"]), 1)
    assert after.summary["warnings"] == [] and after.outcome is not None and after.outcome.diff is None
    assert [a["kind"] for a in after.summary["fired"]] == ["my-bot-rank"]
    assert (opens.read_only, opens.read_write) == (1, 1)
