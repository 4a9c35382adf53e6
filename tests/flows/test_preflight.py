"""``solvelens.flows.preflight``: input checks and the reachability probe, against real sockets and a real
sandbox server on 127.0.0.1."""

from __future__ import annotations

import logging
import socket
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from solvelens.cli import app
from solvelens.flows.preflight import (
    PROBE_DEADLINE_S,
    PlatformUnreachableError,
    PreflightError,
    check_base_url,
    check_db_path,
    normalise_taken_at,
    prefect_api_url,
    probe,
    read_timeout,
)
from solvelens.store import write_snapshot
from tests.fixtures.sandbox import SandboxServer, start_sandbox
from tests.store.fakes import make_platform, stage_run


@pytest.mark.parametrize(
    ("url", "message"),
    [
        (
            "http://127.0.0.1:8765",
            r"does not end in /api/v1.*did you mean http://127\.0\.0\.1:8765/api/v1\?",
        ),
        # every wrong shape gets the base it meant, never /api/v2/api/v1 or /api/api/v1 (issue 24)
        ("http://h:1/api/v2", r"did you mean http://h:1/api/v1\?"),
        ("http://h:1/api", r"did you mean http://h:1/api/v1\?"),
        ("http://h:1/api/", r"did you mean http://h:1/api/v1\?"),
        ("http://h:1/API/V1", r"did you mean http://h:1/api/v1\?"),
        ("http://h:1/api/v1/problems", r"did you mean http://h:1/api/v1\?"),
        ("http://h:1/x/api/v1/leaderboard/", r"did you mean http://h:1/x/api/v1\?"),
        ("http://h:1/v1", r"did you mean http://h:1/api/v1\?"),
        ("http://h:1/x/v2", r"did you mean http://h:1/x/api/v1\?"),
        ("http://h:1/problems", r"did you mean http://h:1/api/v1\?"),
        ("http://h:1/platform", r"did you mean http://h:1/platform/api/v1\?"),
        ("127.0.0.1:8765/api/v1", "is not an http\\(s\\) URL"),
        ("ftp://host/api/v1", "is not an http\\(s\\) URL"),
        ("http:///api/v1", "is not an http\\(s\\) URL"),
        ("http://host/api/v1?x=1", "query or fragment"),
    ],
)
def test_bad_base_urls_name_the_fix(url: str, message: str):
    with pytest.raises(PreflightError, match=message):
        check_base_url(url)


def test_good_base_urls_lose_a_trailing_slash():
    assert check_base_url(" https://api.example.org/api/v1/ ") == "https://api.example.org/api/v1"
    assert check_base_url("http://127.0.0.1:1/prefix/api/v1") == "http://127.0.0.1:1/prefix/api/v1"


def test_taken_at_is_utc_with_z_or_refused():
    assert normalise_taken_at("2026-03-01T02:00:00+02:00") == "2026-03-01T00:00:00Z"
    assert normalise_taken_at("2026-03-01 00:00") == "2026-03-01T00:00:00Z"
    assert normalise_taken_at(None).endswith("Z")
    with pytest.raises(PreflightError, match="ISO-8601"):
        normalise_taken_at("yesterday")


def test_db_path_checks(tmp_path: Path):
    with pytest.raises(PreflightError, match="is a directory"):
        check_db_path(tmp_path)
    text = tmp_path / "notes.txt"
    text.write_text("not a database, but long enough to have a header\n")
    with pytest.raises(PreflightError, match="not a DuckDB file"):
        check_db_path(text)
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(PreflightError, match="cannot be created"):
        check_db_path(blocker / "sub" / "store.duckdb")
    # A new path in folders still to be made is fine (the writer creates them).
    assert check_db_path(tmp_path / "a" / "b" / "store.duckdb") == tmp_path / "a" / "b" / "store.duckdb"


def test_an_existing_store_passes(tmp_path: Path):
    db = tmp_path / "store.duckdb"
    write_snapshot(db, stage_run(tmp_path, make_platform()))
    assert check_db_path(db) == db


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_probe_refused_port_fails_in_one_line_in_seconds():
    url = f"http://127.0.0.1:{_free_port()}/api/v1"
    started = time.perf_counter()
    with pytest.raises(PlatformUnreachableError) as info:
        probe(url, read_timeout_s=60.0)  # nothing answers: the read timeout does not come into it
    message = str(info.value)
    assert url in message and "\n" not in message
    assert "nothing answers" in message and "connection refused" in message and "check the URL" in message
    assert time.perf_counter() - started < PROBE_DEADLINE_S + 1


def test_the_probes_connection_retries_print_no_line_and_keep_staminas_hooks(
    caplog: pytest.LogCaptureFixture,
):
    """Only the verdict is reported: the retries of the TCP connection log nothing (stamina's own retry line
    included), and stamina's retry hooks are those of before the probe."""
    import stamina.instrumentation

    before = stamina.instrumentation.get_on_retry_hooks()
    caplog.set_level(logging.DEBUG)
    with pytest.raises(PlatformUnreachableError):
        probe(f"http://127.0.0.1:{_free_port()}/api/v1", read_timeout_s=60.0)
    assert [r.getMessage() for r in caplog.records if r.name.startswith(("stamina", "solvelens"))] == []
    assert stamina.instrumentation.get_on_retry_hooks() == before
    assert logging.getLogger("stamina").level == logging.NOTSET  # the quieting ended with the probe


def test_probe_unknown_host_fails():
    with pytest.raises(
        PlatformUnreachableError, match=r"nonexistent\.invalid.*nothing answers.*unknown host"
    ):
        probe("http://nonexistent.invalid/api/v1")


def test_probe_a_server_that_accepts_but_never_answers_waits_the_read_timeout():
    with socket.socket() as listener:  # accepts connections (the kernel's backlog) but never answers
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        url = f"http://127.0.0.1:{listener.getsockname()[1]}/api/v1"
        started = time.perf_counter()
        with pytest.raises(
            PlatformUnreachableError, match=r"accepts connections but answered nothing within 1 s"
        ):
            probe(url, read_timeout_s=1.0)
        assert 1.0 <= time.perf_counter() - started < 1.0 + PROBE_DEADLINE_S + 1


def test_a_bad_read_timeout_is_refused_in_one_line(monkeypatch: pytest.MonkeyPatch):
    assert read_timeout("2.5") == 2.5
    monkeypatch.setenv("SOLVELENS_READ_TIMEOUT", "7")
    assert read_timeout() == 7.0
    from solvelens.client import AsyncPlatformClient

    assert AsyncPlatformClient("http://127.0.0.1:9/api/v1", read_env=False).timeout == 7.0  # every client
    for bad in ("0", "-1", "soon"):
        with pytest.raises(PreflightError, match="--read-timeout / SOLVELENS_READ_TIMEOUT"):
            read_timeout(bad)


@pytest.mark.parametrize("latency_ms", [1500, 5000])
def test_a_slow_platform_is_slow_not_down_and_is_snapshotted(
    latency_ms: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """A platform answering every request after 1.5 s or 5 s (an empty sandbox, ``--resources none``: as
    few requests as a snapshot sends): the preflight waits (the read timeout, 30 s by default), says the
    platform answers slowly, and the snapshot completes."""
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    server = start_sandbox(tmp_path / "s.sqlite", scale="empty", latency_ms=latency_ms)
    try:
        result = CliRunner().invoke(
            app,
            [
                "snapshot",
                "--base-url",
                server.base_url,
                "--db",
                str(tmp_path / "store.duckdb"),
                "--resources",
                "none",
                "--no-bot-me",
            ],
        )
    finally:
        server.stop()
    assert result.exit_code == 0, result.output
    assert "answers slowly: GET /categories took" in result.output and "snapshot 1" in result.output


def test_probe_against_the_sandbox(sandbox: SandboxServer):
    probe(sandbox.base_url)  # answers like the platform: no error
    with pytest.raises(PlatformUnreachableError, match=r"404.*is not the platform's API base"):
        probe(sandbox.root_url + "/elsewhere/api/v1")


def test_probe_gives_up_on_a_failing_platform(tmp_path: Path):
    server = start_sandbox(tmp_path / "s.sqlite", fault_rate=1.0, fault_kinds="500")
    try:
        with pytest.raises(PlatformUnreachableError, match="is failing \\(HTTP 500"):
            probe(server.base_url)
    finally:
        server.stop()


def test_prefect_api_url_from_env_and_profile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    monkeypatch.delenv("PREFECT_PROFILE", raising=False)
    monkeypatch.setenv("PREFECT_HOME", str(tmp_path))
    assert prefect_api_url() is None  # no profiles file
    (tmp_path / "profiles.toml").write_text(
        'active = "work"\n[profiles.ephemeral]\n[profiles.work]\nPREFECT_API_URL = "http://127.0.0.1:4200/api"\n'
    )
    assert prefect_api_url() == "http://127.0.0.1:4200/api"
    monkeypatch.setenv("PREFECT_PROFILE", "ephemeral")
    assert prefect_api_url() is None
    monkeypatch.setenv("PREFECT_API_URL", "http://127.0.0.1:9999/api")
    assert prefect_api_url() == "http://127.0.0.1:9999/api"
    monkeypatch.delenv("PREFECT_API_URL")
    (tmp_path / "profiles.toml").write_text("active = [unclosed\n")
    assert prefect_api_url() is None  # a profiles file that is not TOML: none configured


def test_a_501_is_no_api_here_not_a_failing_platform():
    """A server answering 501 Not Implemented will never serve the API at that URL: the line says to check
    --base-url, not to try again later (a real HTTP server on 127.0.0.1)."""
    import http.server
    import threading

    class NotImplementedHere(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(501)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), NotImplementedHere)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with pytest.raises(PlatformUnreachableError) as failed:
            probe(f"http://127.0.0.1:{server.server_address[1]}/api/v1")
    finally:
        server.shutdown()
    message = str(failed.value)
    assert "HTTP 501 (Not Implemented)" in message and "check --base-url" in message
    assert "try again later" not in message and "failing" not in message
