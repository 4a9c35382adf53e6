"""``solvelens db ...``: look into the snapshot store, export it to Parquet, prune or delete snapshots,
compact the file.

DuckDB and polars are imported inside the commands so ``solvelens --help`` stays fast.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from solvelens.cli.common import BadInputError, db_option, fail

if TYPE_CHECKING:
    from solvelens.flows.summary import SnapshotLogEntry

app = typer.Typer(
    rich_markup_mode=None,
    help="The DuckDB snapshot store: info, snapshots, check, export, prune, delete, compact.",
    no_args_is_help=True,
)


@contextmanager
def _store_failures() -> Iterator[None]:
    """A store that cannot be read or written (missing, busy) ends the command in one line with exit 1; bad
    input (a file that is not a store, :class:`solvelens.store.StoreInputError`, :class:`BadInputError`)
    goes on to the root app's exit-code table (:data:`solvelens.cli.common.EXIT_RULES`: one line, exit 2),
    as for every other command given such a ``--db``."""
    from solvelens.store import NotAStoreError, StoreError, StoreInputError

    try:
        yield
    except (StoreInputError, NotAStoreError):
        raise
    except StoreError as exc:
        fail(str(exc))


@app.command()
def info(db: Path = db_option()) -> None:
    """File size, snapshot count and time span, rows per view and stored record versions. Every block in use
    is read first (as ``db check``), so a damaged store is one line and exit 1 whichever block is damaged."""
    from rich.console import Console
    from rich.table import Table

    from solvelens.store import store_info
    from solvelens.store.readers import verify_blocks
    from solvelens.store.units import mib

    with _store_failures():
        verify_blocks(db)
        data = store_info(db)
    console = Console()
    console.print(
        f"{data['path']}: {mib(data['file_bytes'], 2)}, {data['snapshots']} complete snapshots "
        f"({data['first_taken_at']} .. {data['last_taken_at']})"
    )
    table = Table()
    table.add_column("view")
    table.add_column("rows (all snapshots)", justify="right")
    table.add_column("distinct versions stored", justify="right")
    for view, n in data["rows"].items():
        table.add_row(view, f"{n:,}", f"{data['versions'][view]:,}" if view in data["versions"] else "")
    console.print(table)
    free = data["free_bytes"]
    if free:
        console.print(
            f"{mib(free)} of the file are free blocks (reused by later snapshots); "
            f"`solvelens db compact --db {db}` gives them back to the disk",
            highlight=False,
        )


def _snapshot_summaries(frame: Any) -> list[SnapshotLogEntry]:
    """One :class:`~solvelens.flows.summary.SnapshotLogEntry` per row of the snapshot log."""
    from solvelens.flows.summary import SnapshotLogEntry

    return [SnapshotLogEntry.from_log_row(row) for row in frame.iter_rows(named=True)]


#: Console width from which ``db snapshots`` adds the leaderboard and category counts.
WIDE_COLUMNS = 120


def _count_cell(counts: dict[str, Any], key: str) -> str:
    value = counts.get(key)
    return f"{value:,}" if isinstance(value, int) else ""


def _took(seconds: float | None) -> str:
    """A run's duration in at most 5 characters: ``12.3`` (seconds), ``2.5h``, ``3d``."""
    if seconds is None:
        return ""
    if seconds < 1000:
        return f"{seconds:.1f}"
    return f"{seconds / 3600:.1f}h" if seconds < 86400 else f"{seconds / 86400:.0f}d"


#: How an activity gap's note begins (:func:`solvelens.flows.activity_gap.gap_sentence`): an expected
#: consequence of the snapshot cadence, recorded in ``activity_gaps``, not a warning in the ``warn`` column.
_GAP_NOTE = "activity: events missed "


def _warning_count(warnings: list[str]) -> int:
    """The snapshot's warnings less its activity-gap notes."""
    return sum(1 for w in warnings if not str(w).startswith(_GAP_NOTE))


def _snapshots_table(summaries: list[SnapshotLogEntry], width: int, platforms: list[str]) -> Any:
    """The snapshot log as a rich table that fits 80 columns: id, time to the second, problems, solutions,
    bots, how long it took, warnings, drift; ``plat`` (the number of the base URL in ``platforms``) when
    there are several, ``status`` when a row is not complete; from :data:`WIDE_COLUMNS` also the
    leaderboard and category counts. Nothing is cut: --json / --csv give every field."""
    from rich import box
    from rich.table import Table

    wide = width >= WIDE_COLUMNS
    several = len(platforms) > 1
    incomplete = any(s.status != "complete" for s in summaries)
    columns = ["id", "taken at (UTC)", *(["plat"] if several else []), "problems", "solutions", "bots"]
    columns += [*(["leaderboard", "categories"] if wide else []), *(["status"] if incomplete else [])]
    columns += ["took", "warn", "drift"]
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False)
    for col in columns:
        text = col in ("taken at (UTC)", "status")
        least = 19 if col == "taken at (UTC)" else None  # a date is never cut
        table.add_column(col, justify="left" if text else "right", no_wrap=True, min_width=least)
    for s in summaries:
        cells = [str(s.snapshot_id), s.taken_at[:19].replace("T", " ")]
        cells += [str(platforms.index(s.base_url) + 1)] if several else []
        cells += [_count_cell(s.counts, k) for k in ("problems", "solutions", "bots")]
        cells += [_count_cell(s.counts, k) for k in ("leaderboard", "categories")] if wide else []
        cells += [s.status] if incomplete else []
        cells += [_took(s.duration_s), str(_warning_count(s.warnings)), str(len(s.drift))]
        table.add_row(*cells)
    return table


@app.command()
def snapshots(
    db: Path = db_option(),
    all_runs: bool = typer.Option(
        False, "--all", envvar="SOLVELENS_DB_ALL", help="Include snapshots that never completed."
    ),
    as_json: bool = typer.Option(
        False,
        "--json",
        help="Print a JSON array instead of a table: one object per snapshot with snapshot_id, taken_at, "
        "base_url, status, started_at, finished_at (ISO-8601 UTC), duration_s, counts, warnings, drift "
        "(what changed between snapshots: `solvelens diff`).",
    ),
    as_csv: bool = typer.Option(
        False,
        "--csv",
        help="Print CSV instead of a table: snapshot_id, taken_at, base_url, status, started_at, "
        "finished_at, duration_s, counts (JSON), warnings and drift (numbers of entries).",
    ),
) -> None:
    """One line per snapshot: id, time, counts, seconds, warnings and drift entries (or --json / --csv).
    An activity gap (the feed turned over between two snapshots: recorded in ``activity_gaps``, shaded in
    the report) is expected at a slow cadence and not counted in the table's ``warn`` column.

    The table fits 80 columns: the base URL is printed above it (several platforms: numbered, and the
    ``plat`` column names each row's); from 120 columns it adds the leaderboard and category counts.
    """
    from solvelens.store import list_snapshots

    if as_json and as_csv:
        raise BadInputError("give --json or --csv, not both")
    with _store_failures():
        summaries = _snapshot_summaries(list_snapshots(db, include_incomplete=all_runs))
    if as_json:
        typer.echo(json.dumps([s.log_record() for s in summaries], indent=2))
        return
    if as_csv:
        _print_csv(summaries)
        return
    from rich.console import Console

    console = Console()
    platforms = sorted({s.base_url for s in summaries})
    if len(platforms) == 1:
        console.print(f"{len(summaries)} snapshots of {platforms[0]}", highlight=False, soft_wrap=True)
    for i, url in enumerate(platforms if len(platforms) > 1 else [], start=1):
        console.print(f"plat {i}: {url}", highlight=False, soft_wrap=True)
    console.print(_snapshots_table(summaries, console.width, platforms))


def _print_csv(summaries: list[SnapshotLogEntry]) -> None:
    import csv
    import sys

    writer = csv.writer(sys.stdout, lineterminator="\n")
    columns = ["snapshot_id", "taken_at", "base_url", "status", "started_at", "finished_at", "duration_s"]
    writer.writerow([*columns, "counts", "warnings", "drift"])
    for s in summaries:
        r = s.log_record()
        row = ["" if r[c] is None else r[c] for c in columns]
        writer.writerow([*row, json.dumps(s.counts), len(s.warnings), len(s.drift)])


@app.command()
def export(
    parquet: str = typer.Option(
        ...,
        "--parquet",
        envvar="SOLVELENS_EXPORT_DIR",
        help="Output folder or fsspec URL (s3://bucket/prefix with the s3 extra; endpoint and credentials "
        "from fsspec's and the AWS SDK's settings, e.g. FSSPEC_S3_ENDPOINT_URL, AWS_ACCESS_KEY_ID): new, "
        "empty, or holding an earlier export, to which the snapshots it lacks are appended.",
    ),
    db: Path = db_option(),
    since: int | None = typer.Option(
        None, "--since", envvar="SOLVELENS_EXPORT_SINCE", help="Only snapshots with id >= this."
    ),
    keep_removed: bool = typer.Option(
        False,
        "--keep-removed",
        envvar="SOLVELENS_EXPORT_KEEP_REMOVED",
        help="Keep in the export the snapshots the store no longer holds (pruned to stay small, or deleted); "
        "default: the export follows the store.",
    ),
) -> None:
    """Export every public view to Parquet: DIR/<view>/snapshot_id=<n>/*.parquet, and a manifest
    DIR/solvelens-export.json written last, listing the files (read those, not a glob).

        An earlier export in DIR gets only the snapshots it lacks; it is written anew when it is of another
        store or schema version. An interrupted export leaves the previous manifest valid. A folder holding
        anything else, or a file, is refused (exit 2) and left unchanged; a store busy for 60 s or a target
        that cannot be written ends it with exit 1, the earlier export whole.
    """
    from solvelens.cli.common import check_output_dir
    from solvelens.store.export import export_snapshots

    local = Path(parquet)
    if "://" not in parquet and (local.is_dir() or not local.exists()):  # a file: the store's line (exit 2)
        check_output_dir(local, "--parquet")
    with _store_failures():
        result = export_snapshots(db, parquet, min_snapshot_id=since, keep_removed=keep_removed)
    if result.removed:
        shown = ", ".join(map(str, result.removed))
        typer.echo(f"took out {len(result.removed)} snapshots the store no longer holds ({shown})")
    holds = len(result.snapshot_ids)
    if not result.appended:
        what = "nothing new" if not result.removed else "nothing to append"
        typer.echo(f"{what}: the export holds {holds} snapshots ({parquet})")
        return
    for view, n in result.written.items():
        typer.echo(f"{view}: {n:,} rows")
    ids = result.appended
    span = f"snapshot {ids[0]}" if len(ids) == 1 else f"{len(ids)} snapshots ({ids[0]}..{ids[-1]})"
    how = f"wrote the export anew with {span}" if result.rewritten else f"appended {span}"
    typer.echo(f"{how}; it holds {holds} snapshots; manifest written last: {parquet}")
    if result.not_in_store:
        typer.echo(f"kept {len(result.not_in_store)} snapshots the store no longer holds (--keep-removed)")


def _confirm(question: str) -> bool:
    """Ask a yes/no question (default no); no answer (end of input) is a no."""
    try:
        return typer.confirm(question, default=False)
    except typer.Abort:
        typer.echo("")
        return False


def _compact_option() -> Any:
    return typer.Option(
        None,
        "--compact/--no-compact",
        help="Then rewrite the store to give the freed space back to the disk (see `solvelens db compact`). "
        "Default: ask on a terminal (not with --yes), else only say how much could be given back.",
        show_default=False,
    )


def _offer_compact(db: Path, compact_now: bool | None, *, ask: bool = True) -> None:
    """After a prune or delete: compact when asked (``--compact``, or confirmed on a terminal unless
    ``ask`` is off, as with ``--yes``), else print a hint."""
    import sys

    from solvelens.store import store_info
    from solvelens.store.units import mib

    with _store_failures():
        free = store_info(db)["free_bytes"]
    if compact_now is None and ask and sys.stdin.isatty() and free:
        compact_now = _confirm(f"The file holds {mib(free)} of free blocks; compact it now?")
    if compact_now:
        _run_compact(db)
    elif free:
        typer.echo(
            f"{db} keeps its size ({mib(free)} of free blocks are reused by later snapshots); "
            f"`solvelens db compact --db {db}` gives them back to the disk"
        )


def _run_compact(db: Path) -> None:
    from solvelens.store import compact as compact_store
    from solvelens.store.units import mib

    with _store_failures():
        result = compact_store(db)
    typer.echo(
        f"compacted {db}: {mib(result['before_bytes'])} -> {mib(result['after_bytes'])}, "
        f"{mib(result['reclaimed_bytes'])} given back in {result['seconds']:.1f} s"
    )


@app.command()
def compact(db: Path = db_option()) -> None:
    """Rewrite the store into a fresh file and swap it in atomically, giving back the space of deleted and
    pruned snapshots (DuckDB reuses freed blocks but never shrinks its file).

    Holds the store's writer lock meanwhile (snapshots and readers wait); a crash at any point leaves a
    whole store. Prints the space given back. Exit codes: 0 compacted; 1 no store at --db, or the store is
    busy; 2 --db is not a solvelens store (a folder, another kind of file, another application's DuckDB
    file).
    """
    _run_compact(db)


def _prune_plan(db: Path, keep: int) -> tuple[list[int], Any]:
    """(ids kept, frame of the snapshots prune would remove) -- read-only."""
    from solvelens.store import list_snapshots

    frame = list_snapshots(db, include_incomplete=True)
    complete = [r["snapshot_id"] for r in frame.iter_rows(named=True) if r["status"] == "complete"]
    kept = sorted(complete)[-keep:]
    return kept, frame.filter(~frame["snapshot_id"].is_in(kept))


@app.command()
def prune(
    keep: int = typer.Option(
        ..., "--keep", envvar="SOLVELENS_KEEP", help="Complete snapshots to keep (newest)."
    ),
    db: Path = db_option(),
    yes: bool = typer.Option(False, "--yes", "-y", help="Prune without asking."),
    compact_now: bool | None = _compact_option(),
) -> None:
    """Delete all but the newest N complete snapshots (and any incomplete ones) and the record versions no
    kept snapshot references, in one transaction, after saying how many go and asking (or --yes). The change
    is made on a copy of the store that then replaces it: it needs room for one copy beside the store, and a
    full disk leaves every byte as it was.

    Exit codes: 0 pruned (or nothing to prune); 1 no store at --db, store busy, or not confirmed (nothing
    deleted); 2 --keep below 1, or --db is not a solvelens store.
    """
    from solvelens.store import prune as prune_store

    if keep < 1:
        raise BadInputError(
            f"--keep must be at least 1 (got {keep}); `solvelens db delete ID` removes single snapshots"
        )
    with _store_failures():
        kept, removed = _prune_plan(db, keep)
        if removed.height == 0:
            typer.echo(f"nothing to prune: {db} holds {len(kept)} complete snapshots (--keep {keep})")
            return
        first, last = removed["taken_at"].min(), removed["taken_at"].max()
        what = (
            f"{removed.height} snapshots (ids {_ids(removed['snapshot_id'].to_list())}, taken "
            f"{first:%Y-%m-%d %H:%M} .. {last:%Y-%m-%d %H:%M} UTC), keeping the newest {len(kept)}"
        )
        if not yes and not _confirm(f"Remove {what} from {db}?"):
            fail("not confirmed; nothing was deleted")
        result = prune_store(db, keep=keep)
    versions = ", ".join(f"{n} {k}" for k, n in result["removed_versions"].items() if n)
    typer.echo(
        f"kept snapshots {result['kept']}; removed {result['removed_snapshots']} snapshots and the record "
        f"versions only they used: {versions or 'none'}"
    )
    _offer_compact(db, compact_now, ask=not yes)


def _ids(ids: list[int]) -> str:
    """``1-28`` for a run of ids, else ``1, 4, 9`` (at most 6 shown)."""
    ids = sorted(ids)
    if ids == list(range(ids[0], ids[-1] + 1)) and len(ids) > 2:
        return f"{ids[0]}-{ids[-1]}"
    shown = ", ".join(str(i) for i in ids[:6])
    return shown + (f" and {len(ids) - 6} more" if len(ids) > 6 else "")


@app.command()
def delete(
    snapshot_id: int = typer.Argument(
        ..., help="Id of the snapshot to delete (see `solvelens db snapshots`)."
    ),
    db: Path = db_option(),
    yes: bool = typer.Option(False, "--yes", "-y", help="Delete without asking."),
    compact_now: bool | None = _compact_option(),
) -> None:
    """Delete one snapshot and the record versions only it referenced, in one transaction on a copy of the
    store that then replaces it (room for one copy needed; a full disk changes no byte); every other
    snapshot stays whole and later snapshots carry over from the newest remaining one.

    Exit codes: 0 deleted; 1 no such snapshot, no store at --db, store busy, or not confirmed (nothing
    deleted); 2 --db is not a solvelens store.
    """
    from solvelens.store import delete_snapshot, list_snapshots

    with _store_failures():
        frame = list_snapshots(db, include_incomplete=True).filter(snapshot_id=snapshot_id)
        what = f"snapshot {snapshot_id}"
        if frame.height:  # else delete_snapshot says there is no such snapshot, changing nothing
            row = frame.row(0, named=True)
            what += (
                f" ({row['status']}, taken at {row['taken_at']:%Y-%m-%d %H:%M:%S} UTC of {row['base_url']})"
            )
            if not yes and not _confirm(f"Delete {what} from {db}?"):
                fail("not confirmed; nothing was deleted")
        result = delete_snapshot(db, snapshot_id)
    freed = ", ".join(f"{n} {k}" for k, n in result["removed_versions"].items() if n)
    typer.echo(f"deleted {what}; record versions no other snapshot used: {freed or 'none'}")
    _offer_compact(db, compact_now, ask=not yes)


#: ``db check``'s exit code when the snapshot records gaps (it is still complete: the platform cannot serve
#: more, or vote lists wait for the next snapshots under the budget).
EXIT_GAPS = 3


def _check_records(rows: Any, coverage: dict[str, Any] | None) -> dict[str, Any]:
    """``db check --json``: ``{"snapshot_id", "data_quality": [row], "gaps": n, "vote_coverage": row or
    None}``."""
    records = [] if rows.is_empty() else rows.to_dicts()
    return {
        "snapshot_id": records[0]["snapshot_id"] if records else (coverage or {}).get("snapshot_id"),
        "data_quality": records,
        "gaps": sum(1 for r in records if r["reason"] is not None),
        "vote_coverage": coverage,
    }


def _check_table(rows: Any, sid: int) -> Any:
    from rich.table import Table

    table = Table(title=f"snapshot {sid}: announced by the platform against stored")
    table.add_column("resource")
    table.add_column("scope")
    table.add_column("announced", justify="right")
    table.add_column("stored", justify="right")
    table.add_column("why they differ")
    for r in rows.iter_rows(named=True):
        announced = "" if r["announced"] is None else f"{r['announced']:,}"
        table.add_row(r["resource"], r["scope"], announced, f"{r['stored']:,}", r["reason"] or "")
    return table


@app.command()
def check(
    db: Path = db_option(),
    snapshot: int | None = typer.Option(
        None, "--snapshot", help="The snapshot to check (default: the newest complete one)."
    ),
    all_rows: bool = typer.Option(
        False, "--all", help="Also list the lists that hold what the platform announced (default: gaps only)."
    ),
    as_json: bool = typer.Option(
        False,
        "--json",
        help="Print JSON: snapshot_id, data_quality (every row: resource, scope, announced, stored, reason), "
        "gaps (rows whose counts differ), vote_coverage (the view's row or null).",
    ),
) -> None:
    """What a snapshot holds against what the platform announced (the data_quality view), and the votes'
    coverage under the optional resources' budget.

    First it reads every block of the store in use (every column of every table: DuckDB verifies each
    block's checksum on read), so a damaged store fails here, naming the block, however the snapshot looks.

    Exit codes: 0 every list holds what the platform announced and no vote list is pending; 3 the snapshot
    is complete but records gaps the platform cannot fill (a list capped at 50 votes, a count its rows
    disagree with) or vote lists left for the next snapshots; 1 the store cannot be read, is damaged (a
    block whose checksum does not match, cut short) or holds no complete snapshot; 2 bad input (--db not a
    store, no such snapshot).
    """
    from solvelens.store import list_snapshots
    from solvelens.store.quality import coverage_line, data_quality, gaps, vote_coverage
    from solvelens.store.readers import verify_blocks

    with _store_failures():
        verify_blocks(db)
        ids = list_snapshots(db)["snapshot_id"].to_list()
        if not ids:
            fail(f"{db} holds no complete snapshot: take one with `solvelens snapshot --db {db}`")
        if snapshot is not None and snapshot not in ids:
            raise BadInputError(f"--snapshot {snapshot}: no complete snapshot with that id in {db}")
        sid = snapshot if snapshot is not None else max(ids)
        rows = data_quality(db, sid)
        coverage = vote_coverage(db, sid)
    found = 0 if rows.is_empty() else gaps(rows).height
    pending = bool(coverage and coverage["lists_pending"])
    if as_json:
        typer.echo(json.dumps(_check_records(rows, coverage), indent=2, default=str))
    elif rows.is_empty():
        typer.echo(
            f"snapshot {sid} was written before the data-quality table (schema version 4): nothing to check"
        )
    else:
        from rich.console import Console

        console = Console()
        shown = rows if all_rows else gaps(rows)
        if shown.height:
            console.print(_check_table(shown, sid))
        if not found:
            console.print(f"snapshot {sid}: every list holds what the platform announced", highlight=False)
        if coverage is not None:
            console.print(coverage_line(coverage), highlight=False)
    if found or pending:
        raise typer.Exit(EXIT_GAPS)


def register(root: typer.Typer) -> None:
    """Add ``solvelens db ...`` to the root app."""
    root.add_typer(app, name="db")
