"""Bad input over real HTTP: every malformed request gets a 4xx with an ``{"error": str}`` body, never a 5xx.

Covers malformed JSON, wrong types, huge bodies (with and without ``Content-Length``), unknown and malformed
ids, quotes/SQL/FTS5 operators/unicode in search, empty and oversized queries, and garbage credentials.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

import httpx
import pytest

from solvelens.sandbox.limits import DEFAULT_MAX_BODY_BYTES

SOLUTION = "Write down what happens for a week, then change one habit at a time and keep what helps most."


def auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def assert_error(response: httpx.Response, status: int) -> dict:
    assert response.status_code == status, (response.status_code, response.text[:300])
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert isinstance(body["error"], str) and body["error"]
    return body


@pytest.fixture(scope="module")
def client(sandbox) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=sandbox.base_url, timeout=30) as c:
        yield c


@pytest.fixture
def task(sandbox, request) -> tuple[httpx.Client, dict]:
    """A fresh bot (named after the test) with its first task; the client carries its key."""
    name = "Bad" + "".join(ch for ch in request.node.name if ch.isalnum())[-40:]
    key = sandbox.create_bot(name)
    c = httpx.Client(base_url=sandbox.base_url, headers=auth(key), timeout=30)
    request.addfinalizer(c.close)
    first = c.get("/tasks/next")
    assert first.status_code == 200
    return c, first.json()


# ------------------------------------------------------------------------------------------ submit bodies
@pytest.mark.parametrize(
    "raw",
    [b"{not json", b'{"solution_text": "abc"', b"\xff\xfe\x00binary", b"[" * 5000 + b"]" * 5000, b"1" * 400],
    ids=["broken", "unterminated", "binary", "too-deep", "huge-int"],
)
def test_malformed_json_is_400(task, raw: bytes) -> None:
    c, t = task
    body = assert_error(c.post(f"/tasks/{t['taskId']}/submit", content=raw), 400)
    assert body == {"error": "Body is not valid JSON"}
    assert c.get("/tasks/next").json()["taskId"] == t["taskId"]  # a 400 does not fail the task


@pytest.mark.parametrize(
    "payload",
    [
        b"",
        b"null",
        b"[]",
        b'"a"',
        b"42",
        b'{"content": {"nested": true}}',
        b'{"content": null, "solution_text": 7, "winner": ["a"], "verdict": 1, "problem_title": false}',
    ],
    ids=["empty", "null", "array", "string", "number", "content-object", "wrong-types"],
)
def test_wrong_shapes_and_types_are_400_validation_errors(task, payload: bytes) -> None:
    c, t = task
    body = assert_error(c.post(f"/tasks/{t['taskId']}/submit", content=payload), 400)
    assert (body["error"], body["code"], body["statusCode"]) == ("Validation error", "VALIDATION_ERROR", 400)
    assert body["details"] and all(d["field"] and d["message"] for d in body["details"])
    again = c.post(f"/tasks/{t['taskId']}/submit", content=payload)
    assert_error(again, 409)  # the task failed, as on the real platform


def test_huge_body_with_content_length_is_413(task) -> None:
    c, t = task
    big = {"solution_text": "x" * (DEFAULT_MAX_BODY_BYTES + 1)}
    body = assert_error(c.post(f"/tasks/{t['taskId']}/submit", json=big), 413)
    assert str(DEFAULT_MAX_BODY_BYTES) in body["error"]
    assert c.get("/tasks/next").json()["taskId"] == t["taskId"]  # never reached the task


def test_chunked_body_without_content_length_is_capped(task) -> None:
    c, t = task

    def chunks(total: int) -> Iterator[bytes]:
        yield b'{"content": "'
        for _ in range(total // 4096):
            yield b"y" * 4096
        yield b'"}'

    request = c.build_request("POST", f"/tasks/{t['taskId']}/submit", content=chunks(1024 * 1024))
    assert "content-length" not in request.headers and request.headers["transfer-encoding"] == "chunked"
    assert_error(c.send(request), 413)
    # a chunked body under the cap is read whole and applied
    answer = {
        "vote": {"winner": "a"},
        "solve": {"solution_text": SOLUTION},
        "flag": {"verdict": "green"},
        "create": {
            "problem_title": f"Chunked upload {t['taskId']}",
            "problem_description": "Sent in two chunks without a Content-Length header.",
            "category": "technology",
        },
    }[t["taskType"]]
    raw = httpx.Request("POST", "http://x", json=answer).content

    def small() -> Iterator[bytes]:
        yield raw[:5]
        yield raw[5:]

    ok = c.send(c.build_request("POST", f"/tasks/{t['taskId']}/submit", content=small()))
    assert ok.status_code == 200 and ok.json()["success"] is True


def test_body_cap_counts_a_lying_small_chunk_stream(sandbox) -> None:
    """Many tiny chunks add up: the cap is on the total, not per chunk; also for routes without a body."""
    with httpx.Client(base_url=sandbox.base_url, timeout=30) as c:
        stream = (b"z" * 512 for _ in range(DEFAULT_MAX_BODY_BYTES // 512 + 2))
        assert_error(c.send(c.build_request("POST", "/problems", content=stream)), 413)
        assert c.get("/stats").status_code == 200  # the server is fine afterwards


# ------------------------------------------------------------------------------------------ ids
@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("/problems/" + "a" * 5000, "Problem not found"),
        ("/problems/%00", "Problem not found"),
        ("/problems/😀-ünïcode", "Problem not found"),
        ("/problems/00000000-0000-4000-8000-000000000000/solutions", "Problem not found"),
        ("/bots/1%20OR%201=1", "Bot not found"),
        ("/bots/FFFFFFFF-FFFF-4FFF-BFFF-FFFFFFFFFFFF", "Bot not found"),
    ],
)
def test_unknown_and_malformed_ids_are_404(client, path: str, message: str) -> None:
    assert assert_error(client.get(path), 404) == {"error": message}


def test_unknown_task_ids_are_404(task) -> None:
    c, _ = task
    for task_id in ("0", "x" * 3000, "%2E%2E", "00000000-0000-4000-8000-000000000000"):
        body = assert_error(c.post(f"/tasks/{task_id}/submit", json={"winner": "a"}), 404)
        assert body == {"error": "Task not found or expired"}


def test_ids_of_another_kind_are_404(client) -> None:
    problem_id = client.get("/problems", params={"limit": 1}).json()["problems"][0]["id"]
    assert_error(client.get(f"/bots/{problem_id}"), 404)  # a problem id is not a bot id


# ------------------------------------------------------------------------------------------ query parameters
@pytest.mark.parametrize(
    ("path", "params"),
    [
        ("/problems", {"limit": "abc"}),
        ("/problems", {"limit": "1.5"}),
        ("/problems", {"page": "-1"}),
        ("/problems", {"page": "99999999999999999999999"}),
        ("/problems", {"limit": ""}),
        ("/problems", {"author_type": "robot"}),
        ("/problems", {"status": "x" * 201}),
        ("/leaderboard", {"page": "1e3"}),
        ("/problems/whatever/solutions", {"limit": "0"}),
        ("/search", {"q": ""}),
        ("/search", {"q": "x" * 201}),
        ("/search", {"q": "a\x00b"}),
        ("/search", {"q": "ok", "type": "everything"}),
        ("/search", {"q": "ok", "category": "Health"}),
    ],
)
def test_bad_query_parameters_are_422(client, path: str, params: dict) -> None:
    body = assert_error(client.get(path, params=params), 422)
    assert body["details"] and all({"field", "message"} <= set(d) for d in body["details"])


@pytest.mark.parametrize(
    "q",
    [
        '"', "'", '""', "' OR '1'='1", "'; DROP TABLE problems; --", "\\", "%", "_", "%%__", "a%b_c",
        "NEAR(budget plan)", "budget AND plan", "budget OR plan", "NOT plan", "plan*", "^plan", "title:plan",
        "{title description}:plan", "-plan", "+plan", "(plan", ")", "*", ":", "budget NEAR/2 plan",
        "é", "日本語の問題", "😀", "🏳️‍🌈 flag", "مرحبا", "e\u0301", "\u200b", "   ", "\t\n", "a" * 200,
    ],
)  # fmt: skip
def test_search_takes_any_text_literally(client, q: str) -> None:
    response = client.get("/search", params={"q": q})
    assert response.status_code == 200, response.text
    found = response.json()
    assert set(found) == {"problems", "bots"}
    needle = q.lower()
    for p in found["problems"]:
        assert needle in (p["title"] + "\n" + p["description"]).lower()
    for b in found["bots"]:
        assert needle in (b["name"] + "\n" + (b["description"] or "")).lower()


def test_search_finds_a_title_full_of_operators(make_sandbox) -> None:
    server = make_sandbox(scale="empty")
    key = server.create_bot("OperatorAuthor")
    title = 'Why does "NEAR(a b)" OR title:* -x break; DROP TABLE problems; --?'
    with httpx.Client(base_url=server.base_url, headers=auth(key)) as c:
        create = c.get("/tasks/next").json()
        assert create["taskType"] == "create"
        body = {
            "problem_title": title,
            "problem_description": "Quotes ' and \" and 100% _wild_ cards, plus unicode: 日本 😀.",
            "category": "technology",
        }
        assert c.post(f"/tasks/{create['taskId']}/submit", json=body).status_code == 200
        for q in (title, '"NEAR(a b)" OR', "title:*", "100% _wild_", "日本 😀", "; DROP TABLE"):
            found = c.get("/search", params={"q": q, "type": "problems"}).json()["problems"]
            assert [p["title"] for p in found] == [title], q
        assert c.get("/search", params={"q": "100%_", "type": "problems"}).json()["problems"] == []
    conn = sqlite3.connect(server.db_path)
    assert conn.execute("SELECT count(*) FROM problems").fetchone()[0] == 1  # nothing was dropped
    conn.close()


# ------------------------------------------------------------------------------------------ credentials
@pytest.mark.parametrize(
    "header",
    ["", "Bearer", "bearer sl_key_abc", "Bearer sl_key_", "Bearer sl_key_" + "é" * 48,
     "Bearer sl_key_" + "A" * 5000, "Basic dXNlcjpwYXNz", "Bearer os_key_" + "A" * 48],
)  # fmt: skip
def test_garbage_credentials_are_401(sandbox, header: str) -> None:
    for method, path in (("GET", "/bot/me"), ("GET", "/tasks/next"), ("POST", "/tasks/x/submit")):
        response = httpx.request(
            method, f"{sandbox.base_url}{path}", headers={"Authorization": header.encode("utf-8")}, json={}
        )
        assert_error(response, 401)
