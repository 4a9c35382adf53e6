"""The notebooks run top to bottom (nbclient, the venv's python3 kernel) against a generated store, and
are kept in git without outputs."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from solvelens.charts.renderer import V5_MIMETYPE

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
NAMES = ["leaderboard_history.ipynb", "explore_trends.ipynb", "my_bot.ipynb", "arena.ipynb"]
#: Charts each notebook draws (each one an SVG output plus an interactive Vega-Lite v5 output).
CHARTS = {"leaderboard_history.ipynb": 4, "explore_trends.ipynb": 9, "my_bot.ipynb": 3, "arena.ipynb": 5}
#: The store fixture each notebook runs against (default ``store_db``): the arena needs the platform's votes.
STORES = {"arena.ipynb": "evidence_store_db"}


@pytest.mark.parametrize("name", NAMES)
def test_committed_notebook_has_no_outputs_and_a_parameters_cell(name: str) -> None:
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    nbformat.validate(nb)
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    assert all(not cell.outputs and cell.execution_count is None for cell in code), "outputs are stripped"
    params = [cell for cell in code if "parameters" in cell.metadata.get("tags", [])]
    assert len(params) == 1
    assert "SOLVELENS_DB" in params[0].source and "data/solvelens.duckdb" in params[0].source
    # It says how to set the parameters, and names no tool the project does not ship (no papermill command).
    assert "SOLVELENS_DB=data/demo/solvelens.duckdb .venv/bin/jupyter lab" in params[0].source
    assert "papermill" not in params[0].source.lower()
    source = "".join(cell.source for cell in code)
    assert source.count("setup(DB_PATH") == 1, "one call of the shared setup helper"
    assert "an.load(" not in source and "renderers.enable" not in source, "no copied setup code"


def execute_notebook(name: str) -> list[dict]:
    """Run ``notebooks/<name>`` top to bottom (the venv's python3 kernel, the current environment); return
    the outputs of its code cells. Raises ``nbclient.exceptions.CellExecutionError`` when a cell fails."""
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOKS)}}
    ).execute()
    return [out for cell in nb.cells if cell.cell_type == "code" for out in cell.outputs]


@pytest.mark.parametrize("name", NAMES)
def test_notebook_runs_against_the_generated_store(
    name: str, request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store_db = request.getfixturevalue(STORES.get(name, "store_db"))
    monkeypatch.setenv("SOLVELENS_DB", str(store_db))
    monkeypatch.setenv("SOLVELENS_WINDOW_DAYS", "30")
    outputs = execute_notebook(name)
    assert not [out for out in outputs if out.output_type == "error"]
    svgs = [out for out in outputs if "image/svg+xml" in out.get("data", {})]
    assert len(svgs) == CHARTS[name], "every chart renders as SVG"
    interactive = [out for out in svgs if V5_MIMETYPE in out["data"]]
    assert len(interactive) == len(svgs), "every chart also carries a Vega-Lite v5 spec for JupyterLab"
    assert all(out["data"][V5_MIMETYPE]["$schema"].endswith("/v5.json") for out in interactive)
    assert any("snapshot(s) from" in out.get("text", "") for out in outputs if out.output_type == "stream")


def test_my_bot_notebook_shows_a_bot_outside_the_top_20(
    store_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import polars as pl

    from solvelens import analysis as an

    store = an.load(store_db)
    history = an.rank_history(store.leaderboard, store.snapshots)
    name = an.current_leaderboard(history).filter(pl.col("rank") > 20)["name"][0]
    monkeypatch.setenv("SOLVELENS_DB", str(store_db))
    monkeypatch.setenv("SOLVELENS_BOT", name.upper())
    outputs = execute_notebook("my_bot.ipynb")
    text = "".join(out.get("text", "") for out in outputs if out.get("output_type") == "stream")
    assert f"{name}: rank " in text


def test_arena_notebook_on_a_store_without_votes_names_the_fix(
    store_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from nbclient.exceptions import CellExecutionError

    monkeypatch.setenv("SOLVELENS_DB", str(store_db))
    with pytest.raises(CellExecutionError, match="No vote between two models is stored") as caught:
        execute_notebook("arena.ipynb")
    assert "/solutions/{id}/comparisons" in str(caught.value) and "solvelens snapshot" in str(caught.value)
