"""What the alert rules look at, read from the store (read-only): :class:`~solvelens.alerts.evaluate.Facts`.

After a snapshot: the change from the previous complete snapshot of the same platform to the new one, from
:mod:`solvelens.analysis.diff` (the pair is read once; ``top_n`` is computed for each N the rules name, 1
for ``new-leader``), the ``/bot/me`` bot's competition rank in the new snapshot, and the newest complete
snapshot's finish time, all through one read-only connection (an open checks the whole file and the views).
Without a snapshot (``schedule``'s staleness check): the platform of the scheduled
base URL and its newest complete snapshot's finish time.

The platform's identity is the one of :mod:`solvelens.analysis.platforms` (declared id, else base URL).
"""

from __future__ import annotations

import datetime as dt
import os
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from solvelens.alerts.evaluate import BotRank, Facts, Move, ProblemChange
from solvelens.alerts.rules import Rule
from solvelens.analysis.diff import SnapshotDiff, choose_pair, compute_diff, rank_changes, read_pair
from solvelens.analysis.leaderboard import leaderboard_history
from solvelens.analysis.load import StoreReader, read_only, read_snapshots
from solvelens.analysis.pick import SnapshotRef, SnapshotSelectionError
from solvelens.analysis.platforms import PlatformSelection
from solvelens.store import open_readonly

__all__ = ["SnapshotFacts", "platform_of_base_url", "snapshot_facts", "stale_facts"]

#: SQL of a snapshot's platform identity (as :func:`solvelens.analysis.platforms.platform_key`).
_PLATFORM_SQL = "coalesce(nullif(json_extract_string(platform, '$.id'), ''), base_url)"


@dataclass(frozen=True)
class SnapshotFacts:
    """The facts of one new snapshot and the diff a person reads beside its alerts (``diff``: top 10, moves
    of at least 3 places; ``None`` for the platform's first snapshot)."""

    facts: Facts
    diff: SnapshotDiff | None


def _moves(frame: pl.DataFrame) -> list[Move]:
    return [
        Move(str(r["bot_id"]), r["name"], r["rank_before"], r["rank_after"])
        for r in frame.select("bot_id", "name", "rank_before", "rank_after").iter_rows(named=True)
    ]


def _tops(rules: tuple[Rule, ...] | list[Rule]) -> set[int]:
    tops = {r.n for r in rules if r.kind in {"top-entered", "top-left"} and r.n is not None}
    return tops | ({1} if any(r.kind == "new-leader" for r in rules) else set())


def _ranks(board: pl.DataFrame, snapshot_id: int, taken_at: dt.datetime) -> pl.DataFrame:
    """Competition ranks of one snapshot's leaderboard rows (bot_id, name, rank)."""
    rows = board.filter(pl.col("snapshot_id") == snapshot_id)
    times = pl.DataFrame({"snapshot_id": [snapshot_id], "taken_at": [taken_at]})
    return leaderboard_history(rows, times).select("bot_id", "name", "rank")


def _my_bot(
    me: list[tuple[str, str | None]], snapshot_id: int, taken_at: dt.datetime, board: pl.DataFrame
) -> BotRank | None:
    """The ``/bot/me`` bot (``me``: its row at the snapshot, or none) and its competition rank on the
    snapshot's leaderboard (``board``: leaderboard rows of that snapshot and maybe others)."""
    if not me:
        return None
    ranks = _ranks(board, snapshot_id, taken_at).filter(pl.col("bot_id") == me[0][0])
    return BotRank(str(me[0][0]), me[0][1], int(ranks["rank"][0]) if ranks.height else None)


def _dropped_off(board: pl.DataFrame, diff: SnapshotDiff) -> list[Move]:
    """Bots on the previous snapshot's leaderboard that are on none of the new one's (``rank_after`` None)."""
    before = _ranks(board, diff.a.snapshot_id, diff.a.taken_at)
    after = board.filter(pl.col("snapshot_id") == diff.b.snapshot_id).select("bot_id")
    gone = before.join(after, on="bot_id", how="anti").sort("rank", "bot_id")
    return [Move(str(r["bot_id"]), r["name"], int(r["rank"]), None) for r in gone.iter_rows(named=True)]


def _extras(
    con: StoreReader, snapshot_id: int
) -> tuple[str, dt.datetime | None, list[tuple[str, str | None]]]:
    """Through the open reader ``con``: the snapshot's platform identity, the newest finish time of that
    platform's complete snapshots, and the snapshot's ``/bot/me`` row (bot_id, name) if any."""
    platform = con.execute(
        f"SELECT {_PLATFORM_SQL} FROM snapshots WHERE snapshot_id = ?", [snapshot_id]
    ).fetchall()[0][0]
    last = con.execute(
        f"SELECT max(finished_at) FROM snapshots WHERE {_PLATFORM_SQL} = ?", [platform]
    ).fetchall()[0][0]
    me = con.execute(
        "SELECT bot_id, name FROM bot_me WHERE snapshot_id = ? LIMIT 1", [snapshot_id]
    ).fetchall()
    return str(platform), last, [(str(m[0]), m[1]) for m in me]


@dataclass(frozen=True)
class _Read:
    """What a check reads of the store, in one read-only open (:func:`_read`): every complete snapshot, the
    snapshot's platform, its platform's newest finish time, its ``/bot/me`` row, the pair to compare (or
    ``None`` for the platform's first snapshot) and the pair's rows (:func:`read_pair`; the snapshot with
    itself when first and a ``/bot/me`` row exists, else ``{}``)."""

    every: pl.DataFrame
    platform: str
    last: dt.datetime | None
    me: list[tuple[str, str | None]]
    pair: tuple[PlatformSelection, SnapshotRef, SnapshotRef] | None
    rows: dict[str, pl.DataFrame]


def _read(path: Path, snapshot_id: int, *, lock_timeout_s: float) -> _Read:
    """Everything :func:`snapshot_facts` reads of the store, through one read-only connection (each open
    checks the whole file and its views); raises as :func:`snapshot_facts` does."""
    with read_only(path, lock_timeout_s) as con:
        every = read_snapshots(path, con=con)
        if snapshot_id not in set(every["snapshot_id"].to_list()):
            raise SnapshotSelectionError(f"no complete snapshot {snapshot_id} in {path}")
        platform, last, me = _extras(con, snapshot_id)
        try:
            pair: tuple[PlatformSelection, SnapshotRef, SnapshotRef] | None = choose_pair(
                every, None, snapshot_id
            )
        except SnapshotSelectionError:  # the platform's first snapshot: nothing to compare with
            pair = None
        rows: dict[str, pl.DataFrame] = {}
        if pair is not None:
            rows = read_pair(path, pair[1].snapshot_id, pair[2].snapshot_id, con=con)
        elif me:  # a level rule (my-bot rank) holds or not from the first snapshot on
            rows = read_pair(path, snapshot_id, snapshot_id, con=con)
    return _Read(every, platform, last, me, pair, rows)


def last_complete_at(
    db_path: str | os.PathLike[str], platform: str, *, lock_timeout_s: float = 60.0
) -> dt.datetime | None:
    """When the newest complete snapshot of ``platform`` finished (UTC; wall clock, whatever ``taken_at``
    says), or ``None``."""
    with open_readonly(db_path, lock_timeout_s=lock_timeout_s) as con:
        row = con.execute(
            f"SELECT max(finished_at) FROM snapshots WHERE {_PLATFORM_SQL} = ?", [platform]
        ).fetchall()
    return row[0][0] if row and row[0][0] is not None else None


def snapshot_facts(
    db_path: str | os.PathLike[str],
    snapshot_id: int,
    rules: tuple[Rule, ...] | list[Rule],
    *,
    now: dt.datetime | None = None,
    lock_timeout_s: float = 60.0,
) -> SnapshotFacts:
    """The facts of the complete snapshot ``snapshot_id`` for ``rules``, and its diff (see the module
    docstring). Raises the store's errors (:class:`solvelens.store.StoreError`) and
    :class:`~solvelens.analysis.pick.SnapshotSelectionError` for an unknown snapshot id."""
    now = now or dt.datetime.now(dt.UTC)
    read = _read(Path(db_path), snapshot_id, lock_timeout_s=lock_timeout_s)
    platform, last, me, rows = read.platform, read.last, read.me, read.rows
    if read.pair is None:
        my_bot = None
        if me:
            taken_at = read.every.filter(pl.col("snapshot_id") == snapshot_id)["taken_at"][0]
            my_bot = _my_bot(me, snapshot_id, taken_at, rows["leaderboard"])
        facts = Facts(platform, now, snapshot_id, None, my_bot=my_bot, last_complete_at=last)
        return SnapshotFacts(facts, None)
    chosen, ref_a, ref_b = read.pair
    refs = (ref_a, ref_b)
    base = compute_diff(rows, refs, chosen, top_n=10, min_move=3)
    k = min((r.k for r in rules if r.kind == "rank-drop" and r.k is not None), default=3)
    board = rows["leaderboard"]
    per_n = {n: rank_changes(board, refs, top_n=n, min_move=k) for n in _tops(rules) | {10}}
    facts = Facts(
        platform=platform,
        now=now,
        snapshot_id=ref_b.snapshot_id,
        previous_id=ref_a.snapshot_id,
        entered={n: _moves(d["top_entered"]) for n, d in per_n.items()},
        left={n: _moves(d["top_left"]) for n, d in per_n.items()},
        moves=_moves(per_n[10]["rank_moves"]),
        status_changes=[
            ProblemChange(str(r["problem_id"]), r["title"], r["before"], r["after"])
            for r in base.status_changes.iter_rows(named=True)
        ],
        dropped_off=_dropped_off(board, base),
        my_bot=_my_bot(me, base.b.snapshot_id, base.b.taken_at, board),
        last_complete_at=last,
    )
    return SnapshotFacts(facts, base)


def platform_of_base_url(
    db_path: str | os.PathLike[str], base_url: str, *, lock_timeout_s: float = 60.0
) -> str:
    """The platform identity of the newest complete snapshot of ``base_url`` (its declared id, else the base
    URL); ``base_url`` itself when the store has none (or does not exist yet)."""
    if not Path(db_path).exists():
        return base_url
    with open_readonly(db_path, lock_timeout_s=lock_timeout_s) as con:
        row = con.execute(
            f"SELECT {_PLATFORM_SQL} FROM snapshots WHERE base_url = ? "
            "ORDER BY taken_at DESC, snapshot_id DESC LIMIT 1",
            [base_url],
        ).fetchall()
    return str(row[0][0]) if row else base_url


def stale_facts(
    db_path: str | os.PathLike[str],
    base_url: str,
    *,
    watching_since: dt.datetime,
    now: dt.datetime | None = None,
    lock_timeout_s: float = 60.0,
) -> Facts:
    """The facts of a staleness check (no new snapshot) of the platform at ``base_url``:
    ``last_complete_at`` of its newest complete snapshot, ``watching_since`` (when the check started; the
    clock for a store without snapshots) and ``now`` (UTC)."""
    now = now or dt.datetime.now(dt.UTC)
    platform = platform_of_base_url(db_path, base_url, lock_timeout_s=lock_timeout_s)
    last = (
        last_complete_at(db_path, platform, lock_timeout_s=lock_timeout_s) if Path(db_path).exists() else None
    )
    return Facts(platform, now, last_complete_at=last, watching_since=watching_since)
