"""Sandbox apps built in threads at once (the truth tests' ``modes`` fixture starts four servers at once).

FastAPI builds each route parameter's validator inside ``warnings.catch_warnings()`` to silence pydantic's
``UnsupportedFieldAttributeWarning`` (``'alias' ... has no effect``), and ``catch_warnings`` swaps the
process's one filter list: not thread-safe. Two threads inside it at once can restore the filters under
each other, and the warning escapes (the suite saw it once per run with ``page_token``, ``sort``, ``q``,
``after`` or ``authorization``). pytest makes that warning an error (pyproject's ``filterwarnings``).
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from fastapi._compat.v2 import ModelField

from solvelens.sandbox.app import create_app
from solvelens.sandbox.generate import build_platform

MODES = ("jsonapi", "hal", "odata", "relay")


def test_apps_built_in_threads_at_once_build_their_parameters_one_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    db = tmp_path / "empty.sqlite"
    build_platform(db, seed=0, scale="empty")
    guard, inside, most = threading.Lock(), [0], [0]
    build = ModelField.__post_init__

    def counted(self: ModelField) -> None:
        with guard:
            inside[0] += 1
            most[0] = max(most[0], inside[0])
        try:
            time.sleep(0.001)  # the window another thread's build could enter
            build(self)
        finally:
            with guard:
                inside[0] -= 1

    monkeypatch.setattr(ModelField, "__post_init__", counted)
    with ThreadPoolExecutor(len(MODES)) as pool:
        apps = list(pool.map(lambda mode: create_app(db, conventions=mode), MODES))
    assert len(apps) == len(MODES) and most[0] == 1
