"""Delivery: masked URLs, one apprise notification per alert and target to a real receiver on 127.0.0.1,
and an unreachable target as one warning (never an exception)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from solvelens.alerts.deliver import (
    Notifier,
    NotifyTargetError,
    alert_line,
    check_notify_urls,
    mask_url,
    notify_urls_from_env,
)
from solvelens.alerts.evaluate import Alert
from tests.fixtures.sandbox import free_port

ALERT = Alert("new-leader", "new-leader", "bot", "b-1", "Alpha", "new leader: Alpha took #1", "plat", 7)


@pytest.fixture
def receiver() -> Iterator[tuple[int, list[dict[str, Any]]]]:
    posts: list[dict[str, Any]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            posts.append(
                {"path": self.path, **json.loads(self.rfile.read(int(self.headers["Content-Length"])))}
            )
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield server.server_address[1], posts
    finally:
        server.shutdown()


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("json://127.0.0.1:8080/hook/s3cret?token=x", "json://127.0.0.1:8080/…"),
        ("jsons://user:pass@hooks.example.org/p", "jsons://hooks.example.org/…"),
        ("slack://TokenA/TokenB/TokenC/#channel", "slack://…"),
        ("mailto://user:pass@gmail.com", "mailto://…"),
        ("json://127.0.0.1:notaport/x", "json://127.0.0.1/…"),
        ("garbage", "?://…"),
    ],
)
def test_mask_url_never_shows_a_secret(url: str, shown: str) -> None:
    assert mask_url(url) == shown
    assert mask_url(url, 2) == f"{shown} (#2)"


def test_urls_from_the_environment_are_whitespace_separated() -> None:
    assert notify_urls_from_env({"SOLVELENS_NOTIFY": " json://a/x \n slack://b/c "}) == [
        "json://a/x",
        "slack://b/c",
    ]
    assert notify_urls_from_env({}) == []


def test_a_url_apprise_cannot_use_is_reported_masked() -> None:
    check_notify_urls(["json://127.0.0.1:1/x", "slack://T1/B2/C3"])
    with pytest.raises(NotifyTargetError) as caught:
        check_notify_urls(["json://127.0.0.1:1/x", "nosuch://s3cret@host/x"])
    assert "nosuch://… (#2)" in str(caught.value) and "s3cret" not in str(caught.value)


def test_each_alert_reaches_each_target_and_a_dead_target_is_one_warning(
    receiver: tuple[int, list[dict[str, Any]]],
) -> None:
    port, posts = receiver
    dead = f"json://127.0.0.1:{free_port()}/s3cret"
    notifier = Notifier([f"json://127.0.0.1:{port}/hook/s3cret", dead], timeout_s=2)
    assert "s3cret" not in repr(notifier)
    other = Alert(
        "problem matured", "problem-matured", "problem", "p-1", "T", "problem matured: T", "plat", 7
    )
    warnings = notifier.send([ALERT, other])
    assert [p["title"] for p in posts] == ["solvelens alert: new-leader", "solvelens alert: problem matured"]
    assert posts[0]["path"] == "/hook/s3cret"
    assert posts[0]["message"] == "new leader: Alpha took #1\nplatform: plat; snapshot 7"
    assert len(warnings) == 1 and "not delivered for 2 of 2 alerts" in warnings[0]
    assert "s3cret" not in warnings[0] and "json://127.0.0.1:" in warnings[0]


def test_no_alert_sends_nothing(receiver: tuple[int, list[dict[str, Any]]]) -> None:
    port, posts = receiver
    assert Notifier([f"json://127.0.0.1:{port}/x"]).send([]) == []
    assert posts == []


def test_the_terminal_line_names_the_rule() -> None:
    assert alert_line(ALERT) == "alert [new-leader] new leader: Alpha took #1"
