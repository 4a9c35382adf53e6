"""A scenario: one sandbox server (real uvicorn on 127.0.0.1), one DuckDB store, and the snapshots taken of
it with ``solvelens snapshot`` (in-process, as a user runs it), each with the platform's truth frozen right
after it (:func:`tests.truth.sandbox_truth.freeze`).

Between snapshots a scenario changes the platform as real platforms change: simulated days (the simulator,
or ``solvelens sandbox simulate`` as a user runs it by hand), hours (a day committed in steps of 60 simulated
minutes, a snapshot after some steps), a bot renaming itself (``solvelens sandbox rename-bot``, the settings
route's effect), a problem rejected by moderation, a vote recorded without its counts moving (the last two
written by SQL into the sandbox database, as the real platform's own code paths would leave them), a day
whose votes deadlock at a chosen share (:meth:`Scenario.deadlocked_day`), bots answering solve tasks worded
with guidance at lengths the guidance advises against (:meth:`Scenario.guided_solutions`) and new models on
the lazily recalculated model board (:meth:`Scenario.new_models`).

Used by the tests in ``tests/truth`` and by ``benchmarks/truth.py``.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from typer.testing import CliRunner

from solvelens.cli import app
from solvelens.client import PlatformClient, ServerError
from solvelens.client.models import Task
from solvelens.sandbox.ids import IdCodec
from solvelens.sandbox.simulate import advance
from tests.fixtures.sandbox import SandboxServer, start_sandbox
from tests.truth.sandbox_truth import freeze

_RUNNER = CliRunner()
_SNAPSHOT_ID = re.compile(r"snapshot (\d+) taken at")
#: Use the platform's simulated clock as ``--taken-at`` (what a user must do today; see the taken_at test).
CLOCK = "clock"


def _solution_id(body: object) -> str | None:
    """The solution id anywhere in a submit answer (``solution_id``, ``solutionId``, ``SolutionId``, in
    whatever envelope the convention wraps it), or None."""
    if isinstance(body, dict):
        for key, value in body.items():
            if key.replace("_", "").lower() == "solutionid" and value is not None:
                return str(value)
        for value in body.values():
            found = _solution_id(value)
            if found is not None:
                return found
    if isinstance(body, list):
        for value in body:
            found = _solution_id(value)
            if found is not None:
                return found
    return None


@dataclass(frozen=True)
class Snap:
    """One ``solvelens snapshot`` run: its id (None when nothing was written), exit code, printed output
    and the frozen truth (a copy of the sandbox database taken right after it)."""

    snapshot_id: int | None
    exit_code: int
    output: str
    truth: Path
    label: str


@dataclass
class Scenario:
    """A sandbox, a store and the snapshots taken so far (``snaps``, oldest first)."""

    server: SandboxServer
    store: Path
    workdir: Path
    resources: str = "activity"
    snaps: list[Snap] = field(default_factory=list)
    #: Options every snapshot of this scenario adds (e.g. ``("--budget", "all")``).
    extra: tuple[str, ...] = ()
    #: What the scenario planted, by name (e.g. ``"renamed"``: a bot id), for the tests to look up.
    marks: dict[str, str] = field(default_factory=dict)
    #: A bot's API key: snapshots then record ``/bot/me`` with it (``None``: ``--no-bot-me``).
    api_key: str | None = field(default=None, repr=False)
    #: The convention mode served (``platform``, ``jsonapi``, ``hal``, ``odata``, ``relay``).
    mode: str = "platform"

    @classmethod
    def start(
        cls,
        workdir: Path,
        *,
        seed: int,
        mode: str = "platform",
        copy_of: Path | None = None,
        **options: object,
    ) -> Scenario:
        """Serve a small platform of ``seed`` (a copy of the database ``copy_of`` when given, else built
        in ``workdir``) in convention ``mode``; ``resources`` (default ``activity``) is what snapshots ask
        for, other options go to :func:`tests.fixtures.sandbox.start_sandbox` (a thread of this process)."""
        workdir.mkdir(parents=True, exist_ok=True)
        resources = str(options.pop("resources", "activity"))
        db = workdir / "sandbox.sqlite"
        if copy_of is not None:
            freeze(copy_of, db)
        server = start_sandbox(db, seed=seed, scale="small", conventions=mode, **options)
        return cls(
            server=server, store=workdir / "store.duckdb", workdir=workdir, resources=resources, mode=mode
        )

    def stop(self) -> None:
        """Stop the server."""
        self.server.stop()

    def clock(self) -> str:
        """The platform's simulated clock as it serves it (``GET /health``), ISO-8601 UTC."""
        return str(httpx.get(f"{self.server.root_url}/health", timeout=30).json()["clock"])

    def cli(self, *args: str) -> tuple[int, str]:
        """Run ``solvelens ARGS`` in-process; (exit code, output)."""
        result = _RUNNER.invoke(app, list(args))
        return result.exit_code, result.output

    def snapshot(self, label: str, *extra: str, taken_at: str | None = CLOCK) -> Snap:
        """Run ``solvelens snapshot`` (``--taken-at`` the platform's clock unless ``taken_at`` is None or a
        time) and freeze the truth; the :class:`Snap` is appended to ``snaps``."""
        args = ["snapshot", "--base-url", self.server.base_url, "--db", str(self.store)]
        args += ["--api-key", self.api_key] if self.api_key else ["--no-bot-me"]
        args += ["--resources", self.resources, *self.extra, *extra]
        if taken_at is not None:
            args += ["--taken-at", self.clock() if taken_at == CLOCK else taken_at]
        code, output = self.cli(*args)
        found = _SNAPSHOT_ID.search(output)
        snapshot_id = int(found.group(1)) if found else None
        truth = freeze(self.server.db_path, self.workdir / f"truth-{len(self.snaps) + 1}.sqlite")
        snap = Snap(snapshot_id, code, output, truth, label)
        self.snaps.append(snap)
        return snap

    def offers(self, command: str, option: str) -> bool:
        """Whether ``solvelens COMMAND --help`` lists ``option`` (an option other branches add)."""
        return option in self.cli(*command.split(), "--help")[1]

    def advance_days(self, days: int) -> None:
        """Advance the platform ``days`` simulated days (the simulator, in one step per day)."""
        advance(self.server.db_path, days=days)

    def deadlocked_day(self, share: float) -> int:
        """One simulated day whose votes deadlock at ``share`` (the vote row written, no count moved; the
        sandbox's default share is 4 %); the number of deadlocked votes."""
        return int(advance(self.server.db_path, days=1, vote_deadlocks=share)["deadlocked"])

    def _work_until_solve(self, bot: PlatformClient) -> Task:
        """The bot's first solve task, answering the flag, vote and create tasks handed out before it. Read
        and answered through :class:`~solvelens.client.PlatformClient`, which reads the task in every wire
        convention (``taskType``, JSON:API ``type``/``attributes``, HAL, OData, Relay)."""
        for _ in range(40):
            task = bot.next_task()
            assert task is not None, "no task for the bot"
            if task.kind == "solve":
                return task
            answer: dict[str, object] = {
                "flag": {"verdict": "green", "category": "none"},
                "vote": {"winner": "a"},
                "create": {
                    "problem_title": f"Truth problem {task.id[:8]}",
                    "problem_description": "A problem proposed by a truth-layer bot, long enough.",
                    "category": "technology",
                },
            }[str(task.kind)]
            try:
                bot.submit(task, answer)
            except ServerError as exc:
                # The realistic sandbox answers a share of vote submits 500 "deadlock detected" (the real
                # platform's, the vote row written, the task failed): a bot moves on to its next task.
                if task.kind != "vote" or exc.status_code != 500:
                    raise
        raise AssertionError("no solve task within 40 tasks")

    def _solve_as(self, name: str, text: str, model: str | None = None) -> str:
        """A new bot ``name`` answers its first solve task with ``text`` (and ``model``); the solution id
        (the public id, as the submit answer names it in the scenario's convention)."""
        key = self.server.create_bot(name)
        with PlatformClient(self.server.base_url, api_key=key, read_env=False, max_attempts=1) as bot:
            task = self._work_until_solve(bot)
            answer = bot.submit(task, text, llm_model=model)
        found = _solution_id(dict(answer))
        assert found is not None, f"no solution id in the submit answer: {dict(answer)}"
        return found

    def guided_solutions(self, lengths: tuple[int, ...] = (32, 300, 1400)) -> list[str]:
        """New bots answer solve tasks whose instruction advises 400-1200 characters with answers of
        ``lengths`` characters (valid: the platform validates 10-2000); the solutions' ids."""
        return [
            self._solve_as(f"Guided{length}", ("A specific, practical step. " * 80)[:length])
            for length in lengths
        ]

    def new_models(self, names: tuple[str, ...] = ("truth-model-a", "truth-model-b")) -> list[str]:
        """New bots solve with models the platform has not seen: the lazy model board lists them at its stale
        figures (win rate 0, scores 1500), tied; the solutions' ids."""
        return [
            self._solve_as(f"Modeller{i}", f"A practical answer written with {name}.", name)
            for i, name in enumerate(names)
        ]

    def simulate_by_hand(self, days: int) -> tuple[int, str]:
        """``solvelens sandbox simulate --db ... --days N``, as a user runs it beside the served sandbox."""
        return self.cli("sandbox", "simulate", "--db", str(self.server.db_path), "--days", str(days))

    def hourly(self, hours: int, label: str) -> None:
        """Advance one simulated day in steps of 60 minutes and snapshot after each of the first ``hours``
        steps (labelled ``label``, or ``label-1``, ``label-2``, ... when ``hours > 1``)."""
        step = 0

        def on_step(_clock: str) -> None:
            nonlocal step
            step += 1
            if step <= hours:
                self.snapshot(label if hours == 1 else f"{label}-{step}")

        advance(self.server.db_path, days=1, step_minutes=60, on_step=on_step)

    def _sql(self, body: Callable[[sqlite3.Connection], object]) -> object:
        con = sqlite3.connect(self.server.db_path, isolation_level=None, timeout=30)
        try:
            con.execute("BEGIN IMMEDIATE")
            result = body(con)
            con.execute("COMMIT")
            return result
        finally:
            con.close()

    def codec(self) -> IdCodec:
        """The platform's public id encoding."""
        con = sqlite3.connect(self.server.db_path)
        try:
            return IdCodec(int(con.execute("SELECT value FROM meta WHERE key = 'seed'").fetchone()[0]))
        finally:
            con.close()

    def busiest_bot(self) -> tuple[int, str]:
        """The active bot with the most solutions on listed problems: (internal id, name)."""
        con = sqlite3.connect(self.server.db_path)
        try:
            bot_id, name = con.execute(
                "SELECT b.id, b.name FROM bots b JOIN solutions s ON s.bot_id = b.id JOIN problems p "
                "ON p.id = s.problem_id WHERE b.status = 'active' AND p.status != 'rejected' "
                "GROUP BY b.id ORDER BY count(*) DESC, b.id LIMIT 1"
            ).fetchone()
            return int(bot_id), str(name)
        finally:
            con.close()

    def sign_in_as(self, name: str) -> str:
        """``solvelens sandbox rotate-key NAME --db ...`` (as the bot's owner runs it): later snapshots use
        the new key (``api_key``), so they record ``/bot/me`` of that bot; its public id."""
        code, output = self.cli("sandbox", "rotate-key", name, "--db", str(self.server.db_path))
        assert code == 0, output
        self.api_key = output.strip().splitlines()[-1]
        con = sqlite3.connect(self.server.db_path)
        try:
            (bot_id,) = con.execute("SELECT id FROM bots WHERE name = ?", (name,)).fetchone()
        finally:
            con.close()
        return self.codec().encode("bot", int(bot_id))

    def rename_bot(self, new_name: str, bot_id: int | None = None) -> tuple[str, str]:
        """Rename bot ``bot_id`` (internal id; default: :meth:`busiest_bot`) as the platform's settings route
        does (``solvelens sandbox rename-bot``: the new name everywhere at once, activity rows keeping the
        old one); (public bot id, old name)."""
        chosen = self.busiest_bot()[0] if bot_id is None else bot_id
        con = sqlite3.connect(self.server.db_path)
        try:
            (old,) = con.execute("SELECT name FROM bots WHERE id = ?", (chosen,)).fetchone()
        finally:
            con.close()
        code, output = self.cli("sandbox", "rename-bot", str(old), new_name, "--db", str(self.server.db_path))
        assert code == 0, output
        return self.codec().encode("bot", chosen), str(old)

    def tie_top_ranks(self) -> tuple[str, str]:
        """Give the bots ranked 2nd and 6th by points the points of the 1st and 5th (ties share a rank) and
        suspend the 10th (it leaves the leaderboard, the bots below it move up); a new bot
        (``TruthNewcomer``) joins one point above the 8th. The public ids of the 6th and of the 10th."""

        def body(con: sqlite3.Connection) -> tuple[int, int]:
            ids = [r[0] for r in con.execute(
                "SELECT id FROM bots WHERE status = 'active' ORDER BY total_points DESC, id LIMIT 10"
            )]  # fmt: skip
            for keep, match in ((ids[0], ids[1]), (ids[4], ids[5])):
                con.execute(
                    "UPDATE bots SET total_points = (SELECT total_points FROM bots WHERE id = ?) "
                    "WHERE id = ?",
                    (keep, match),
                )
            con.execute("UPDATE bots SET status = 'suspended' WHERE id = ?", (ids[9],))
            con.execute(
                "INSERT INTO bots (name, total_points, total_solutions, created_at) SELECT 'TruthNewcomer', "
                "total_points + 1, 0, (SELECT value FROM meta WHERE key = 'clock_ms') FROM bots WHERE id = ?",
                (ids[7],),
            )
            return int(ids[5]), int(ids[9])

        tied, suspended = self._sql(body)  # type: ignore[misc]
        codec = self.codec()
        return codec.encode("bot", tied), codec.encode("bot", suspended)

    def reject_problem(self, created_by_ms: int) -> str:
        """Reject (moderation) the newest pending problem created by ``created_by_ms`` (ms UTC; e.g. one
        listed at an earlier snapshot), else the newest listed one created by then (with its solutions);
        its public id."""

        def body(con: sqlite3.Connection) -> int:
            (pid,) = con.execute(
                "SELECT id FROM problems WHERE status != 'rejected' AND created_at <= ? "
                "ORDER BY status = 'pending' DESC, created_at DESC, id DESC LIMIT 1",
                (created_by_ms,),
            ).fetchone()
            con.execute("UPDATE problems SET status = 'rejected' WHERE id = ?", (pid,))
            return int(pid)

        return self.codec().encode("problem", int(self._sql(body)))  # type: ignore[arg-type]

    def reject_voted_problem(self) -> str:
        """Reject (moderation) the listed problem with the most votes between solutions of two different
        models: the votes a store kept of it now name solutions the platform no longer lists. Its public
        id."""

        def body(con: sqlite3.Connection) -> int:
            (pid,) = con.execute(
                "SELECT c.problem_id FROM comparisons c JOIN problems p ON p.id = c.problem_id "
                "JOIN solutions a ON a.id = c.solution_a JOIN solutions b ON b.id = c.solution_b "
                "WHERE p.status != 'rejected' AND a.llm_model IS NOT b.llm_model "
                "GROUP BY c.problem_id ORDER BY count(*) DESC, c.problem_id LIMIT 1"
            ).fetchone()
            con.execute("UPDATE problems SET status = 'rejected' WHERE id = ?", (pid,))
            return int(pid)

        return self.codec().encode("problem", int(self._sql(body)))  # type: ignore[arg-type]

    def cast_votes(self, votes: int = 40) -> str:
        """``votes`` votes cast now (the platform's clock does not move) between two solutions of different
        models of one listed problem, the first winning, with their counts moved as the platform's vote
        path moves them (the solutions' votes, wins and losses, the problem's and the voter's votes). The
        problem's public id."""

        def body(con: sqlite3.Connection) -> int:
            now = int(con.execute("SELECT value FROM meta WHERE key = 'clock_ms'").fetchone()[0])
            voter = int(con.execute("SELECT min(id) FROM bots WHERE status = 'active'").fetchone()[0])
            pid, a, b = con.execute(
                "SELECT x.problem_id, x.id, y.id FROM solutions x JOIN solutions y "
                "ON y.problem_id = x.problem_id AND y.id > x.id JOIN problems p ON p.id = x.problem_id "
                "WHERE p.status != 'rejected' AND x.llm_model IS NOT NULL AND y.llm_model IS NOT NULL "
                "AND x.llm_model != y.llm_model ORDER BY x.comparison_count + y.comparison_count, x.id "
                "LIMIT 1"
            ).fetchone()
            con.executemany(
                "INSERT INTO comparisons (problem_id, solution_a, solution_b, winner, voter_bot_id, "
                "created_at) VALUES (?, ?, ?, 'a', ?, ?)",
                [(pid, a, b, voter, now) for _ in range(votes)],
            )
            moved = "comparison_count = comparison_count + ?"
            con.execute(
                f"UPDATE solutions SET {moved}, win_count = win_count + ? WHERE id = ?", (votes, votes, a)
            )
            con.execute(
                f"UPDATE solutions SET {moved}, loss_count = loss_count + ? WHERE id = ?", (votes, votes, b)
            )
            con.execute(f"UPDATE problems SET {moved} WHERE id = ?", (votes, pid))
            con.execute("UPDATE bots SET total_votes = total_votes + ? WHERE id = ?", (votes, voter))
            return int(pid)

        return self.codec().encode("problem", int(self._sql(body)))  # type: ignore[arg-type]

    def unbeaten_votes(self, votes: int = 3, model: str = "truth-unbeaten") -> str:
        """A new problem with a solution of a new LLM model ``model`` and one of the model with the most
        solutions on listed problems, and ``votes`` counted votes between them, all won by ``model``'s: as
        in the truth sweep (seed 1, default budget: ``unknown``, 3 votes, all won), a model that never lost
        in a few votes makes the arena's fit diverge while the ranked models stay measured among themselves.
        (A new name, not ``unknown``: the simulator may vote on the other solutions reporting none.) All
        at the platform's clock. The problem's public id."""

        def body(con: sqlite3.Connection) -> int:
            now = int(con.execute("SELECT value FROM meta WHERE key = 'clock_ms'").fetchone()[0])
            bot = int(con.execute("SELECT min(id) FROM bots WHERE status = 'active'").fetchone()[0])
            (ranked,) = con.execute(
                "SELECT s.llm_model FROM solutions s JOIN problems p ON p.id = s.problem_id "
                "WHERE p.status != 'rejected' AND s.llm_model IS NOT NULL "
                "GROUP BY s.llm_model ORDER BY count(*) DESC, s.llm_model LIMIT 1"
            ).fetchone()
            pid = con.execute(
                "INSERT INTO problems (author_type, title, description, status, category, solution_count, "
                "comparison_count, created_at, updated_at) VALUES ('human', 'Truth: a model that never "
                "lost', 'A problem built by the truth layer', 'active', 'technology', 2, ?, ?, ?)",
                (votes, now, now),
            ).lastrowid
            won, lost = (
                con.execute(
                    "INSERT INTO solutions (problem_id, bot_id, text, llm_model, bt_score, comparison_count, "
                    "win_count, loss_count, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (pid, bot, f"answer {name}", llm, score, votes, wins, votes - wins, now),
                ).lastrowid
                for name, llm, score, wins in (("U", model, 1540.0, votes), ("M", ranked, 1460.0, 0))
            )
            con.executemany(
                "INSERT INTO comparisons (problem_id, solution_a, solution_b, winner, voter_bot_id, "
                "created_at) VALUES (?, ?, ?, 'a', ?, ?)",
                [(pid, won, lost, bot, now) for _ in range(votes)],
            )
            return int(pid or 0)

        return self.codec().encode("problem", int(self._sql(body)))  # type: ignore[arg-type]

    def inflate_solution_count(self) -> str:
        """Make a listed problem announce one solution more than it lists (``solutionCount`` disagreeing
        with the rows, as the real platform's counts sometimes do); the problem's public id."""

        def body(con: sqlite3.Connection) -> int:
            (pid,) = con.execute(
                "SELECT id FROM problems WHERE status != 'rejected' AND solution_count > 0 "
                "ORDER BY id LIMIT 1"
            ).fetchone()
            con.execute("UPDATE problems SET solution_count = solution_count + 1 WHERE id = ?", (pid,))
            return int(pid)

        return self.codec().encode("problem", int(self._sql(body)))  # type: ignore[arg-type]

    def hidden_vote(self) -> str:
        """A new problem with solutions A, B, C, counted votes A-C and B-C, and a vote A-B recorded without
        its counts moving (the real platform records the vote row before a submit can fail): C's list
        accounts for every vote A's and B's counts announce, so only reading A's or B's list finds A-B.
        The hidden vote's public id."""

        def body(con: sqlite3.Connection) -> int:
            now = int(con.execute("SELECT value FROM meta WHERE key = 'clock_ms'").fetchone()[0])
            bot = int(con.execute("SELECT min(id) FROM bots WHERE status = 'active'").fetchone()[0])
            pid = con.execute(
                "INSERT INTO problems (author_type, title, description, status, category, solution_count, "
                "comparison_count, created_at, updated_at) VALUES ('human', 'Truth: a vote nobody counted', "
                "'A problem built by the truth layer', 'active', 'technology', 3, 2, ?, ?)",
                (now - 3_000, now - 3_000),
            ).lastrowid
            sol = [
                con.execute(
                    "INSERT INTO solutions (problem_id, bot_id, text, bt_score, comparison_count, win_count, "
                    "created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (pid, bot, f"answer {name}", score, votes, wins, now - 2_000),
                ).lastrowid
                for name, score, votes, wins in (
                    ("A", 1510.0, 1, 1),
                    ("B", 1505.0, 1, 1),
                    ("C", 1480.0, 2, 0),
                )
            ]
            vote = (
                "INSERT INTO comparisons (problem_id, solution_a, solution_b, winner, voter_bot_id, "
                "created_at) "
            )
            con.execute(vote + "VALUES (?, ?, ?, 'a', ?, ?)", (pid, sol[0], sol[2], bot, now - 1_500))
            con.execute(vote + "VALUES (?, ?, ?, 'a', ?, ?)", (pid, sol[1], sol[2], bot, now - 1_000))
            return int(
                con.execute(
                    vote + "VALUES (?, ?, ?, 'a', ?, ?)", (pid, sol[0], sol[1], bot, now - 500)
                ).lastrowid
                or 0
            )

        return self.codec().encode("comparison", int(self._sql(body)))  # type: ignore[arg-type]

    def uncounted_vote(self) -> str:
        """A vote between the two solutions of a listed problem with the fewest votes, recorded now without
        its counts moving (a deadlocked submit): only re-reading either solution's list, trusted by its
        count, finds it. The vote's public id."""

        def body(con: sqlite3.Connection) -> int:
            now = int(con.execute("SELECT value FROM meta WHERE key = 'clock_ms'").fetchone()[0])
            problem, a, b = con.execute(
                "SELECT s.problem_id, min(s.id), max(s.id) FROM solutions s JOIN problems p "
                "ON p.id = s.problem_id WHERE p.status != 'rejected' GROUP BY s.problem_id "
                "HAVING count(*) >= 2 ORDER BY sum(s.comparison_count), s.problem_id LIMIT 1"
            ).fetchone()
            return int(
                con.execute(
                    "INSERT INTO comparisons (problem_id, solution_a, solution_b, winner, voter_bot_id, "
                    "created_at) VALUES (?, ?, ?, 'a', NULL, ?)",
                    (problem, a, b, now),
                ).lastrowid
                or 0
            )

        return self.codec().encode("comparison", int(self._sql(body)))  # type: ignore[arg-type]

    def capped_votes(self, votes: int = 55) -> str:
        """A new problem with two solutions X and Y and ``votes`` (> 50) counted votes between them: each
        list serves only the newest 50, so ``votes - 50`` votes are beyond any client's reach. The
        problem's public id."""

        def body(con: sqlite3.Connection) -> int:
            now = int(con.execute("SELECT value FROM meta WHERE key = 'clock_ms'").fetchone()[0])
            bot = int(con.execute("SELECT min(id) FROM bots WHERE status = 'active'").fetchone()[0])
            pid = con.execute(
                "INSERT INTO problems (author_type, title, description, status, category, solution_count, "
                "comparison_count, created_at, updated_at) VALUES ('human', 'Truth: more votes than a list "
                "serves', 'A problem built by the truth layer', 'active', 'science_nature', 2, ?, ?, ?)",
                (votes, now - 200_000, now - 200_000),
            ).lastrowid
            x, y = (
                con.execute(
                    "INSERT INTO solutions (problem_id, bot_id, text, bt_score, comparison_count, win_count, "
                    "loss_count, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (pid, bot, f"answer {name}", score, votes, wins, votes - wins, now - 150_000),
                ).lastrowid
                for name, score, wins in (("X", 1530.0, votes), ("Y", 1470.0, 0))
            )
            con.executemany(
                "INSERT INTO comparisons (problem_id, solution_a, solution_b, winner, voter_bot_id, "
                "created_at) VALUES (?, ?, ?, 'a', ?, ?)",
                [(pid, x, y, bot, now - 100_000 + i) for i in range(votes)],
            )
            return int(pid or 0)

        return self.codec().encode("problem", int(self._sql(body)))  # type: ignore[arg-type]
