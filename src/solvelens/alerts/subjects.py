"""Rules that can never fire, found before a snapshot is taken: a rule limited to a bot (``top 10 left
AlphaBot``, ``rank-drop >= 1 LunarBot``) whose bot the store has never seen on the platform's leaderboard or
bot list, under that name or id (a typo such as ``LunarBott``).

Read from the store (one read-only open, DuckDB only; no polars, no analysis). A store without snapshots of
the platform cannot tell: nothing is refused then, and the snapshot's summary says so after it is taken.
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path

from solvelens.alerts.rules import AlertRuleError, Rule

__all__ = ["check_rule_bots", "known_bots"]


def known_bots(
    db_path: str | os.PathLike[str], base_url: str, *, lock_timeout_s: float = 10.0
) -> dict[str, str]:
    """Every bot id and name seen on the leaderboard or bot list of any complete snapshot of ``base_url``
    in the store, case-folded -> as stored; empty when the store or its snapshots of that platform do not
    exist.
    Raises the store's errors (:class:`solvelens.store.StoreError`)."""
    from solvelens.store import open_readonly

    if not Path(db_path).exists():
        return {}
    with open_readonly(db_path, lock_timeout_s=lock_timeout_s) as con:
        rows = con.execute(
            """
            WITH ids AS (SELECT snapshot_id FROM snapshots WHERE base_url = ?)
            SELECT DISTINCT x FROM (
                SELECT bot_id AS x FROM leaderboard WHERE snapshot_id IN (FROM ids)
                UNION ALL SELECT name FROM leaderboard WHERE snapshot_id IN (FROM ids)
                UNION ALL SELECT bot_id FROM bots WHERE snapshot_id IN (FROM ids)
                UNION ALL SELECT name FROM bots WHERE snapshot_id IN (FROM ids)
            ) WHERE x IS NOT NULL
            """,
            [base_url],
        ).fetchall()
    return {str(r[0]).casefold(): str(r[0]) for r in rows}


def check_rule_bots(
    rules: tuple[Rule, ...] | list[Rule], db_path: str | os.PathLike[str], base_url: str
) -> None:
    """Raise :class:`AlertRuleError` (one line: the rule, the unknown bot, the closest known names, the
    fix) for the first rule limited to a bot the store has never seen on ``base_url``; nothing when no rule
    names a bot or the store holds no snapshot of that platform yet (it cannot tell)."""
    named = [r for r in rules if r.bot is not None]
    if not named:
        return
    known = known_bots(db_path, base_url)
    if not known:
        return
    for rule in named:
        assert rule.bot is not None
        if rule.bot.casefold() in known:
            continue
        close = difflib.get_close_matches(rule.bot.casefold(), sorted(known), n=3, cutoff=0.6)
        hint = f" (closest: {', '.join(known[c] for c in close)})" if close else ""
        raise AlertRuleError(
            f'alert rule "{rule.text}": no bot "{rule.bot}" on {base_url} in {db_path}{hint}, so it could '
            "never fire; give the bot's name or id as the leaderboard shows it"
        )
