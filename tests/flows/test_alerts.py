"""Alerts end to end: a sandbox driven through each transition by editing its SQLite file, snapshots taken by
the real CLI as Prefect flow runs against a real ``prefect server start`` (one per module), notifications
caught by a webhook receiver on 127.0.0.1 (apprise ``json://``), events read back from the server.

Done when: each rule fires exactly once (receiver and Prefect events agree); a snapshot where nothing changed
sends nothing; an unreachable notification target leaves every snapshot complete; a backfilled snapshot fires
nothing; ``stale > H hours`` fires once from ``schedule``; a notification URL's secret appears nowhere.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import duckdb
import pytest

from solvelens.flows.deployments import local_prefect_server
from solvelens.flows.steps import SnapshotPlan, run_snapshot
from tests.fixtures.prefect_api import api_post
from tests.fixtures.sandbox import SandboxServer, free_port, start_sandbox

SECRET = "hunter2-SECRET-TOKEN"
RULES = [
    "new-leader",
    "top 5 entered",
    "top 5 left",
    "rank-drop >= 5",
    "my-bot rank > 10",
    "problem matured",
]


class Receiver:
    """A webhook receiver on 127.0.0.1: every POSTed JSON body with its path, in arrival order."""

    def __init__(self) -> None:
        posts: list[dict[str, Any]] = []
        self.posts = posts

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                posts.append({"path": self.path, **json.loads(body)})
                self.send_response(200)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def url(self) -> str:
        return f"json://127.0.0.1:{self.port}/hook/{SECRET}"

    def titles(self) -> list[str]:
        return [p["title"].removeprefix("solvelens alert: ") for p in self.posts]


@pytest.fixture(scope="module")
def receiver() -> Iterator[Receiver]:
    r = Receiver()
    try:
        yield r
    finally:
        r.server.shutdown()


@pytest.fixture(scope="module")
def prefect_api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict[str, str]]]:
    """One real ``prefect server start`` for the module; yields its API URL and the environment of every
    process the tests start (its own PREFECT_HOME, no SOLVELENS_* of the caller)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SOLVELENS_", "PREFECT_"))}
    env |= {
        "PREFECT_HOME": str(tmp_path_factory.mktemp("prefect-home")),
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "PREFECT_SERVER_UI_ENABLED": "false",
        "PREFECT_LOGGING_TO_API_WHEN_MISSING_FLOW": "ignore",
        # `schedule`'s runner asks for runs every second (default 10 s): a run a test creates starts at once.
        "PREFECT_RUNNER_POLL_FREQUENCY": "1",
    }
    with local_prefect_server(env=env, start_timeout_s=180) as api:
        yield api, env | {"PREFECT_API_URL": api}


@pytest.fixture(scope="module")
def platform(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SandboxServer]:
    """A sandbox of this module only (its SQLite file is edited to drive the transitions)."""
    server = start_sandbox(tmp_path_factory.mktemp("alerts-sandbox") / "sandbox.sqlite", seed=11)
    try:
        yield server
    finally:
        server.stop()


# -- driving the platform through transitions (its SQLite file) --------------------------------------------


def _board(db: Path, without: int | None = None) -> list[tuple[int, str, int]]:
    con = sqlite3.connect(db)
    try:
        rows = con.execute(
            "SELECT id, name, total_points FROM bots WHERE status = 'active' ORDER BY total_points DESC, id"
        ).fetchall()
    finally:
        con.close()
    return [r for r in rows if r[0] != without]


def _set_points(db: Path, bot: int, points: int) -> None:
    con = sqlite3.connect(db)
    try:
        con.execute("UPDATE bots SET total_points = ? WHERE id = ?", [points, bot])
        con.commit()
    finally:
        con.close()


def _place(db: Path, bot: int, rank: int) -> None:
    """Give ``bot`` the points that put it alone at ``rank`` (between the other bots' rank-1 and rank)."""
    others = [p for _, _, p in _board(db, without=bot)]
    above, below = others[rank - 2], others[rank - 1]
    assert above - below >= 2, f"no room at rank {rank}: {others[:15]}"
    _set_points(db, bot, (above + below) // 2)


def _mature_one(db: Path) -> tuple[int, str]:
    con = sqlite3.connect(db)
    try:
        pid, title = con.execute(
            "SELECT id, title FROM problems WHERE status = 'active' ORDER BY id"
        ).fetchone()
        con.execute("UPDATE problems SET status = 'mature' WHERE id = ?", [pid])
        con.commit()
    finally:
        con.close()
    return pid, title


def _bot_id(store: Path, name: str) -> str:
    con = duckdb.connect(str(store), read_only=True)
    try:
        return str(con.sql(f"SELECT DISTINCT bot_id FROM leaderboard WHERE name = '{name}'").fetchall()[0][0])
    finally:
        con.close()


# -- running the CLI ---------------------------------------------------------------------------------------


def _snapshot(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "solvelens", "snapshot", *args],
        env=env | {"COLUMNS": "200"},
        capture_output=True,
        text=True,
        timeout=300,
    )


def _alert_lines(result: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in result.stdout.splitlines() if line.startswith("alert [")]


def _events(api: str, expected: int, timeout_s: float = 60.0) -> list[dict[str, Any]]:
    """The ``solvelens.alert.*`` events the server holds, waiting until ``expected`` arrived (then 2 s more,
    so an extra one would be seen too)."""
    body = {"filter": {"event": {"prefix": ["solvelens.alert."]}, "order": "ASC"}, "limit": 50}

    def read() -> list[dict[str, Any]]:
        answer = api_post(f"{api}/events/filter", json=body, timeout=10)
        assert answer.status_code == 200, answer.text
        return list(answer.json()["events"])

    deadline = time.monotonic() + timeout_s
    while len(read()) < expected and time.monotonic() < deadline:
        time.sleep(1.0)
    time.sleep(2.0)
    return read()


def _state(api: str, run_url: str) -> str | None:
    """A flow run's state type (``COMPLETED``, ...), read from the Prefect API."""
    from tests.fixtures.prefect_api import api_get

    state = api_get(run_url, timeout=10).json().get("state") or {}
    return state.get("type")


def _snapshot_count(store: Path) -> int:
    con = duckdb.connect(str(store), read_only=True)
    try:
        return int(con.sql("SELECT count(*) FROM snapshots WHERE status = 'complete'").fetchall()[0][0])
    finally:
        con.close()


@pytest.mark.slow
def test_each_rule_fires_exactly_once_per_transition(
    platform: SandboxServer, receiver: Receiver, prefect_api: tuple[str, dict[str, str]], tmp_path: Path
) -> None:
    api, env = prefect_api
    db = platform.db_path
    store = tmp_path / "store.duckdb"
    key = platform.create_bot("AlertMine")
    mine = next(i for i, name, _ in _board(db) if name == "AlertMine")
    rules = tmp_path / "rules.toml"
    rules.write_text(f"alerts = {json.dumps(RULES)}\nnotify = [{json.dumps(receiver.url())}]\n")
    dead = f"json://127.0.0.1:{free_port()}/never/{SECRET}"  # nothing listens there
    args = ["--base-url", platform.base_url, "--db", str(store), "--prefect", "--alerts-file", str(rules)]
    args += ["--notify", dead, "--alert-exit-code", "3"]
    args += ["--resources", "none"]  # the rules read the leaderboard and problems, no optional resource
    run_env = env | {"SOLVELENS_API_KEY": key}
    receiver.posts.clear()
    outputs = []

    # 1: the first snapshot (mine at #8): nothing to compare with, my bot is within the top 10.
    _place(db, mine, 8)
    outputs.append(first := _snapshot(run_env, *args))
    assert first.returncode == 0, first.stderr
    assert _alert_lines(first) == [] and receiver.posts == []

    # 2: nothing changed: nothing sent.
    outputs.append(same := _snapshot(run_env, *args))
    assert same.returncode == 0 and _alert_lines(same) == [] and receiver.posts == [], same.stderr

    # 3: the leader loses everything (new leader, leaves the top 5, drops >= 5 places; #6 enters the top 5)
    #    and a problem matures. My bot moves up one place: nothing for it.
    leader, leader_name, _ = _board(db)[0]
    second_name, sixth_name = _board(db)[1][1], _board(db)[5][1]
    _set_points(db, leader, 0)
    _, title = _mature_one(db)
    outputs.append(changed := _snapshot(run_env, *args))
    assert changed.returncode == 3, changed.stderr  # complete, and alerts fired
    lines = _alert_lines(changed)
    assert lines == [
        f"alert [new-leader] new leader: {second_name} took #1 (was #2; #1 before: {leader_name})",
        f"alert [top 5 entered] {sixth_name} entered the top 5: #6 -> #5",
        f"alert [top 5 left] {leader_name} left the top 5: #1 -> {lines[2].rsplit(' ', 1)[-1]}",
        f"alert [rank-drop >= 5] {leader_name} dropped" + lines[3].split("dropped", 1)[1],
        f"alert [problem matured] problem matured: {title} (active -> mature)",
    ]
    # the unreachable target: one warning line, the snapshot complete all the same
    warnings = [line for line in changed.stdout.splitlines() if "not delivered" in line]
    assert len(warnings) == 1 and "json://127.0.0.1:" in warnings[0] and SECRET not in warnings[0]

    # 4: my bot falls from #7 to #11 (4 places: no rank-drop >= 5; the top 5 unchanged).
    _place(db, mine, 11)
    outputs.append(mine_out := _snapshot(run_env, *args))
    assert mine_out.returncode == 3, mine_out.stderr
    assert _alert_lines(mine_out) == [
        "alert [my-bot rank > 10] your bot AlertMine is ranked #11 (rule: rank > 10)"
    ]

    # 5: nothing changed again (my bot still below #10): nothing sent.
    outputs.append(again := _snapshot(run_env, *args))
    assert again.returncode == 0 and _alert_lines(again) == [], again.stderr

    assert Counter(receiver.titles()) == Counter(RULES), receiver.titles()
    assert _snapshot_count(store) == 5

    events = _events(api, expected=len(RULES))
    assert Counter(e["event"] for e in events) == Counter(
        f"solvelens.alert.{k}"
        for k in ("new-leader", "top-entered", "top-left", "rank-drop", "my-bot-rank", "problem-matured")
    )
    by_name = {e["event"]: e for e in events}
    leader_event = by_name["solvelens.alert.new-leader"]
    related = {r["prefect.resource.id"]: r for r in leader_event["related"]}
    new_leader_id = f"solvelens.bot.{_bot_id(store, second_name)}"
    assert related[new_leader_id]["prefect.resource.role"] == "bot"
    assert leader_event["resource"]["prefect.resource.id"].startswith("solvelens.platform.")
    matured = by_name["solvelens.alert.problem-matured"]
    assert any(r["prefect.resource.role"] == "problem" for r in matured["related"])
    assert matured["payload"]["message"].startswith("problem matured: ")

    # the run's markdown artifact carries the diff and the alerts
    artifacts = api_post(
        f"{api}/artifacts/filter",
        json={"artifacts": {"key": {"any_": ["solvelens-snapshot"]}}, "sort": "CREATED_DESC", "limit": 10},
        timeout=10,
    ).json()
    texts = [a["data"] for a in artifacts]
    with_leader = [t for t in texts if "new leader:" in t]
    assert (
        len(with_leader) == 1
        and "## What changed" in with_leader[0]
        and "Left the top 10 (1)" in with_leader[0]
    )
    assert any("No alert fired." in t and "Nothing changed." in t for t in texts)

    # the notification URLs' secret: never printed, stored, logged or a flow parameter
    assert all(SECRET not in o.stdout + o.stderr for o in outputs)
    assert SECRET.encode() not in store.read_bytes()
    runs = api_post(f"{api}/flow_runs/filter", json={"limit": 20}, timeout=10).json()
    assert len(runs) == 5 and all(SECRET not in json.dumps(r["parameters"]) for r in runs)
    assert all(r["parameters"]["plan"]["alerts_file"] == str(rules) for r in runs)
    logs = api_post(f"{api}/logs/filter", json={"limit": 200}, timeout=10).json()
    assert logs and all(SECRET not in log["message"] for log in logs)


def test_a_backfilled_snapshot_never_fires(
    platform: SandboxServer, receiver: Receiver, tmp_path: Path
) -> None:
    store = tmp_path / "store.duckdb"
    plan = {
        "base_url": platform.base_url,
        "db_path": str(store),
        "use_api_key": False,
        "resources": [],  # the rule reads the problems, no optional resource
        "alerts": ["problem matured"],
    }
    os.environ["SOLVELENS_NOTIFY"] = receiver.url()
    try:
        receiver.posts.clear()
        run_snapshot(SnapshotPlan(**plan, taken_at="2030-01-02T00:00:00Z"))
        _mature_one(platform.db_path)
        summary = run_snapshot(SnapshotPlan(**plan, taken_at="2030-01-01T00:00:00Z", backfill=True))
        assert summary.alerts["fired"] == [] and "backfill" in summary.alerts["skipped"]
        assert receiver.posts == []
        # the next live snapshot compares with the newest one before it (the first): the change fires now
        live = run_snapshot(SnapshotPlan(**plan, taken_at="2030-01-03T00:00:00Z"))
        assert [a["rule"] for a in live.alerts["fired"]] == ["problem matured"]
        assert receiver.titles() == ["problem matured"]
    finally:
        del os.environ["SOLVELENS_NOTIFY"]


@pytest.mark.slow
def test_stale_fires_once_from_schedule(
    platform: SandboxServer, receiver: Receiver, prefect_api: tuple[str, dict[str, str]], tmp_path: Path
) -> None:
    api, env = prefect_api
    store = tmp_path / "store.duckdb"
    run_snapshot(
        SnapshotPlan(base_url=platform.base_url, db_path=str(store), use_api_key=False, resources=[])
    )
    receiver.posts.clear()
    before = {e["id"] for e in _events(api, expected=0, timeout_s=0)}
    never = "0 0 1 1 *"
    proc = subprocess.Popen(
        [
            *(sys.executable, "-m", "solvelens", "schedule", "--base-url", platform.base_url),
            *("--db", str(store), "--cron", never, "--report-cron", never),
            *("--report-out", str(tmp_path / "r.html"), "--notify", receiver.url()),
            *("--alert", "stale > 0.001 hours"),  # 3.6 s, checked every second
        ],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 180
        while not receiver.posts and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.5)
        time.sleep(4.0)  # four more checks: the rule must not fire again
    finally:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    assert receiver.titles() == ["stale > 0.001 hours"], (out, err)
    lines = [line for line in out.splitlines() if line.startswith("alert [")]
    assert len(lines) == 1 and lines[0].startswith("alert [stale > 0.001 hours] no complete snapshot for ")
    assert SECRET not in out + err
    events = [e for e in _events(api, expected=len(before) + 1) if e["id"] not in before]
    assert [e["event"] for e in events] == ["solvelens.alert.stale"]
    assert events[0]["related"] == []  # platform-wide: the platform is the resource


@pytest.mark.slow
def test_a_scheduled_run_fires_alerts_with_urls_from_the_serving_environment(
    platform: SandboxServer, receiver: Receiver, prefect_api: tuple[str, dict[str, str]], tmp_path: Path
) -> None:
    api, env = prefect_api
    store = tmp_path / "store.duckdb"
    run_snapshot(
        SnapshotPlan(base_url=platform.base_url, db_path=str(store), use_api_key=False, resources=[])
    )
    receiver.posts.clear()
    never = "0 0 1 1 *"
    proc = subprocess.Popen(
        [
            *(sys.executable, "-m", "solvelens", "schedule", "--base-url", platform.base_url),
            *("--db", str(store), "--cron", never, "--report-cron", never),
            *("--report-out", str(tmp_path / "r.html"), "--notify", receiver.url()),
            *("--alert", "problem matured"),
        ],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 180
        deployment = None
        while deployment is None and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(1.0)
            found = api_post(f"{api}/deployments/filter", json={}, timeout=10).json()
            deployment = next(
                (d for d in found if d["parameters"].get("plan", {}).get("db_path") == str(store)), None
            )
        assert deployment is not None, "the snapshot deployment was not served"
        assert deployment["parameters"]["plan"]["alerts"] == ["problem matured"]
        assert SECRET not in json.dumps(deployment)
        _, title = _mature_one(platform.db_path)
        created = api_post(f"{api}/deployments/{deployment['id']}/create_flow_run", json={}, timeout=10)
        created.raise_for_status()
        run_url = f"{api}/flow_runs/{created.json()['id']}"
        while _state(api, run_url) not in ("COMPLETED", "FAILED", "CRASHED") and time.monotonic() < deadline:
            time.sleep(0.5)  # a condition, not a fixed wait: the run's end (its alert lines came before)
    finally:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    assert receiver.titles() == ["problem matured"], (out, err)
    assert f"alert [problem matured] problem matured: {title} (active -> mature)" in out.splitlines(), out
    assert SECRET not in out + err
    assert _snapshot_count(store) == 2


def test_alerts_that_cannot_be_evaluated_leave_the_snapshot_complete(
    platform: SandboxServer, tmp_path: Path
) -> None:
    store = tmp_path / "store.duckdb"
    rules = tmp_path / "gone.toml"  # checked by the CLI, deleted before the run reads it
    summary = run_snapshot(
        SnapshotPlan(
            base_url=platform.base_url,
            db_path=str(store),
            use_api_key=False,
            resources=[],
            alerts_file=str(rules),
        )
    )
    assert summary.alerts["fired"] == []
    assert summary.alerts["warnings"] == [
        f"alerts not evaluated (AlertRuleError: rules file {rules} does not exist; pass --alerts-file an "
        "existing file); the snapshot is complete"
    ]
    assert _snapshot_count(store) == 1


def test_an_alert_is_a_prefect_event_about_the_platform_related_to_its_bot_or_problem() -> None:
    from solvelens.alerts import Alert
    from solvelens.flows.alerts import event_of

    bot = Alert(
        "top 5 left", "top-left", "bot", "b-1", "Alpha", "Alpha left the top 5: #5 -> #7", "plat-1", 4
    )
    event = event_of(bot)
    assert event["event"] == "solvelens.alert.top-left"
    assert event["resource"] == {
        "prefect.resource.id": "solvelens.platform.plat-1",
        "prefect.resource.name": "plat-1",
    }
    assert event["related"] == [
        {
            "prefect.resource.id": "solvelens.bot.b-1",
            "prefect.resource.role": "bot",
            "prefect.resource.name": "Alpha",
        }
    ]
    assert event["payload"]["message"] == bot.message and event["payload"]["snapshot_id"] == 4
    stale = Alert(
        "stale > 2 hours", "stale", "platform", "plat-1", None, "no complete snapshot", "plat-1", None
    )
    assert event_of(stale)["related"] == []


def test_the_stale_watch_checks_four_times_per_limit_within_1_to_60_seconds(tmp_path: Path) -> None:
    from solvelens.alerts import AlertConfig, parse_rules
    from solvelens.flows.alerts import StaleWatch

    def every(*rules: str) -> float:
        return StaleWatch(
            str(tmp_path / "s.duckdb"), "http://x/api/v1", AlertConfig(parse_rules(rules))
        ).every_s

    assert every("stale > 2 hours") == 60.0
    assert every("stale > 0.01 hours") == 9.0
    assert every("stale > 0.0001 hours", "stale > 3 hours") == 1.0
    assert not StaleWatch(
        str(tmp_path / "s.duckdb"), "http://x/api/v1", AlertConfig(parse_rules(["new-leader"]))
    )


def _set_status(db: Path, bot: int, status: str) -> None:
    con = sqlite3.connect(db)
    try:
        con.execute("UPDATE bots SET status = ? WHERE id = ?", [status, bot])
        con.commit()
    finally:
        con.close()


def test_level_rules_hold_from_the_first_snapshot_and_a_fall_off_the_board_is_a_rank_drop(
    make_sandbox: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``my-bot rank > 5`` fires on the platform's first snapshot when the bot is already below #5; a bot that
    falls from #1 off the leaderboard fires ``rank-drop`` whatever K (in-process runs, no Prefect). The ranks
    are read from the sandbox's SQLite file, never from the product."""
    server = make_sandbox(seed=11)
    db = server.db_path
    monkeypatch.setenv("SOLVELENS_API_KEY", server.create_bot("FirstMine"))
    mine = next(i for i, name, _ in _board(db) if name == "FirstMine")
    _place(db, mine, 8)
    leader, leader_name, _ = _board(db)[0]
    rules = ["my-bot rank > 5", f"rank-drop >= 50 {leader_name}"]
    store = tmp_path / "store.duckdb"

    def snapshot() -> list[str]:
        plan = SnapshotPlan(base_url=server.base_url, db_path=str(store), resources=[], alerts=rules)
        return [a["message"] for a in run_snapshot(plan).alerts["fired"]]

    assert snapshot() == ["your bot FirstMine is ranked #8 (rule: rank > 5)"]
    _set_status(db, leader, "suspended")  # the leader leaves the leaderboard
    assert [r for r in _board(db) if r[0] == leader] == []
    assert snapshot() == [f"{leader_name} fell off the leaderboard: #1 -> unranked"]
