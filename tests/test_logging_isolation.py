"""The ``solvelens`` loggers stay as they were configured: ``bot run`` sets up its retry lines (a stderr
handler on ``solvelens.client``, no propagation) for its run only, and each test starts with the loggers as
before it (tests/conftest.py). Before both, an in-process ``bot run`` (typer's CliRunner, a notebook) added a
handler once per run; they piled up over the suite's in-process runs and every later warning of the client
was written once per handler: after them, ``tests/client/test_ratelimit.py``'s hypothesis test (up to
120,000 pacing warnings) took 475 s of CPU instead of 1.5 s in one run."""

from __future__ import annotations

import logging

from solvelens.cli.bot import _retry_lines


def test_bot_runs_retry_lines_hold_for_its_run_only() -> None:
    client = logging.getLogger("solvelens.client")
    before = (client.handlers[:], client.level, client.propagate)
    for verbose, level in ((False, logging.WARNING), (True, logging.INFO)):
        with _retry_lines(verbose):
            assert len(client.handlers) == len(before[0]) + 1
            assert client.level == level and not client.propagate
        assert (client.handlers, client.level, client.propagate) == before


def test_a_test_may_change_the_client_log() -> None:
    client = logging.getLogger("solvelens.client")
    client.addHandler(logging.NullHandler())
    client.propagate = False
    assert client.handlers and not client.propagate


def test_the_next_test_starts_without_it() -> None:
    """Runs after the test above (same module, same worker)."""
    client = logging.getLogger("solvelens.client")
    assert client.handlers == [] and client.propagate and client.level == logging.NOTSET
