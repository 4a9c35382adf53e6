"""``solvelens.lean_imports``: httpx and stamina imported without httpx's command line and tenacity's Tornado
support, each in a fresh interpreter (the modules hidden are process-wide state); afterwards both import as
usual, and a library imported before the block keeps what it imported."""

from __future__ import annotations

import json
import subprocess
import sys

_CHECK = r"""
import json, sys
{before}
import solvelens.client
import httpx, tenacity
state = {{
    "loaded": sorted(m for m in ("httpx._main", "click", "pygments", "tornado") if m in sys.modules),
    "none_left": sorted(m for m, v in sys.modules.items() if v is None and m in ("httpx._main", "tornado")),
    "tenacity_tornado": tenacity.tornado is not None,
    "httpx_cli_stand_in": type(httpx.main).__name__ == "function",  # the real one is a click command
}}
import tornado, httpx._main  # importable again after the block
state["after"] = [tornado.__name__, httpx._main.__name__]
print(json.dumps(state))
"""


def _state(before: str = "") -> dict[str, object]:
    proc = subprocess.run(
        [sys.executable, "-c", _CHECK.format(before=before)], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    state: dict[str, object] = json.loads(proc.stdout)
    return state


def test_the_client_imports_httpx_and_stamina_without_their_optional_parts() -> None:
    state = _state()
    assert state["loaded"] == []
    assert state["none_left"] == []  # nothing stays hidden
    assert state["tenacity_tornado"] is False  # tenacity's documented path without Tornado
    assert state["httpx_cli_stand_in"] is True  # httpx's stand-in `main`, as without httpx[cli]
    assert state["after"] == ["tornado", "httpx._main"]


def test_a_library_imported_before_is_left_as_it_is() -> None:
    state = _state(before="import httpx, tenacity")
    assert state["tenacity_tornado"] is True
    assert state["httpx_cli_stand_in"] is False
    assert "tornado" in state["loaded"] and "httpx._main" in state["loaded"]
