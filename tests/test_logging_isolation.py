"""Each test starts with the ``solvelens`` loggers as configured before it (tests/conftest.py): an in-process
``bot run`` (typer's CliRunner) adds a stderr handler to ``solvelens.client`` and stops its propagation, once
per run. Left in place, the handlers piled up over the suite's in-process runs and every later warning of
the client was written once per handler: after them, ``tests/client/test_ratelimit.py``'s hypothesis test
(up to 120,000 pacing warnings) took 475 s of CPU instead of 1.5 s in one run."""

from __future__ import annotations

import logging

from solvelens.cli.bot import _log_retries


def test_an_in_process_bot_run_sets_up_the_client_log() -> None:
    _log_retries(False)  # what `bot run` does before it starts
    client = logging.getLogger("solvelens.client")
    assert client.handlers and not client.propagate


def test_the_next_test_starts_without_it() -> None:
    """Runs after the test above (same module, same worker)."""
    client = logging.getLogger("solvelens.client")
    assert client.handlers == [] and client.propagate and client.level == logging.NOTSET
