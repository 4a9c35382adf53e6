"""Importing httpx and stamina without the optional parts of their import chains solvelens never uses.

Both libraries import an optional package whenever it is installed, and this environment installs both:

- ``httpx`` imports its command line client (``httpx._main``: click, rich's progress and syntax, pygments)
  when those are installed (typer brings click and rich); ``python -X importtime``: 40-60 ms of CPU at the
  start of every ``solvelens`` command that sends a request, before its first request.
- ``stamina`` imports ``tenacity``, which imports ``tornado`` (and through it colorama, ctypes, html) when
  it is installed (JupyterLab brings it), only to retry Tornado coroutines: 10-15 ms of CPU.

:func:`lean_imports` hides those two modules while its block imports httpx and stamina: each library then
takes the path it takes when the optional package is not installed (httpx's ``main`` prints that its command
line needs ``httpx[cli]``; tenacity retries coroutines through asyncio, its documented ``tornado = None``
path). Nothing of ours calls httpx's command line or retries a Tornado coroutine, and the ``httpx`` console
script runs in a process of its own. After the block both modules import as usual. It changes nothing for a
library imported before the block. :data:`HIDDEN` names the modules.

Standard library only, so :mod:`solvelens.flows.preflight` can use it before the client is imported.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

#: The module each library would import, keyed by the library that imports it.
HIDDEN = {"httpx": "httpx._main", "tenacity": "tornado"}

__all__ = ["HIDDEN", "lean_imports", "modules_hidden"]


@contextmanager
def modules_hidden(names: Iterable[str]) -> Iterator[None]:
    """For the block, ``import`` of each module of ``names`` not imported yet raises ``ImportError`` (the
    import system's "not found": ``sys.modules[name] = None``); afterwards each imports as usual. A module
    imported before the block is left as it is. Shared by :func:`lean_imports` and
    :func:`solvelens.flows.prefect_import.prefect_imported`."""
    hidden = [name for name in names if name not in sys.modules]
    for name in hidden:
        sys.modules[name] = None  # type: ignore[assignment]  # the import system's "not found"
    try:
        yield
    finally:
        for name in hidden:
            if name in sys.modules and sys.modules[name] is None:
                del sys.modules[name]


@contextmanager
def lean_imports() -> Iterator[None]:
    """For the block (which imports httpx, stamina, or a module that does), importing a module of
    :data:`HIDDEN` raises ``ImportError`` unless the library importing it, or the module itself, was imported
    before; afterwards the modules import as usual."""
    with modules_hidden(module for library, module in HIDDEN.items() if library not in sys.modules):
        yield
