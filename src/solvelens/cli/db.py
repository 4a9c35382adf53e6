"""``solvelens db ...``: look into the snapshot store, export it to Parquet, prune old snapshots.

DuckDB and polars are imported inside the commands so ``solvelens --help`` stays fast.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer

from solvelens.cli.common import db_option, fail

app = typer.Typer(
    help="The DuckDB snapshot store: info, snapshots, export, prune, delete.", no_args_is_help=True
)


@app.command()
def info(db: Path = db_option()) -> None:
    """File size, snapshot count and time span, rows per view and stored record versions."""
    from rich.console import Console
    from rich.table import Table

    from solvelens.store import StoreError, store_info

    try:
        data = store_info(db)
    except StoreError as exc:
        fail(str(exc))
    console = Console()
    console.print(
        f"{data['path']}: {data['file_bytes'] / 1e6:.2f} MB, {data['snapshots']} complete snapshots "
        f"({data['first_taken_at']} .. {data['last_taken_at']})"
    )
    table = Table()
    table.add_column("view")
    table.add_column("rows (all snapshots)", justify="right")
    table.add_column("distinct versions stored", justify="right")
    for view, n in data["rows"].items():
        table.add_row(view, f"{n:,}", f"{data['versions'][view]:,}" if view in data["versions"] else "")
    console.print(table)


def _snapshot_records(frame: Any) -> list[dict[str, Any]]:
    """The snapshot log as JSON-ready dicts (times ISO-8601 UTC; counts, warnings and drift parsed)."""
    records = []
    for row in frame.iter_rows(named=True):
        record: dict[str, Any] = {}
        for key, value in row.items():
            if key in ("counts", "warnings", "drift", "changes"):
                record[key] = json.loads(value) if value else None
            elif hasattr(value, "isoformat"):
                record[key] = value.isoformat().replace("+00:00", "Z")
            else:
                record[key] = value
        records.append(record)
    return records


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
        "base_url, status, started_at, finished_at (ISO-8601 UTC), duration_s, counts, warnings, drift, "
        "changes.",
    ),
    as_csv: bool = typer.Option(
        False,
        "--csv",
        help="Print CSV instead of a table: snapshot_id, taken_at, base_url, status, started_at, "
        "finished_at, duration_s, counts (JSON), warnings and drift (numbers of entries).",
    ),
) -> None:
    """One line per snapshot: id, time, duration, counts, warnings and drift entries (or --json / --csv)."""
    from solvelens.store import StoreError, list_snapshots

    if as_json and as_csv:
        fail("give --json or --csv, not both", 2)
    try:
        frame = list_snapshots(db, include_incomplete=all_runs)
    except StoreError as exc:
        fail(str(exc))
    if as_json:
        typer.echo(json.dumps(_snapshot_records(frame), indent=2))
        return
    if as_csv:
        import csv
        import sys

        writer = csv.writer(sys.stdout, lineterminator="\n")
        columns = ["snapshot_id", "taken_at", "base_url", "status", "started_at", "finished_at", "duration_s"]
        writer.writerow([*columns, "counts", "warnings", "drift"])
        for r in _snapshot_records(frame):
            writer.writerow(
                [
                    *("" if r[c] is None else r[c] for c in columns),
                    json.dumps(r["counts"] or {}),
                    len(r["warnings"] or []),
                    len(r["drift"] or []),
                ]
            )
        return
    from rich.console import Console
    from rich.table import Table

    table = Table()
    for col in ("id", "taken at (UTC)", "base URL", "status", "duration s", "counts", "warnings", "drift"):
        table.add_column(col)
    for row in frame.iter_rows(named=True):
        counts = json.loads(row["counts"]) if row["counts"] else {}
        table.add_row(
            str(row["snapshot_id"]),
            f"{row['taken_at']:%Y-%m-%d %H:%M:%S}",
            row["base_url"],
            row["status"],
            f"{row['duration_s']:.1f}" if row["duration_s"] is not None else "",
            ", ".join(f"{k} {v}" for k, v in counts.items()),
            str(len(json.loads(row["warnings"]))) if row["warnings"] else "0",
            str(len(json.loads(row["drift"]))) if row["drift"] else "0",
        )
    Console().print(table)


@app.command()
def export(
    parquet: Path = typer.Option(
        ...,
        "--parquet",
        envvar="SOLVELENS_EXPORT_DIR",
        help="Output directory (Hive partitions by snapshot).",
    ),
    db: Path = db_option(),
    since: int | None = typer.Option(
        None, "--since", envvar="SOLVELENS_EXPORT_SINCE", help="Only snapshots with id >= this."
    ),
) -> None:
    """Export every public view to Parquet: DIR/<view>/snapshot_id=<n>/*.parquet."""
    from solvelens.store import StoreError, export_parquet

    try:
        written = export_parquet(db, parquet, min_snapshot_id=since)
    except StoreError as exc:
        fail(str(exc))
    for view, n in written.items():
        typer.echo(f"{view}: {n:,} rows")
    typer.echo(f"written under {parquet}")


@app.command()
def prune(
    keep: int = typer.Option(
        ..., "--keep", envvar="SOLVELENS_KEEP", help="Complete snapshots to keep (newest)."
    ),
    db: Path = db_option(),
) -> None:
    """Delete all but the newest N snapshots and the record versions no kept snapshot references."""
    from solvelens.store import StoreError
    from solvelens.store import prune as prune_store

    try:
        result = prune_store(db, keep=keep)
    except (ValueError, StoreError) as exc:
        fail(str(exc))
    typer.echo(
        f"kept snapshots {result['kept']}; removed {result['removed_snapshots']} snapshots, "
        + ", ".join(f"{n} {k} versions" for k, n in result["removed_versions"].items())
    )


@app.command()
def delete(
    snapshot_id: int = typer.Argument(
        ..., help="Id of the snapshot to delete (see `solvelens db snapshots`)."
    ),
    db: Path = db_option(),
    yes: bool = typer.Option(False, "--yes", "-y", help="Delete without asking."),
) -> None:
    """Delete one snapshot and the record versions only it referenced, in one transaction; every other
    snapshot stays whole and later snapshots carry over from the newest remaining one.

    Exit codes: 0 deleted; 1 no such snapshot, not a store, store busy, or not confirmed (nothing deleted).
    """
    from solvelens.store import StoreError, delete_snapshot, list_snapshots

    try:
        frame = list_snapshots(db, include_incomplete=True).filter(snapshot_id=snapshot_id)
        what = f"snapshot {snapshot_id}"
        if frame.height:  # else delete_snapshot says there is no such snapshot, changing nothing
            row = frame.row(0, named=True)
            what += (
                f" ({row['status']}, taken at {row['taken_at']:%Y-%m-%d %H:%M:%S} UTC of {row['base_url']})"
            )
            if not yes and not typer.confirm(f"Delete {what} from {db}?", default=False):
                fail("not confirmed; nothing was deleted")
        result = delete_snapshot(db, snapshot_id)
    except StoreError as exc:
        fail(str(exc))
    freed = ", ".join(f"{n} {k}" for k, n in result["removed_versions"].items() if n)
    typer.echo(f"deleted {what}; record versions no other snapshot used: {freed or 'none'}")


def register(root: typer.Typer) -> None:
    """Add ``solvelens db ...`` to the root app."""
    root.add_typer(app, name="db")
