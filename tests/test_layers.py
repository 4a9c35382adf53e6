"""The layer contracts of ``pyproject.toml`` (``lint-imports``, run by ``make lint``): the real tree keeps
them, and a deliberately wrong import in a temporary copy of the package breaks them (the real tree is never
touched)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def _lint_imports(cwd: Path, pythonpath: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(pythonpath)}
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", "--config", str(cwd / "pyproject.toml")],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def _broken(stdout: str) -> list[str]:
    """The names of the contracts ``lint-imports`` reports BROKEN (a name may wrap over several lines; the
    text before each verdict, back to the previous one, holds the name)."""
    listing = " ".join(stdout.split("Contracts:", 1)[0].split())
    parts = re.split(r"(KEPT|BROKEN)", listing)
    return [parts[i - 1] for i in range(1, len(parts)) if parts[i] == "BROKEN"]


@pytest.fixture
def package_copy(tmp_path: Path) -> Path:
    """A copy of ``src/solvelens`` and ``pyproject.toml`` in ``tmp_path`` (bytecode left out)."""
    shutil.copytree(
        ROOT / "src" / "solvelens", tmp_path / "solvelens", ignore=shutil.ignore_patterns("__pycache__")
    )
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


def test_the_real_tree_keeps_every_contract() -> None:
    result = _lint_imports(ROOT, ROOT / "src")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


@pytest.mark.parametrize(
    ("module", "source", "broken"),
    [
        ("charts/_wrong.py", "from solvelens.report import build_report\n", "Layers"),
        ("store/_wrong.py", "import solvelens.analysis\n", "Layers"),
        ("client/_wrong.py", "from solvelens.sandbox import process\n", "Layers"),
        ("sandbox/_wrong.py", "import solvelens.client.errors\n", "Layers"),
        ("analysis/_wrong.py", "def f():\n    from solvelens.flows import steps\n", "Layers"),
        ("flows/_wrong.py", "from solvelens.sandbox.process import free_port\n", "separate server"),
        # exhaustive layers: a new top-level package is placed in no layer
        ("newpart/__init__.py", "", "exhaustive"),
        ("newmodule.py", "", "exhaustive"),
        # the hot path: the client (and the store, the snapshot's steps) never reach these, even in a function
        ("client/_wrong.py", "def f():\n    import apprise\n", "hot path"),
        ("store/_wrong.py", "def f():\n    import scipy.stats\n", "hot path"),
        ("alerts/config_wrong.py", "", None),
    ],
)
def test_a_wrong_import_in_a_copy_breaks_a_contract(
    package_copy: Path, module: str, source: str, broken: str | None
) -> None:
    target = package_copy / "solvelens" / module
    target.parent.mkdir(exist_ok=True)
    target.write_text(source, encoding="utf-8")
    result = _lint_imports(package_copy, package_copy)
    if broken is None:  # a module inside a placed package needs no place of its own
        assert result.returncode == 0, result.stdout + result.stderr
        return
    assert result.returncode == 1, result.stdout + result.stderr
    assert [name for name in _broken(result.stdout) if broken in name], result.stdout
    named = f"solvelens.{module.removesuffix('.py').removesuffix('/__init__').replace('/', '.')}"
    assert named in result.stdout
    assert not (ROOT / "src" / "solvelens" / module).exists()
