"""The real platform's optional endpoints in the sandbox (platform mode, over real HTTP): the activity feed
(serial ids, newest first, limits, filled by the simulator and by a real bot's submits), the model
leaderboard (offset paging, sorts, families), a solution and its latest comparisons, ``--without``, the
schema migration of older platforms and the hidden truth helper."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from solvelens.cli import app
from solvelens.sandbox import activity, llm_leaderboard, queries
from solvelens.sandbox.db import SCHEMA_VERSION, get_meta
from solvelens.sandbox.generate import build_platform
from solvelens.sandbox.ids import IdCodec
from solvelens.sandbox.simulate import advance
from solvelens.sandbox.truth import hidden_skill

SOLUTION = (
    "Write the steps down, try the smallest one today, and check after a week whether it helped at all."
)


def auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def codec_of(db_path: Path) -> IdCodec:
    conn = sqlite3.connect(db_path)
    try:
        return IdCodec(int(get_meta(conn, "seed") or 0))
    finally:
        conn.close()


def newest_id(db_path: Path) -> int:
    conn = sqlite3.connect(db_path)
    try:
        return int(conn.execute("SELECT max(id) FROM activity").fetchone()[0])
    finally:
        conn.close()


def test_activity_is_newest_first_with_serial_ids_and_the_real_limits(make_sandbox) -> None:
    server = make_sandbox(seed=3)
    with httpx.Client(base_url=server.base_url, timeout=10) as c:
        default = c.get("/activity").json()["activities"]
        full = c.get("/activity", params={"limit": 50}).json()
        too_many = c.get("/activity", params={"limit": 51})
        zero = c.get("/activity", params={"limit": 0})
    assert set(full) == {"activities"}  # no paging block: the feed has no further pages
    events = full["activities"]
    assert len(default) == 20 and default == events[:20]
    ids = [e["id"] for e in events]
    assert len(ids) == 50 and ids == list(range(ids[0], ids[0] - 50, -1))  # serial, newest first
    assert ids[0] == newest_id(server.db_path)
    times = [e["createdAt"] for e in events]
    assert times == sorted(times, reverse=True)
    conn = sqlite3.connect(server.db_path)
    try:
        assert events == activity.recent(conn, codec_of(server.db_path), 50)
        actions = {r[0] for r in conn.execute("SELECT DISTINCT action FROM activity")}
        # the built history's log is in time order too
        unordered = conn.execute(
            "SELECT count(*) FROM activity a JOIN activity b ON b.id = a.id + 1 "
            "WHERE b.created_at < a.created_at"
        ).fetchone()[0]
    finally:
        conn.close()
    assert actions == set(activity.ACTIONS) and unordered == 0
    for e in events:
        assert set(e) == {
            "id", "action", "botId", "botName", "ownerBotName", "problemId", "problemTitle", "metadata",
            "createdAt",
        }  # fmt: skip
        assert isinstance(e["metadata"], str) and isinstance(json.loads(e["metadata"]), dict)
    assert too_many.status_code == 400
    assert too_many.json()["error"] == "limit must be at most 50, got 51"
    assert too_many.json()["details"][0]["field"] == "limit"
    assert zero.status_code == 422 and zero.json()["details"][0]["field"] == "limit"


def test_a_simulated_day_logs_every_event_and_outruns_one_feed_page(make_sandbox) -> None:
    server = make_sandbox(seed=4)
    before = newest_id(server.db_path)
    day = advance(server.db_path, days=1)
    feed = httpx.get(f"{server.base_url}/activity", params={"limit": 50}).json()["activities"]
    assert all(e["id"] > before for e in feed)
    conn = sqlite3.connect(server.db_path)
    try:
        logged = dict(
            conn.execute("SELECT action, count(*) FROM activity WHERE id > ? GROUP BY action", (before,))
        )
    finally:
        conn.close()
    assert logged["solution_submitted"] == day["solutions"]
    assert logged["vote_cast"] == day["votes"]
    assert logged["flag_submitted"] == day["flags"]
    assert logged.get("problem_created", 0) == day["new_problems"]
    # far more than one page between two reads: a reader polling once a day has a gap
    assert feed[0]["id"] - before > 50
    assert feed[-1]["id"] > before + 1


def test_a_real_bots_solve_and_vote_appear_in_the_feed_and_the_comparisons(make_sandbox) -> None:
    server = make_sandbox(seed=5, task_types=["solve", "vote"], vote_deadlocks=0.0)
    key = server.create_bot("FeedWriter")
    with httpx.Client(base_url=server.base_url, headers=auth(key), timeout=10) as c:
        solve = c.get("/tasks/next").json()
        assert solve["taskType"] == "solve"
        body = {"solution_text": SOLUTION, "llm_model": "gpt-4o", "llm_model_version": "2024-08-06"}
        sid = c.post(f"/tasks/{solve['taskId']}/submit", json=body).json()["result"]["solution_id"]
        newest = c.get("/activity", params={"limit": 2}).json()["activities"]
        task = c.get("/tasks/next").json()
        while task["taskType"] == "solve":
            c.post(f"/tasks/{task['taskId']}/submit", json=body)
            task = c.get("/tasks/next").json()
        c.post(f"/tasks/{task['taskId']}/submit", json={"winner": "a"}).raise_for_status()
        latest = c.get("/activity", params={"limit": 10}).json()["activities"]
        voted = next(e for e in latest if e["action"] == "vote_cast")  # a maturing problem logs more after it
        a = task["payload"]["solution_a_id"]
        votes = c.get(f"/solutions/{a}/comparisons").json()["comparisons"]
    solved, badge = newest[1], newest[0]
    assert (solved["action"], solved["botName"]) == ("solution_submitted", "FeedWriter")
    assert solved["problemId"] == solve["payload"]["problem_id"]
    assert json.loads(solved["metadata"]) == {"solutionId": sid, "llmModel": "gpt-4o"}
    assert badge["action"] == "badge_earned" and badge["id"] == solved["id"] + 1
    assert json.loads(badge["metadata"]) == {"badgeType": "first_solve", "tier": "bronze"}
    assert (voted["action"], voted["botName"]) == ("vote_cast", "FeedWriter")
    meta = json.loads(voted["metadata"])
    assert meta["winner"] == "a" and meta["solutionAId"] == a
    assert meta["solutionBId"] == task["payload"]["solution_b_id"]
    assert votes[0] == {
        "id": meta["comparisonId"], "solutionAId": a, "solutionBId": meta["solutionBId"], "winner": "a",
        "voterBotId": voted["botId"], "voterBotName": "FeedWriter", "createdAt": voted["createdAt"],
    }  # fmt: skip


def test_llm_leaderboard_pages_by_offset_sorts_and_filters_by_family(make_sandbox) -> None:
    server = make_sandbox(seed=6, tie_order="stable")  # pages compared with the whole list: ties by name
    conn = sqlite3.connect(server.db_path)
    try:
        models, with_model = conn.execute(
            "SELECT count(DISTINCT llm_model), count(llm_model) FROM solutions"
        ).fetchone()
    finally:
        conn.close()
    with httpx.Client(base_url=server.base_url, timeout=10) as c:
        first = c.get("/llm-leaderboard").json()
        every = c.get("/llm-leaderboard", params={"limit": 100}).json()["models"]
        window = c.get("/llm-leaderboard", params={"offset": 2, "limit": 3}).json()
        past = c.get("/llm-leaderboard", params={"offset": models}).json()
        sorted_by = {
            sort: c.get("/llm-leaderboard", params={"sort": sort, "limit": 100}).json()["models"]
            for sort in llm_leaderboard.SORTS
        }
        families = c.get("/llm-leaderboard/families").json()["families"]
        gpt = c.get("/llm-leaderboard", params={"family": "gpt"}).json()
        one = c.get(f"/llm-leaderboard/{every[0]['modelName']}").json()
        no_model = c.get("/llm-leaderboard/gpt-99")
        bad = [c.get("/llm-leaderboard", params=p) for p in ({"limit": 101}, {"sort": "elo"}, {"offset": -1})]
    assert first["pagination"] == {"limit": 20, "offset": 0, "total": models} and models > 5
    assert first["models"] == every[:20]
    assert window["models"] == every[2:5] and window["pagination"] == {
        "limit": 3,
        "offset": 2,
        "total": models,
    }
    assert past == {"models": [], "pagination": {"limit": 20, "offset": models, "total": models}}
    assert sum(m["totalSolutions"] for m in every) == with_model
    for sort, field in llm_leaderboard.SORTS.items():
        values = [m[field] for m in sorted_by[sort]]
        assert values == sorted(values, reverse=True), sort
    for m in every:
        assert m["winRate"] == pytest.approx(m["totalWins"] / m["totalComparisons"], abs=1e-4)
        assert m["firstPlaceCount"] <= m["top3Count"] <= m["totalSolutions"]
        assert m["modelFamily"] == llm_leaderboard.model_family(m["modelName"])
    assert sum(f["count"] for f in families) == models
    counts = [f["count"] for f in families]
    assert counts == sorted(counts, reverse=True)
    gpt_count = next(f["count"] for f in families if f["family"] == "gpt")
    assert gpt["pagination"]["total"] == gpt_count == len(gpt["models"])
    assert {m["modelFamily"] for m in gpt["models"]} == {"gpt"}
    assert [r.status_code for r in bad] == [422, 422, 422]
    assert one == every[0]
    assert no_model.status_code == 404 and no_model.json() == {"error": "Model not found"}


def test_a_solution_and_its_fifty_latest_comparisons(make_sandbox) -> None:
    server = make_sandbox(seed=0)  # its busiest solution has more than 50 votes
    codec = codec_of(server.db_path)
    conn = sqlite3.connect(server.db_path)
    try:
        busiest, count, problem = conn.execute(
            "SELECT id, comparison_count, problem_id FROM solutions ORDER BY comparison_count DESC LIMIT 1"
        ).fetchone()
        expected = queries.solution_comparisons(conn, codec, busiest)
        idle = conn.execute("SELECT id FROM solutions WHERE comparison_count = 0 LIMIT 1").fetchone()
    finally:
        conn.close()
    sid = codec.encode("solution", busiest)
    with httpx.Client(base_url=server.base_url, timeout=10) as c:
        one = c.get(f"/solutions/{sid}").json()
        listed = c.get(f"/problems/{codec.encode('problem', problem)}/solutions", params={"limit": 100})
        votes = c.get(f"/solutions/{sid}/comparisons").json()
        ignored = c.get(f"/solutions/{sid}/comparisons", params={"limit": 5, "page": 2}).json()
        none = c.get(f"/solutions/{codec.encode('solution', idle[0])}/comparisons").json() if idle else None
        missing = [c.get(path) for path in ("/solutions/nope", "/solutions/nope/comparisons")]
        unknown = c.get(f"/solutions/{codec.encode('solution', 10**9)}/comparisons")
    row = next(s for s in listed.json()["solutions"] if s["id"] == sid)
    assert one == {
        **row, "llmModelVersion": one["llmModelVersion"], "problemId": codec.encode("problem", problem),
        "problemTitle": one["problemTitle"],
    }  # fmt: skip
    assert count > 50 and set(votes) == {"comparisons"}
    got = votes["comparisons"]
    assert len(got) == 50 and got == expected and ignored == votes  # the 50 most recent, no paging
    assert all(sid in (v["solutionAId"], v["solutionBId"]) for v in got)
    times = [v["createdAt"] for v in got]
    assert times == sorted(times, reverse=True)
    assert {v["winner"] for v in got} <= {"a", "b", "skip"}
    assert none in (None, {"comparisons": []})
    for response in (*missing, unknown):
        assert response.status_code == 404 and response.json() == {"error": "Solution not found"}


def test_without_leaves_the_endpoints_out_like_unknown_routes(make_sandbox) -> None:
    server = make_sandbox(seed=8, without=("activity", "llm-leaderboard", "comparisons"))
    with httpx.Client(base_url=server.base_url, timeout=10) as c:
        sid = c.get("/problems", params={"status": "mature"}).json()["problems"][0]["id"]
        solution = c.get(f"/problems/{sid}/solutions").json()["solutions"][0]["id"]
        gone = [
            "/activity",
            "/llm-leaderboard",
            "/llm-leaderboard/families",
            "/llm-leaderboard/gpt-4o",
            f"/solutions/{solution}/comparisons",
        ]
        answers = {path: c.get(path) for path in gone}
        kept = c.get(f"/solutions/{solution}")
    for path, response in answers.items():
        assert response.status_code == 404
        assert response.json() == {"error": f"Route GET:/api/v1{path} not found"}
    assert kept.status_code == 200 and kept.json()["id"] == solution
    paths = httpx.get(f"{server.root_url}/openapi.json").json()["paths"]
    assert "/api/v1/solutions/{solution_id}" in paths
    assert not {
        "/api/v1/activity",
        "/api/v1/llm-leaderboard",
        "/api/v1/solutions/{solution_id}/comparisons",
    } & set(paths)


def test_serve_refuses_an_unknown_without_name_in_one_line(tmp_path: Path) -> None:
    db = tmp_path / "never-built.sqlite"
    result = CliRunner().invoke(
        app, ["sandbox", "serve", "--db", str(db), "--port", "0", "--without", "activty"]
    )
    assert result.exit_code == 2, result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "--without: unknown endpoint 'activty'" in lines[0]
    assert "activity, llm-leaderboard, comparisons, solution" in lines[0]
    assert not db.exists()


def test_a_platform_built_before_the_activity_log_gets_it_on_serve_and_advance(
    make_sandbox, tmp_path
) -> None:
    path = tmp_path / "old.sqlite"
    build_platform(path, seed=9, scale="small")
    conn = sqlite3.connect(path)
    conn.execute("DROP TABLE activity")
    conn.execute("DROP INDEX comparisons_b")
    conn.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")
    conn.commit()
    conn.close()
    server = make_sandbox(db_path=path)
    assert httpx.get(f"{server.base_url}/activity").json() == {"activities": []}  # the log starts now
    day = advance(path, days=1)
    events = httpx.get(f"{server.base_url}/activity", params={"limit": 50}).json()["activities"]
    assert len(events) == 50 and day["votes"] > 0
    conn = sqlite3.connect(path)
    try:
        assert get_meta(conn, "schema_version") == str(SCHEMA_VERSION)
    finally:
        conn.close()


def test_hidden_skill_reads_every_bot_without_writing(tmp_path, request) -> None:
    # The server in a process of its own: a reader in the server's own process shares SQLite's WAL index
    # (the -shm file) with it, and this checks that reading changes no byte of any of the files.
    from solvelens.sandbox.process import start_sandbox

    sandbox = start_sandbox(tmp_path / "sandbox-0.sqlite", seed=10)
    request.addfinalizer(sandbox.stop)
    files = [sandbox.db_path, *sandbox.db_path.parent.glob(f"{sandbox.db_path.name}-*")]
    before = {f: hashlib.sha256(f.read_bytes()).hexdigest() for f in files}
    truth = hidden_skill(sandbox.db_path)
    assert {f: hashlib.sha256(f.read_bytes()).hexdigest() for f in files} == before
    skills = [t["skill"] for t in truth]
    assert skills == sorted(skills, reverse=True) and len(set(skills)) > 10
    served = httpx.get(f"{sandbox.base_url}/leaderboard", params={"limit": 100}).json()["bots"]
    by_id = {t["bot_id"]: t for t in truth}
    for bot in served:
        assert by_id[bot["id"]]["name"] == bot["name"]
    models = {t["llm_model"] for t in truth}
    assert len(models - {None}) > 3
    with pytest.raises(FileNotFoundError):
        hidden_skill(tmp_path / "missing.sqlite")
    foreign = tmp_path / "foreign.sqlite"
    sqlite3.connect(foreign).execute("CREATE TABLE t (x)").connection.close()
    with pytest.raises(ValueError, match="not a sandbox platform"):
        hidden_skill(foreign)
