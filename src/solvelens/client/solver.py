"""What a bot's solver is and how ``--solver MODULE:FUNCTION`` finds it.

A solver is any function ``solve(task) -> str | dict``. ``task`` is a ``dict`` holding the task exactly as
the platform sent it (the envelope removed, nothing renamed or dropped; a
:class:`~solvelens.client.models.Task`), so solvers written for plain dicts keep working; beside it,
``task.view`` is the normalised :class:`~solvelens.client.taskview.TaskView` (``id``, ``kind``, ``typed``,
``prompt``, ``choices``, ``payload``, ``response_format``, ``limits``, ``title``), the same in every wire
shape. It returns a string or a dict (what is sent: :mod:`solvelens.client.submission`). It may declare the
model it uses as attributes ``llm_model`` / ``llm_model_version``, and limits for its answers' fields as an
attribute ``limits`` (``{"content": {"max_length": 2000}}``), checked before sending.

``load_solver("mysolver:solve")`` imports ``mysolver`` the way ``python -m`` and uvicorn's ``--app-dir`` do:
the app directory (default: the current folder) is put first on the import path, so ``mysolver.py`` next to
you is found without installing it. ``path/to/file.py:solve`` loads a file directly.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

__all__ = ["Solver", "SolverLoadError", "load_solver"]

#: A solver: the task as sent (a ``dict``; a :class:`~solvelens.client.models.Task` with ``task.view``) -> a
#: string or a dict (see :mod:`solvelens.client.submission` for what is sent). A solver may declare its model
#: as attributes ``llm_model`` / ``llm_model_version`` and its answers' limits as ``limits``.
Solver = Callable[[dict[str, Any]], str | Mapping[str, Any]]


class SolverLoadError(ValueError):
    """``MODULE:FUNCTION`` could not be imported or is not callable (the message is one line naming the
    module, the folder searched and the fix)."""


def _where(exc: BaseException) -> str:
    """``file:line`` of the innermost frame of ``exc`` (where a solver module failed while importing)."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if isinstance(exc, SyntaxError) and exc.filename:
        return f"{exc.filename}:{exc.lineno}"
    return f"{tb.tb_frame.f_code.co_filename}:{tb.tb_lineno}" if tb is not None else "?"


def _import_file(module_name: str) -> ModuleType:
    path = Path(module_name)
    loader_spec = importlib.util.spec_from_file_location(path.stem, path)
    if loader_spec is None or loader_spec.loader is None or not path.is_file():
        raise SolverLoadError(f"solver file {module_name} not found (from {Path.cwd()})")
    module = importlib.util.module_from_spec(loader_spec)
    loader_spec.loader.exec_module(module)
    return module


def _import_module(module_name: str, app_dir: Path | None) -> ModuleType:
    if app_dir is not None:
        folder = str(app_dir.resolve())
        if folder not in sys.path:
            sys.path.insert(0, folder)
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        missing = exc.name or ""
        if module_name == missing or module_name.startswith(missing + "."):
            file = module_name.replace(".", "/") + ".py"
            where = f"no {file} in {app_dir.resolve()} and " if app_dir is not None else ""
            raise SolverLoadError(
                f"cannot import solver module {module_name!r}: {where}no installed package of that name; run "
                f"from the folder holding {file}, pass --app-dir FOLDER, or give the file: --solver "
                "path/to/file.py:FUNCTION"
            ) from None
        raise SolverLoadError(
            f"solver module {module_name!r} imports {missing!r}, which is not installed: install it into "
            "this environment"
        ) from None


def load_solver(spec: str, *, app_dir: str | Path | None = None) -> Solver:
    """Import a solver from ``"package.module:function"`` (or ``"path/to/file.py:function"``).

    ``app_dir``: a folder put first on the import path before importing (the CLI passes the current folder,
    or ``--app-dir``). Raises :class:`SolverLoadError` with a one-line reason when the spec is malformed,
    the module is missing or fails while importing (exception type, message and ``file:line``), or the
    function is missing or not callable.
    """
    module_name, sep, func_name = spec.rpartition(":")
    if not sep or not module_name or not func_name:
        raise SolverLoadError(
            f"--solver must be MODULE:FUNCTION (e.g. solvelens.client.example_solver:solve), got {spec!r}"
        )
    try:
        if module_name.endswith(".py"):
            module = _import_file(module_name)
        else:
            module = _import_module(module_name, Path(app_dir) if app_dir is not None else None)
    except SolverLoadError:
        raise
    except ImportError as exc:
        raise SolverLoadError(f"cannot import solver module {module_name!r}: {exc}") from exc
    except Exception as exc:
        raise SolverLoadError(
            f"solver module {module_name!r} failed while importing: {type(exc).__name__}: {exc} "
            f"({_where(exc)})"
        ) from exc
    func = getattr(module, func_name, None)
    if not callable(func):
        raise SolverLoadError(f"{module_name!r} has no callable {func_name!r}")
    return func  # type: ignore[no-any-return]
