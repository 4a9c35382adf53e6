"""Bot accounts, authentication and the task dispatcher over real HTTP."""

from __future__ import annotations

import re
import sqlite3
import threading
from collections import Counter
from pathlib import Path

import httpx
import pytest

from solvelens.sandbox import accounts

KEY = re.compile(r"^sl_key_[A-Za-z0-9_-]{48}$")
SOLUTION = "Start small: measure the problem for a week, then change one thing at a time and keep what works."


def auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def test_keys_are_shown_once_and_stored_hashed(sandbox) -> None:
    key = sandbox.create_bot("HashCheckBot")
    assert KEY.match(key)
    conn = sqlite3.connect(sandbox.db_path)
    stored = conn.execute(
        "SELECT k.key_prefix, k.key_hash FROM api_keys k JOIN bots b ON b.id = k.bot_id WHERE b.name = ?",
        ("HashCheckBot",),
    ).fetchall()
    conn.close()
    assert len(stored) == 1 and stored[0][0] == key[:16] and key not in stored[0][1]
    with pytest.raises(accounts.BotNameTakenError, match="already taken"):
        sandbox.create_bot("hashcheckbot")
    with pytest.raises(accounts.InvalidBotNameError):
        sandbox.create_bot("x")


def test_auth_errors(sandbox) -> None:
    url = f"{sandbox.base_url}/bot/me"
    expected_format = {"error": "Invalid API key format. Expected: Bearer sl_key_..."}
    assert httpx.get(url).status_code == 401 and httpx.get(url).json() == expected_format
    assert httpx.get(url, headers={"Authorization": "Token abc"}).json() == expected_format
    bad = httpx.get(url, headers=auth("sl_key_" + "A" * 48))
    assert bad.status_code == 401 and bad.json() == {"error": "Invalid API key"}
    key = sandbox.create_bot("SoonSuspended")
    assert httpx.get(url, headers=auth(key)).status_code == 200
    accounts.suspend_bot(sandbox.db_path, "SoonSuspended")
    suspended = httpx.get(f"{sandbox.base_url}/tasks/next", headers=auth(key))
    assert suspended.status_code == 403 and suspended.json() == {"error": "Bot is suspended"}


def test_rotate_and_revoke(sandbox) -> None:
    url = f"{sandbox.base_url}/bot/me"
    old = sandbox.create_bot("RotatingBot")
    new = accounts.rotate_key(sandbox.db_path, "RotatingBot")
    assert new != old and KEY.match(new)
    assert httpx.get(url, headers=auth(old)).status_code == 401
    me = httpx.get(url, headers=auth(new))
    assert me.status_code == 200 and me.json()["name"] == "RotatingBot" and me.json()["status"] == "active"
    assert accounts.revoke_key(sandbox.db_path, "RotatingBot") == 1
    assert httpx.get(url, headers=auth(new)).status_code == 401
    with pytest.raises(accounts.BotNotFoundError):
        accounts.rotate_key(sandbox.db_path, "NoSuchBot")


def test_task_is_reserved_until_submitted_then_409(sandbox) -> None:
    key = sandbox.create_bot("SolverOne")
    with httpx.Client(base_url=sandbox.base_url, headers=auth(key)) as c:
        first = c.get("/tasks/next")
        assert first.status_code == 200
        task = first.json()
        assert set(task) == {"taskType", "taskId", "payload"}
        assert c.get("/tasks/next").json() == task  # the active task is served again
        body = _answer(task)
        done = c.post(f"/tasks/{task['taskId']}/submit", json=body)
        assert done.status_code == 200 and done.json()["success"] is True
        again = c.post(f"/tasks/{task['taskId']}/submit", json=body)
        assert again.status_code == 409 and again.json() == {"error": "Task already completed"}
        assert c.get("/tasks/next").json()["taskId"] != task["taskId"]
        unknown = c.post("/tasks/00000000-0000-4000-8000-000000000000/submit", json=body)
        assert unknown.status_code == 404 and unknown.json() == {"error": "Task not found or expired"}
    other = sandbox.create_bot("SolverTwo")
    stolen = httpx.post(f"{sandbox.base_url}/tasks/{task['taskId']}/submit", json=body, headers=auth(other))
    assert stolen.status_code == 404


def _answer(task: dict) -> dict:
    kind = task["taskType"]
    if kind == "vote":
        return {"winner": "a"}
    if kind == "solve":
        return {"solution_text": SOLUTION, "llm_model": "Claude-Sonnet-4", "llm_model_version": "1"}
    if kind == "flag":
        return {"verdict": "green", "category": "none", "suggested_category": "health"}
    return {
        "problem_title": f"Problem {task['taskId'][-6:]}",
        "problem_description": "A" * 40,
        "category": "health",
    }


def test_solve_and_vote_update_scores_and_points(make_sandbox) -> None:
    server = make_sandbox(seed=5, task_types=["solve", "vote"], vote_deadlocks=0)  # every vote counted
    key = server.create_bot("Scorer")
    with httpx.Client(base_url=server.base_url, headers=auth(key)) as c:
        solve = c.get("/tasks/next").json()
        assert solve["taskType"] == "solve"
        payload = solve["payload"]
        assert payload["problem_description"].startswith("---DATA---\n")
        assert {"problem_id", "problem_title", "instruction", "response_format"} <= set(payload)
        short = c.post(f"/tasks/{solve['taskId']}/submit", json={"solution_text": "too short"})
        assert short.status_code == 400 and short.json()["code"] == "VALIDATION_ERROR"
        assert short.json()["details"] == [
            {"field": "solution_text", "message": "String must contain at least 10 character(s)"}
        ]
        assert c.post(f"/tasks/{solve['taskId']}/submit", json=_answer(solve)).status_code == 409  # failed
        solve = c.get("/tasks/next").json()
        result = c.post(f"/tasks/{solve['taskId']}/submit", json=_answer(solve)).json()
        sid = result["result"]["solution_id"]
        sols = httpx.get(f"{server.base_url}/problems/{solve['payload']['problem_id']}/solutions").json()
        mine = next(s for s in sols["solutions"] if s["id"] == sid)
        assert mine["btScore"] == 1500 and mine["confidenceInterval"] == 500 and mine["botName"] == "Scorer"
        assert mine["llmModel"] == "claude-sonnet-4"  # lower-cased like the real platform
        server_me = c.get("/bot/me").json()
        assert server_me["totalSolutions"] == 1 and server_me["totalPoints"] == 5
        assert [b["badgeType"] for b in server_me["badges"]] == ["first_solve"]
        # drain solve tasks until a vote comes
        task = c.get("/tasks/next").json()
        while task["taskType"] == "solve":
            c.post(f"/tasks/{task['taskId']}/submit", json=_answer(task))
            task = c.get("/tasks/next").json()
        p = task["payload"]
        assert {"solution_a_id", "solution_a_text", "solution_b_id", "solution_b_text"} <= set(p)
        assert "response_format" not in p
        before = {
            s["id"]: s
            for s in httpx.get(f"{server.base_url}/problems/{p['problem_id']}/solutions").json()["solutions"]
        }
        vote = c.post(f"/tasks/{task['taskId']}/submit", json={"winner": "b"}).json()
        a, b = before[p["solution_a_id"]], before[p["solution_b_id"]]
        expected_b = b["btScore"] + 32 * (1 - 1 / (1 + 10 ** ((a["btScore"] - b["btScore"]) / 400)))
        assert vote["result"]["solutionB"]["newScore"] == pytest.approx(expected_b, abs=1e-3)
        assert vote["result"]["solutionA"]["newScore"] < a["btScore"]
        me = c.get("/bot/me").json()
        assert me["totalVotes"] == 1 and me["totalPoints"] == 5 * me["totalSolutions"] + 2


def test_flag_create_and_204(make_sandbox) -> None:
    server = make_sandbox(scale="empty")
    key = server.create_bot("Creator")
    flagger_keys = [server.create_bot(f"Flagger{i}") for i in range(3)]
    with httpx.Client(base_url=server.base_url, headers=auth(key)) as c:
        create = c.get("/tasks/next", params={"categories": "slim", "instruct": "none"}).json()
        assert create["taskType"] == "create" and create["payload"]["categories"][0] == "technology"
        assert "instruction" not in create["payload"]
        bad = c.post(f"/tasks/{create['taskId']}/submit", content=b"{not json")
        assert bad.status_code == 400 and "error" in bad.json()
        body = {
            "problem_title": "Noisy upstairs neighbours",
            "problem_description": "They stomp every night.",
        }
        created = c.post(f"/tasks/{create['taskId']}/submit", json={**body, "category": "lifestyle"}).json()
        problem_id = created["result"]["problem_id"]
        nothing = c.get("/tasks/next")  # own problem cannot be flagged, one create per day
        assert nothing.status_code == 204 and nothing.content == b""
    statuses = []
    for fk in flagger_keys:
        with httpx.Client(base_url=server.base_url, headers=auth(fk)) as c:
            flag = c.get("/tasks/next").json()
            assert flag["taskType"] == "flag" and flag["payload"]["problem_id"] == problem_id
            assert flag["payload"]["categories"][0]["slug"] == "technology"
            result = c.post(f"/tasks/{flag['taskId']}/submit", json={"verdict": "green"}).json()
            statuses.append(result["result"]["problem_new_status"])
    assert statuses == ["pending", "pending", "active"]
    problem = httpx.get(f"{server.base_url}/problems/{problem_id}").json()
    assert problem["status"] == "active" and problem["greenFlags"] == 3
    assert problem["author"]["name"] == "Creator" and problem["authorType"] == "bot"


def test_expired_task_is_replaced(make_sandbox) -> None:
    server = make_sandbox(seed=1, task_ttl_seconds=0.5, task_types=["vote"])
    key = server.create_bot("SlowBot")
    with httpx.Client(base_url=server.base_url, headers=auth(key)) as c:
        task = c.get("/tasks/next").json()
        server.advance_clock(0.8)  # past the task's lifetime, on the server's clock
        late = c.post(f"/tasks/{task['taskId']}/submit", json={"winner": "a"})
        assert late.status_code == 409
        assert c.get("/tasks/next").json()["taskId"] != task["taskId"]


def test_concurrent_bots_never_share_a_task_and_lose_nothing(make_sandbox, tmp_path: Path) -> None:
    server = make_sandbox(
        seed=3, vote_deadlocks=0
    )  # every accepted vote counted (deadlocks: test_real_behaviours)
    keys = [server.create_bot(f"Crowd{i:02d}") for i in range(20)]
    handed: list[tuple[str, str]] = []
    accepted: Counter[str] = Counter()
    errors: list[str] = []
    lock = threading.Lock()

    def work(key: str) -> None:
        with httpx.Client(base_url=server.base_url, headers=auth(key), timeout=30) as c:
            for _ in range(15):
                r = c.get("/tasks/next")
                if r.status_code == 204:
                    return
                task = r.json()
                with lock:
                    handed.append((task["taskId"], key))
                s = c.post(f"/tasks/{task['taskId']}/submit", json=_answer(task))
                with lock:
                    if s.status_code == 200 and not s.json().get("duplicate"):
                        accepted[task["taskType"]] += 1
                    elif s.status_code != 200:
                        errors.append(f"{s.status_code} {s.text}")

    threads = [threading.Thread(target=work, args=(k,)) for k in keys]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(handed) >= 250
    owners: dict[str, set[str]] = {}
    for task_id, key in handed:
        owners.setdefault(task_id, set()).add(key)
    assert all(len(v) == 1 for v in owners.values())  # no task went to two bots
    assert len(owners) == len(handed)  # and each was handed out once (submitted before the next poll)
    conn = sqlite3.connect(server.db_path)
    crowd = "SELECT id FROM bots WHERE name LIKE 'Crowd%'"
    stored = {
        "solve": conn.execute(f"SELECT count(*) FROM solutions WHERE bot_id IN ({crowd})").fetchone()[0],
        "vote": conn.execute(f"SELECT count(*) FROM comparisons WHERE voter_bot_id IN ({crowd})").fetchone()[
            0
        ],
        "flag": conn.execute(f"SELECT count(*) FROM flags WHERE bot_id IN ({crowd})").fetchone()[0],
        "create": conn.execute(f"SELECT count(*) FROM problems WHERE bot_author_id IN ({crowd})").fetchone()[
            0
        ],
    }
    points = conn.execute(f"SELECT sum(total_points) FROM bots WHERE id IN ({crowd})").fetchone()[0]
    conn.close()
    assert stored == {k: accepted.get(k, 0) for k in stored}  # no accepted submission lost
    assert points >= 5 * stored["solve"] + 2 * stored["vote"] + stored["flag"] + 3 * stored["create"]


# -- as strict as the real platform (real-platform-notes §11-12) ------------------------------------------


def test_content_body_is_a_validation_error_for_every_typed_task(make_sandbox) -> None:
    """The real platform answers ``{"content"}`` to a typed task with 400 VALIDATION_ERROR naming every
    missing field, and fails the task (a resubmit is 409)."""
    server = make_sandbox(seed=5)
    required = {
        "flag": ["verdict"],
        "solve": ["solution_text"],
        "vote": ["winner"],
        "create": ["problem_title", "problem_description", "category"],
    }
    seen: set[str] = set()
    for kinds in (["flag"], ["solve"], ["vote"], ["create"]):
        one = make_sandbox(db_path=server.db_path, task_types=kinds)
        key = one.create_bot(f"Content{kinds[0]}")
        with httpx.Client(base_url=one.base_url, headers=auth(key)) as c:
            task = c.get("/tasks/next").json()
            kind = task["taskType"]
            answer = c.post(f"/tasks/{task['taskId']}/submit", json={"content": SOLUTION})
            assert answer.status_code == 400, answer.text
            body = answer.json()
            assert (body["error"], body["code"], body["statusCode"]) == (
                "Validation error",
                "VALIDATION_ERROR",
                400,
            )
            assert body["details"] == [{"field": f, "message": "Required"} for f in required[kind]]
            again = c.post(f"/tasks/{task['taskId']}/submit", json=_answer(task))
            assert again.status_code == 409 and again.json() == {"error": "Task already completed"}
            seen.add(kind)
    assert seen == set(required)


def test_failed_flags_reject_a_human_problem_after_five(make_sandbox) -> None:
    """A failed flag counts against the problem; the same bot is handed the same problem again at once; the
    fifth failure rejects a human's pending problem (it leaves the public listing)."""
    server = make_sandbox(scale="empty", task_types=["flag"])
    conn = sqlite3.connect(server.db_path)
    with conn:
        conn.execute(
            "INSERT INTO problems (author_type, title, description, status, created_at, updated_at) "
            "VALUES ('human', 'Leaking roof in an old flat', 'Water comes in when it rains hard.', "
            "'pending', 0, 0)"
        )
    conn.close()
    key = server.create_bot("Careless")
    problem_ids = set()
    with httpx.Client(base_url=server.base_url, headers=auth(key)) as c:
        for attempt in range(1, 6):
            task = c.get("/tasks/next").json()
            assert task["taskType"] == "flag"
            problem_ids.add(task["payload"]["problem_id"])
            bad = c.post(f"/tasks/{task['taskId']}/submit", json={"content": "green"})
            assert bad.status_code == 400 and bad.json()["details"][0] == {
                "field": "verdict",
                "message": "Required",
            }
            problem = c.get(f"/problems/{task['payload']['problem_id']}").json()
            assert problem["failedFlagAttempts"] == attempt
            assert problem["status"] == ("rejected" if attempt == 5 else "pending")
        assert len(problem_ids) == 1  # handed out again after every failure, as on the real platform
        assert c.get("/tasks/next").status_code == 204  # nothing left to flag
        assert c.get("/problems").json()["pagination"]["total"] == 0  # rejected problems are not listed


def test_duplicate_title_create_is_answered_as_done_and_creates_nothing(make_sandbox) -> None:
    server = make_sandbox(seed=5, task_types=["create"])
    title = httpx.get(f"{server.base_url}/problems", params={"limit": 1}).json()["problems"][0]["title"]
    before = httpx.get(f"{server.base_url}/stats").json()["totalProblems"]
    key = server.create_bot("Copycat")
    with httpx.Client(base_url=server.base_url, headers=auth(key)) as c:
        task = c.get("/tasks/next").json()
        body = {"problem_title": title, "problem_description": "A" * 40, "category": "health"}
        answer = c.post(f"/tasks/{task['taskId']}/submit", json=body)
        assert answer.status_code == 200
        assert answer.json() == {
            "success": True,
            "message": "Duplicate title — problem already exists. Task completed.",
            "duplicate": True,
        }
        assert c.post(f"/tasks/{task['taskId']}/submit", json=body).status_code == 409  # completed
    assert httpx.get(f"{server.base_url}/stats").json()["totalProblems"] == before
