"""The one exception -> exit code table of :mod:`solvelens.cli.common`."""

from __future__ import annotations

import importlib

import pytest
import typer
from typer.testing import CliRunner

from solvelens.cli import app
from solvelens.cli.common import EXIT_RULES, BadInputError, exit_for, on_failure, rule_for
from solvelens.store.errors import NotAStoreError, StoreBusyError, StoreNotFoundError


@pytest.mark.parametrize("name", sorted(EXIT_RULES))
def test_every_rule_names_an_exception_class_that_exists(name: str) -> None:
    module, _, qualname = name.rpartition(".")
    cls = getattr(importlib.import_module(module), qualname)
    assert isinstance(cls, type) and issubclass(cls, BaseException)


def test_the_most_specific_listed_class_decides() -> None:
    assert rule_for(NotAStoreError("x")) is not None and rule_for(NotAStoreError("x")).code == 2  # type: ignore[union-attr]
    assert rule_for(StoreBusyError("x")).code == 1  # type: ignore[union-attr]
    assert rule_for(StoreNotFoundError("x")).code == 1  # a StoreError before a FileNotFoundError  # type: ignore[union-attr]
    assert rule_for(FileExistsError(17, "File exists", "out")).code == 2  # type: ignore[union-attr]
    assert rule_for(KeyboardInterrupt()).code == 130  # type: ignore[union-attr]
    assert rule_for(ZeroDivisionError()) is None


def _context() -> typer.Context:
    return typer.Context(typer.main.get_command(app))


def test_messages_with_and_without_a_failure_context() -> None:
    plain = _context()
    assert exit_for(BadInputError("--x must be 1\nmore"), plain) == (2, "--x must be 1")
    assert exit_for(StoreBusyError("held by pid 7"), plain) == (1, "held by pid 7")
    assert exit_for(FileExistsError(17, "File exists", "out.txt"), plain) == (2, "out.txt: File exists")
    assert exit_for(ZeroDivisionError("bug"), plain) is None  # a bug keeps its traceback
    declared = _context()
    on_failure(declared, "snapshot", "no snapshot was written")
    assert exit_for(StoreBusyError("held"), declared) == (
        1,
        "snapshot failed (StoreBusyError): held; no snapshot was written",
    )
    assert exit_for(ZeroDivisionError("bug"), declared) == (
        1,
        "snapshot failed (ZeroDivisionError): bug; no snapshot was written",
    )
    assert exit_for(KeyboardInterrupt(), declared) == (130, "interrupted; no snapshot was written")
    assert exit_for(BadInputError("--y is wrong"), declared) == (2, "--y is wrong")


def test_the_root_app_prints_one_line_for_a_command_that_raises() -> None:
    result = CliRunner().invoke(app, ["sandbox", "serve", "--task-shape", "odd"])
    assert result.exit_code == 2
    assert result.stderr.strip() == "error: --task-shape must be real or interface, got 'odd'"
