"""Fixtures of the store tests (helpers in :mod:`tests.store.fakes`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.store.fakes import FakePlatform, make_platform


@pytest.fixture
def platform() -> FakePlatform:
    """A small platform: 20 problems x 5 solutions, 10 bots."""
    return make_platform()


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """Path of a fresh (not yet created) store file."""
    return tmp_path / "store.duckdb"
