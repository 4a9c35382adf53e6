"""The layer contracts of ``pyproject.toml`` (``lint-imports``, run by ``make lint``): the real tree keeps
them, and a deliberately wrong import in a temporary copy of the package breaks them (the real tree is never
touched)."""

from __future__ import annotations

import os
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
    ],
)
def test_a_wrong_import_in_a_copy_breaks_a_contract(
    package_copy: Path, module: str, source: str, broken: str
) -> None:
    (package_copy / "solvelens" / module).write_text(source, encoding="utf-8")
    result = _lint_imports(package_copy, package_copy)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "BROKEN" in result.stdout and broken in result.stdout, result.stdout
    assert f"solvelens.{module.removesuffix('.py').replace('/', '.')}" in result.stdout
    assert not (ROOT / "src" / "solvelens" / module).exists()
