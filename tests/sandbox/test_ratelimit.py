"""The sandbox's quota (``sandbox serve --rate-limit``) over real HTTP: the headers on every ``/api/v1``
answer, the 429 over quota (Retry-After, fastify's body), per-address windows, the window reset, and the
command's bad input."""

from __future__ import annotations

import httpx
import pytest
from typer.testing import CliRunner

from solvelens.cli import app
from solvelens.sandbox.ratelimit import RateLimit, parse_rate_limit, retry_in


def quota(response: httpx.Response) -> tuple[int, int, int]:
    h = response.headers
    return int(h["x-ratelimit-limit"]), int(h["x-ratelimit-remaining"]), int(h["x-ratelimit-reset"])


def test_every_api_answer_announces_the_quota_and_the_429_is_fastifys(make_sandbox) -> None:
    server = make_sandbox(rate_limit="4/minute")
    with httpx.Client(base_url=server.base_url) as c:
        answers = [c.get("/stats"), c.get("/problems"), c.get("/no-such-route"), c.get("/categories")]
        assert [r.status_code for r in answers] == [200, 200, 404, 200]  # an unknown route counts too
        assert [quota(r)[:2] for r in answers] == [(4, 3), (4, 2), (4, 1), (4, 0)]
        for r in answers:
            reset = quota(r)[2]
            assert 55 <= reset <= 60
            assert r.headers["ratelimit-policy"] == "4;w=60"
            assert r.headers["ratelimit"] == f"limit=4, remaining={quota(r)[1]}, reset={reset}"
        over = c.get("/stats")
        assert over.status_code == 429
        assert over.json() == {
            "statusCode": 429,
            "error": "Too Many Requests",
            "message": "Rate limit exceeded, retry in 1 minute",
        }
        assert 55 <= int(over.headers["retry-after"]) <= 60
        assert quota(over)[:2] == (4, 0) and over.headers["ratelimit"].startswith("limit=4, remaining=0")
        health = httpx.get(f"{server.root_url}/health")
        assert health.status_code == 200 and "x-ratelimit-limit" not in health.headers  # outside /api/v1
        # another address (through a proxy) has its own window
        other = c.get("/stats", headers={"X-Forwarded-For": "10.1.2.3, 127.0.0.1"})
        assert other.status_code == 200 and quota(other)[1] == 3
    counts = httpx.get(f"{server.root_url}/_sandbox/rate-limit").json()  # the server-side count
    first, last = counts.pop("firstAt"), counts.pop("lastAt")
    assert counts == {"limit": 4, "windowSeconds": 60, "requests": 6, "limited": 1, "addresses": 2}
    assert 0 < last - first < 30


def test_an_over_quota_request_never_reaches_the_platform(make_sandbox) -> None:
    server = make_sandbox(rate_limit="2/minute")
    key = server.create_bot("QuotaBot")
    with httpx.Client(base_url=server.base_url, headers={"Authorization": f"Bearer {key}"}) as c:
        assert c.get("/stats").status_code == 200
        assert c.get("/tasks/next").status_code == 200  # a task is handed out
        assert c.get("/tasks/next").status_code == 429  # the second poll is refused before the dispatcher
    with httpx.Client(base_url=server.base_url, headers={"X-Forwarded-For": "10.9.9.9"}) as c:
        me = c.get("/bot/me", headers={"Authorization": f"Bearer {key}"})
        assert me.status_code == 200 and me.json()["totalSolutions"] == 0


def test_the_window_resets(make_sandbox) -> None:
    server = make_sandbox(rate_limit="3/second")
    with httpx.Client(base_url=server.base_url) as c:
        while (first := c.get("/stats")).status_code == 200 and quota(first)[1] > 0:
            pass
        over = c.get("/stats")
        assert over.status_code == 429 and over.headers["retry-after"] == "1"
        server.advance_clock(1.0)  # the server's clock passes the window
        again = c.get("/stats")
        assert again.status_code == 200 and quota(again)[:2] == (3, 2)


def test_the_server_clock_ends_windows_only_by_whole_windows(make_sandbox) -> None:
    """``POST /_sandbox/clock``: advances adding up to a window end every open window (a shorter one keeps
    it, since the ``limits`` library keeps its own expiry times); the clock never goes back."""
    server = make_sandbox(rate_limit="3/minute")
    with httpx.Client(base_url=server.base_url) as c:
        assert quota(c.get("/stats"))[:2] == (3, 2)
        assert server.advance_clock(30) == 30
        assert quota(c.get("/stats"))[:2] == (3, 1)  # half a window: the same window
        assert server.advance_clock(30) == 60
        assert quota(c.get("/stats"))[:2] == (3, 2)  # a whole window since the last end: a fresh one
    back = httpx.post(server.root_url + "/_sandbox/clock", json={"advance": -1})
    assert back.status_code == 400 and "only moves forward" in back.json()["error"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("5000/hour", RateLimit(5000, 3600)),
        ("30/minute", RateLimit(30, 60)),
        ("10/second", RateLimit(10, 1)),
        ("40/2 seconds", RateLimit(40, 2)),
        ("100 per day", RateLimit(100, 86400)),
        ("7", RateLimit(7, 60)),
    ],
)
def test_rate_limit_notation(text: str, expected: RateLimit) -> None:
    assert parse_rate_limit(text) == expected


def test_retry_in_words_waits_as_fastify() -> None:
    assert [retry_in(s) for s in (3600, 60, 30, 1, 5400, 90)] == [
        "1 hour",
        "1 minute",
        "30 seconds",
        "1 second",
        "2 hours",
        "2 minutes",
    ]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--rate-limit", "lots"], "--rate-limit must look like N/hour, N/minute or N/second"),
        (["--rate-limit", "5/fortnight"], "--rate-limit must look like N/hour"),
        (["--rate-limit", "0/hour"], "at least 1 request per window"),
        (["--rate-limit", "5", "--rate-window", "0.5"], "--rate-window must be a whole number of seconds"),
    ],
)
def test_bad_rate_limit_is_one_line_exit_2(tmp_path, args: list[str], message: str) -> None:
    db = tmp_path / "never-built.sqlite"
    result = CliRunner().invoke(app, ["sandbox", "serve", "--db", str(db), "--port", "0", *args])
    assert result.exit_code == 2, result.output
    assert message in result.output and len(result.output.strip().splitlines()) == 1
    assert not db.exists()


def test_create_app_takes_the_notation_and_refuses_a_bad_one(sandbox) -> None:
    from solvelens.sandbox.app import create_app

    assert create_app(sandbox.db_path, rate_limit="5000/hour") is not None
    with pytest.raises(ValueError, match="--rate-limit must look like N/hour"):
        create_app(sandbox.db_path, rate_limit="often")
