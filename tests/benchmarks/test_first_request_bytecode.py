"""``benchmarks/first_request.py``'s :func:`compile_sources` (both start-to-first-request benchmarks call it
first): a changed or new source is byte-compiled once, as an install does, and counted; an unchanged one is
left alone. In a folder of the test's own, never the real ``src``."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "first_request_bench", ROOT / "benchmarks" / "first_request.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_changed_sources_are_compiled_once_and_counted(tmp_path: Path) -> None:
    bench = _bench()
    (tmp_path / "pkg").mkdir()
    a, b = tmp_path / "pkg" / "a.py", tmp_path / "pkg" / "b.py"
    a.write_text("X = 1\n")
    b.write_text("Y = 2\n")
    assert bench.compile_sources(tmp_path) == 2  # no bytecode yet
    assert Path(importlib.util.cache_from_source(str(a))).exists()
    assert bench.compile_sources(tmp_path) == 0  # current: nothing to do
    a.write_text("X = 10\n")  # a merge changed it (size differs from the bytecode's header)
    assert bench.compile_sources(tmp_path) == 1
    assert bench.compile_sources(tmp_path) == 0
