"""The report's "What changed" section: the newest snapshot against the previous one and against the movers'
baseline (the snapshot 7 days earlier, or the first one when the history is shorter), each a
:class:`solvelens.analysis.SnapshotDiff` -- the very result ``solvelens diff`` prints, so the section, the
command and the movers chart agree on the same pair."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from solvelens import analysis as an
from solvelens.report.slots import fmt_int, fmt_time

#: Rows each table of the section shows (the rest: ``solvelens diff``).
MAX_ROWS = 10


@dataclass(frozen=True)
class ChangeTable:
    """One small table: a heading, column headings, rows of text and how many rows were left out."""

    heading: str
    columns: list[str]
    rows: list[list[str]]
    more: int = 0


@dataclass(frozen=True)
class ChangeBlock:
    """The changes against one baseline: ``key`` (``prev``, ``7d`` or ``first``), a heading naming both
    snapshots, a one-sentence summary, the tables (only those with rows), the ``solvelens diff`` command that
    prints all of it, and a note instead when the baseline does not exist."""

    key: str
    heading: str
    summary: str = ""
    tables: list[ChangeTable] = field(default_factory=list)
    command: str = ""
    note: str = ""


def _signed(value: Any) -> str:
    if value is None:
        return "–"
    return f"{value:+,.0f}" if float(value).is_integer() else f"{value:+,.3f}"


def _rank(value: Any) -> str:
    return "unranked" if value is None else f"#{value}"


def _number(value: Any) -> str:
    if value is None:
        return "–"
    return fmt_int(value) if float(value).is_integer() else f"{value:,.3f}"


#: Per frame: the table's columns and how one row becomes text.
_TABLES: dict[str, tuple[list[str], Callable[[dict[str, Any]], list[str]]]] = {
    "top_entered": (
        ["Bot", "Rank before", "Rank now"],
        lambda r: [r["name"], _rank(r["rank_before"]), _rank(r["rank_after"])],
    ),
    "top_left": (
        ["Bot", "Rank before", "Rank now"],
        lambda r: [r["name"], _rank(r["rank_before"]), _rank(r["rank_after"])],
    ),
    "rank_moves": (
        ["Bot", "Rank before", "Rank now", "Move"],
        lambda r: [
            r["name"],
            _rank(r["rank_before"]),
            _rank(r["rank_after"]),
            ("▲" if r["move"] > 0 else "▼") + f"{abs(r['move'])}",
        ],
    ),
    "renamed_bots": (
        ["Bot (name now)", "Name before"],
        lambda r: [r["name_after"] or "–", r["name_before"] or "–"],
    ),
    "new_bots": (
        ["Bot", "Status", "Rank now", "Points"],
        lambda r: [r["name"], r["status"] or "–", _rank(r["rank_after"]), fmt_int(r["points_after"])],
    ),
    "status_changes": (
        ["Problem", "Before", "Now"],
        lambda r: [r["title"] or r["problem_id"], r["before"] or "–", r["after"] or "–"],
    ),
    "problems_removed": (
        ["Problem", "Last status"],
        lambda r: [r["title"] or r["problem_id"], r["status"] or "–"],
    ),
    "top_solution_changes": (
        ["Problem", "Top before", "Top now"],
        lambda r: [r["title"] or r["problem_id"], r["before_bot"] or "–", r["after_bot"] or "–"],
    ),
    "points": (
        ["Bot", "Points before", "Points now", "Gained"],
        lambda r: [r["name"], fmt_int(r["points_before"]), fmt_int(r["points_after"]), _signed(r["gained"])],
    ),
    "stats_deltas": (
        ["Figure", "Before", "Now", "Change"],
        lambda r: [r["metric"], _number(r["before"]), _number(r["after"]), _signed(r["delta"])],
    ),
}


def _heading(name: str, d: an.SnapshotDiff) -> str:
    heading = an.DIFF_FRAMES[name]
    if name in ("top_entered", "top_left"):
        return heading.replace("top N", f"top {d.top_n}")
    if name == "rank_moves":
        return f"Rank moves of {d.min_move} places or more"
    if name == "problems_removed":
        return "Problems no longer listed (the platform does not list rejected problems)"
    return heading


def largest_moves(moves: pl.DataFrame, limit: int) -> pl.DataFrame:
    """The ``limit`` largest rank moves (by places, a gain before an equal drop, then by name), shown as top
    gainers then top losers, each largest first: a table cut to ``limit`` rows keeps the largest moves in
    both directions. ``moves``: the diff's ``rank_moves`` (``move`` Int64, up = positive; ``name``)."""
    size = pl.col("move").abs()
    kept = moves.sort([size, pl.col("move"), pl.col("name")], descending=[True, True, False]).head(limit)
    return kept.sort([pl.col("move") < 0, size, pl.col("name")], descending=[False, True, False])


def change_tables(d: an.SnapshotDiff) -> list[ChangeTable]:
    """The section's tables of one diff, in :data:`_TABLES` order, only those with rows; each shows at
    most :data:`MAX_ROWS` rows (rank moves: the largest, :func:`largest_moves`)."""
    tables = []
    for name, (columns, row) in _TABLES.items():
        frame: pl.DataFrame = getattr(d, name)
        if frame.height:
            shown = largest_moves(frame, MAX_ROWS) if name == "rank_moves" else frame.head(MAX_ROWS)
            rows = [row(r) for r in shown.iter_rows(named=True)]
            tables.append(ChangeTable(_heading(name, d), columns, rows, frame.height - len(rows)))
    return tables


def change_summary(d: an.SnapshotDiff) -> str:
    """One sentence counting what changed (``"Nothing changed."`` for an empty diff)."""
    if d.is_empty():
        return "Nothing changed."
    added = int(d.solutions_added["added"].sum()) if d.solutions_added.height else 0
    parts = [
        (d.problems_added.height, "new problem(s)"),
        (d.status_changes.height, "status change(s)"),
        (d.problems_removed.height, "problem(s) no longer listed"),
        (added, "new solution(s)"),
        (d.top_solution_changes.height, "problem(s) whose top solution changed hands"),
        (d.new_bots.height, "new bot(s)"),
        (d.renamed_bots.height, "bot(s) renamed"),
        (d.top_entered.height, f"bot(s) entered the top {d.top_n}"),
        (d.top_left.height, f"bot(s) left the top {d.top_n}"),
        (d.rank_moves.height, f"rank move(s) of {d.min_move}+ places"),
    ]
    text = ", ".join(f"{fmt_int(n)} {what}" for n, what in parts if n)
    return (text[0].upper() + text[1:] + ".") if text else "Only points or platform figures changed."


#: The heading of each baseline.
_SINCE = {
    "prev": "Since the previous snapshot",
    "7d": "Since 7 days earlier",
    "first": "Since the first snapshot",
}


def change_block(key: str, d: an.SnapshotDiff | None, note: str) -> ChangeBlock:
    """The :class:`ChangeBlock` of one baseline ``key`` (``d`` None: ``note`` says why there is none)."""
    if d is None:
        return ChangeBlock(key, _SINCE[key], note=note)
    heading = (
        f"{_SINCE[key]}: #{d.a.snapshot_id} ({fmt_time(d.a.taken_at)}) → #{d.b.snapshot_id} "
        f"({fmt_time(d.b.taken_at)})"
    )
    command = f"solvelens diff {d.a.snapshot_id} {d.b.snapshot_id} --top {d.top_n} --min-move {d.min_move}"
    return ChangeBlock(key, heading, change_summary(d), change_tables(d), command)


def moves_frame(d: an.SnapshotDiff) -> pl.DataFrame:
    """The diff's rank moves in the shape of :func:`solvelens.analysis.top_movers` (bot_id, name,
    rank_start, rank_end, rank_change, points_gain, direction), for :func:`solvelens.charts.movers_chart`:
    risers first."""
    gained = d.points.select("bot_id", points_gain="gained")
    return (
        d.rank_moves.join(gained, on="bot_id", how="left")
        .select(
            "bot_id",
            "name",
            rank_start="rank_before",
            rank_end="rank_after",
            rank_change="move",
            points_gain=pl.col("points_gain").fill_null(0),
            direction=pl.when(pl.col("move") > 0).then(pl.lit("up")).otherwise(pl.lit("down")),
        )
        .sort(["rank_change", "name"], descending=[True, False])
    )


def change_blocks(changes: dict[str, an.SnapshotDiff | None], window_label: str) -> list[ChangeBlock]:
    """The section's blocks: since the previous snapshot, then since the movers' baseline (``7d``, or
    ``first`` when the history spans less than ``window_label``); a baseline that is the previous snapshot
    too gets a note instead of the same tables twice."""
    blocks = []
    seen: set[int] = set()
    for key, d in changes.items():
        if d is not None and d.a.snapshot_id in seen:
            blocks.append(
                ChangeBlock(key, _SINCE[key], note="The same snapshot as the previous one: see above.")
            )
            continue
        note = (
            "Needs at least two snapshots."
            if key == "prev"
            else f"The history spans less than {window_label}."
        )
        blocks.append(change_block(key, d, note))
        if d is not None:
            seen.add(d.a.snapshot_id)
    return blocks
