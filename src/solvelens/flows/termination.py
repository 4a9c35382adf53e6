"""A SIGTERM that lands inside a callback ends the flow run anyway.

During a flow run Prefect's engine turns SIGTERM into an exception: its handler raises
``prefect.exceptions.TerminationSignal`` in whatever Python code the main thread runs when the signal is
handled. ``solvelens schedule`` stops a run in progress that way (SIGTERM to the run's process). When that
code is a callback Python calls itself (a weak reference's callback, e.g. a ``WeakValueDictionary``'s
``remove``; a ``__del__``), Python cannot pass the exception on: it prints "Exception ignored in: ..." with
the traceback on stderr and goes on. The run then neither stops nor reports its cancellation (until it is
killed), and the traceback lands on the terminal of ``solvelens schedule`` (a CI run caught it).

:func:`redeliver_swallowed_termination` installs a :func:`sys.unraisablehook` that, for such an exception,
sends the same signal to this process again from a short-lived thread instead of printing. The thread is
needed: any Python code handles a pending signal at its next call, so a signal raised from the hook itself
(``signal.raise_signal``, ``os.kill``, ``_thread.interrupt_main``) would run Prefect's handler inside the
hook, where its exception is swallowed again. From the thread, the main thread handles it once it runs
outside the callback (within Python's 5 ms thread switch interval), so Prefect's handler raises
``TerminationSignal`` where the flow can end. Every other unraisable exception, and this one at interpreter
shutdown (no thread starts then), goes to the hook installed before, unchanged.
"""

from __future__ import annotations

import _thread
import os
import sys
from typing import Any

__all__ = ["redeliver_swallowed_termination"]


def _send_again_later(signum: int) -> bool:
    """Send ``signum`` to this process from a new thread; False if no thread could start. The low-level
    ``_thread`` start: ``threading.Thread.start`` waits for the thread, and the signal would be handled in
    that wait, inside the hook."""
    try:
        _thread.start_new_thread(os.kill, (os.getpid(), signum))
    except RuntimeError:  # "can't create new thread at interpreter shutdown"
        return False
    return True


def _redelivering(previous: Any) -> Any:
    def hook(unraisable: Any) -> None:
        from prefect.exceptions import TerminationSignal

        exc = unraisable.exc_value
        if isinstance(exc, TerminationSignal) and _send_again_later(exc.signal):
            return
        previous(unraisable)

    hook.redelivers_termination = True  # type: ignore[attr-defined]
    return hook


def redeliver_swallowed_termination() -> bool:
    """Install the hook of the module docstring in this process (``sys.unraisablehook``, wrapping the one
    installed before); returns False when it is installed already (idempotent), True when it installed it.
    Each flow body calls it first: it runs in the run's own process (spawned by ``schedule``'s runner, a
    worker's ``prefect.engine`` or the ``snapshot`` command itself). A process ``solvelens schedule`` spawns
    installs it at its start (:mod:`solvelens.cli`'s import), before Prefect's engine sets its SIGTERM
    handler."""
    if getattr(sys.unraisablehook, "redelivers_termination", False):
        return False
    sys.unraisablehook = _redelivering(sys.unraisablehook)
    return True
