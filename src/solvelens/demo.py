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

5. Compact the store (``solvelens db compact``: the daily snapshots leave free blocks behind).

Its files are its own: by default under ``data/demo/`` (never the paths the README gives for real use,
``data/solvelens.duckdb`` and ``data/sandbox.sqlite``). Running it twice works: the demo marks the store and
the sandbox database it makes (``created_by = solvelens demo`` in their meta tables) and records what it put
in them (``demo_snapshots``: the ids of the snapshots it took; ``demo_bots``: the ids of the bots it made and
of those the simulator let join during its days). It replaces a file only when it is marked and holds
nothing else: a store with any snapshot the demo did not take, or a sandbox database with a bot the demo did
not make, is kept and named in the error, whoever created the file, unless ``force`` (``--force``): then a
line names what would be deleted and, on a terminal, the demo asks before deleting it.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import httpx
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

if TYPE_CHECKING:
    from solvelens.flows.summary import SnapshotSummary

#: The mark the demo leaves in the meta tables of the store and the sandbox database it makes.
MARK_KEY = "created_by"
MARK_VALUE = "solvelens demo"
#: Meta keys listing what the demo put in its files: its snapshots' ids (store), its bots' ids (sandbox).
SNAPSHOTS_KEY = "demo_snapshots"
BOTS_KEY = "demo_bots"


class DemoError(RuntimeError):
    """The demo cannot run; the message names the problem and the fix."""


@dataclass
class DemoResult:
    """What the demo produced: paths written, and the snapshot summaries the flow returned."""

    db_path: Path
    sandbox_db: Path
    report_path: Path
    base_url: str
    snapshots: list[SnapshotSummary] = field(default_factory=list)
    seconds: float = 0.0


def _ranges(ids: list[int]) -> str:
    """``[1, 2, 3, 7]`` -> ``1-3, 7``."""
    out: list[str] = []
    for i in sorted(ids):
        if out and i == int(out[-1].split("-")[-1]) + 1:
            out[-1] = f"{out[-1].split('-')[0]}-{i}"
        else:
            out.append(str(i))
    return ", ".join(out)


def _store_is_demos(db_path: Path) -> bool | str:
    """``True`` when every snapshot in the store at ``db_path`` is one the demo took (and the demo made the
    file), else what the demo would delete: the snapshots it did not take and their platforms."""
    from solvelens.store import StoreError, list_snapshots, read_store_meta

    try:
        meta = read_store_meta(db_path)
        log = list_snapshots(db_path, include_incomplete=True) if meta else None
    except StoreError as exc:  # its problem only: the fix it suggests is not the demo's
        return f"something else ({str(exc).split('; ')[0]})"
    except Exception as exc:  # a store of another solvelens version: describe it, never guess
        return f"{db_path} ({type(exc).__name__})"
    if log is None:
        return "a DuckDB file without a solvelens store"
    demos = set(json.loads(meta.get(SNAPSHOTS_KEY, "[]"))) if meta.get(MARK_KEY) == MARK_VALUE else set()
    others = log.filter(~log["snapshot_id"].is_in(list(demos)))
    if meta.get(MARK_KEY) == MARK_VALUE and others.height == 0:
        return True
    if others.height == 0:
        return "a solvelens store the demo did not make (no snapshot yet)"
    urls = ", ".join(sorted(set(others["base_url"].to_list())))
    ids = _ranges(others["snapshot_id"].to_list())
    return f"{others.height} snapshots the demo did not take (ids {ids}: {urls})"


def _sandbox_is_demos(sandbox_db: Path) -> bool | str:
    """``True`` when the demo built the sandbox SQLite file at ``sandbox_db`` and every bot in it is one the
    demo made, else what the demo would delete (the bots it did not make)."""
    import sqlite3

    try:
        con = sqlite3.connect(f"file:{sandbox_db}?mode=ro", uri=True)
        try:
            meta = dict(con.execute("SELECT key, value FROM meta").fetchall())
            bots = con.execute("SELECT id, name FROM bots ORDER BY id").fetchall()
        finally:
            con.close()
    except sqlite3.Error as exc:
        return f"not a sandbox database ({exc})"
    if meta.get(MARK_KEY) != MARK_VALUE:
        return f"a sandbox database the demo did not build ({len(bots)} bots)"
    demos = set(json.loads(meta.get(BOTS_KEY, "[]")))
    others = [name for bot_id, name in bots if bot_id not in demos]
    if not others:
        return True
    shown = ", ".join(others[:5]) + (f" and {len(others) - 5} more" if len(others) > 5 else "")
    return f"{len(others)} bots the demo did not make ({shown})"


def _confirm(question: str) -> bool:
    """Ask on a terminal (stdin a TTY); without one, ``--force`` is the answer (a script said so)."""
    if not sys.stdin.isatty():
        return True
    import typer

    return typer.confirm(question, default=False)


def claim_outputs(
    db_path: Path,
    sandbox_db: Path,
    *,
    force: bool,
    console: Console,
    confirm: Callable[[str], bool] = _confirm,
) -> None:
    """Remove the demo's own earlier store and sandbox database (see the module docstring). Anything else
    at those paths is kept and :class:`DemoError` names it and the fix, unless ``force``: then a line names
    what would be deleted and ``confirm`` (on a terminal: a question; else yes) decides; a "no" raises
    :class:`DemoError` with nothing deleted."""
    checks = ((db_path, _store_is_demos, ".wal"), (sandbox_db, _sandbox_is_demos, "-*"))
    doomed: list[Path] = []
    for path, is_demos, siblings in checks:
        if not path.exists():
            continue
        verdict = is_demos(path)
        if verdict is not True:
            if not force:
                raise DemoError(
                    f"{path} holds {verdict}; the demo replaces only its own outputs (default: data/demo/). "
                    "Pass --db/--sandbox-db a new path, or --force to delete it."
                )
            console.print(f"--force: would delete {path}: {verdict}")
            if not confirm(f"Delete {path} and everything in it?"):
                raise DemoError(f"{path} kept (not confirmed); nothing was deleted")
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


def _record_snapshot(db_path: Path, snapshot_id: int) -> None:
    """Add ``snapshot_id`` to the store's list of the demo's snapshots (:data:`SNAPSHOTS_KEY`)."""
    from solvelens.store import read_store_meta, write_store_meta

    ids = json.loads(read_store_meta(db_path).get(SNAPSHOTS_KEY, "[]"))
    write_store_meta(db_path, SNAPSHOTS_KEY, json.dumps(sorted({*ids, int(snapshot_id)})))


def _build_sandbox(sandbox_db: Path, seed: int, scale: str, with_bot: bool) -> str | None:
    """Build the demo's sandbox platform, mark it, make ``demo-bot`` when ``with_bot`` and record every bot
    in it as the demo's (:data:`BOTS_KEY`). Returns the demo bot's API key (or ``None``)."""
    from solvelens.sandbox.accounts import create_bot
    from solvelens.sandbox.db import connect, set_meta
    from solvelens.sandbox.generate import build_platform

    build_platform(sandbox_db, seed=seed, scale=scale)
    key = create_bot(sandbox_db, "demo-bot", description="The demo's own bot") if with_bot else None
    conn = connect(sandbox_db)
    try:
        set_meta(conn, MARK_KEY, MARK_VALUE)
    finally:
        conn.close()
    _record_bots(sandbox_db)
    return key


def _record_bots(sandbox_db: Path) -> None:
    """Record every bot now in the demo's sandbox as the demo's (:data:`BOTS_KEY`): run after the build and
    after each simulated day (the simulator lets bots join)."""
    from solvelens.sandbox.db import connect, set_meta

    conn = connect(sandbox_db)
    try:
        bots = [row[0] for row in conn.execute("SELECT id FROM bots ORDER BY id")]
        set_meta(conn, BOTS_KEY, json.dumps(bots))
    finally:
        conn.close()


async def _take_snapshots(
    base_url: str, db_path: Path, sandbox_db: Path, days: int, bot_tasks: int, console: Console
) -> list[SnapshotSummary]:
    from solvelens.flows.budget import Budget
    from solvelens.flows.snapshot import SnapshotPlan, snapshot_flow
    from solvelens.sandbox.simulate import advance

    summaries: list[SnapshotSummary] = []
    columns = (TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    async with httpx.AsyncClient(timeout=10.0) as http:
        health_url = base_url.removesuffix("/api/v1") + "/health"
        with Progress(*columns, console=console, transient=False) as progress:
            task = progress.add_task("snapshots (day 0 starts Prefect)", total=days + 1)
            for day in range(days + 1):
                if day > 0:
                    await asyncio.to_thread(advance, sandbox_db, days=1)
                    await asyncio.to_thread(_record_bots, sandbox_db)
                    if bot_tasks:
                        key = os.environ["SOLVELENS_API_KEY"]
                        await asyncio.to_thread(_run_demo_bot, base_url, key, bot_tasks)
                clock = (await http.get(health_url)).json()["clock"]
                plan = SnapshotPlan(  # budget all: the demo's own small sandbox, every vote each day
                    base_url=base_url,
                    db_path=str(db_path),
                    taken_at=clock,
                    use_api_key=bot_tasks > 0,
                    budget=Budget.parse("all"),
                )
                summary = await snapshot_flow(plan)
                summaries.append(summary)
                _record_snapshot(db_path, summary.snapshot_id)
                progress.update(task, advance=1, description=f"snapshots (simulated {clock[:10]})")
    return summaries


@contextmanager
def _api_key_in_environment(key: str | None) -> Iterator[None]:
    """``SOLVELENS_API_KEY`` set to the demo bot's key for the block (the snapshot flow reads the key from
    the environment, never from a flow parameter), and as it was afterwards: a caller running the demo
    in-process keeps its own environment."""
    if key is None:
        yield
        return
    previous = os.environ.get("SOLVELENS_API_KEY")
    os.environ["SOLVELENS_API_KEY"] = key
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop("SOLVELENS_API_KEY", None)
        else:
            os.environ["SOLVELENS_API_KEY"] = previous


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
    from solvelens.sandbox.process import SandboxStartError, start_sandbox
    from solvelens.store import compact, write_store_meta
    from solvelens.store.units import mib

    write_store_meta(db_path, MARK_KEY, MARK_VALUE)
    write_store_meta(db_path, SNAPSHOTS_KEY, "[]")
    console.print(f"Building the sandbox platform (seed {seed}, scale {scale}) in {sandbox_db} ...")
    key = _build_sandbox(sandbox_db, seed, scale, with_bot=bot_tasks > 0)
    try:
        # Tied scores come back in a new order on every call, as on the real platform.
        server = start_sandbox(sandbox_db, tie_order="shuffle")
    except SandboxStartError as exc:
        raise DemoError(str(exc)) from exc
    base_url = server.base_url
    try:
        console.print(f"Sandbox platform serving at {base_url}")
        with _api_key_in_environment(key):
            summaries = asyncio.run(_take_snapshots(base_url, db_path, sandbox_db, days, bot_tasks, console))
    finally:
        server.stop()

    compacted = compact(db_path)
    console.print(f"Store compacted: {mib(compacted['before_bytes'])} -> {mib(compacted['after_bytes'])}")
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
    import polars as pl

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
    last = result.snapshots[-1]
    console.print(
        "Records in the last snapshot (totals): " + ", ".join(f"{k} {v:,}" for k, v in last.totals().items())
    )
    if last.new_line():
        votes = int(store.comparisons.select(pl.len()).collect().item())
        events = int(store.activity.select(pl.len()).collect().item())
        console.print(f"{last.new_line()} (the store holds {votes:,} votes and {events:,} events in all)")

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
    # The hints write only inside the demo's own folders and name this environment's commands (a bare
    # `solvelens` is not on the PATH of a user who ran `make demo`).
    sl = script_command("solvelens")
    bot_page = result.report_path.parent / "bot.html"
    console.print(f"One bot:       {sl} report --db {result.db_path} --bot NAME_OR_ID --out {bot_page}")
    console.print(
        f"Sandbox data:  {result.sandbox_db} (serve it again: {sl} sandbox serve --db {result.sandbox_db})"
    )
    console.print(
        f"Next: open the report in a browser, or `SOLVELENS_DB={result.db_path} "
        f"{script_command('jupyter')} lab notebooks/leaderboard_history.ipynb`"
    )


def script_command(name: str) -> str:
    """How to run console script ``name`` of the environment running solvelens: its path beside the
    interpreter (relative to the current folder when inside it, e.g. ``.venv/bin/solvelens``), else
    ``name`` when it is on the PATH, else ``<python> -m <name>``."""
    import shutil
    import sys

    beside = Path(sys.executable).parent / name
    if beside.exists():
        try:
            return str(beside.relative_to(Path.cwd()))
        except ValueError:
            return str(beside)
    if shutil.which(name):
        return name
    return f"{sys.executable} -m {name}"
