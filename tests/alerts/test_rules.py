"""The rule language: every form, canonical text, and one-line errors naming the rule, problem and fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from solvelens.alerts.rules import AlertRuleError, load_rules_file, parse_rule, parse_rules


@pytest.mark.parametrize(
    ("text", "kind", "canonical", "fields"),
    [
        ("new-leader", "new-leader", "new-leader", {}),
        ("top 10 entered", "top-entered", "top 10 entered", {"n": 10, "bot": None}),
        ("TOP 5 Left Alpha Bot", "top-left", "top 5 left Alpha Bot", {"n": 5, "bot": "Alpha Bot"}),
        ("rank-drop >= 8", "rank-drop", "rank-drop >= 8", {"k": 8}),
        ("rank-drop>=3 AlphaBot", "rank-drop", "rank-drop >= 3 AlphaBot", {"k": 3, "bot": "AlphaBot"}),
        ("my-bot rank > 10", "my-bot-rank", "my-bot rank > 10", {"n": 10}),
        ("my-bot rank>10", "my-bot-rank", "my-bot rank > 10", {"n": 10}),
        ("problem matured", "problem-matured", "problem matured", {}),
        ("stale > 2 hours", "stale", "stale > 2 hours", {"hours": 2.0}),
        ("stale > 0.5 h", "stale", "stale > 0.5 hours", {"hours": 0.5}),
        ("stale>1", "stale", "stale > 1 hours", {"hours": 1.0}),
    ],
)
def test_every_rule_form_reads_to_its_canonical_rule(
    text: str, kind: str, canonical: str, fields: dict
) -> None:
    rule = parse_rule(text)
    assert (rule.kind, rule.text) == (kind, canonical)
    for name, value in fields.items():
        assert getattr(rule, name) == value
    assert rule.event_name == f"solvelens.alert.{kind}"
    assert parse_rule(rule.text) == rule  # the canonical text reads back to the same rule


@pytest.mark.parametrize(
    ("text", "problem", "fix"),
    [
        ("top ten left", 'N must be a whole number >= 1, got "ten"', 'e.g. "top 10 left"'),
        ("top 0 left", 'N must be a whole number >= 1, got "0"', 'e.g. "top 10 left"'),
        ("top 10 joined", 'a top rule reads "top N entered|left [BOT]"', 'e.g. "top 10 left"'),
        ("rank-drop 5", 'a rank-drop rule reads "rank-drop >= K [BOT]"', 'e.g. "rank-drop >= 5"'),
        ("rank-drop >= -2", 'K must be a whole number >= 1, got "-2"', 'e.g. "rank-drop >= 5"'),
        ("my-bot rank < 3", 'a my-bot rule reads "my-bot rank > N"', 'e.g. "my-bot rank > 10"'),
        ("stale > soon hours", 'H must be a number of hours > 0, got "soon"', 'e.g. "stale > 2 hours"'),
        ("stale > 2 days", 'a stale rule reads "stale > H hours"', 'e.g. "stale > 2 hours"'),
        ("stale > nan hours", 'H must be a number of hours > 0, got "nan"', 'e.g. "stale > 2 hours"'),
        ("leader changed", "not a rule this version knows", "write one of: new-leader, top N"),
        ("", "not a rule this version knows", "write one of:"),
    ],
)
def test_a_bad_rule_is_one_line_naming_rule_problem_and_fix(text: str, problem: str, fix: str) -> None:
    with pytest.raises(AlertRuleError) as caught:
        parse_rule(text, "--alert")
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f'alert rule "{text}" (--alert): ')
    assert problem in message and fix in message


def test_duplicate_rules_are_kept_once() -> None:
    rules = parse_rules(["top 10 left", "TOP 10 LEFT", "new-leader"])
    assert [r.text for r in rules] == ["top 10 left", "new-leader"]


def test_a_named_bot_matches_by_id_or_name_case_insensitively() -> None:
    rule = parse_rule("top 3 left alphabot")
    assert rule.matches_bot("b-1", "AlphaBot")
    assert rule.matches_bot("ALPHABOT", None)
    assert not rule.matches_bot("b-2", "BetaBot")
    assert parse_rule("top 3 left").matches_bot("b-2", "BetaBot")


def test_the_rules_file_gives_rules_and_notify_urls(tmp_path: Path) -> None:
    path = tmp_path / "rules.toml"
    path.write_text('alerts = ["new-leader", "stale > 2 hours"]\nnotify = ["json://127.0.0.1:9/hook"]\n')
    file = load_rules_file(path)
    assert [r.text for r in file.rules] == ["new-leader", "stale > 2 hours"]
    assert file.notify == ("json://127.0.0.1:9/hook",)
    assert "json://" not in repr(file)  # notification URLs are secrets


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ('alerts = ["top many left"]', 'alert rule "top many left" ({path}): N must be a whole number'),
        ('alerts = "new-leader"', 'rules file {path}: "alerts" must be a list of strings'),
        ("notify = [1]", 'rules file {path}: "notify" must be a list of strings'),
        ('alerts = []\nnotfy = ["slack://secret"]', "rules file {path}: unknown key(s) notfy; the keys are"),
        ("alerts = [", "rules file {path} is not valid TOML"),
    ],
)
def test_a_bad_rules_file_is_one_line_naming_the_file(tmp_path: Path, content: str, expected: str) -> None:
    path = tmp_path / "rules.toml"
    path.write_text(content)
    with pytest.raises(AlertRuleError) as caught:
        load_rules_file(path)
    message = str(caught.value)
    assert expected.format(path=path) in message
    assert "\n" not in message and "secret" not in message


def test_a_missing_rules_file_names_the_fix(tmp_path: Path) -> None:
    with pytest.raises(AlertRuleError, match="does not exist; pass --alerts-file an existing file"):
        load_rules_file(tmp_path / "missing.toml")
