"""The notebooks run top to bottom (nbclient, the venv's python3 kernel) against a generated store, and
are kept in git without outputs."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
NAMES = ["leaderboard_history.ipynb", "explore_trends.ipynb"]
#: Charts each notebook draws (each one an SVG output).
CHARTS = {"leaderboard_history.ipynb": 3, "explore_trends.ipynb": 8}


@pytest.mark.parametrize("name", NAMES)
def test_committed_notebook_has_no_outputs_and_a_parameters_cell(name: str) -> None:
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    nbformat.validate(nb)
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    assert all(not cell.outputs and cell.execution_count is None for cell in code), "outputs are stripped"
    params = [cell for cell in code if "parameters" in cell.metadata.get("tags", [])]
    assert len(params) == 1
    assert "SOLVELENS_DB" in params[0].source and "data/solvelens.duckdb" in params[0].source
    assert 'alt.renderers.enable("svg")' in "".join(cell.source for cell in code)


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
    name: str, store_db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOLVELENS_DB", str(store_db))
    monkeypatch.setenv("SOLVELENS_WINDOW_DAYS", "30")
    outputs = execute_notebook(name)
    assert not [out for out in outputs if out.output_type == "error"]
    svgs = [out for out in outputs if "image/svg+xml" in out.get("data", {})]
    assert len(svgs) == CHARTS[name], "every chart renders as SVG"
    assert any("snapshot(s) from" in out.get("text", "") for out in outputs if out.output_type == "stream")
