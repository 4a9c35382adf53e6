"""``solvelens diff [A] [B]``: what changed between two snapshots of one platform
(:func:`solvelens.analysis.diff`), as rich tables on a terminal, JSON or CSV.

polars, DuckDB and rich are imported inside the command so ``solvelens --help`` stays fast.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated, Any

import typer

from solvelens.cli.common import DEFAULT_DB, BadInputError, DbPath, PlatformOption

if TYPE_CHECKING:
    import polars as pl
    from rich.console import Console

    from solvelens.analysis import SnapshotDiff

_SNAPSHOT_HELP = (
    "a snapshot id (12), a time (2026-01-05T06:00Z: the newest snapshot at or before it; a date means the "
    "end of that UTC day) or a duration"
)
SnapshotA = Annotated[
    str | None,
    typer.Argument(
        metavar="A",
        help=f"The snapshot before: {_SNAPSHOT_HELP} before B (7d, 12h). Default: the one before B.",
        show_default=False,
    ),
]
SnapshotB = Annotated[
    str | None,
    typer.Argument(
        metavar="B",
        help=f"The snapshot after: {_SNAPSHOT_HELP} before the newest (1d). Default: the newest.",
        show_default=False,
    ),
]
Top = Annotated[int, typer.Option("--top", min=1, help="N of 'entered / left the top N'.")]
MinMove = Annotated[int, typer.Option("--min-move", min=1, help="Fewest places a listed rank move covers.")]
Limit = Annotated[
    int, typer.Option("--limit", min=0, help="Rows per table on the terminal (0 = all; --json/--csv: all).")
]
AsJson = Annotated[
    bool,
    typer.Option(
        "--json",
        help="Print one JSON object: a, b ({snapshot_id, taken_at}), platform, platform_label, "
        "other_platforms, top_n, min_move, clock_note, counts, and one array per kind of change.",
    ),
]
AsCsv = Annotated[
    bool,
    typer.Option(
        "--csv",
        help="Print every change as CSV rows: kind, id, name, before, after, change (one row per problem, "
        "bot or figure that changed).",
    ),
]


def diff(
    a: SnapshotA = None,
    b: SnapshotB = None,
    db: DbPath = DEFAULT_DB,
    platform: PlatformOption = None,
    top: Top = 10,
    min_move: MinMove = 3,
    limit: Limit = 20,
    as_json: AsJson = False,
    as_csv: AsCsv = False,
) -> None:
    """What changed between two snapshots of one platform: problems added and no longer listed, status
    changes (pending -> active -> mature), solutions added, top solutions changing hands, bots entering and
    leaving the top N, rank moves of at least --min-move places, points gained, new bots, bots renamed
    ("renamed: A -> B"), /stats deltas.

    Default: the two newest complete snapshots of the newest snapshot's platform (--platform for another).
    The store is opened read-only. Exit codes: 0 printed (also when nothing changed); 1 the store is
    missing, busy or has no complete snapshot; 2 bad input (an unknown snapshot id or platform, a time
    before the first snapshot, B older than A, a platform with one snapshot only)."""
    import polars as pl

    from solvelens import analysis as an

    if as_json and as_csv:
        raise BadInputError("give --json or --csv, not both")
    result = an.diff(db, a, b, platform=platform, top_n=top, min_move=min_move)
    others = an.platforms(an.read_snapshots(db)).filter(pl.col("platform") != result.platform)
    if as_json:
        data = result.as_json()
        data["other_platforms"] = [
            {"platform": r["platform"], "label": r["label"], "snapshots": r["snapshots"]}
            for r in others.iter_rows(named=True)
        ]
        typer.echo(json.dumps(data, indent=2))
        return
    if as_csv:
        typer.echo(result.changes().write_csv(), nl=False)
        return
    _print(result, others, limit)


#: Per change frame: (column, heading) pairs its terminal table shows.
_COLUMNS: dict[str, list[tuple[str, str]]] = {
    "problems_added": [("title", "problem"), ("status", "status"), ("category", "category")],
    "problems_removed": [("title", "problem"), ("status", "last status")],
    "status_changes": [("title", "problem"), ("before", "before"), ("after", "now")],
    "solutions_added": [("title", "problem"), ("before", "before"), ("after", "now"), ("added", "added")],
    "top_solution_changes": [("title", "problem"), ("before_bot", "top before"), ("after_bot", "top now")],
    "top_entered": [("name", "bot"), ("rank_before", "rank before"), ("rank_after", "rank now")],
    "top_left": [("name", "bot"), ("rank_before", "rank before"), ("rank_after", "rank now")],
    "rank_moves": [
        ("name", "bot"),
        ("rank_before", "rank before"),
        ("rank_after", "rank now"),
        ("move", "move"),
    ],
    "points": [("name", "bot"), ("points_before", "before"), ("points_after", "now"), ("gained", "gained")],
    "new_bots": [("name", "bot"), ("status", "status"), ("rank_after", "rank"), ("points_after", "points")],
    "renamed_bots": [("renamed", "renamed")],
    "stats_deltas": [("metric", "figure"), ("before", "before"), ("after", "now"), ("delta", "change")],
}


def _cell(column: str, value: Any) -> str:
    if value is None:
        return "unranked" if column.startswith("rank_") else "–"
    if column == "move":
        return f"[green]▲{value}[/]" if value > 0 else f"[red]▼{-value}[/]"
    if column in ("gained", "delta", "added"):
        return f"{value:+,.0f}" if float(value).is_integer() else f"{value:+,.3f}"
    if isinstance(value, float):
        return f"{value:,.0f}" if value.is_integer() else f"{value:,.3f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def _table(name: str, frame: pl.DataFrame, result: SnapshotDiff, limit: int) -> Any:
    import polars as pl
    from rich import box
    from rich.table import Table

    from solvelens.analysis import DIFF_FRAMES

    heading = DIFF_FRAMES[name].replace("top N", f"top {result.top_n}")
    if name == "rank_moves":
        heading = f"Rank moves of {result.min_move}+ places"
    count = result.counts()[name]  # solutions added: solutions, on frame.height problems
    table = Table(title=f"{heading} ({count:,})", title_justify="left", box=box.SIMPLE_HEAD)
    for i, (_, title) in enumerate(_COLUMNS[name]):
        table.add_column(title, justify="left" if i == 0 else "right", overflow="fold")
    shown = frame if limit == 0 else frame.head(limit)
    if name == "renamed_bots":  # one line per bot: "renamed: A -> B"
        shown = shown.select(renamed=pl.format("{} -> {}", "name_before", "name_after"))
    for row in shown.iter_rows(named=True):
        table.add_row(*(_cell(c, row[c]) for c, _ in _COLUMNS[name]))
    if shown.height < frame.height:
        table.add_row(f"[dim]… and {frame.height - shown.height:,} more (--limit 0, --json or --csv)[/]")
    return table


def _print(result: SnapshotDiff, others: pl.DataFrame, limit: int) -> None:
    from rich.console import Console

    from solvelens.analysis import format_duration, format_time

    console: Console = Console()
    a, b = result.a, result.b
    console.print(f"Platform: {result.platform_label}", highlight=False, soft_wrap=True)
    console.print(
        f"#{a.snapshot_id} {format_time(a.taken_at)} -> #{b.snapshot_id} {format_time(b.taken_at)} "
        f"({format_duration(b.taken_at - a.taken_at)} apart)",
        highlight=False,
    )
    for row in others.iter_rows(named=True):
        console.print(
            f"Also in this store: {row['label']} ({row['snapshots']} snapshot(s)): "
            f"--platform {row['platform']}",
            highlight=False,
            soft_wrap=True,
            style="dim",
        )
    if result.clock_note:
        console.print(result.clock_note, style="dim", highlight=False, soft_wrap=True)
    if result.is_empty():
        console.print("Nothing changed.")
        return
    for name, frame in result.frames().items():
        if frame.height:
            console.print(_table(name, frame, result, limit))
    if result.problems_removed.height:
        console.print(
            "Problems no longer listed: the platform does not list rejected problems, so a pending problem "
            "that disappears was most likely rejected.",
            style="dim",
            soft_wrap=True,
        )


def register(app: typer.Typer) -> None:
    """Add ``solvelens diff`` to the root app."""
    app.command("diff")(diff)
