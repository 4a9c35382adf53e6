"""A SIGTERM handled inside a callback still ends the flow run (``solvelens.flows.termination``).

A CI run of ``test_schedule_stops_cleanly_and_cancels_stale_runs`` printed "Exception ignored in:
<function WeakValueDictionary.__init__.<locals>.remove ...> ... prefect.exceptions.TerminationSignal" on the
stderr of ``solvelens schedule``: the SIGTERM that stops the run in progress was handled while the run's
process was in a weak reference's callback, so Prefect's ``TerminationSignal`` was swallowed and printed.
Here a child process makes that happen every time (the callback raises the signal itself)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

#: The child: Prefect's SIGTERM bridge (as during a flow run), a SIGTERM handled inside a weak reference's
#: callback, then 2 s of the main code, which ends early only if the signal reaches it.
CHILD = textwrap.dedent(
    """
    import signal, sys, time, weakref
    if sys.argv[1] == "installed":
        from solvelens.flows.termination import redeliver_swallowed_termination
        assert redeliver_swallowed_termination() and not redeliver_swallowed_termination()
    from prefect.exceptions import TerminationSignal
    from prefect.utilities.engine import capture_sigterm

    class Thing:
        pass

    def callback(ref):
        signal.raise_signal(signal.SIGTERM)
        return ref  # the handler raises at this line's call boundary, inside the callback

    with capture_sigterm():
        try:
            thing = Thing()
            ref = weakref.ref(thing, callback)
            del thing
            deadline = time.monotonic() + 2
            while time.monotonic() < deadline:
                time.sleep(0.001)
            print("still running after 2 s", flush=True)
        except TerminationSignal:
            print("terminated", flush=True)
    """
)


def _child(mode: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", CHILD, mode], capture_output=True, text=True, timeout=120, check=False
    )


@pytest.mark.parametrize("mode", ["installed", "control"])
def test_a_sigterm_handled_inside_a_callback_still_ends_the_run(mode: str):
    done = _child(mode)
    if mode == "installed":
        assert (done.returncode, done.stdout, done.stderr) == (0, "terminated\n", ""), done
    else:  # without the hook: the case the test is for (a check that the child reproduces it)
        assert done.stdout == "still running after 2 s\n", done
        assert "Exception ignored in" in done.stderr and "TerminationSignal" in done.stderr, done.stderr


def test_other_unraisable_exceptions_reach_the_hook_installed_before(monkeypatch: pytest.MonkeyPatch):
    from solvelens.flows.termination import redeliver_swallowed_termination

    seen: list[BaseException | None] = []
    monkeypatch.setattr(sys, "unraisablehook", lambda unraisable: seen.append(unraisable.exc_value))
    assert redeliver_swallowed_termination()

    class Failing:
        def __del__(self) -> None:
            raise ValueError("from __del__")

    Failing()
    assert [type(e) for e in seen] == [ValueError]
