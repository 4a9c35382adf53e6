"""``solvelens db ...``: look into the snapshot store, export it to Parquet, prune old snapshots.

DuckDB and polars are imported inside the commands so ``solvelens --help`` stays fast.
"""

from __future__ import annotations

import json
from pathlib import Path

import typer

app = typer.Typer(help="The DuckDB snapshot store: info, snapshots, export, prune.", no_args_is_help=True)


def _db_option() -> Path:
    return typer.Option(
        Path("data/solvelens.duckdb"), "--db", envvar="SOLVELENS_DB", help="DuckDB snapshot store."
    )


def _fail(message: str) -> None:
    typer.secho(f"error: {message}", err=True, fg=typer.colors.RED)
    raise typer.Exit(1)


@app.command()
def info(db: Path = _db_option()) -> None:
    """File size, snapshot count and time span, rows per view and stored record versions."""
    from rich.console import Console
    from rich.table import Table

    from solvelens.store import StoreError, store_info

    try:
        data = store_info(db)
    except StoreError as exc:
        _fail(str(exc))
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


@app.command()
def snapshots(
    db: Path = _db_option(),
    all_runs: bool = typer.Option(
        False, "--all", envvar="SOLVELENS_DB_ALL", help="Include snapshots that never completed."
    ),
) -> None:
    """One line per snapshot: id, time, duration, counts, warnings and drift entries."""
    from rich.console import Console
    from rich.table import Table

    from solvelens.store import StoreError, list_snapshots

    try:
        frame = list_snapshots(db, include_incomplete=all_runs)
    except StoreError as exc:
        _fail(str(exc))
    table = Table()
    for col in ("id", "taken at (UTC)", "status", "duration s", "counts", "warnings", "drift"):
        table.add_column(col)
    for row in frame.iter_rows(named=True):
        counts = json.loads(row["counts"]) if row["counts"] else {}
        table.add_row(
            str(row["snapshot_id"]),
            f"{row['taken_at']:%Y-%m-%d %H:%M:%S}",
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
    db: Path = _db_option(),
    since: int | None = typer.Option(
        None, "--since", envvar="SOLVELENS_EXPORT_SINCE", help="Only snapshots with id >= this."
    ),
) -> None:
    """Export every public view to Parquet: DIR/<view>/snapshot_id=<n>/*.parquet."""
    from solvelens.store import StoreError, export_parquet

    try:
        written = export_parquet(db, parquet, min_snapshot_id=since)
    except StoreError as exc:
        _fail(str(exc))
    for view, n in written.items():
        typer.echo(f"{view}: {n:,} rows")
    typer.echo(f"written under {parquet}")


@app.command()
def prune(
    keep: int = typer.Option(
        ..., "--keep", envvar="SOLVELENS_KEEP", help="Complete snapshots to keep (newest)."
    ),
    db: Path = _db_option(),
) -> None:
    """Delete all but the newest N snapshots and the record versions no kept snapshot references."""
    from solvelens.store import StoreError
    from solvelens.store import prune as prune_store

    if not db.exists():
        _fail(f"no snapshot store at {db}: run `solvelens snapshot --db {db}` first")
    try:
        result = prune_store(db, keep=keep)
    except (ValueError, StoreError) as exc:
        _fail(str(exc))
    typer.echo(
        f"kept snapshots {result['kept']}; removed {result['removed_snapshots']} snapshots, "
        + ", ".join(f"{n} {k} versions" for k, n in result["removed_versions"].items())
    )
