"""Rules that can never fire: a rule limited to a bot the store has never seen on the platform is refused
before the snapshot (one line naming the closest names); the names are read back from the store with SQL
written here."""

from __future__ import annotations

from pathlib import Path

import pytest

from solvelens.alerts.rules import AlertRuleError, parse_rules
from solvelens.alerts.subjects import check_rule_bots
from solvelens.store import read_frame, write_snapshot
from tests.store.fakes import make_platform, stage_run

URL = "http://127.0.0.1:1/api/v1"


@pytest.fixture
def store(tmp_path: Path) -> Path:
    db = tmp_path / "store.duckdb"
    write_snapshot(db, stage_run(tmp_path, make_platform()))
    return db


def test_a_misspelled_bot_is_refused_naming_the_closest(store: Path) -> None:
    name = read_frame(store, "SELECT name FROM leaderboard ORDER BY rank LIMIT 1")["name"][0]
    typo = name + name[-1]
    with pytest.raises(AlertRuleError) as refused:
        check_rule_bots(parse_rules([f"rank-drop >= 1 {typo}"]), store, URL)
    message = str(refused.value)
    assert f'no bot "{typo}" on {URL}' in message and f"closest: {name}" in message and "\n" not in message


def test_a_known_name_or_id_any_case_and_rules_without_a_bot_pass(store: Path) -> None:
    row = read_frame(store, "SELECT bot_id, name FROM leaderboard ORDER BY rank LIMIT 1").row(0)
    rules = parse_rules([f"top 3 left {row[1].upper()}", f"rank-drop >= 2 {row[0]}", "new-leader"])
    check_rule_bots(rules, store, URL)


def test_nothing_is_refused_where_the_store_cannot_tell(store: Path, tmp_path: Path) -> None:
    rules = parse_rules(["rank-drop >= 1 Nobody"])
    check_rule_bots(rules, tmp_path / "missing.duckdb", URL)  # no store yet
    check_rule_bots(rules, store, "http://127.0.0.1:2/api/v1")  # no snapshot of that platform yet
