"""The sandbox does what the real server was seen to do, by default (real-platform-notes §11-§15, issue 29),
each behaviour shown over HTTP on 127.0.0.1, with the switch that turns it off:

- solve instructions give guidance ("Aim for 400-1200 characters") beside the rule the platform validates
  ("Respond with: - solution_text: ... (10-2000 characters)"); the bounds a switch (``--solution-length``),
  the wording a switch (``--solve-instructions rule``); a 400 names the bound.
- a share of vote submits (``--vote-deadlocks``, 4 %) answered 500 "deadlock detected" after the vote row is
  written: no count moves, the task fails; the simulator's votes too (``sandbox simulate --vote-deadlocks``);
  ``/stats totalComparisons`` is the sum of the problems' counts, so it undercounts with them.
- ``/llm-leaderboard`` recalculated lazily (``--llm-board lazy``): a model's score figures are those of its
  last recalculation (a solution of it reaching a multiple of 10 comparisons); never recalculated: win rate 0,
  average score 1500.
- equal values in another order on each call (``--tie-order shuffle``): leaderboard bots, models, solutions;
  ``--tie-order stable`` for tests comparing listing order.
- renames through the settings route (``PUT /user/bot-profile``) and ``solvelens sandbox rename-bot``: votes
  answer the voter's current name, activity rows keep the name of their time.
- a task its bot does not submit (refused locally) stays assigned for its TTL (600 s, ``--task-ttl``) and is
  served again unchanged, also to a new process of the same bot; a task whose submit fails validation (400)
  is failed (a resubmit is 409) and its problem may be handed to the bot again as a new task (§11, §12).
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from solvelens.cli import app as cli
from solvelens.sandbox.generate import build_platform
from solvelens.sandbox.simulate import advance
from tests.fixtures.sandbox import SandboxServer, start_sandbox


@pytest.fixture(scope="module")
def real(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SandboxServer]:
    """A small platform served with every default (the real platform's behaviour), solve tasks only."""
    server = start_sandbox(tmp_path_factory.mktemp("real") / "sandbox.sqlite", seed=5, task_types="solve")
    try:
        yield server
    finally:
        server.stop()


def _bot(server: SandboxServer, name: str) -> httpx.Client:
    key = server.create_bot(name)
    return httpx.Client(base_url=server.base_url, headers={"Authorization": f"Bearer {key}"}, timeout=30)


def _solve(client: httpx.Client, text: str) -> httpx.Response:
    task = client.get("/tasks/next").json()
    assert task["taskType"] == "solve"
    return client.post(f"/tasks/{task['taskId']}/submit", json={"solution_text": text})


def test_solve_instructions_give_guidance_beside_the_validated_rule(real: SandboxServer) -> None:
    with _bot(real, "GuidedBot") as bot:
        task = bot.get("/tasks/next").json()
        instruction = task["payload"]["instruction"]
        assert "Aim for 400-1200 characters. This is the sweet spot" in instruction
        assert "Respond with:\n- solution_text: your proposed solution (10-2000 characters)" in instruction
        brief = bot.get("/tasks/next", params={"brief": "true"}).json()  # the same task, re-served unchanged
        assert brief == task
        for length in (1400, 32, 10, 2000):  # outside the guidance, inside the rule: accepted
            ok = bot.post(f"/tasks/{task['taskId']}/submit", json={"solution_text": "x" * length})
            assert ok.status_code == 200, (length, ok.text)
            task = bot.get("/tasks/next").json()
        for length, bound in ((2001, "at most 2000"), (9, "at least 10")):
            refused = bot.post(f"/tasks/{task['taskId']}/submit", json={"solution_text": "y" * length})
            assert refused.status_code == 400
            body = refused.json()
            assert body["code"] == "VALIDATION_ERROR"
            assert body["details"] == [
                {"field": "solution_text", "message": f"String must contain {bound} character(s)"}
            ]
            again = bot.post(f"/tasks/{task['taskId']}/submit", json={"solution_text": "z" * 500})
            assert again.status_code == 409  # the failed task is done
            task = bot.get("/tasks/next").json()
    spec = httpx.get(f"{real.root_url}/openapi.json").json()
    text = spec["components"]["schemas"]["SolveBody"]["properties"]["solution_text"]
    assert (text["minLength"], text["maxLength"]) == (10, 2000)


def test_the_newer_bounds_and_the_rule_alone_are_switches(make_sandbox, real: SandboxServer) -> None:
    server = make_sandbox(
        db_path=Path(real.db_path), solution_length="50-5000", solve_instructions="rule", task_types="solve"
    )
    with _bot(server, "NewerBot") as bot:
        instruction = bot.get("/tasks/next").json()["payload"]["instruction"]
        assert "(50-5000 characters)" in instruction and "Aim for" not in instruction
        refused = _solve(bot, "w" * 30)
        assert refused.status_code == 400
        assert refused.json()["details"][0]["message"] == "String must contain at least 50 character(s)"
        assert _solve(bot, "v" * 4000).status_code == 200


def _sql(db: Path, query: str, *args: object) -> list[tuple]:
    conn = sqlite3.connect(db)
    try:
        return conn.execute(query, args).fetchall()
    finally:
        conn.close()


def test_a_deadlocked_vote_is_stored_and_counted_nowhere(make_sandbox, real: SandboxServer) -> None:
    server = make_sandbox(db_path=Path(real.db_path), task_types="vote", vote_deadlocks=1.0)
    rows_before = _sql(server.db_path, "SELECT count(*) FROM comparisons")[0][0]
    stats_before = httpx.get(f"{server.base_url}/stats").json()["totalComparisons"]
    with _bot(server, "DeadlockVoter") as bot:
        task = bot.get("/tasks/next").json()
        a, b = task["payload"]["solution_a_id"], task["payload"]["solution_b_id"]
        counts = {s: bot.get(f"/solutions/{s}").json() for s in (a, b)}
        lost = bot.post(f"/tasks/{task['taskId']}/submit", json={"winner": "a"})
        assert lost.status_code == 500
        assert lost.json() == {
            "statusCode": 500,
            "error": "Internal Server Error",
            "message": "deadlock detected",
        }
        assert bot.post(f"/tasks/{task['taskId']}/submit", json={"winner": "a"}).status_code == 409  # failed
        for sid in (a, b):
            after = bot.get(f"/solutions/{sid}").json()
            for key in ("comparisonCount", "winCount", "lossCount", "btScore"):
                assert after[key] == counts[sid][key], (sid, key)
            listed = bot.get(f"/solutions/{sid}/comparisons").json()["comparisons"]
            assert [c["voterBotName"] for c in listed if c["voterBotName"] == "DeadlockVoter"] == [
                "DeadlockVoter"
            ]
        me = bot.get("/bot/me").json()
        assert me["totalVotes"] == 0 and me["totalPoints"] == 0
    assert _sql(server.db_path, "SELECT count(*) FROM comparisons")[0][0] == rows_before + 1
    stats = httpx.get(f"{server.base_url}/stats").json()["totalComparisons"]
    summed = _sql(server.db_path, "SELECT sum(comparison_count) FROM problems WHERE status != 'rejected'")[0][
        0
    ]
    assert stats == stats_before == summed  # the platform's figure: the problems' counts, not the rows


def test_by_default_a_share_of_votes_deadlock_here_and_in_the_simulator(
    real: SandboxServer, tmp_path
) -> None:
    spec = httpx.get(f"{real.root_url}/openapi.json").json()
    submit = spec["paths"]["/api/v1/tasks/{task_id}/submit"]["post"]["responses"]
    assert "deadlock detected" in submit["500"]["description"]
    db = tmp_path / "sim.sqlite"
    build_platform(db, seed=2, scale="small")
    ((rows, counted),) = _sql(
        db, "SELECT (SELECT count(*) FROM comparisons), sum(comparison_count) FROM problems"
    )
    assert rows == counted  # the build: every vote counted
    result = advance(db, days=2)
    assert (
        result["deadlocked"] > 0
        and 0.01 < result["deadlocked"] / (result["votes"] + result["deadlocked"]) < 0.1
    )
    ((rows, counted),) = _sql(
        db, "SELECT (SELECT count(*) FROM comparisons), sum(comparison_count) FROM problems"
    )
    assert rows - counted == result["deadlocked"]
    kind = tmp_path / "kind.sqlite"
    build_platform(kind, seed=2, scale="small")
    assert advance(kind, days=1, vote_deadlocks=0.0)["deadlocked"] == 0


def _solve_with_model(server: SandboxServer, name: str, model: str) -> None:
    with _bot(server, name) as bot:
        task = bot.get("/tasks/next").json()
        body = {"solution_text": f"A practical answer by {name}.", "llm_model": model}
        assert bot.post(f"/tasks/{task['taskId']}/submit", json=body).status_code == 200


def test_the_model_board_is_recalculated_lazily(make_sandbox, real: SandboxServer) -> None:
    for i in range(3):  # three new models, never recalculated
        _solve_with_model(real, f"LazyModelBot{i}", f"zz-lazy-model-{i}")
    advance(real.db_path, days=1)  # a day of votes: some models recalculated, the others left behind
    models = httpx.get(f"{real.base_url}/llm-leaderboard", params={"limit": 100}).json()["models"]
    stored = {
        m: (json.loads(f), t)
        for m, f, t in _sql(real.db_path, "SELECT model, figures, updated_at FROM llm_board")
    }
    live = make_sandbox(db_path=Path(real.db_path), llm_board="live")
    live_models = {
        m["modelName"]: m
        for m in httpx.get(f"{live.base_url}/llm-leaderboard", params={"limit": 100}).json()["models"]
    }
    assert stored, "the build recalculated some models (their solutions reached 10 comparisons)"
    stale_seen = differs_from_live = 0
    for m in models:
        figures = {k: m[k] for k in ("avgBtScore", "bestBtScore", "totalWins", "totalComparisons", "winRate")}
        if m["modelName"] in stored:
            want, _ = stored[m["modelName"]]
            assert figures == {k: want[k] for k in figures}, m["modelName"]
        else:
            stale_seen += 1
            assert figures == {
                "avgBtScore": 1500,
                "bestBtScore": 1500,
                "totalWins": 0,
                "totalComparisons": 0,
                "winRate": 0,
            }
            assert m["updatedAt"] == m["firstSeenAt"]
        assert m["totalSolutions"] == live_models[m["modelName"]]["totalSolutions"]  # kept current
        differs_from_live += figures["totalComparisons"] != live_models[m["modelName"]]["totalComparisons"]
    assert stale_seen >= 3
    assert differs_from_live >= 1  # the lazy board lags the live figures
    sql_live = _sql(
        real.db_path,
        "SELECT sum(comparison_count) FROM solutions WHERE llm_model = ?",
        models[0]["modelName"],
    )[0][0]
    assert live_models[models[0]["modelName"]]["totalComparisons"] == sql_live


def _orders(url: str, params: dict[str, object], key: str, name: str, tied: set[str]) -> set[tuple[str, ...]]:
    seen = set()
    for _ in range(12):
        entries = httpx.get(url, params=params).json()[key]
        seen.add(tuple(e[name] for e in entries if e[name] in tied))
    return seen


def test_ties_come_back_in_another_order_on_each_call(make_sandbox, real: SandboxServer) -> None:
    tied_bots = {f"TiedBot{i}" for i in range(5)}
    for name in sorted(tied_bots):
        real.create_bot(name)  # five active bots at 0 points
    orders = _orders(f"{real.base_url}/leaderboard", {"limit": 100}, "bots", "name", tied_bots)
    assert len(orders) > 1 and all(len(o) == 5 for o in orders)
    tied_models = {f"zz-tied-model-{i}" for i in range(4)}
    for i, model in enumerate(sorted(tied_models)):
        _solve_with_model(real, f"TiedModelBot{i}", model)
    params = {"limit": 100, "sort": "win_rate"}
    models = _orders(f"{real.base_url}/llm-leaderboard", params, "models", "modelName", tied_models)
    assert len(models) > 1
    stable = make_sandbox(db_path=Path(real.db_path), tie_order="stable")
    assert len(_orders(f"{stable.base_url}/leaderboard", {"limit": 100}, "bots", "name", tied_bots)) == 1
    assert len(_orders(f"{stable.base_url}/llm-leaderboard", params, "models", "modelName", tied_models)) == 1


def test_a_rename_shows_on_votes_at_once_while_activity_keeps_the_old_name(
    make_sandbox, real: SandboxServer
) -> None:
    voting = make_sandbox(db_path=Path(real.db_path), task_types="vote", vote_deadlocks=0)
    key = real.create_bot("BeforeRename")
    headers = {"Authorization": f"Bearer {key}"}
    with httpx.Client(base_url=voting.base_url, headers=headers) as bot:
        task = bot.get("/tasks/next").json()
        assert bot.post(f"/tasks/{task['taskId']}/submit", json={"winner": "b"}).status_code == 200
        sid = task["payload"]["solution_b_id"]
        renamed = bot.put("/user/bot-profile", json={"botName": "AfterRename"})
        assert renamed.status_code == 200
        assert renamed.json() == {"success": True, "botName": "AfterRename", "previousName": "BeforeRename"}
        assert bot.put("/user/bot-profile", json={"botName": "x"}).status_code == 400
        taken = next(b["name"] for b in bot.get("/leaderboard").json()["bots"] if b["name"] != "AfterRename")
        assert bot.put("/user/bot-profile", json={"botName": taken}).status_code == 409
        assert bot.put("/user/bot-profile", json={"name": "Other"}).status_code == 400
        assert httpx.put(f"{voting.base_url}/user/bot-profile", json={"botName": "Nobody"}).status_code == 401
        voters = [c["voterBotName"] for c in bot.get(f"/solutions/{sid}/comparisons").json()["comparisons"]]
        assert "AfterRename" in voters and "BeforeRename" not in voters
        assert bot.get("/bot/me").json()["name"] == "AfterRename"
        mine = [
            a
            for a in bot.get("/activity", params={"limit": 50}).json()["activities"]
            if a["action"] == "vote_cast"
        ]
        assert [a["botName"] for a in mine if a["botName"] in ("BeforeRename", "AfterRename")][:1] == [
            "BeforeRename"
        ]
        task = bot.get("/tasks/next").json()
        assert bot.post(f"/tasks/{task['taskId']}/submit", json={"winner": "a"}).status_code == 200
        names = [a["botName"] for a in bot.get("/activity", params={"limit": 50}).json()["activities"]]
        assert names.index("AfterRename") < names.index(
            "BeforeRename"
        )  # newest first: the new vote, new name
    result = CliRunner().invoke(
        cli, ["sandbox", "rename-bot", "AfterRename", "ThirdName", "--db", str(real.db_path)]
    )
    assert result.exit_code == 0, result.output
    assert httpx.get(f"{real.base_url}/bot/me", headers=headers).json()["name"] == "ThirdName"
    names = {
        a["botName"]
        for a in httpx.get(f"{real.base_url}/activity", params={"limit": 50}).json()["activities"]
    }
    assert {"BeforeRename", "AfterRename"} <= names and "ThirdName" not in names
    gone = CliRunner().invoke(
        cli, ["sandbox", "rename-bot", "NoSuchBot", "Whatever", "--db", str(real.db_path)]
    )
    assert gone.exit_code == 1 and "NoSuchBot" in gone.output


_FETCH = """
import json, sys, httpx
r = httpx.get(sys.argv[1] + "/tasks/next", headers={"Authorization": "Bearer " + sys.argv[2]})
print(json.dumps(r.json()))
"""


def test_a_task_not_submitted_is_served_again_unchanged_to_a_new_process(real: SandboxServer) -> None:
    key = real.create_bot("RefusingBot")
    with httpx.Client(base_url=real.base_url, headers={"Authorization": f"Bearer {key}"}) as bot:
        task = bot.get("/tasks/next").json()
    again = subprocess.run(
        [sys.executable, "-c", _FETCH, real.base_url, key],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert json.loads(again.stdout) == task  # same taskId, same payload, in another process
    (ttl,) = _sql(
        real.db_path,
        "SELECT expires_wall - assigned_wall FROM tasks WHERE payload = ?",
        json.dumps(task["payload"], separators=(",", ":")),
    )[0]
    assert ttl == pytest.approx(600)
    with httpx.Client(base_url=real.base_url, headers={"Authorization": f"Bearer {key}"}) as bot:
        refused = bot.post(f"/tasks/{task['taskId']}/submit", json={"solution_text": "short"})
        assert refused.status_code == 400
        assert (
            bot.post(f"/tasks/{task['taskId']}/submit", json={"solution_text": "x" * 500}).status_code == 409
        )
        new = bot.get("/tasks/next").json()
        assert new["taskId"] != task["taskId"]
        assert new["payload"]["problem_id"] == task["payload"]["problem_id"]  # the same problem, handed again
