"""The test sandbox served in a thread (``tests/fixtures/sandbox.py``): its connections send each answer at
once (TCP_NODELAY), and a server on a new file holds the platform a fresh build gives."""

from __future__ import annotations

import hashlib
import socket
import sqlite3
from pathlib import Path

import httpx

from solvelens.sandbox.generate import build_platform
from tests.fixtures.sandbox import built_platform, serve_in_thread


def _nodelay_of_connections(server: object) -> list[int]:
    """TCP_NODELAY of every connection the uvicorn ``server`` holds open."""
    state = server.server_state  # type: ignore[attr-defined]
    return [
        c.transport.get_extra_info("socket").getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
        for c in state.connections
    ]


def test_the_thread_servers_connections_send_without_waiting_for_an_ack(tmp_path: Path) -> None:
    """Without TCP_NODELAY an answer's body (a second write after the headers) waits for the client's
    delayed ACK: ~40 ms a request, which made the suite wait more than it computed."""
    server = serve_in_thread(tmp_path / "s.sqlite", scale="empty")
    try:
        with httpx.Client() as client:
            assert client.get(f"{server.base_url}/categories").status_code == 200
            flags = _nodelay_of_connections(server.server)
        assert flags and all(flags), flags
    finally:
        server.stop()


def _rows(path: Path) -> str:
    con = sqlite3.connect(path)
    try:
        return hashlib.sha256("\n".join(con.iterdump()).encode()).hexdigest()
    finally:
        con.close()


def test_a_server_on_a_new_file_holds_what_a_fresh_build_gives(tmp_path: Path) -> None:
    """``serve_in_thread`` on a new file starts from :func:`built_platform`: row for row a fresh build."""
    for name in ("first", "second"):  # the second at least is a copy of this process's first build
        built_platform(tmp_path / f"{name}.sqlite", seed=3)
    build_platform(tmp_path / "fresh.sqlite", seed=3)
    fresh = _rows(tmp_path / "fresh.sqlite")
    assert _rows(tmp_path / "first.sqlite") == fresh and _rows(tmp_path / "second.sqlite") == fresh
