"""The demo: the whole pipeline on an embedded sandbox platform, in one process (what ``make demo`` runs).

Steps:
1. Build a fresh sandbox platform (SQLite, seed 7, small scale) at ``sandbox_db`` (``--sandbox-db``).
2. Start the sandbox server (uvicorn subprocess) on 127.0.0.1 at a free port.
3. Take one snapshot through the Prefect snapshot flow, then for each of ``days`` simulated days advance the
   simulator by one day, let the demo's own bot (``demo-bot``, run by :class:`~solvelens.client.BotRunner`
   with the example solver) work on up to ``bot_tasks`` tasks, and snapshot again (with the bot's API key,
   so ``bot_me`` records its own history). Each snapshot records the sandbox's simulated clock (``/health``'s
   ``clock``) as its ``taken_at``. All snapshots run in this one process, so Prefect's temporary API server
   starts once.
4. Write the leaderboard history report, stop the server, print a one-screen summary.

Running it twice works: the demo marks the store and the sandbox database it makes (``created_by = solvelens
demo`` in their meta tables) and replaces only those; anything else at those paths is kept and named in the
error, unless ``force`` (``--force``), which prints a line saying what it replaces.
"""

from __future__ import annotations

import asyncio
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

#: The mark the demo leaves in the meta tables of the store and the sandbox database it makes.
MARK_KEY = "created_by"
MARK_VALUE = "solvelens demo"


class DemoError(RuntimeError):
    """The demo cannot run; the message names the problem and the fix."""


@dataclass
class DemoResult:
    """What the demo produced: paths written, and the snapshot summaries the flow returned."""

    db_path: Path
    sandbox_db: Path
    report_path: Path
    base_url: str
    snapshots: list[dict] = field(default_factory=list)
    seconds: float = 0.0


def _store_is_demos(db_path: Path) -> bool | str:
    """``True`` when the demo made the store at ``db_path``, else a short description of what it holds."""
    from solvelens.store import StoreError, list_snapshots, read_store_meta

    try:
        if read_store_meta(db_path).get(MARK_KEY) == MARK_VALUE:
            return True
        urls = sorted(set(list_snapshots(db_path)["base_url"].to_list()))
    except StoreError as exc:
        return str(exc)
    except Exception as exc:  # a store of another solvelens version: describe it, never guess
        return f"{db_path} ({type(exc).__name__})"
    return f"a solvelens store with snapshots of {', '.join(urls) or 'no platform yet'}"


def _sandbox_is_demos(sandbox_db: Path) -> bool | str:
    """``True`` when the demo built the sandbox SQLite file at ``sandbox_db``, else what it is."""
    import sqlite3

    try:
        con = sqlite3.connect(f"file:{sandbox_db}?mode=ro", uri=True)
        try:
            row = con.execute("SELECT value FROM meta WHERE key = ?", (MARK_KEY,)).fetchone()
        finally:
            con.close()
    except sqlite3.Error as exc:
        return f"not a sandbox database ({exc})"
    return True if row and row[0] == MARK_VALUE else "a sandbox database the demo did not build"


def claim_outputs(db_path: Path, sandbox_db: Path, *, force: bool, console: Console) -> None:
    """Remove the demo's own earlier store and sandbox database (marked ``created_by = solvelens demo`` in
    their meta tables). Anything else at those paths is kept and :class:`DemoError` names it and the fix,
    unless ``force``: then a line says what is replaced before it is removed."""
    checks = ((db_path, _store_is_demos, ".wal"), (sandbox_db, _sandbox_is_demos, "-*"))
    doomed: list[Path] = []
    for path, is_demos, siblings in checks:
        if not path.exists():
            continue
        verdict = is_demos(path)
        if verdict is not True:
            if not force:
                raise DemoError(
                    f"{path} was not made by the demo ({verdict}); the demo replaces only its own outputs. "
                    "Pass --db/--sandbox-db a new path, or --force to replace it."
                )
            console.print(f"--force: replacing {path} ({verdict})")
        doomed.append(path)
        doomed.extend(
            path.parent.glob(path.name + siblings)
            if "*" in siblings
            else [path.with_name(path.name + siblings)]
        )
    for path in doomed:
        path.unlink(missing_ok=True)


def _prefect_defaults() -> None:
    """Quiet, robust Prefect settings for a one-process run (set only where the user has not set them)."""
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "120")
    os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")
    os.environ.setdefault("PREFECT_LOGGING_TO_API_WHEN_MISSING_FLOW", "ignore")


def _run_demo_bot(base_url: str, api_key: str, max_tasks: int) -> int:
    """Let the demo bot work on up to ``max_tasks`` tasks (quietly); return how many it submitted."""
    from solvelens.client import BotRunner, PlatformClient
    from solvelens.client.example_solver import solve

    with PlatformClient(base_url, api_key=api_key, read_env=False) as client:
        runner = BotRunner(
            client, solve, max_tasks=max_tasks, stop_when_idle=True, console=Console(quiet=True)
        )
        return runner.run(handle_signals=False).submitted


async def _take_snapshots(
    base_url: str, db_path: Path, sandbox_db: Path, days: int, bot_tasks: int, console: Console
) -> list[dict]:
    from solvelens.flows.snapshot import SnapshotPlan, snapshot_flow
    from solvelens.sandbox.simulate import advance

    summaries: list[dict] = []
    columns = (TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    async with httpx.AsyncClient(timeout=10.0) as http:
        health_url = base_url.removesuffix("/api/v1") + "/health"
        with Progress(*columns, console=console, transient=False) as progress:
            task = progress.add_task("snapshots (day 0 starts Prefect)", total=days + 1)
            for day in range(days + 1):
                if day > 0:
                    await asyncio.to_thread(advance, sandbox_db, days=1)
                    if bot_tasks:
                        key = os.environ["SOLVELENS_API_KEY"]
                        await asyncio.to_thread(_run_demo_bot, base_url, key, bot_tasks)
                clock = (await http.get(health_url)).json()["clock"]
                plan = SnapshotPlan(  # budget all: the demo's own small sandbox, every vote each day
                    base_url=base_url,
                    db_path=str(db_path),
                    taken_at=clock,
                    use_api_key=bot_tasks > 0,
                    budget="all",
                )
                summary = await snapshot_flow(plan)
                summaries.append(summary)
                progress.update(task, advance=1, description=f"snapshots (simulated {clock[:10]})")
    return summaries


def run_demo(
    *,
    db_path: Path,
    sandbox_db: Path,
    reports_dir: Path,
    days: int = 30,
    seed: int = 7,
    scale: str = "small",
    bot_tasks: int = 8,
    console: Console | None = None,
    force: bool = False,
) -> DemoResult:
    """Run the whole demo and return what it produced (see the module docstring for the steps).

    Raises :class:`DemoError` with a one-line fix when the store or sandbox path holds something the demo
    did not make (unless ``force``: then it is replaced, with a line saying so) or the sandbox server does
    not start.
    """
    console = console or Console()
    started = time.monotonic()
    _prefect_defaults()
    db_path.parent.mkdir(parents=True, exist_ok=True)
    sandbox_db.parent.mkdir(parents=True, exist_ok=True)
    reports_dir.mkdir(parents=True, exist_ok=True)
    claim_outputs(db_path, sandbox_db, force=force, console=console)

    from solvelens.report import build_report
    from solvelens.sandbox.db import connect, set_meta
    from solvelens.sandbox.generate import build_platform
    from solvelens.sandbox.process import SandboxStartError, start_sandbox
    from solvelens.store import write_store_meta

    write_store_meta(db_path, MARK_KEY, MARK_VALUE)
    console.print(f"Building the sandbox platform (seed {seed}, scale {scale}) in {sandbox_db} ...")
    build_platform(sandbox_db, seed=seed, scale=scale)
    conn = connect(sandbox_db)
    try:
        set_meta(conn, MARK_KEY, MARK_VALUE)
    finally:
        conn.close()
    if bot_tasks:
        from solvelens.sandbox.accounts import create_bot

        # The snapshot flow reads the key from the environment (never a flow parameter); this process only.
        os.environ["SOLVELENS_API_KEY"] = create_bot(sandbox_db, "demo-bot", description="The demo's own bot")

    try:
        # Tied scores come back in a new order on every call, as on the real platform.
        server = start_sandbox(sandbox_db, tie_order="shuffle")
    except SandboxStartError as exc:
        raise DemoError(str(exc)) from exc
    base_url = server.base_url
    try:
        console.print(f"Sandbox platform serving at {base_url}")
        summaries = asyncio.run(_take_snapshots(base_url, db_path, sandbox_db, days, bot_tasks, console))
    finally:
        server.stop()

    report_path = reports_dir / "leaderboard.html"
    console.print("Writing the leaderboard history report ...")
    build_report(db_path, report_path)
    return DemoResult(
        db_path=db_path,
        sandbox_db=sandbox_db,
        report_path=report_path,
        base_url=base_url,
        snapshots=summaries,
        seconds=time.monotonic() - started,
    )


def print_summary(result: DemoResult, console: Console) -> None:
    """Print the one-screen summary: snapshots, records per resource, the top 5 bots with their rank change
    against the previous snapshot, 7 days and the first snapshot (the same changes as the report's table,
    from :func:`solvelens.analysis.current_leaderboard`), the demo bot, and the paths."""
    from solvelens import analysis as an
    from solvelens.store import read_frame

    store = an.load(result.db_path)
    snaps = store.snapshots.collect()
    last_id = snaps["snapshot_id"][-1]
    console.rule("[bold]solvelens demo")
    console.print(
        f"{snaps.height} snapshots of a simulated platform, simulated dates "
        f"{snaps['taken_at'][0]:%Y-%m-%d} to {snaps['taken_at'][-1]:%Y-%m-%d} (not real dates), "
        f"in {result.seconds:.0f} s"
    )
    counts = result.snapshots[-1]["counts"]
    console.print("Records in the last snapshot: " + ", ".join(f"{k} {v:,}" for k, v in counts.items()))

    top = an.current_leaderboard(an.rank_history(store.leaderboard, snaps), top=5)
    table = Table(title="Top 5 bots now, with rank change (+ = up; ties share a rank)")
    for col in ("rank", "bot", "points", "vs previous", "vs 7 days", "vs first"):
        table.add_column(col, justify="left" if col == "bot" else "right")

    def change(value: int | None, new: bool = False) -> str:
        if new:
            return "new"
        if value is None:
            return "–"
        return f"+{value}" if value > 0 else ("=" if value == 0 else str(value))

    for row in top.iter_rows(named=True):
        table.add_row(
            str(row["rank"]),
            row["name"],
            f"{row['points']:,}",
            change(row["rank_change_prev"], row["is_new"]),
            change(row["rank_change_7d"]),
            change(row["rank_change_first"]),
        )
    console.print(table)
    me = read_frame(
        result.db_path,
        "SELECT name, total_points, total_solutions, total_votes FROM bot_me "
        f"WHERE snapshot_id = {int(last_id)}",
    )
    for row in me.iter_rows(named=True):
        console.print(
            f"Bot {row['name']} (run by the bot runner each day): {row['total_solutions']} solutions, "
            f"{row['total_votes']} votes, {row['total_points']} points"
        )
    console.print(f"DuckDB store:  {result.db_path}")
    console.print(f"Report:        {result.report_path}")
    console.print(f"Bot table:     {result.report_path.with_suffix('.csv')} (every bot, CSV)")
    console.print(f"One bot:       solvelens report --db {result.db_path} --bot NAME_OR_ID")
    console.print(
        f"Sandbox data:  {result.sandbox_db} "
        f"(serve it again: solvelens sandbox serve --db {result.sandbox_db})"
    )
    console.print(
        "Next: open the report in a browser, or `SOLVELENS_DB="
        f"{result.db_path} .venv/bin/jupyter lab notebooks/leaderboard_history.ipynb`"
    )
