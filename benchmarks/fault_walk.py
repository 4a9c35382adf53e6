"""Fault walk (issue 33): every command of the README that reads or writes the store, run as a real
``solvelens`` process against each fault of the machine under it, printing command x fault x (the error line,
the exit code, whether the store's bytes are unchanged).

Faults (each on a fresh copy of one store of two snapshots of the sandbox platform):

- ``cut-short``: the store cut to half its size (a full disk while copying, an interrupted copy);
- ``damaged-block``: one 16 KiB block in use overwritten (the first block whose damage a full read finds and
  opening the file does not: a data block, not the catalog);
- ``ro-file``: the store file is read-only (mode 0444);
- ``ro-folder``: the store's folder is read-only (mode 0555), and the command's outputs (``--out``,
  ``--parquet``) go into it too;
- ``disk-full``: every file the command writes is limited to 4 KiB (``RLIMIT_FSIZE`` in the child, with
  ``SIGXFSZ`` ignored so a write past it fails with EFBIG as on a full disk);
- ``dead-holder``: a process took the store's lock and opened the file read-write inside a transaction,
  then was killed with SIGKILL (its lock file is left behind): every command works as usual.

Run as root, each child drops ``CAP_DAC_OVERRIDE`` and ``CAP_DAC_READ_SEARCH`` from its bounding set, so
file modes bind it as they bind a user. A row is a problem when the command printed a traceback, printed
more than one line on stderr while failing, or changed the store's bytes while failing (a command that
succeeded on ``dead-holder`` may write: that is its job). Exit status: 0 when no row is a problem.

    .venv/bin/python benchmarks/fault_walk.py                       # every command x every fault
    .venv/bin/python benchmarks/fault_walk.py --commands "db info,report" --faults cut-short --json
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TextIO

import duckdb

ROOT = Path(__file__).resolve().parents[1]
SOLVELENS = [sys.executable, "-m", "solvelens"]
#: The file size limit of the ``disk-full`` fault, in bytes: smaller than any WAL, staged resource, report
#: or Parquet file a command writes, so each write fails as on a full disk.
FSIZE_LIMIT = 4 * 1024
HEADER_BYTES = 3 * 4096
BLOCK_BYTES = 16 * 1024
_PR_CAPBSET_DROP = 24
_CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH = 1, 2


@dataclass
class Setup:
    """Where one fault was laid out: the store, the folder for the command's outputs, the child's limits."""

    db: Path
    out: Path
    fsize: int | None = None


@dataclass
class Row:
    """One command run against one fault."""

    command: str
    fault: str
    exit_code: int
    line: str
    stderr_lines: int
    traceback: bool
    bytes_unchanged: bool
    seconds: float

    @property
    def problem(self) -> bool:
        """A traceback, more than one line on failure, or changed bytes on failure (``db check``'s exit 3, a
        snapshot that records gaps, is an answer, not a failure)."""
        failed = self.exit_code not in (0, 3)
        return self.traceback or (failed and (self.stderr_lines != 1 or not self.bytes_unchanged))


# -- the commands ----------------------------------------------------------------------------------------


def commands(base_url: str, bot: str) -> dict[str, Callable[[Setup], list[str]]]:
    """Each command of the README that opens the store, as its argv for a fault's :class:`Setup`."""
    return {
        "snapshot": lambda s: [
            "snapshot", "--base-url", base_url, "--db", str(s.db), "--taken-at", "2030-01-01T00:00:00Z",
        ],
        "report": lambda s: ["report", "--db", str(s.db), "--out", str(s.out / "r.html")],
        "report --bot": lambda s: ["report", "--db", str(s.db), "--bot", bot, "--out", str(s.out / "b.html")],
        "diff": lambda s: ["diff", "--db", str(s.db)],
        "db info": lambda s: ["db", "info", "--db", str(s.db)],
        "db snapshots": lambda s: ["db", "snapshots", "--db", str(s.db)],
        "db check": lambda s: ["db", "check", "--db", str(s.db)],
        "db export": lambda s: ["db", "export", "--db", str(s.db), "--parquet", str(s.out / "export")],
        "db prune": lambda s: ["db", "prune", "--keep", "1", "--yes", "--no-compact", "--db", str(s.db)],
        "db delete": lambda s: ["db", "delete", "1", "--yes", "--no-compact", "--db", str(s.db)],
        "db compact": lambda s: ["db", "compact", "--db", str(s.db)],
    }  # fmt: skip


# -- the faults ------------------------------------------------------------------------------------------


def _copy(pristine: Path, work: Path) -> Path:
    work.mkdir(parents=True)
    db = work / "store.duckdb"
    shutil.copyfile(pristine, db)
    return db


def _reads_whole(path: Path) -> bool:
    """Whether DuckDB opens and reads every column of every table of ``path`` (SQL of this walk)."""
    try:
        con = duckdb.connect(str(path), read_only=True)
    except duckdb.Error:
        return False
    try:
        for schema, table in con.execute("SELECT schema_name, table_name FROM duckdb_tables()").fetchall():
            con.execute(f'SELECT bit_xor(hash(t)) FROM "{schema}"."{table}" AS t').fetchall()
        return True
    except duckdb.Error:
        return False
    finally:
        con.close()


def _opens(path: Path) -> bool:
    try:
        duckdb.connect(str(path), read_only=True).close()
        return True
    except duckdb.Error:
        return False


def damaged_block_index(pristine: Path, scratch: Path) -> int:
    """The first 16 KiB block whose overwrite a full read finds while the file still opens."""
    blocks = (pristine.stat().st_size - HEADER_BYTES) // BLOCK_BYTES
    for i in range(blocks):
        probe = scratch / f"probe-{i}.duckdb"
        shutil.copyfile(pristine, probe)
        _overwrite_block(probe, i)
        found = _opens(probe) and not _reads_whole(probe)
        probe.unlink()
        if found:
            return i
    raise SystemExit(f"no data block of {pristine} is detected when damaged")


def _overwrite_block(path: Path, index: int) -> None:
    with path.open("r+b") as f:
        f.seek(HEADER_BYTES + index * BLOCK_BYTES)
        f.write(b"\xa5" * BLOCK_BYTES)


def _dead_holder(db: Path) -> None:
    """A process takes the store's lock, opens it read-write, starts a transaction, and is killed."""
    code = (
        "import sys, time, duckdb\n"
        "from solvelens.store.lock import store_lock\n"
        "with store_lock(sys.argv[1], exclusive=True, timeout_s=5):\n"
        "    con = duckdb.connect(sys.argv[1]); con.execute('BEGIN TRANSACTION')\n"
        "    con.execute('DELETE FROM solvelens_store.snapshot_log')\n"
        "    print('holding', flush=True); time.sleep(60)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", code, str(db)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "holding"
    proc.send_signal(signal.SIGKILL)
    proc.wait()


def lay_out(fault: str, pristine: Path, work: Path, block: int) -> Setup:
    """Lay the fault ``fault`` out in the new folder ``work`` from a copy of ``pristine``."""
    db = _copy(pristine, work / "store")
    out = work / "out"
    out.mkdir()
    if fault == "cut-short":
        os.truncate(db, db.stat().st_size // 2)
    elif fault == "damaged-block":
        _overwrite_block(db, block)
    elif fault == "ro-file":
        db.chmod(0o444)
    elif fault == "ro-folder":
        out = db.parent
        db.parent.chmod(0o555)
    elif fault == "disk-full":
        return Setup(db, out, fsize=FSIZE_LIMIT)
    elif fault == "dead-holder":
        _dead_holder(db)
    else:
        raise ValueError(f"unknown fault {fault!r}")
    return Setup(db, out)


FAULTS = ["cut-short", "damaged-block", "ro-file", "ro-folder", "disk-full", "dead-holder"]


# -- running ---------------------------------------------------------------------------------------------


def _child_limits(fsize: int | None) -> Callable[[], None]:
    def apply() -> None:
        if os.geteuid() == 0:  # file modes must bind root's child as they bind a user
            libc = ctypes.CDLL(None, use_errno=True)
            for cap in (_CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH):
                libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0)
        if fsize is not None:
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))

    return apply


def _store_bytes(db: Path) -> dict[str, bytes]:
    """The store's file and its WAL, if any, by name."""
    wal = db.with_name(db.name + ".wal")
    return {p.name: p.read_bytes() for p in (db, wal) if p.exists()}


def run_one(
    command: str, argv: Callable[[Setup], list[str]], fault: str, setup: Setup, env: dict[str, str]
) -> Row:
    """Run ``command`` against the laid-out fault and describe what it did."""
    before = _store_bytes(setup.db)
    t0 = time.perf_counter()
    proc = subprocess.run(
        [*SOLVELENS, *argv(setup)],
        capture_output=True,
        text=True,
        env=env,
        cwd=setup.out,
        stdin=subprocess.DEVNULL,
        preexec_fn=_child_limits(setup.fsize),
        timeout=300,
    )
    seconds = time.perf_counter() - t0
    err = [line for line in proc.stderr.splitlines() if line.strip()]
    out = [line for line in proc.stdout.splitlines() if line.strip()]
    line = err[0] if proc.returncode and err else (out[-1] if out else "")
    return Row(
        command=command,
        fault=fault,
        exit_code=proc.returncode,
        line=line,
        stderr_lines=len(err),
        traceback="Traceback" in proc.stderr + proc.stdout,
        bytes_unchanged=_store_bytes(setup.db) == before,
        seconds=seconds,
    )


def walk(
    pristine: Path,
    base_url: str,
    bot: str,
    chosen_commands: list[str],
    chosen_faults: list[str],
    scratch: Path,
    *,
    progress: bool = False,
) -> list[Row]:
    """Every chosen command against every chosen fault, each on a fresh layout under ``scratch``
    (``progress``: each row on stderr as it is done)."""
    table = commands(base_url, bot)
    block = damaged_block_index(pristine, scratch) if "damaged-block" in chosen_faults else -1
    env = clean_env(scratch)
    rows = []
    for n, (fault, command) in enumerate((f, c) for f in chosen_faults for c in chosen_commands):
        work = scratch / f"case-{n}"
        setup = lay_out(fault, pristine, work, block)
        try:
            rows.append(run_one(command, table[command], fault, setup, env))
        finally:
            setup.db.parent.chmod(0o755)
        if progress:
            print_row(rows[-1], file=sys.stderr)
    return rows


def clean_env(scratch: Path) -> dict[str, str]:
    """This process's environment without SOLVELENS_* and PREFECT_* settings (a snapshot runs in-process,
    not as a Prefect flow run), with the store locks in ``scratch/locks``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SOLVELENS_", "PREFECT_"))}
    return env | {"SOLVELENS_LOCK_DIR": str(scratch / "locks")}


def build_store(base_url: str, path: Path) -> str:
    """Two snapshots of the sandbox at ``base_url`` into the new store ``path``; the name of one bot."""
    for taken_at in ("2029-01-01T00:00:00Z", "2029-01-02T00:00:00Z"):
        argv = ["snapshot", "--base-url", base_url, "--db", str(path), "--taken-at", taken_at]
        done = subprocess.run([*SOLVELENS, *argv], capture_output=True, text=True, env=clean_env(path.parent))
        if done.returncode:
            raise SystemExit(f"the store could not be built: {done.stderr.strip()[-2000:]}")
    con = duckdb.connect(str(path), read_only=True)
    try:
        return str(con.execute("SELECT name FROM bots ORDER BY name LIMIT 1").fetchall()[0][0])
    finally:
        con.close()


def print_row(r: Row, file: TextIO = sys.stdout) -> None:
    """One row: command, fault, exit code, bytes unchanged, the line (cut at 150 characters)."""
    same = "unchanged" if r.bytes_unchanged else "CHANGED"
    flag = "  <- PROBLEM" if r.problem else ""
    print(
        f"{r.command:<14} {r.fault:<14} {r.exit_code:>4}  {same:<9} {r.line[:150]}{flag}",
        file=file,
        flush=True,
    )


def print_table(rows: list[Row]) -> None:
    """command x fault x (exit code, bytes unchanged, line) and the totals."""
    print(f"{'command':<14} {'fault':<14} {'exit':>4}  {'bytes':<9} line")
    for r in rows:
        print_row(r)
    tracebacks = sum(r.traceback for r in rows)
    changed = sum(1 for r in rows if r.exit_code and not r.bytes_unchanged)
    problems = sum(r.problem for r in rows)
    print(
        f"{len(rows)} runs: {tracebacks} tracebacks, {changed} changed stores on failure, {problems} problems"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--commands", help="comma-separated commands (default: all)")
    parser.add_argument("--faults", help=f"comma-separated faults (default: all of {', '.join(FAULTS)})")
    parser.add_argument("--json", action="store_true", help="print the rows as a JSON array instead")
    parser.add_argument("--progress", action="store_true", help="print each row on stderr as it is done")
    args = parser.parse_args()
    from solvelens.sandbox.process import start_sandbox

    with tempfile.TemporaryDirectory(prefix="fault-walk-") as tmp:
        scratch = Path(tmp)
        scratch.chmod(0o755)
        server = start_sandbox(scratch / "sandbox.sqlite", seed=0, scale="small")
        try:
            bot = build_store(server.base_url, scratch / "pristine.duckdb")
            chosen = args.commands.split(",") if args.commands else list(commands("", ""))
            faults = args.faults.split(",") if args.faults else FAULTS
            rows = walk(
                scratch / "pristine.duckdb",
                server.base_url,
                bot,
                chosen,
                faults,
                scratch,
                progress=args.progress,
            )
        finally:
            server.stop()
    if args.json:
        print(json.dumps([asdict(r) | {"problem": r.problem} for r in rows], indent=1))
    else:
        print_table(rows)
    return 1 if any(r.problem for r in rows) else 0


if __name__ == "__main__":
    raise SystemExit(main())
