"""Reliability: 50 concurrent bots against ONE sandbox server for 2,000 tasks (solve and vote; some send
sloppy or broken bodies, some let tasks expire). No task is handed out twice, every accepted submission is in
SQLite, and the counters (solutions, comparisons, bot stats, /stats) reconcile with the rows."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

BOTS = 50
TASKS = 2_000
TTL = 2.0
SOLUTION = "Keep a short log for a week, change one habit at a time, and keep only what measurably helps you."


@dataclass
class Log:
    """What the bots saw (appended under ``lock``)."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    handed: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))  # task id -> bot names
    kinds: dict[str, str] = field(default_factory=dict)  # task id -> task type
    problem_of: dict[str, str] = field(default_factory=dict)  # task id -> problem id
    answers: list[tuple[str, str, int, dict]] = field(default_factory=list)  # (bot, task id, status, body)
    statuses: Counter[int] = field(default_factory=Counter)
    expired_on_purpose: int = 0

    def full(self) -> bool:
        return len(self.handed) >= TASKS


def _good(task: dict) -> dict:
    if task["taskType"] == "solve":
        return {"solution_text": SOLUTION, "llm_model": "Test-Model-1", "llm_model_version": "1"}
    return {"winner": "a"}


def _sloppy(task: dict, n: int) -> tuple[bytes | None, dict | None, int]:
    """(raw body, json body, expected status) of a sloppy answer: accepted (unknown fields are ignored, a
    model name that is not one is dropped), or refused as the real platform refuses it."""
    solve = task["taskType"] == "solve"
    variants = [
        (None, {"solution_text": SOLUTION, "note": 1} if solve else {"winner": "b", "note": "x"}, 200),
        (
            None,
            {"solution_text": SOLUTION, "llm_model": "Not A Model!!"} if solve else {"winner": "skip"},
            200,
        ),
        (b'{"solution_text": "unterminated', None, 400),  # broken JSON: the task stays assigned
        (None, {"solution_text": "too short"} if solve else {"winner": "maybe"}, 400),  # fails the task
        (None, {"content": SOLUTION} if solve else {"content": "b"}, 400),  # interface body: fails the task
    ]
    return variants[n % len(variants)]


def _failed(status: int, body: dict) -> bool:
    """Whether a submit answer failed the task (400 VALIDATION_ERROR, unlike a 400 for broken JSON)."""
    return status == 400 and body.get("code") == "VALIDATION_ERROR"


def _bot(name: str, key: str, server: Any, role: str, log: Log) -> None:
    with httpx.Client(base_url=server.base_url, headers={"Authorization": f"Bearer {key}"}, timeout=60) as c:
        n = idle = 0
        while not log.full() and idle < 40:
            r = c.get("/tasks/next")
            with log.lock:
                log.statuses[r.status_code] += 1
            if r.status_code == 204:
                idle += 1
                time.sleep(0.05)
                continue
            assert r.status_code == 200, r.text
            task = r.json()
            tid = task["taskId"]
            with log.lock:
                log.handed[tid].add(name)
                log.kinds[tid] = task["taskType"]
                log.problem_of[tid] = task["payload"]["problem_id"]
            n += 1
            if role == "expirer" and n % 4 == 0:
                # let it expire (on the server's clock, not slept for: other bots' open tasks expire too, so
                # 409 answers are at least these): the submit is refused, the next poll gets a new task
                server.advance_clock(TTL + 0.3)
                with log.lock:
                    log.expired_on_purpose += 1
            raw, body, _ = _sloppy(task, n) if role == "sloppy" else (None, _good(task), 200)
            s = (
                c.post(f"/tasks/{tid}/submit", content=raw)
                if raw is not None
                else c.post(f"/tasks/{tid}/submit", json=body)
            )
            with log.lock:
                log.statuses[s.status_code] += 1
                log.answers.append((name, tid, s.status_code, s.json()))
            if s.status_code == 400 and not _failed(400, s.json()):  # broken JSON: the task is still ours
                s = c.post(f"/tasks/{tid}/submit", json=_good(task))
                with log.lock:
                    log.statuses[s.status_code] += 1
                    log.answers.append((name, tid, s.status_code, s.json()))


@pytest.mark.slow
def test_fifty_bots_two_thousand_tasks(make_sandbox) -> None:
    server = make_sandbox(
        seed=11, scale="small", task_ttl_seconds=TTL, task_types=["solve", "vote"], vote_deadlocks=0
    )
    roles = ["sloppy"] * 10 + ["expirer"] * 5 + ["good"] * (BOTS - 15)
    names = [f"Load{i:02d}" for i in range(BOTS)]
    keys = {name: server.create_bot(name) for name in names}
    log = Log()
    errors: list[BaseException] = []

    def run(name: str, role: str) -> None:
        try:
            _bot(name, keys[name], server, role, log)
        except BaseException as exc:  # reported below, with the bot's name
            errors.append(exc)

    started = time.monotonic()
    threads = [threading.Thread(target=run, args=(n, r)) for n, r in zip(names, roles, strict=True)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.monotonic() - started
    assert not errors, errors[:3]
    assert len(log.handed) >= TASKS, (len(log.handed), elapsed)
    assert not [s for s in log.statuses if s >= 500], log.statuses
    assert set(log.statuses) <= {200, 204, 400, 409}, log.statuses
    assert log.statuses[409] >= log.expired_on_purpose > 0
    print(f"{len(log.handed)} tasks to {BOTS} bots in {elapsed:.1f} s; answers {dict(log.statuses)}")

    # 1. no task went to two bots (re-polls of an unfinished task return the same id to the same bot)
    assert all(len(bots) == 1 for bots in log.handed.values())
    conn = sqlite3.connect(server.db_path)
    ids = dict(conn.execute("SELECT id, name FROM bots WHERE name LIKE 'Load%'").fetchall())
    by_name = {v: k for k, v in ids.items()}
    rows = conn.execute(
        f"SELECT bot_id, task_type, status FROM tasks WHERE bot_id IN ({','.join(map(str, ids))})"
    ).fetchall()
    assert len(rows) == len(log.handed)  # every task row was seen by exactly one bot, once
    assert Counter(ids[r[0]] for r in rows) == Counter(next(iter(b)) for b in log.handed.values())

    # 2. every accepted submission is stored
    accepted = [(bot, tid, body) for bot, tid, status, body in log.answers if status == 200]
    solved = {
        body["result"]["solution_id"]: (bot, log.problem_of[tid])
        for bot, tid, body in accepted
        if log.kinds[tid] == "solve" and not body.get("duplicate")
    }
    votes = Counter(bot for bot, tid, body in accepted if log.kinds[tid] == "vote")
    assert not [b for b in accepted if log.kinds[b[1]] == "solve" and b[2].get("duplicate")]
    stored = conn.execute(
        "SELECT s.id, b.name, s.problem_id FROM solutions s JOIN bots b ON b.id = s.bot_id "
        "WHERE b.name LIKE 'Load%'"
    ).fetchall()
    assert len(stored) == len(solved) > 50
    api_solutions = {}  # solution id -> (bot name, problem id), as the public API serves them
    with httpx.Client(base_url=server.base_url, timeout=30) as c:
        for pid in {p for _, p in solved.values()}:
            for s in c.get(f"/problems/{pid}/solutions", params={"limit": 100}).json()["solutions"]:
                api_solutions[s["id"]] = (s["botName"], pid)
        stats = c.get("/stats").json()
    assert {sid: api_solutions.get(sid) for sid in solved} == solved
    stored_votes = Counter(
        ids[r[0]]
        for r in conn.execute(
            f"SELECT voter_bot_id FROM comparisons WHERE voter_bot_id IN ({','.join(map(str, ids))})"
        )
    )
    assert stored_votes == votes and sum(votes.values()) > 500
    done = Counter((ids[r[0]], r[2]) for r in rows)
    answered = Counter((bot, status) for bot, _, status, _ in log.answers)
    failed = Counter(bot for bot, _, status, body in log.answers if _failed(status, body))
    assert sum(failed.values()) > 0
    for name in names:
        assert done[(name, "completed")] == answered[(name, 200)], name
        assert done[(name, "failed")] == failed[name], name

    # 3. counters reconcile with the rows (whole platform, generated history included)
    bad_problems = conn.execute(
        "SELECT count(*) FROM problems p WHERE p.solution_count != (SELECT count(*) FROM solutions s "
        "WHERE s.problem_id = p.id) OR p.comparison_count != (SELECT count(*) FROM comparisons c "
        "WHERE c.problem_id = p.id)"
    ).fetchone()[0]
    bad_solutions = conn.execute(
        "SELECT count(*) FROM solutions s WHERE s.comparison_count != (SELECT count(*) FROM comparisons c "
        "WHERE c.solution_a = s.id OR c.solution_b = s.id) OR s.comparison_count < s.win_count + s.loss_count"
    ).fetchone()[0]
    bad_bots = conn.execute(
        "SELECT b.name FROM bots b WHERE b.total_solutions != (SELECT count(*) FROM solutions s "
        "WHERE s.bot_id = b.id) OR b.total_votes != (SELECT count(*) FROM comparisons c "
        "WHERE c.voter_bot_id = b.id) OR (b.name LIKE 'Load%' AND (b.total_points != 5 * b.total_solutions "
        "+ 2 * b.total_votes + coalesce((SELECT sum(points) FROM awards a WHERE a.bot_id = b.id), 0) "
        "OR b.total_tasks_completed != b.total_solutions + b.total_votes))"
    ).fetchall()
    assert (bad_problems, bad_solutions, bad_bots) == (0, 0, [])
    totals = conn.execute(
        "SELECT (SELECT count(*) FROM solutions), (SELECT coalesce(sum(comparison_count), 0) FROM problems "
        "WHERE status != 'rejected')"
    ).fetchone()
    assert (stats["totalSolutions"], stats["totalComparisons"]) == totals
    with httpx.Client(base_url=server.base_url, timeout=30) as c:
        for name in names[:: BOTS // 5]:
            me = c.get("/bot/me", headers={"Authorization": f"Bearer {keys[name]}"}).json()
            row = conn.execute(
                "SELECT total_solutions, total_votes, total_points FROM bots WHERE id = ?", (by_name[name],)
            ).fetchone()
            assert (me["totalSolutions"], me["totalVotes"], me["totalPoints"]) == row
    conn.close()
