"""Run the sandbox platform's server as a subprocess on 127.0.0.1 (real uvicorn, real SQLite file).

Used by the demo and the test fixtures: :func:`start_sandbox` builds the platform when the file is missing,
starts ``python -m solvelens sandbox serve`` on a free port, waits for ``/health`` and returns a
:class:`SandboxServer`; ``SandboxServer.stop()`` ends it. The server's stderr goes to
``<db>.server.log`` (never to an unread pipe, which would block a chatty server).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx


class SandboxStartError(RuntimeError):
    """The sandbox server exited while starting or did not answer ``/health`` in time (with its log)."""


STARTUP_TIMEOUT = 60.0


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class SandboxServer:
    """A running sandbox server subprocess."""

    root_url: str
    base_url: str
    db_path: Path
    process: subprocess.Popen[bytes] = field(repr=False)
    log_path: Path = field(repr=False)

    def create_bot(self, name: str, *, description: str | None = None) -> str:
        """Create an active bot in this platform (same SQLite file) and return its fresh API key."""
        from solvelens.sandbox.accounts import create_bot

        return create_bot(self.db_path, name, description=description)

    def advance_clock(self, seconds: float) -> float:
        """Move the server's wall clock ``seconds`` forward (``POST /_sandbox/clock``: task lifetimes end,
        quota windows of ``seconds`` or less end; :mod:`solvelens.sandbox.wallclock`) instead of sleeping;
        returns the clock's offset. Raises ``httpx.HTTPStatusError`` for a negative ``seconds``."""
        import httpx

        from solvelens.sandbox.wallclock import CLOCK_PATH

        answer = httpx.post(self.root_url + CLOCK_PATH, json={"advance": seconds}, timeout=10)
        answer.raise_for_status()
        return float(answer.json()["offset"])

    def stop(self) -> None:
        """Stop the server (SIGTERM, then SIGKILL after 10 s)."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def start_sandbox(db_path: Path, *, seed: int = 0, scale: str = "small", **options: Any) -> SandboxServer:
    """Build the platform at ``db_path`` when missing, then serve it from a subprocess; wait for ``/health``.

    ``options``: the switches of :class:`~solvelens.sandbox.options.SandboxOptions` by key
    (:func:`solvelens.sandbox.switches.specs`; lists/tuples are joined with commas), e.g.
    ``conventions="hal"`` for another wire convention (:mod:`solvelens.sandbox.conventions`),
    ``without=("activity", "comparisons")`` for a platform without those optional endpoints. Raises
    :class:`SandboxStartError` when the server exits or does not answer within 60 s, :class:`TypeError` for
    an unknown option."""
    from solvelens.sandbox.options import SandboxOptions
    from solvelens.sandbox.switches import command_line

    flags = command_line(SandboxOptions, options)
    if not db_path.exists():
        from solvelens.sandbox.generate import build_platform

        build_platform(db_path, seed=seed, scale=scale)
    port = free_port()
    cmd = [sys.executable, "-m", "solvelens", "sandbox", "serve", "--host", "127.0.0.1", "--port", str(port)]
    cmd += ["--db", str(db_path), "--seed", str(seed), "--scale", scale]
    cmd += flags
    log_path = db_path.with_suffix(".server.log")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SOLVELENS_SANDBOX_")}
    with log_path.open("wb") as log:
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=log, env=env)
    root = f"http://127.0.0.1:{port}"
    server = SandboxServer(root, f"{root}/api/v1", db_path, proc, log_path)
    deadline = time.monotonic() + STARTUP_TIMEOUT
    # one client for the whole wait: a client per poll built an SSL context each time (~10-30 ms of CPU,
    # 40-100 polls while the server imports), CPU taken from the starting server
    with httpx.Client(timeout=2.0) as client:
        while True:
            if proc.poll() is not None:
                raise SandboxStartError(
                    f"sandbox server exited ({proc.returncode}):\n{log_path.read_text()[-3000:]}"
                )
            try:
                if client.get(f"{root}/health").status_code == 200:
                    return server
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                server.stop()
                raise SandboxStartError(
                    f"sandbox server did not answer /health within {STARTUP_TIMEOUT:.0f} s"
                )
            time.sleep(0.05)
