"""What changed between two snapshots of one platform: :func:`diff` -> :class:`SnapshotDiff`.

``solvelens diff``, the report's "What changed" section and the alert rules all read this one result. The
pair is ``a`` (before) and ``b`` (after); by default the platform's two newest complete snapshots. Both are of
ONE platform (:mod:`solvelens.analysis.platforms`): naming snapshots of two platforms is an error.

Definitions (every frame is empty when nothing of its kind changed, so a snapshot diffed with itself is
empty):

- problems added / removed: problem ids listed at ``b`` and not at ``a`` / at ``a`` and not at ``b``. The
  platform does not list rejected problems, so a problem rejected between the two leaves the listing: it
  shows as removed with its last listed status (usually ``pending``), never as a guessed ``rejected``.
- status changes: problems listed at both whose status differs (``pending -> active -> mature``).
- solutions added: per problem, the growth of its solutions listed (stored rows, not the announced
  ``solutionCount``, which can disagree with them; new problems count from zero).
- top solution changes hands: the bots holding the problem's best score (ties share the top) at ``b`` are
  all different from those at ``a``; a tie forming or breaking among the holders is no change. Problems
  without a solution at either snapshot are left out (their first solution is in solutions added).
- ranks are the leaderboard's competition ranks (:func:`solvelens.analysis.leaderboard_history`: equal
  points share a rank), the same the report's movers and table use; a move is ``rank_before - rank_after``
  (positive = up). Top N entered / left: rank <= N at one snapshot and not at the other (unranked counts as
  outside). Rank moves: bots ranked at both that moved at least ``min_move`` places.
- points: leaderboard points of bots ranked at both, where they changed.
- new bots: bots seen (leaderboard or bot profiles) at ``b`` and not at ``a``.
- renamed bots: bots seen at both whose name differs (the profile's name, else the leaderboard's).
- stats deltas: ``/stats`` figures whose value differs (or exists at one snapshot only).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from solvelens.analysis.frames import EmptyStoreError, Frames
from solvelens.analysis.leaderboard import leaderboard_history
from solvelens.analysis.load import StoreReader, read_only, read_snapshots
from solvelens.analysis.pick import SnapshotRef, SnapshotSelectionError, is_id, ref_of, resolve
from solvelens.analysis.platforms import PlatformSelection, select_platform, with_platform_key

__all__ = ["FRAMES", "SnapshotDiff", "SnapshotRef", "SnapshotSelectionError", "diff"]

#: The frames of a :class:`SnapshotDiff`, in the order tables show them, with their headings.
FRAMES: dict[str, str] = {
    "problems_added": "Problems added",
    "problems_removed": "Problems no longer listed",
    "status_changes": "Problem status changes",
    "solutions_added": "Solutions added",
    "top_solution_changes": "Top solution changed hands",
    "top_entered": "Entered the top N",
    "top_left": "Left the top N",
    "rank_moves": "Rank moves",
    "points": "Points gained",
    "new_bots": "New bots",
    "renamed_bots": "Bots renamed",
    "stats_deltas": "Platform statistics",
}


@dataclass(frozen=True)
class SnapshotDiff:
    """What changed from snapshot ``a`` to snapshot ``b`` of one platform (see the module docstring).

    Frames (polars, eager; empty with these columns when nothing changed):

    - ``problems_added``: problem_id, title, status, category, solution_count Int64
    - ``problems_removed``: problem_id, title, status (the last listed one), category
    - ``status_changes``: problem_id, title, before, after
    - ``solutions_added``: problem_id, title, before Int64, after Int64, added Int64
    - ``top_solution_changes``: problem_id, title, before_bot, after_bot (names; tied holders joined by
      " and "), before_solution_id, after_solution_id (comma-joined), before_score, after_score Float64
    - ``top_entered``, ``top_left``: bot_id, name, rank_before Int32, rank_after Int32 (null = unranked)
    - ``rank_moves``: bot_id, name, rank_before Int32, rank_after Int32, move Int32 (positive = up)
    - ``points``: bot_id, name, points_before Int64, points_after Int64, gained Int64
    - ``new_bots``: bot_id, name, status, rank_after Int32, points_after Int64
    - ``renamed_bots``: bot_id, name_before, name_after
    - ``stats_deltas``: metric, before Float64, after Float64, delta Float64

    ``a``/``b``: :class:`~solvelens.analysis.pick.SnapshotRef` (snapshot_id, taken_at UTC); ``platform``
    (identity) and ``platform_label``; ``top_n`` and ``min_move`` as computed; ``clock_note``: snapshots
    of this platform left out for being on another clock (:func:`~solvelens.analysis.select_platform`), or
    ``""``.
    """

    a: SnapshotRef
    b: SnapshotRef
    platform: str
    platform_label: str
    top_n: int
    min_move: int
    problems_added: pl.DataFrame
    problems_removed: pl.DataFrame
    status_changes: pl.DataFrame
    solutions_added: pl.DataFrame
    top_solution_changes: pl.DataFrame
    top_entered: pl.DataFrame
    top_left: pl.DataFrame
    rank_moves: pl.DataFrame
    points: pl.DataFrame
    new_bots: pl.DataFrame
    renamed_bots: pl.DataFrame
    stats_deltas: pl.DataFrame
    clock_note: str = ""

    def frames(self) -> dict[str, pl.DataFrame]:
        """Every change frame by name, in :data:`FRAMES` order."""
        return {name: getattr(self, name) for name in FRAMES}

    def counts(self) -> dict[str, int]:
        """How many of each kind changed, by frame name: the frame's rows (problems, bots, figures), except
        ``solutions_added``: the solutions added (the sum of its ``added`` column; its rows are the problems
        that gained them, :meth:`rows`)."""
        counts = self.rows()
        counts["solutions_added"] = int(self.solutions_added["added"].sum() or 0)
        return counts

    def rows(self) -> dict[str, int]:
        """Rows per change frame (what ``--csv`` writes per kind)."""
        return {name: frame.height for name, frame in self.frames().items()}

    def is_empty(self) -> bool:
        """Whether nothing changed (every frame empty)."""
        return not any(self.rows().values())

    def as_json(self) -> dict[str, Any]:
        """A JSON-ready dict: ``a``/``b`` ({snapshot_id, taken_at ISO-8601 UTC}), ``platform``,
        ``platform_label``, ``top_n``, ``min_move``, ``counts`` (:meth:`counts`: solutions, not problems,
        for ``solutions_added``) and each frame as a list of records."""
        return {
            "a": {"snapshot_id": self.a.snapshot_id, "taken_at": _iso(self.a.taken_at)},
            "b": {"snapshot_id": self.b.snapshot_id, "taken_at": _iso(self.b.taken_at)},
            "platform": self.platform,
            "platform_label": self.platform_label,
            "top_n": self.top_n,
            "min_move": self.min_move,
            "clock_note": self.clock_note,
            "counts": self.counts(),
            **{name: _records(frame) for name, frame in self.frames().items()},
        }

    def changes(self) -> pl.DataFrame:
        """Every change as one long frame (what ``--csv`` writes): kind (a :data:`FRAMES` name), id
        (problem, bot or metric), name (title, bot name or metric), before, after, change (all String:
        statuses, ranks, counts or values as text; empty where not applicable); in :data:`FRAMES` order."""
        parts = [_long(name, frame) for name, frame in self.frames().items() if frame.height]
        if not parts:
            return pl.DataFrame(schema=dict.fromkeys(_LONG_COLUMNS, pl.String))
        return pl.concat(parts)


_LONG_COLUMNS = ("kind", "id", "name", "before", "after", "change")
#: Per frame: its id, name, before, after and change columns for :meth:`SnapshotDiff.changes`.
_LONG_MAP: dict[str, tuple[str, str, str | None, str | None, str | None]] = {
    "problems_added": ("problem_id", "title", None, "status", "solution_count"),
    "problems_removed": ("problem_id", "title", "status", None, None),
    "status_changes": ("problem_id", "title", "before", "after", None),
    "solutions_added": ("problem_id", "title", "before", "after", "added"),
    "top_solution_changes": ("problem_id", "title", "before_bot", "after_bot", None),
    "top_entered": ("bot_id", "name", "rank_before", "rank_after", None),
    "top_left": ("bot_id", "name", "rank_before", "rank_after", None),
    "rank_moves": ("bot_id", "name", "rank_before", "rank_after", "move"),
    "points": ("bot_id", "name", "points_before", "points_after", "gained"),
    "new_bots": ("bot_id", "name", None, "rank_after", "points_after"),
    "renamed_bots": ("bot_id", "name_after", "name_before", "name_after", None),
    "stats_deltas": ("metric", "metric", "before", "after", "delta"),
}


def _long(name: str, frame: pl.DataFrame) -> pl.DataFrame:
    def text(column: str | None) -> pl.Expr:
        return pl.lit(None, dtype=pl.String) if column is None else pl.col(column).cast(pl.String)

    ident, label, before, after, change = _LONG_MAP[name]
    return frame.select(
        kind=pl.lit(name),
        id=text(ident),
        name=text(label),
        before=text(before),
        after=text(after),
        change=text(change),
    )


def _iso(value: dt.datetime) -> str:
    return value.astimezone(dt.UTC).isoformat().replace("+00:00", "Z")


def _records(frame: pl.DataFrame) -> list[dict[str, Any]]:
    return [
        {k: _iso(v) if isinstance(v, dt.datetime) else v for k, v in row.items()}
        for row in frame.iter_rows(named=True)
    ]


# -- choosing the pair ----------------------------------------------------------------------------------


def _platform_of_ids(every: pl.DataFrame, specs: list[Any]) -> str | None:
    """The platform of the snapshots named by id among ``specs`` (None when none is an id); raises when
    they are of two platforms or an id is unknown."""
    keyed = with_platform_key(every)
    keys = set()
    for spec in specs:
        if spec is None or not is_id(spec):
            continue
        row = keyed.filter(pl.col("snapshot_id") == int(spec))
        if row.is_empty():
            raise SnapshotSelectionError(
                f"no complete snapshot #{int(spec)} in this store: list them with `solvelens db snapshots`"
            )
        keys.add(str(row["platform_key"][0]))
    if len(keys) > 1:
        raise SnapshotSelectionError(
            "the two snapshots are of different platforms; a diff compares one platform: pick two ids of "
            "one platform (`solvelens db snapshots` lists them)"
        )
    return keys.pop() if keys else None


def choose_pair(
    every: pl.DataFrame, a: Any = None, b: Any = None, *, platform: str | None = None
) -> tuple[PlatformSelection, SnapshotRef, SnapshotRef]:
    """The platform and the pair (``a`` before, ``b`` after) that ``a``/``b`` name among ``every`` (every
    complete snapshot of the store; see :mod:`solvelens.analysis.pick`). Defaults: ``b`` the platform's
    newest snapshot, ``a`` the one before ``b``. Raises :class:`SnapshotSelectionError` /
    :class:`~solvelens.analysis.platforms.PlatformNotFoundError` with the fix."""
    chosen = select_platform(every, platform or _platform_of_ids(every, [a, b]))
    snaps = chosen.snapshots
    if snaps.height == 0:
        raise EmptyStoreError("the store has no complete snapshot: run `solvelens snapshot` first")
    left_out = set(every["snapshot_id"].to_list()) - set(snaps["snapshot_id"].to_list())
    for spec in (a, b):
        if spec is not None and is_id(spec) and int(spec) in left_out and chosen.clock_note:
            raise SnapshotSelectionError(f"snapshot #{int(spec)} is not compared: {chosen.clock_note}")
    newest = ref_of(snaps, int(snaps["snapshot_id"][-1]))
    after = newest if b is None else resolve(b, snaps, other=newest)
    if a is not None:
        return chosen, _in_order(resolve(a, snaps, other=after), after), after
    position = snaps["snapshot_id"].to_list().index(after.snapshot_id)  # sorted by taken_at, snapshot_id
    earlier = snaps.head(position)
    if earlier.is_empty():
        others = "; ".join(
            f"--platform {r['platform']} ({r['snapshots']} snapshot(s))"
            for r in chosen.others.iter_rows(named=True)
        )
        raise SnapshotSelectionError(
            f"nothing to compare {after.describe()} with: the platform {chosen.label} has "
            + (
                "only this one snapshot; take another later with `solvelens snapshot`"
                if snaps.height == 1
                else "no earlier snapshot; name an earlier one as A, or a later one as B"
            )
            + (f", or compare another platform of this store: {others}" if others else "")
        )
    return chosen, ref_of(earlier, int(earlier["snapshot_id"][-1])), after


def _in_order(before: SnapshotRef, after: SnapshotRef) -> SnapshotRef:
    """``before`` when it is not newer than ``after`` (by taken_at, then id: the store's order); raises
    :class:`SnapshotSelectionError` naming the pair in its right order otherwise (a diff read backwards
    would call the added problems "no longer listed")."""
    if (before.taken_at, before.snapshot_id) <= (after.taken_at, after.snapshot_id):
        return before
    raise SnapshotSelectionError(
        f"B {after.describe()} is older than A {before.describe()}: A is the snapshot before, B the one "
        f"after; run `solvelens diff {after.snapshot_id} {before.snapshot_id}`"
    )


# -- reading the pair -----------------------------------------------------------------------------------

#: The pair's rows per frame (``{ids}``: the two snapshot ids); the filter comes first, so a window runs
#: over the two snapshots only.
_PAIR_SQL = {
    "problems": "SELECT p.snapshot_id, p.problem_id, p.title, p.status, p.category, p.solution_count, "
    "coalesce(s.n, 0) AS listed_solutions FROM problems p LEFT JOIN (SELECT snapshot_id, problem_id, "
    "count(*) AS n FROM solutions WHERE snapshot_id IN {ids} GROUP BY ALL) s USING (snapshot_id, problem_id) "
    "WHERE p.snapshot_id IN {ids}",
    "top": "SELECT snapshot_id, problem_id, solution_id, bot_id, bot_name, score, rank FROM solutions "
    "WHERE snapshot_id IN {ids} "
    "QUALIFY score = max(score) OVER (PARTITION BY snapshot_id, problem_id) OR (score IS NULL AND rank = 1)",
    "leaderboard": "SELECT snapshot_id, rank, bot_id, name, points, elo FROM leaderboard "
    "WHERE snapshot_id IN {ids}",
    "bots": "SELECT snapshot_id, bot_id, name, status FROM bots WHERE snapshot_id IN {ids}",
    "stats": "SELECT snapshot_id, metric, value FROM platform_stats WHERE snapshot_id IN {ids}",
}


def read_pair(
    path: Path,
    a: int,
    b: int,
    *,
    lock_timeout_s: float = 60.0,
    held: dict[str, pl.DataFrame] | None = None,
    con: StoreReader | None = None,
) -> dict[str, pl.DataFrame]:
    """The two snapshots' rows the diff needs, read read-only in one connection: ``problems``, ``top``
    (each problem's best-scored solutions; ties all kept), ``leaderboard``, ``bots``, ``stats``.

    ``held``: frames already in memory holding both snapshots' rows with at least the columns of
    :data:`_PAIR_SQL` (e.g. ``leaderboard`` and ``bots`` of :class:`Frames` when both were drawn); those
    frames are taken from it instead of read again. ``con``: a read-only connection to the store the caller
    holds open (:func:`solvelens.analysis.load.read_only`), read through instead of opening the file."""
    held = held or {}
    if con is not None:
        return _pair_rows(con, a, b, held)
    with read_only(path, lock_timeout_s) as opened:
        return _pair_rows(opened, a, b, held)


def _pair_rows(con: StoreReader, a: int, b: int, held: dict[str, pl.DataFrame]) -> dict[str, pl.DataFrame]:
    """:func:`read_pair`'s frames through the open connection ``con``."""
    # One query per snapshot: DuckDB plans ``snapshot_id = x`` from the links' statistics (a few thousand
    # rows, the hash table built on them), but ``IN (a, b)`` as a range holding a fifth of the links, so it
    # built its hash table on every version of the resource instead (seconds on a year of history).
    ids = [f"({int(a)})"] if a == b else [f"({int(a)})", f"({int(b)})"]
    return {
        name: pl.concat([con.sql(sql.format(ids=one)).pl() for one in ids], how="vertical_relaxed")
        for name, sql in _PAIR_SQL.items()
        if name not in held
    } | held


#: The pair's frames a loaded :class:`Frames` already holds at its drawn snapshots, with their columns.
_HELD_COLUMNS = {
    "leaderboard": ("snapshot_id", "rank", "bot_id", "name", "points", "elo"),
    "bots": ("snapshot_id", "bot_id", "name", "status"),
}


def _held_rows(store: Frames, a: int, b: int) -> dict[str, pl.DataFrame]:
    """``leaderboard`` and ``bots`` of snapshots ``a`` and ``b`` from the loaded frames when both snapshots
    are among those it holds (:attr:`Frames.points`), so the diff does not read them from the file again
    (on a year of history the versioned views take a scan of each table per snapshot); else empty."""
    if store.points is None or not {a, b} <= set(store.points.snapshot_ids.to_list()):
        return {}
    pair = pl.col("snapshot_id").is_in([a, b])
    return {
        name: getattr(store, name).filter(pair).select(columns).collect()
        for name, columns in _HELD_COLUMNS.items()
    }


# -- the changes ----------------------------------------------------------------------------------------


def _split(frame: pl.DataFrame, a: int, b: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    return (
        frame.filter(pl.col("snapshot_id") == a).drop("snapshot_id"),
        frame.filter(pl.col("snapshot_id") == b).drop("snapshot_id"),
    )


def problem_changes(problems: pl.DataFrame, a: int, b: int) -> dict[str, pl.DataFrame]:
    """``problems_added``, ``problems_removed``, ``status_changes`` and ``solutions_added`` from the two
    snapshots' problem rows (snapshot_id, problem_id, title, status, category, solution_count: the count the
    platform announced, listed_solutions: the solutions stored for it). Solutions added count the solutions
    listed, never the announced count (a count above its rows would add solutions that do not exist)."""
    problems = problems.with_columns(pl.col("solution_count", "listed_solutions").cast(pl.Int64))
    before, after = _split(problems, a, b)
    added = after.join(before, on="problem_id", how="anti").sort("title", "problem_id")
    removed = before.join(after, on="problem_id", how="anti").sort("title", "problem_id")
    both = after.join(before.with_columns(listed_a=pl.lit(True)), on="problem_id", how="left", suffix="_a")
    status = both.filter(
        pl.col("listed_a").fill_null(False) & pl.col("status").ne_missing(pl.col("status_a"))
    )
    grown = both.with_columns(before=pl.col("listed_solutions_a").fill_null(0)).filter(
        pl.col("listed_solutions") > pl.col("before")
    )
    return {
        "problems_added": added.select("problem_id", "title", "status", "category", "solution_count"),
        "problems_removed": removed.select("problem_id", "title", "status", "category"),
        "status_changes": status.select(
            "problem_id", "title", before=pl.col("status_a"), after=pl.col("status")
        ).sort("after", "title", "problem_id"),
        "solutions_added": grown.select(
            "problem_id",
            "title",
            before=pl.col("before"),
            after=pl.col("listed_solutions"),
            added=pl.col("listed_solutions") - pl.col("before"),
        ).sort(["added", "title", "problem_id"], descending=[True, False, False]),
    }


def _holders(top: pl.DataFrame) -> pl.DataFrame:
    """Per problem: the sorted set of bots holding the top (bot id, or the solution id for a solution
    without a bot), their names, solution ids and the top score."""
    return (
        top.with_columns(holder=pl.coalesce("bot_id", "solution_id"))
        .sort("problem_id", "holder", "solution_id")
        .group_by("problem_id", maintain_order=True)
        .agg(
            holders=pl.col("holder").unique(maintain_order=True),
            bots=pl.col("bot_name").fill_null(pl.col("holder")).unique(maintain_order=True).str.join(" and "),
            solution_ids=pl.col("solution_id").str.join(","),
            score=pl.col("score").max(),
        )
    )


def top_solution_changes(top: pl.DataFrame, problems: pl.DataFrame, a: int, b: int) -> pl.DataFrame:
    """Problems whose top passed to other bots (no holder at ``b`` held it at ``a``); see the module
    docstring. Columns as :class:`SnapshotDiff` documents."""
    before, after = (_holders(part) for part in _split(top, a, b))
    pairs = after.join(before, on="problem_id", how="inner", suffix="_a")
    changed = pairs.filter(pl.col("holders").list.set_intersection(pl.col("holders_a")).list.len() == 0)
    titles = problems.filter(pl.col("snapshot_id") == b).select("problem_id", "title")
    return (
        changed.join(titles, on="problem_id", how="left")
        .select(
            "problem_id",
            "title",
            before_bot=pl.col("bots_a"),
            after_bot=pl.col("bots"),
            before_solution_id=pl.col("solution_ids_a"),
            after_solution_id=pl.col("solution_ids"),
            before_score=pl.col("score_a").cast(pl.Float64),
            after_score=pl.col("score").cast(pl.Float64),
        )
        .sort("title", "problem_id")
    )


def rank_changes(
    leaderboard: pl.DataFrame, refs: tuple[SnapshotRef, SnapshotRef], *, top_n: int, min_move: int
) -> dict[str, pl.DataFrame]:
    """``top_entered``, ``top_left``, ``rank_moves`` and ``points`` from the two snapshots' leaderboard rows
    (competition ranks by :func:`~solvelens.analysis.leaderboard_history`)."""
    a, b = refs
    times = pl.DataFrame(
        {"snapshot_id": [a.snapshot_id, b.snapshot_id], "taken_at": [a.taken_at, b.taken_at]},
        schema={"snapshot_id": pl.Int64, "taken_at": pl.Datetime("us", "UTC")},
    ).unique("snapshot_id")
    history = leaderboard_history(leaderboard, times)
    before, after = _split(
        history.select("snapshot_id", "bot_id", "name", "rank", "points"), *[r.snapshot_id for r in refs]
    )
    both = after.join(before, on="bot_id", how="full", coalesce=True, suffix="_a").select(
        "bot_id",
        name=pl.coalesce("name", "name_a"),
        rank_before=pl.col("rank_a"),
        rank_after=pl.col("rank"),
        points_before=pl.col("points_a"),
        points_after=pl.col("points"),
    )
    inside_a = pl.col("rank_before").is_not_null() & (pl.col("rank_before") <= top_n)
    inside_b = pl.col("rank_after").is_not_null() & (pl.col("rank_after") <= top_n)
    ranked = both.filter(pl.col("rank_before").is_not_null() & pl.col("rank_after").is_not_null())
    moves = ranked.with_columns(move=(pl.col("rank_before") - pl.col("rank_after")).cast(pl.Int32))
    rank_cols = ("bot_id", "name", "rank_before", "rank_after")
    return {
        "top_entered": both.filter(inside_b & ~inside_a).select(rank_cols).sort("rank_after", "name"),
        "top_left": both.filter(inside_a & ~inside_b).select(rank_cols).sort("rank_before", "name"),
        "rank_moves": moves.filter(pl.col("move").abs() >= max(min_move, 1))
        .select(*rank_cols, "move")
        .sort(["move", "rank_after", "name"], descending=[True, False, False]),
        "points": ranked.with_columns(gained=pl.col("points_after") - pl.col("points_before"))
        .filter(pl.col("gained") != 0)
        .select("bot_id", "name", "points_before", "points_after", "gained")
        .sort(["gained", "name"], descending=[True, False]),
    }


def new_bots(bots: pl.DataFrame, leaderboard: pl.DataFrame, history_b: pl.DataFrame, a: int) -> pl.DataFrame:
    """Bots seen at ``b`` (``bots`` rows of b, plus ``history_b``: its leaderboard with competition ranks)
    and nowhere at ``a``."""
    seen_a = pl.concat(
        [
            bots.filter(pl.col("snapshot_id") == a).select("bot_id"),
            leaderboard.filter(pl.col("snapshot_id") == a).select("bot_id"),
        ]
    )
    profiles = bots.select("bot_id", "name", "status").unique("bot_id", keep="last")
    ranked = history_b.select("bot_id", name_lb="name", rank_after="rank", points_after="points")
    candidates = profiles.join(ranked, on="bot_id", how="full", coalesce=True)
    return (
        candidates.join(seen_a, on="bot_id", how="anti")
        .select(
            "bot_id",
            name=pl.coalesce("name", "name_lb"),
            status="status",
            rank_after=pl.col("rank_after").cast(pl.Int32),
            points_after=pl.col("points_after").cast(pl.Int64),
        )
        .sort("rank_after", "name", nulls_last=True)
    )


def renamed_bots(bots: pl.DataFrame, leaderboard: pl.DataFrame, a: int, b: int) -> pl.DataFrame:
    """Bots named at both snapshots under different names (bot_id, name_before, name_after); a bot's name
    at a snapshot is its profile's (``bots``), else its leaderboard entry's."""

    def names(sid: int) -> pl.DataFrame:
        profiles = bots.filter(pl.col("snapshot_id") == sid).select("bot_id", "name")
        board = leaderboard.filter(pl.col("snapshot_id") == sid).select("bot_id", "name")
        return (
            pl.concat([profiles, board.join(profiles, on="bot_id", how="anti")])
            .filter(pl.col("bot_id").is_not_null() & pl.col("name").is_not_null())
            .unique("bot_id", keep="first")
        )

    return (
        names(a)
        .join(names(b), on="bot_id", how="inner", suffix="_after")
        .filter(pl.col("name") != pl.col("name_after"))
        .select("bot_id", name_before="name", name_after="name_after")
        .sort("name_after", "bot_id")
    )


def stats_deltas(stats: pl.DataFrame, a: int, b: int) -> pl.DataFrame:
    """``/stats`` figures that differ between ``a`` and ``b`` (metric, before, after, delta)."""
    before, after = _split(stats.with_columns(pl.col("value").cast(pl.Float64)), a, b)
    both = before.join(after, on="metric", how="full", coalesce=True, suffix="_b")
    return (
        both.select("metric", before=pl.col("value"), after=pl.col("value_b"))
        .filter(pl.col("before").ne_missing(pl.col("after")))
        .with_columns(delta=pl.col("after") - pl.col("before"))
        .sort("metric")
    )


def compute_diff(
    rows: dict[str, pl.DataFrame],
    refs: tuple[SnapshotRef, SnapshotRef],
    chosen: PlatformSelection,
    *,
    top_n: int,
    min_move: int,
) -> SnapshotDiff:
    """The :class:`SnapshotDiff` of the pair ``refs`` from its rows (:func:`read_pair`)."""
    a, b = (r.snapshot_id for r in refs)
    if a == b:  # a snapshot with itself: nothing changed, by definition and without reading
        rows = {name: frame.clear() for name, frame in rows.items()}
    ranks = rank_changes(rows["leaderboard"], refs, top_n=top_n, min_move=min_move)
    board_b = leaderboard_history(
        rows["leaderboard"].filter(pl.col("snapshot_id") == b),
        pl.DataFrame({"snapshot_id": [b], "taken_at": [refs[1].taken_at]}),
    )
    return SnapshotDiff(
        a=refs[0],
        b=refs[1],
        platform=chosen.platform or "",
        platform_label=chosen.label,
        top_n=top_n,
        min_move=min_move,
        **problem_changes(rows["problems"], a, b),
        top_solution_changes=top_solution_changes(rows["top"], rows["problems"], a, b),
        **ranks,
        new_bots=new_bots(rows["bots"].filter(pl.col("snapshot_id") == b), rows["leaderboard"], board_b, a),
        renamed_bots=renamed_bots(rows["bots"], rows["leaderboard"], a, b),
        stats_deltas=stats_deltas(rows["stats"], a, b),
        clock_note=chosen.clock_note,
    )


def diff(
    store: Frames | str | Path,
    a: int | str | dt.datetime | None = None,
    b: int | str | dt.datetime | None = None,
    *,
    platform: str | None = None,
    top_n: int = 10,
    min_move: int = 3,
    lock_timeout_s: float = 60.0,
) -> SnapshotDiff:
    """What changed from snapshot ``a`` to snapshot ``b`` of one platform of the store (read read-only).

    ``store``: a store file's path, or a loaded :class:`~solvelens.analysis.frames.Frames` (its file is read
    again for the pair; its platform is the default). ``a``/``b``: a snapshot id, a time (the newest
    snapshot at or before it; a date = the end of that UTC day) or a duration (``"7d"``: the newest snapshot
    at least that long before the other one); defaults: ``b`` the platform's newest complete snapshot,
    ``a`` the one before ``b``. ``platform``: an id, a base URL or a unique id prefix (default: the newest
    snapshot's platform, or the platform of the snapshots named by id). ``top_n``: the N of "entered /
    left the top N"; ``min_move``: the fewest places a rank move must cover.

    Returns a :class:`SnapshotDiff`. Raises :class:`SnapshotSelectionError` (an unknown id, a time before
    the first snapshot, ``b`` older than ``a``, one snapshot only, two platforms),
    ``PlatformNotFoundError`` (``platform`` matches none; lists the store's platforms) -- both bad input,
    exit 2 in the CLI -- ``EmptyStoreError`` (no complete snapshot, exit 1 as for the report) and the
    store's errors of :func:`solvelens.analysis.load`.
    """
    if top_n < 1 or min_move < 1:
        raise SnapshotSelectionError("top_n and min_move must be at least 1 (e.g. --top 10 --min-move 3)")
    path = store.path if isinstance(store, Frames) else Path(store)
    if isinstance(store, Frames) and platform is None and not any(is_id(x) for x in (a, b) if x is not None):
        platform = store.platform
    every = read_snapshots(path, lock_timeout_s=lock_timeout_s)
    chosen, ref_a, ref_b = choose_pair(every, a, b, platform=platform)
    held = _held_rows(store, ref_a.snapshot_id, ref_b.snapshot_id) if isinstance(store, Frames) else None
    rows = read_pair(path, ref_a.snapshot_id, ref_b.snapshot_id, lock_timeout_s=lock_timeout_s, held=held)
    return compute_diff(rows, (ref_a, ref_b), chosen, top_n=top_n, min_move=min_move)
