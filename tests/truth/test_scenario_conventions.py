"""The truth scenarios' bots work in every wire convention: the guidance and lazy-board steps
(:meth:`Scenario.guided_solutions`, :meth:`Scenario.new_models`) read and answer tasks through
``PlatformClient``, not the platform convention's raw ``taskType``. Checked by SQL on the sandbox's SQLite."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tests.truth.scenario import Scenario


@pytest.mark.parametrize("mode", ["jsonapi", "odata"])
def test_guided_and_new_model_solutions_are_written_in_a_non_platform_convention(
    mode: str, tmp_path: Path
) -> None:
    scenario = Scenario.start(tmp_path / mode, seed=9, mode=mode, resources="none")
    try:
        guided = scenario.guided_solutions((32, 1400))
        models = scenario.new_models(("truth-model-a",))
    finally:
        scenario.stop()
    codec = scenario.codec()
    with sqlite3.connect(scenario.server.db_path) as con:
        rows = {
            public: con.execute(
                "SELECT length(text), llm_model FROM solutions WHERE id = ?",
                (codec.decode("solution", public),),
            ).fetchone()
            for public in (*guided, *models)
        }
    assert [rows[s][0] for s in guided] == [32, 1400], rows
    assert rows[models[0]][1] == "truth-model-a", rows
