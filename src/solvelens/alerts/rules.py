"""Alert rules: the small language of ``--alert`` and of the rules file (TOML).

A rule is one line of words; ``BOT`` is a bot's name or id (case-insensitive name match) and limits the rule
to that bot, without it the rule watches every bot:

==============================  ===========================================================================
``new-leader``                  another bot took #1 of the leaderboard
``top N entered [BOT]``         a bot entered the top N (was below N or not on the leaderboard)
``top N left [BOT]``            a bot left the top N
``rank-drop >= K [BOT]``        a bot fell at least K places since the previous snapshot, or off the board
``my-bot rank > N``             the bot of the API key (``/bot/me``) is ranked below N (or not ranked)
``problem matured``             a problem's status became ``mature``
``stale > H hours``             no complete snapshot for H hours (wall clock; checked by ``schedule``)
==============================  ===========================================================================

The rules file::

    # solvelens alert rules
    alerts = ["new-leader", "top 10 left", "rank-drop >= 5 AlphaBot", "stale > 2 hours"]
    notify = ["json://127.0.0.1:8080/hook"]     # apprise URLs (secrets: never printed or stored)

A rule that cannot be read raises :class:`AlertRuleError` (a ``ValueError``): one line naming the rule, where
it came from, the problem and the fix.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

__all__ = [
    "EVENT_KINDS",
    "LEVEL_KINDS",
    "RULE_FORMS",
    "AlertRuleError",
    "Rule",
    "RulesFile",
    "load_rules_file",
    "parse_rule",
    "parse_rules",
]

#: The rule forms, as shown in error messages and ``--help``.
RULE_FORMS = (
    "new-leader, top N entered|left [BOT], rank-drop >= K [BOT], my-bot rank > N, problem matured, "
    "stale > H hours"
)
#: Rules that fire on a change between two snapshots (from :func:`solvelens.analysis.diff`).
EVENT_KINDS = frozenset({"new-leader", "top-entered", "top-left", "rank-drop", "problem-matured"})
#: Rules whose condition holds or not at a moment; they fire when it starts to hold.
LEVEL_KINDS = frozenset({"my-bot-rank", "stale"})


class AlertRuleError(ValueError):
    """An alert rule or rules file that cannot be read: one line naming the rule, the problem and the fix."""


@dataclass(frozen=True)
class Rule:
    """One alert rule.

    ``kind``: ``new-leader``, ``top-entered``, ``top-left``, ``rank-drop``, ``my-bot-rank``,
    ``problem-matured`` or ``stale`` (the Prefect event is ``solvelens.alert.<kind>``); ``n`` the top N or
    rank limit, ``k`` the places of a rank drop, ``hours`` the staleness limit, ``bot`` the bot name or id the
    rule is limited to. ``text`` is the canonical form (e.g. ``top 10 left AlphaBot``): the rule's identity
    in the stored alert state.
    """

    kind: str
    text: str
    n: int | None = None
    k: int | None = None
    hours: float | None = None
    bot: str | None = None

    @property
    def event_name(self) -> str:
        """The Prefect event name of this rule's alerts: ``solvelens.alert.<kind>``."""
        return f"solvelens.alert.{self.kind}"

    @property
    def is_event(self) -> bool:
        """Fires on a change between two snapshots (else: on a condition starting to hold)."""
        return self.kind in EVENT_KINDS

    def matches_bot(self, bot_id: str | None, name: str | None) -> bool:
        """Whether a bot is watched by this rule (no ``bot``: every bot)."""
        if self.bot is None:
            return True
        wanted = self.bot.casefold()
        return wanted in {(bot_id or "").casefold(), (name or "").casefold()}


@dataclass(frozen=True)
class RulesFile:
    """A rules file read: its ``rules`` and its ``notify`` URLs (apprise; secrets, never print them)."""

    path: Path
    rules: tuple[Rule, ...] = ()
    notify: tuple[str, ...] = field(default=(), repr=False)


def _error(text: str, source: str, problem: str, fix: str) -> AlertRuleError:
    return AlertRuleError(f'alert rule "{text}" ({source}): {problem}; {fix}')


def _whole(word: str, what: str, text: str, source: str, example: str) -> int:
    if not re.fullmatch(r"\d+", word) or int(word) < 1:
        raise _error(text, source, f'{what} must be a whole number >= 1, got "{word}"', f'e.g. "{example}"')
    return int(word)


def _hours(word: str, text: str, source: str) -> float:
    try:
        hours = float(word)
    except ValueError:
        hours = -1.0
    if not hours > 0 or hours != hours or hours == float("inf"):
        raise _error(text, source, f'H must be a number of hours > 0, got "{word}"', 'e.g. "stale > 2 hours"')
    return hours


def _bot(words: list[str]) -> str | None:
    return " ".join(words) or None


def _with_bot(base: str, bot: str | None) -> str:
    return f"{base} {bot}" if bot else base


def _parse_top(words: list[str], text: str, source: str) -> Rule:
    if len(words) < 3 or words[2].lower() not in {"entered", "left"}:
        raise _error(text, source, 'a top rule reads "top N entered|left [BOT]"', 'e.g. "top 10 left"')
    n = _whole(words[1], "N", text, source, "top 10 left")
    direction = words[2].lower()
    bot = _bot(words[3:])
    return Rule(f"top-{direction}", _with_bot(f"top {n} {direction}", bot), n=n, bot=bot)


def _parse_rank_drop(words: list[str], text: str, source: str) -> Rule:
    if len(words) < 3 or words[1] != ">=":
        raise _error(text, source, 'a rank-drop rule reads "rank-drop >= K [BOT]"', 'e.g. "rank-drop >= 5"')
    k = _whole(words[2], "K", text, source, "rank-drop >= 5")
    bot = _bot(words[3:])
    return Rule("rank-drop", _with_bot(f"rank-drop >= {k}", bot), k=k, bot=bot)


def _parse_my_bot(words: list[str], text: str, source: str) -> Rule:
    if len(words) != 4 or words[1].lower() != "rank" or words[2] != ">":
        raise _error(text, source, 'a my-bot rule reads "my-bot rank > N"', 'e.g. "my-bot rank > 10"')
    n = _whole(words[3], "N", text, source, "my-bot rank > 10")
    return Rule("my-bot-rank", f"my-bot rank > {n}", n=n)


def _parse_stale(words: list[str], text: str, source: str) -> Rule:
    units = {"hours", "hour", "h"}
    if len(words) not in {3, 4} or words[1] != ">" or (len(words) == 4 and words[3].lower() not in units):
        raise _error(text, source, 'a stale rule reads "stale > H hours"', 'e.g. "stale > 2 hours"')
    hours = _hours(words[2], text, source)
    return Rule("stale", f"stale > {hours:g} hours", hours=hours)


def parse_rule(text: str, source: str = "--alert") -> Rule:
    """Read one rule (the forms of :data:`RULE_FORMS`; ``>=``/``>`` may touch their neighbours, words are
    case-insensitive, a bot name keeps its case). ``source`` names where the rule came from in errors (e.g.
    ``--alert`` or ``rules.toml``). Raises :class:`AlertRuleError`."""
    spaced = re.sub(r"\s*(>=|>)\s*", r" \1 ", text).strip()
    words = spaced.split()
    head = words[0].lower() if words else ""
    if head == "new-leader" and len(words) == 1:
        return Rule("new-leader", "new-leader")
    if head == "top":
        return _parse_top(words, text, source)
    if head == "rank-drop":
        return _parse_rank_drop(words, text, source)
    if head == "my-bot":
        return _parse_my_bot(words, text, source)
    if head == "problem" and [w.lower() for w in words[1:]] == ["matured"]:
        return Rule("problem-matured", "problem matured")
    if head == "stale":
        return _parse_stale(words, text, source)
    raise _error(text, source, "not a rule this version knows", f"write one of: {RULE_FORMS}")


def parse_rules(texts: list[str] | tuple[str, ...], source: str = "--alert") -> tuple[Rule, ...]:
    """Read several rules; duplicates (same canonical text) are kept once. Raises :class:`AlertRuleError`."""
    rules: dict[str, Rule] = {}
    for text in texts:
        rule = parse_rule(text, source)
        rules.setdefault(rule.text, rule)
    return tuple(rules.values())


_FILE_KEYS = {"alerts", "notify"}


def _string_list(data: dict[str, object], key: str, path: Path) -> list[str]:
    value = data.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise AlertRuleError(
            f'rules file {path}: "{key}" must be a list of strings; e.g. {key} = ["..."] (file left unread)'
        )
    return list(value)


def load_rules_file(path: str | Path) -> RulesFile:
    """Read a rules file (TOML: ``alerts`` a list of rules, ``notify`` a list of apprise URLs; nothing else).

    Raises :class:`AlertRuleError` for a missing or unreadable file, malformed TOML, an unknown key, a value
    of the wrong type or a bad rule (named with the file)."""
    file = Path(path)
    try:
        data = tomllib.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise AlertRuleError(
            f"rules file {file} does not exist; pass --alerts-file an existing file"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise AlertRuleError(f"rules file {file} cannot be read ({exc}); pass a readable TOML file") from None
    except tomllib.TOMLDecodeError as exc:
        raise AlertRuleError(f"rules file {file} is not valid TOML ({exc}); fix the file") from None
    unknown = sorted(set(data) - _FILE_KEYS)
    if unknown:
        raise AlertRuleError(
            f"rules file {file}: unknown key(s) {', '.join(unknown)}; the keys are alerts and notify"
        )
    rules = parse_rules(_string_list(data, "alerts", file), source=str(file))
    return RulesFile(path=file, rules=rules, notify=tuple(_string_list(data, "notify", file)))
