"""CLI conventions a typer/Click user expects (issue 33): ``--version``, a missing store said before the
report's libraries load. (An unknown root option and a --solver that cannot be loaded are cases of
tests/cli/test_bad_input.py.)"""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import version
from pathlib import Path


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "solvelens", *args], capture_output=True, text=True, timeout=120, cwd=cwd
    )


def test_version_prints_one_line_and_exits_0(tmp_path: Path) -> None:
    proc = _run("--version", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == f"solvelens {version('solvelens')}\n" and not proc.stderr


def test_report_on_a_missing_store_says_so_before_loading_the_report(tmp_path: Path) -> None:
    """The line comes before polars, Altair or the report package are imported (they took ~5 s)."""
    code = (
        "import sys\n"
        "from solvelens.cli import app\n"
        "try:\n"
        "    app(['report', '--db', 'missing.duckdb'])\n"
        "except SystemExit as exc:\n"
        "    print('exit', exc.code)\n"
        "print(sorted(m for m in ('polars', 'altair', 'solvelens.report') if m in sys.modules))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=tmp_path
    )
    assert proc.stdout.splitlines() == ["exit 1", "[]"], proc.stdout + proc.stderr
    assert proc.stderr.strip() == (
        "error: no snapshot store at missing.duckdb: run `solvelens snapshot --db missing.duckdb` first"
    )
    assert not (tmp_path / "missing.duckdb").exists()
