"""Server switches: pagination styles, the interface task shape, fault injection, body cap, rate limit."""

from __future__ import annotations

import time

import httpx


def test_offset_and_cursor_pagination_cover_all_problems(make_sandbox, tmp_path) -> None:
    offset = make_sandbox(seed=4, pagination="offset")
    db = offset.db_path
    with httpx.Client(base_url=offset.base_url) as c:
        first = c.get("/problems", params={"limit": 50}).json()
        assert set(first) == {"items", "total", "offset", "limit"}
        ids = [p["id"] for p in first["items"]]
        while len(ids) < first["total"]:
            ids += [
                p["id"] for p in c.get("/problems", params={"limit": 50, "offset": len(ids)}).json()["items"]
            ]
        assert len(set(ids)) == first["total"]
        bots = c.get("/leaderboard", params={"limit": 5, "offset": 5}).json()
        assert len(bots["items"]) == 5 and bots["offset"] == 5
    cursor = make_sandbox(db_path=db, pagination="cursor")  # same file, other style
    with httpx.Client(base_url=cursor.base_url) as c:
        page = c.get("/problems", params={"limit": 50}).json()
        assert set(page) == {"data", "next_cursor", "has_more"}
        seen = [p["id"] for p in page["data"]]
        while page["has_more"]:
            page = c.get("/problems", params={"limit": 50, "cursor": page["next_cursor"]}).json()
            seen += [p["id"] for p in page["data"]]
        assert page["next_cursor"] is None
        assert seen == ids
        bad = c.get("/problems", params={"cursor": "!!not-a-cursor"})
        assert bad.status_code == 422 and bad.json()["details"][0]["field"] == "cursor"


def test_interface_task_shape_and_content_submit(make_sandbox) -> None:
    server = make_sandbox(seed=4, task_shape="interface", task_types=["vote"], vote_deadlocks=0.0)
    key = server.create_bot("InterfaceBot")
    with httpx.Client(base_url=server.base_url, headers={"Authorization": f"Bearer {key}"}) as c:
        task = c.get("/tasks/next").json()
        assert {"id", "prompt", "type", "payload"} == set(task) and task["type"] == "vote"
        assert "Solution A:" in task["prompt"] and "Solution B:" in task["prompt"]
        bad = c.post(f"/tasks/{task['id']}/submit", json={"content": "both"})
        assert bad.status_code == 400 and bad.json()["details"][0]["field"] == "winner"
        task = c.get("/tasks/next").json()
        ok = c.post(f"/tasks/{task['id']}/submit", json={"content": "skip"})
        assert ok.status_code == 200 and set(ok.json()["result"]) == {"solutionA", "solutionB"}


def test_fault_schedule(make_sandbox) -> None:
    server = make_sandbox(fault_schedule="503,429,500,502,html,truncate,ok,slow", slow_ms=300, retry_after=2)
    with httpx.Client(base_url=server.base_url) as c:
        r = c.get("/stats")
        assert r.status_code == 503 and r.headers["retry-after"] == "2" and r.json()["error"]
        r = c.get("/stats")
        assert (
            r.status_code == 429
            and r.headers["retry-after"] == "2"
            and r.json()["error"] == "Too Many Requests"
        )
        assert c.get("/stats").status_code == 500
        assert c.get("/stats").status_code == 502
        html = c.get("/stats")
        assert html.status_code == 502 and html.headers["content-type"].startswith("text/html")
        truncated = c.get("/stats")
        assert truncated.status_code == 200
        assert truncated.content and not truncated.content.endswith(b"}")
        assert c.get("/stats").status_code == 200
        started = time.monotonic()
        assert c.get("/stats").status_code == 200
        assert time.monotonic() - started >= 0.3
        # health is never affected
        assert httpx.get(f"{server.root_url}/health").status_code == 200


def test_fault_rate_is_seeded_and_latency_is_added(make_sandbox) -> None:
    outcomes = []
    for _ in range(2):
        server = make_sandbox(fault_rate=0.5, fault_seed=11, fault_kinds="500,503", latency_ms=20)
        with httpx.Client(base_url=server.base_url) as c:
            started = time.monotonic()
            outcomes.append([c.get("/categories").status_code for _ in range(20)])
            assert time.monotonic() - started >= 20 * 0.02
        server.stop()
    assert outcomes[0] == outcomes[1]
    assert set(outcomes[0]) <= {200, 500, 503} and len(set(outcomes[0])) > 1


def test_body_cap_and_rate_limit(make_sandbox) -> None:
    server = make_sandbox(max_body_bytes=1024, rate_limit=5, rate_window=30)
    key = server.create_bot("Limited")
    headers = {"Authorization": f"Bearer {key}"}
    with httpx.Client(base_url=server.base_url, headers=headers) as c:
        big = c.post("/tasks/whatever/submit", json={"content": "x" * 5000})
        assert big.status_code == 413 and "error" in big.json()
        codes = [c.get("/bot/me").status_code for _ in range(5)]
        assert codes == [200] * 5  # a refused body (413) does not count against the rate limit
        limited = c.get("/bot/me")
        assert limited.status_code == 429 and int(limited.headers["retry-after"]) >= 1
    # the quota is per client address (sandbox/ratelimit.py): another address has its own window
    assert httpx.get(f"{server.base_url}/stats", headers={"X-Forwarded-For": "10.0.0.9"}).status_code == 200


def test_content_tasks_state_their_rules_and_enforce_them(make_sandbox) -> None:
    """``--tasks content``: tasks ``{id, kind, prompt, choices?, constraints}`` answered ``{"content"}``;
    an answer breaking the stated rule is 400 naming ``content`` (the task fails, as on the real platform)."""
    server = make_sandbox(seed=4, tasks="content", task_types=["vote"], vote_deadlocks=0.0)
    key = server.create_bot("ContentBot")
    with httpx.Client(base_url=server.base_url, headers={"Authorization": f"Bearer {key}"}) as c:
        task = c.get("/tasks/next").json()
        assert set(task) == {"id", "kind", "prompt", "choices", "constraints"} and task["kind"] == "vote"
        assert [choice["key"] for choice in task["choices"]] == ["A", "B"]
        assert task["constraints"] == {"content": {"enum": ["A", "B"]}}
        bad = c.post(f"/tasks/{task['id']}/submit", json={"content": "a"})
        assert bad.status_code == 400, bad.text
        assert bad.json()["details"] == [
            {"field": "content", "message": "Invalid enum value. Expected 'A' | 'B', received 'a'"}
        ]
        typed = c.get("/tasks/next").json()
        wrong_form = c.post(f"/tasks/{typed['id']}/submit", json={"winner": "a"})
        assert wrong_form.status_code == 400 and wrong_form.json()["details"][0] == {
            "field": "content",
            "message": "Required",
        }
        task = c.get("/tasks/next").json()
        ok = c.post(f"/tasks/{task['id']}/submit", json={"content": "B"})
        assert ok.status_code == 200 and set(ok.json()["result"]) == {"solutionA", "solutionB"}
    answer = make_sandbox(db_path=server.db_path, tasks="content", task_types=["solve"])
    key = answer.create_bot("ContentAnswer")
    with httpx.Client(base_url=answer.base_url, headers={"Authorization": f"Bearer {key}"}) as c:
        task = c.get("/tasks/next").json()
        assert task["kind"] == "answer" and task["constraints"] == {
            "content": {"minLength": 60, "maxLength": 2000}
        }
        assert "60-2000 characters" in task["prompt"]
        long = c.post(f"/tasks/{task['id']}/submit", json={"content": "x" * 2001})
        assert long.json()["details"] == [
            {"field": "content", "message": "String must contain at most 2000 character(s)"}
        ]
