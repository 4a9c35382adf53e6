"""``solvelens snapshot``'s progress display: drawn on a terminal (a real pseudo-terminal here), absent when
the output is a pipe (cron, a log file), where rich would draw nothing but keep its refresh thread busy."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
import threading
from pathlib import Path

from tests.fixtures.sandbox import SandboxServer
from tests.fixtures.terminal import readable

_RUN = r"""
import atexit, sys, threading
seen = set()
original = threading.Thread.start
def start(self):
    seen.add(type(self).__name__)
    original(self)
threading.Thread.start = start
atexit.register(lambda: sys.stderr.write("THREADS " + " ".join(sorted(seen)) + "\n"))
sys.argv = ["solvelens", *sys.argv[1:]]
from solvelens.cli import app
app()
"""


def _args(sandbox: SandboxServer, db: Path) -> list[str]:
    return ["snapshot", "--base-url", sandbox.base_url, "--db", str(db), "--resources", "none", "--no-bot-me"]


def test_on_a_terminal_the_fetch_shows_its_progress(sandbox: SandboxServer, tmp_path: Path) -> None:
    main, replica = pty.openpty()
    env = {**os.environ, "COLUMNS": "120", "TERM": "xterm"}
    proc = subprocess.Popen(
        [sys.executable, "-c", _RUN, *_args(sandbox, tmp_path / "s.duckdb")],
        stdin=replica, stdout=replica, stderr=subprocess.PIPE, env=env,
    )  # fmt: skip
    os.close(replica)
    chunks: list[bytes] = []

    def drain() -> None:  # read the terminal while the command runs, so it never blocks on a full buffer
        while True:
            if readable(main, 0.2):
                try:
                    data = os.read(main, 65536)
                except OSError:  # the replica side closed: the command exited
                    return
                if not data:
                    return
                chunks.append(data)
            elif proc.poll() is not None:
                return

    reader = threading.Thread(target=drain)
    reader.start()
    _, err = proc.communicate(timeout=120)
    reader.join(timeout=10)
    os.close(main)
    screen = b"".join(chunks).decode(errors="replace")
    assert proc.returncode == 0, err.decode(errors="replace")
    assert "solution lists" in screen, screen[-2000:]
    assert "_RefreshThread" in err.decode()


def test_into_a_pipe_there_is_no_progress_display(sandbox: SandboxServer, tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", _RUN, *_args(sandbox, tmp_path / "s.duckdb")],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "snapshot 1 taken" in proc.stdout
    assert "solution lists" not in proc.stdout + proc.stderr
    threads = next(line for line in proc.stderr.splitlines() if line.startswith("THREADS"))
    assert "_RefreshThread" not in threads, threads
