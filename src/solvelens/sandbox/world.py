"""In-memory platform state that the generator and the simulator evolve event by event, then write back.

The generator holds the whole platform in a :class:`World`; the simulator loads the bots plus the problems it
touches on one day (:meth:`World.load`). Events (:meth:`World.flag`, :meth:`World.solve`, :meth:`World.vote`,
:meth:`World.create_problem`) apply the rules of :mod:`solvelens.sandbox.ranking` exactly as the dispatcher
does for real bots, and record new rows and dirty ids; :meth:`World.flush` writes them in bulk
(``executemany``).

Bots carry latent (hidden, never served) traits: ``skill`` (solution quality), ``drift`` (per-day change of
skill), ``judgment`` (probability of voting for the truly better solution) and ``activity`` (relative rate).
"""

from __future__ import annotations

import math
import random
import sqlite3
from dataclasses import dataclass, field
from typing import Final

from solvelens.sandbox import badges, ranking
from solvelens.sandbox.activity import INSERT_EVENT, Event, event
from solvelens.sandbox.catalog import LLM_MODELS
from solvelens.sandbox.db import transaction
from solvelens.sandbox.llm_leaderboard import RECALCULATE_EVERY, recalculate

SKIP_RATE = 0.04


class Sol:
    """One solution's mutable state (scores) plus its immutable facts."""

    __slots__ = ("bot_id", "ci", "created_at", "id", "losses", "n", "problem_id", "quality", "score", "wins")

    def __init__(
        self,
        id: int,
        problem_id: int,
        bot_id: int,
        quality: float,
        created_at: int,
        score: float = ranking.INITIAL_SCORE,
        ci: float = ranking.INITIAL_CI,
        n: int = 0,
        wins: int = 0,
        losses: int = 0,
    ) -> None:
        self.id, self.problem_id, self.bot_id, self.quality, self.created_at = (
            id,
            problem_id,
            bot_id,
            quality,
            created_at,
        )
        self.score, self.ci, self.n, self.wins, self.losses = score, ci, n, wins, losses


@dataclass(slots=True)
class Prob:
    """One problem's state; ``sols`` holds its solutions when loaded."""

    id: int
    status: str
    author_type: str
    human_author_id: int | None
    bot_author_id: int | None
    category: str
    created_at: int
    updated_at: int
    green: int = 0
    red: int = 0
    solution_count: int = 0
    comparison_count: int = 0
    last_bot_activity_at: int | None = None
    sols: list[Sol] = field(default_factory=list)
    solvers: set[int] = field(default_factory=set)
    flaggers: list[int] = field(default_factory=list)
    below5: int = 0


@dataclass(slots=True)
class Bot:
    """One bot's counters and latent traits."""

    id: int
    name: str
    description: str
    status: str
    created_at: int
    skill: float
    drift: float
    judgment: float
    activity: float
    llm_model: str | None
    llm_model_version: str | None
    points: int = 0
    solutions: int = 0
    votes: int = 0
    flags: int = 0
    created: int = 0
    first_places: int = 0
    accuracy: float = 0.5
    accuracy_n: int = 0
    last_active_at: int | None = None
    tasks_completed: int = 0


class World:
    """Mutable platform state plus pending row inserts/updates (see the module docstring)."""

    def __init__(
        self, rng: random.Random, *, next_ids: dict[str, int] | None = None, live_badges: bool = True
    ) -> None:
        self.rng = rng
        self.live_badges = live_badges
        self.bots: dict[int, Bot] = {}
        self.problems: dict[int, Prob] = {}
        ids = next_ids or {}
        self.next_id = {
            k: ids.get(k, 1) for k in ("bot", "problem", "solution", "comparison", "flag", "award")
        }
        self.new_bots: list[int] = []
        self.new_problems: list[tuple[int, str, str]] = []
        self.new_solutions: list[tuple[Sol, str, str | None, str | None]] = []
        self.new_comparisons: list[tuple[object, ...]] = []
        #: solutions whose comparison count reached a multiple of 10 since the last flush -> the vote's time
        self.recalc: dict[int, int] = {}
        self.new_flags: list[tuple[object, ...]] = []
        self.new_awards: list[tuple[object, ...]] = []
        self.new_badges: list[tuple[int, str, str, int]] = []
        #: activity events (:mod:`solvelens.sandbox.activity`) in the order they happened; events before
        #: ``log_since`` (UTC ms) are not logged (the generator's retention of the built history)
        self.new_activity: list[Event] = []
        self.log_since: int | None = None
        self.owned_badges: set[tuple[int, str, str]] = set()
        self.dirty_bots: set[int] = set()
        self.dirty_problems: set[int] = set()
        self.dirty_solutions: dict[int, Sol] = {}
        self._thresholds: dict[str, dict[int, list[tuple[str, str]]]] = {c: {} for c in badges.COUNTERS}
        for badge_type, counter, tiers in badges.RULES:
            for tier, threshold in tiers:
                self._thresholds[counter].setdefault(threshold, []).append((badge_type, tier))

    def _take(self, kind: str) -> int:
        n = self.next_id[kind]
        self.next_id[kind] = n + 1
        return n

    # ------------------------------------------------------------------ loading
    @classmethod
    def load(
        cls,
        conn: sqlite3.Connection,
        rng: random.Random,
        *,
        problem_ids: list[int],
        bot_ids: list[int] | None = None,
    ) -> World:
        """Load the bots (all when ``bot_ids`` is None) and the given problems with their solutions, flaggers
        and badges, ready for events; next ids continue after the stored maxima."""
        next_ids = {
            kind: conn.execute(f"SELECT coalesce(max(id), 0) + 1 FROM {table}").fetchone()[0]
            for kind, table in (
                ("bot", "bots"),
                ("problem", "problems"),
                ("solution", "solutions"),
                ("comparison", "comparisons"),
                ("flag", "flags"),
                ("award", "awards"),
            )
        }
        world = cls(rng, next_ids=next_ids)
        bot_sql = (
            "SELECT id, name, description, status, created_at, skill, drift, judgment, activity, llm_model, "
            "llm_model_version, total_points, total_solutions, total_votes, total_flags, "
            "total_problems_created, "
            "(SELECT count(*) FROM awards a WHERE a.bot_id = bots.id AND a.action = 'solution_first_place'), "
            "vote_accuracy, accuracy_n, last_active_at, total_tasks_completed FROM bots"
        )
        if bot_ids is None:
            bot_rows = conn.execute(bot_sql + " ORDER BY id").fetchall()
        else:
            bot_rows = [
                r for i in sorted(set(bot_ids)) for r in conn.execute(bot_sql + " WHERE id = ?", (i,))
            ]
        for r in bot_rows:
            world.bots[r[0]] = Bot(*r)
        for bid in world.bots:
            for badge_type, tier in conn.execute(
                "SELECT badge_type, tier FROM badges WHERE bot_id = ?", (bid,)
            ):
                world.owned_badges.add((bid, badge_type, tier))
        for pid in problem_ids:
            r = conn.execute(
                "SELECT id, status, author_type, human_author_id, bot_author_id, category, created_at, "
                "updated_at, "
                "green_flags, red_flags, solution_count, comparison_count, last_bot_activity_at FROM "
                "problems "
                "WHERE id = ?",
                (pid,),
            ).fetchone()
            if r is None:
                continue
            prob = Prob(*r)
            for s in conn.execute(
                "SELECT id, problem_id, bot_id, quality, created_at, bt_score, confidence_interval, "
                "comparison_count, "
                "win_count, loss_count FROM solutions WHERE problem_id = ? ORDER BY id",
                (pid,),
            ):
                sol = Sol(*s)
                prob.sols.append(sol)
                prob.solvers.add(sol.bot_id)
                if sol.n < ranking.MIN_COMPARISONS_TO_MATURE:
                    prob.below5 += 1
            prob.flaggers = [
                f[0]
                for f in conn.execute("SELECT bot_id FROM flags WHERE problem_id = ? ORDER BY id", (pid,))
            ]
            world.problems[pid] = prob
        return world

    # ------------------------------------------------------------------ bookkeeping
    def _touch(self, bot: Bot, t: int, counter: str | None, points: int) -> None:
        self.dirty_bots.add(bot.id)
        bot.points += points
        bot.tasks_completed += 1 if counter in ("solutions", "votes", "flags", "created") else 0
        if bot.last_active_at is None or t > bot.last_active_at:
            bot.last_active_at = t
        if counter is not None:
            value = getattr(bot, counter) + 1
            setattr(bot, counter, value)
            if not self.live_badges:
                return
            for badge_type, tier in self._thresholds[counter].get(value, ()):
                key = (bot.id, badge_type, tier)
                if key not in self.owned_badges:
                    self.owned_badges.add(key)
                    self.new_badges.append((bot.id, badge_type, tier, t))
                    self._log("badge_earned", bot.id, None, t, badgeType=badge_type, tier=tier)

    def _log(self, action: str, bot_id: int | None, problem_id: int | None, t: int, **meta: object) -> None:
        if self.log_since is None or t >= self.log_since:
            self.new_activity.append(event(action, bot_id, problem_id, t, **meta))

    def _status(self, prob: Prob, status: str, t: int, bot: Bot | None) -> None:
        """Move ``prob`` to ``status`` and log the transition."""
        before, prob.status = prob.status, status
        self._log(
            "problem_status_changed", bot.id if bot else None, prob.id, t, **{"from": before, "to": status}
        )

    # ------------------------------------------------------------------ events
    def add_bot(self, name: str, description: str, created_at: int, *, status: str = "active") -> Bot:
        """A new simulated bot with random latent traits."""
        rng = self.rng
        model, version = rng.choice(LLM_MODELS)
        bot = Bot(
            id=self._take("bot"),
            name=name,
            description=description,
            status=status,
            created_at=created_at,
            skill=rng.gauss(0.0, 1.0),
            drift=rng.gauss(0.0, 0.04),
            judgment=rng.uniform(0.6, 0.99),
            activity=math.exp(rng.gauss(0.0, 0.8)),
            llm_model=model,
            llm_model_version=version,
        )
        self.bots[bot.id] = bot
        self.new_bots.append(bot.id)
        return bot

    def create_problem(
        self,
        *,
        title: str,
        description: str,
        category: str,
        t: int,
        bot: Bot | None = None,
        human_id: int | None = None,
    ) -> Prob:
        """A new pending problem by a bot (+3 points) or a human."""
        prob = Prob(
            id=self._take("problem"),
            status="pending",
            author_type="bot" if bot is not None else "human",
            human_author_id=human_id if bot is None else None,
            bot_author_id=bot.id if bot is not None else None,
            category=category,
            created_at=t,
            updated_at=t,
        )
        self.problems[prob.id] = prob
        self.new_problems.append((prob.id, title, description))
        self._log(
            "problem_created", bot.id if bot else None, prob.id, t, authorType=prob.author_type,
            category=category,
        )  # fmt: skip
        if bot is not None:
            self._touch(bot, t, "created", ranking.POINTS_CREATE)
        return prob

    def flag(
        self,
        prob: Prob,
        bot: Bot,
        verdict: str,
        t: int,
        *,
        category: str = "none",
        suggested: str | None = None,
    ) -> None:
        """One moderation flag (+1 point); two red flags reject the problem, the third flag otherwise makes it
        active."""
        if verdict == "red":
            prob.red += 1
        else:
            prob.green += 1
        prob.flaggers.append(bot.id)
        if suggested is None and verdict == "green":
            suggested = prob.category
        self.new_flags.append((self._take("flag"), prob.id, bot.id, verdict, category, suggested, t))
        self._log("flag_submitted", bot.id, prob.id, t, verdict=verdict, category=category)
        self._touch(bot, t, "flags", ranking.POINTS_FLAG)
        if prob.status == "pending" and prob.red >= ranking.RED_FLAGS_TO_REJECT:
            self._status(prob, "rejected", t, bot)
        elif prob.status == "pending" and prob.green + prob.red >= ranking.FLAGS_REQUIRED:
            self._status(prob, "active", t, bot)
        prob.updated_at = t
        self.dirty_problems.add(prob.id)

    def solve(
        self,
        prob: Prob,
        bot: Bot,
        t: int,
        text: str,
        *,
        llm_model: str | None = None,
        llm_model_version: str | None = None,
        external: bool = False,
    ) -> Sol:
        """A new solution (+5 points). Simulated bots: hidden quality = skill + noise and the bot's own model;
        ``external`` (a real bot over the API): quality 0 and the model it reported."""
        quality = 0.0 if external else bot.skill + self.rng.gauss(0.0, 1.0)
        sol = Sol(self._take("solution"), prob.id, bot.id, quality, t)
        prob.sols.append(sol)
        prob.solvers.add(bot.id)
        prob.solution_count += 1
        prob.below5 += 1
        prob.last_bot_activity_at = t
        prob.updated_at = t
        if not external:
            llm_model, llm_model_version = bot.llm_model, bot.llm_model_version
        self.new_solutions.append((sol, text, llm_model, llm_model_version))
        self._log("solution_submitted", bot.id, prob.id, t, solutionId=sol.id, llmModel=llm_model)
        self._touch(bot, t, "solutions", ranking.POINTS_SOLVE)
        self.dirty_problems.add(prob.id)
        return sol

    def vote(self, prob: Prob, voter: Bot, a: Sol, b: Sol, winner: str, t: int) -> None:
        """One comparison of ``a`` and ``b`` (+2 points), applying the BT update, accuracy and maturity
        rules."""
        correct = ranking.vote_correct(a.score, b.score, winner)
        if correct is not None:
            voter.accuracy = ranking.updated_accuracy(voter.accuracy, voter.accuracy_n, correct)
            voter.accuracy_n += 1
        a.score, b.score = ranking.bt_update(a.score, b.score, winner)
        for s in (a, b):
            s.ci = ranking.confidence_interval(s.n)
            s.n += 1
            if s.n % RECALCULATE_EVERY == 0:  # the platform recalculates the model board lazily
                self.recalc[s.id] = t
            if s.n == ranking.MIN_COMPARISONS_TO_MATURE:
                prob.below5 -= 1
            self.dirty_solutions[s.id] = s
        if winner == "a":
            a.wins += 1
            b.losses += 1
        elif winner == "b":
            b.wins += 1
            a.losses += 1
        prob.comparison_count += 1
        prob.last_bot_activity_at = t
        prob.updated_at = t
        comparison_id = self._take("comparison")
        self.new_comparisons.append((comparison_id, prob.id, a.id, b.id, winner, voter.id, t))
        self._log(
            "vote_cast", voter.id, prob.id, t, winner=winner, comparisonId=comparison_id, solutionAId=a.id,
            solutionBId=b.id,
        )  # fmt: skip
        self._touch(voter, t, "votes", ranking.POINTS_VOTE)
        self.dirty_problems.add(prob.id)
        if prob.status == "active" and prob.below5 <= 0 and len(prob.sols) >= ranking.MIN_SOLUTIONS_TO_MATURE:
            self._maybe_mature(prob, t, voter)

    def vote_deadlocked(self, prob: Prob, voter: Bot, a: Sol, b: Sol, winner: str, t: int) -> None:
        """A vote that failed with "deadlock detected" after its row was written (real-platform-notes §14-15):
        the comparison row only; no score, count, win/loss, problem count, point or activity row moves."""
        self.new_comparisons.append((self._take("comparison"), prob.id, a.id, b.id, winner, voter.id, t))

    def _maybe_mature(self, prob: Prob, t: int, voter: Bot) -> None:
        if not ranking.is_mature([(s.score, s.ci, s.n) for s in prob.sols]):
            return
        self._status(prob, "mature", t, voter)
        top = sorted(prob.sols, key=lambda s: (-s.score, s.created_at, s.id))[:3]
        for place, sol in enumerate(top):
            bot = self.bots.get(sol.bot_id)
            if bot is None:
                continue
            points = ranking.POINTS_FIRST_PLACE if place == 0 else ranking.POINTS_TOP3
            action = "solution_first_place" if place == 0 else "solution_top_3"
            self.new_awards.append((self._take("award"), bot.id, prob.id, sol.id, action, points, t))
            self._log(action, bot.id, prob.id, t, solutionId=sol.id, points=points)
            self._touch(bot, t, "first_places" if place == 0 else None, points)

    # ------------------------------------------------------------------ decisions
    def pick_pair(self, prob: Prob, voter_id: int) -> tuple[Sol, Sol] | None:
        """Two solutions of ``prob`` not written by ``voter_id``, preferring the least-compared ones."""
        pool = [s for s in prob.sols if s.bot_id != voter_id]
        if len(pool) < 2:
            return None
        rng = self.rng
        first = min(rng.sample(pool, min(3, len(pool))), key=lambda s: s.n)
        second = rng.choice(pool)
        while second is first:
            second = rng.choice(pool)
        return (first, second) if rng.random() < 0.5 else (second, first)

    def judge(self, voter: Bot, a: Sol, b: Sol) -> str:
        """The voter's verdict ``a``/``b``/``skip`` from hidden qualities and the voter's judgment."""
        rng = self.rng
        if rng.random() < SKIP_RATE:
            return "skip"
        p_true = 1.0 / (1.0 + math.exp(-3.0 * (a.quality - b.quality)))
        p_a = voter.judgment * p_true + (1.0 - voter.judgment) * 0.5
        return "a" if rng.random() < p_a else "b"

    # ------------------------------------------------------------------ persistence
    def flush(
        self, conn: sqlite3.Connection, *, in_transaction: bool = False, until: int | None = None
    ) -> None:
        """Write new rows and dirty rows (in one new transaction, or in the caller's when ``in_transaction``);
        recompute ``globalElo`` of affected bots. ``until`` (UTC ms): new bots that join at or after it are
        kept for a later flush (a stepped day shows a bot once it exists; it cannot act before that)."""
        held = [i for i in self.new_bots if until is not None and self.bots[i].created_at >= until]
        self.new_bots = [i for i in self.new_bots if i not in held]
        if in_transaction:
            self._flush(conn)
        else:
            with transaction(conn, immediate=True):
                self._flush(conn)
        self.new_bots = held
        self.new_problems.clear()
        self.new_solutions.clear()
        self.new_comparisons.clear()
        self.recalc.clear()
        self.new_flags.clear()
        self.new_awards.clear()
        self.new_badges.clear()
        self.new_activity.clear()
        self.dirty_bots.clear()
        self.dirty_problems.clear()
        self.dirty_solutions.clear()

    def _flush(self, conn: sqlite3.Connection) -> None:
        """Write what changed since the last flush, in dependency order (bots and problems before the rows
        that point at them), then refresh ``globalElo`` of the bots whose solutions changed."""
        new_problem_ids = {p[0] for p in self.new_problems}
        conn.executemany(_INSERT_BOT, (_bot_insert_row(self.bots[i]) for i in self.new_bots))
        conn.executemany(
            _INSERT_PROBLEM,
            (_problem_insert_row(self.problems[pid], title, desc) for pid, title, desc in self.new_problems),
        )
        conn.executemany(_INSERT_SOLUTION, (_solution_insert_row(*row) for row in self.new_solutions))
        new_sol_ids = {row[0].id for row in self.new_solutions}
        conn.executemany(
            _UPDATE_SOLUTION,
            (_solution_update_row(s) for sid, s in self.dirty_solutions.items() if sid not in new_sol_ids),
        )
        self._flush_events(conn)
        self._recalculate(conn)
        problems = sorted(self.dirty_problems | new_problem_ids)
        conn.executemany(_UPDATE_PROBLEM, (_problem_update_row(self.problems[i]) for i in problems))
        bots = sorted(self.dirty_bots | set(self.new_bots))
        conn.executemany(_UPDATE_BOT, (_bot_update_row(self.bots[i]) for i in bots))
        elo_bots = sorted(
            {s.bot_id for s in self.dirty_solutions.values()} | {s[0].bot_id for s in self.new_solutions}
        )
        refresh_global_elo(conn, elo_bots)

    def _recalculate(self, conn: sqlite3.Connection) -> None:
        """Recalculate the model board's figures of the models whose solutions reached a multiple of
        :data:`~solvelens.sandbox.llm_leaderboard.RECALCULATE_EVERY` comparisons (as of this write, dated by
        the latest such vote)."""
        if not self.recalc:
            return
        ids = sorted(self.recalc)
        marks = ",".join("?" * len(ids))
        models = [
            str(r[0])
            for r in conn.execute(
                f"SELECT DISTINCT llm_model FROM solutions WHERE id IN ({marks}) AND llm_model IS NOT NULL",
                ids,
            )
        ]
        recalculate(conn, models, max(self.recalc.values()))

    def _flush_events(self, conn: sqlite3.Connection) -> None:
        """Insert the new comparisons, flags, awards, badges and activity events (rows kept ready to
        insert; events in the order they happened, so their serial ids follow time)."""
        conn.executemany(_INSERT_COMPARISON, self.new_comparisons)
        conn.executemany(_INSERT_FLAG, self.new_flags)
        conn.executemany(_INSERT_AWARD, self.new_awards)
        conn.executemany(_INSERT_BADGE, self.new_badges)
        events: list[Event] = sorted(self.new_activity, key=_event_time)  # stable: by time
        conn.executemany(INSERT_EVENT, events)


# ------------------------------------------------------------------------------- rows written by World.flush
_INSERT_BOT: Final = (
    "INSERT INTO bots (id, name, description, status, created_at, skill, drift, judgment, activity, "
    "llm_model, llm_model_version) VALUES (?,?,?,?,?,?,?,?,?,?,?)"
)
_INSERT_PROBLEM: Final = (
    "INSERT INTO problems (id, author_type, human_author_id, bot_author_id, title, description, status, "
    "category, category_assigned_by, category_confidence, created_at, updated_at) "
    "VALUES (?,?,?,?,?,?,?,?,?,?,?,?)"
)
_INSERT_SOLUTION: Final = (
    "INSERT INTO solutions (id, problem_id, bot_id, text, llm_model, llm_model_version, bt_score, "
    "comparison_count, win_count, loss_count, confidence_interval, created_at, quality) "
    "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)"
)
_UPDATE_SOLUTION: Final = (
    "UPDATE solutions SET bt_score=?, comparison_count=?, win_count=?, loss_count=?, confidence_interval=? "
    "WHERE id=?"
)
_INSERT_COMPARISON: Final = (
    "INSERT INTO comparisons (id, problem_id, solution_a, solution_b, winner, voter_bot_id, created_at) "
    "VALUES (?,?,?,?,?,?,?)"
)
_INSERT_FLAG: Final = (
    "INSERT INTO flags (id, problem_id, bot_id, verdict, category, suggested_category, created_at) "
    "VALUES (?,?,?,?,?,?,?)"
)
_INSERT_AWARD: Final = (
    "INSERT INTO awards (id, bot_id, problem_id, solution_id, action, points, created_at) "
    "VALUES (?,?,?,?,?,?,?)"
)
_INSERT_BADGE: Final = "INSERT OR IGNORE INTO badges (bot_id, badge_type, tier, earned_at) VALUES (?,?,?,?)"
_UPDATE_PROBLEM: Final = (
    "UPDATE problems SET status=?, green_flags=?, red_flags=?, solution_count=?, comparison_count=?, "
    "last_bot_activity_at=?, updated_at=?, attention_score=? WHERE id=?"
)
_UPDATE_BOT: Final = (
    "UPDATE bots SET status=?, total_points=?, total_solutions=?, total_votes=?, total_flags=?, "
    "total_problems_created=?, vote_accuracy=?, accuracy_n=?, last_active_at=?, total_tasks_completed=?, "
    "skill=?, drift=?, activity=? WHERE id=?"
)


def _event_time(e: Event) -> int:
    return e[4]


def _bot_insert_row(b: Bot) -> tuple[object, ...]:
    return (
        b.id, b.name, b.description, b.status, b.created_at, b.skill, b.drift, b.judgment, b.activity,
        b.llm_model, b.llm_model_version,
    )  # fmt: skip


def _problem_insert_row(p: Prob, title: str, desc: str) -> tuple[object, ...]:
    assigned_by = "author" if p.author_type == "human" else "bot"
    return (
        p.id, p.author_type, p.human_author_id, p.bot_author_id, title, desc, p.status, p.category,
        assigned_by, 1.0, p.created_at, p.updated_at,
    )  # fmt: skip


def _solution_insert_row(s: Sol, text: str, model: str | None, version: str | None) -> tuple[object, ...]:
    return (
        s.id, s.problem_id, s.bot_id, text, model, version, s.score, s.n, s.wins, s.losses, s.ci,
        s.created_at, s.quality,
    )  # fmt: skip


def _solution_update_row(s: Sol) -> tuple[object, ...]:
    return (s.score, s.n, s.wins, s.losses, s.ci, s.id)


def _problem_update_row(p: Prob) -> tuple[object, ...]:
    attention = round(1.0 / (1.0 + p.solution_count), 4)
    return (
        p.status, p.green, p.red, p.solution_count, p.comparison_count, p.last_bot_activity_at,
        p.updated_at, attention, p.id,
    )  # fmt: skip


def _bot_update_row(b: Bot) -> tuple[object, ...]:
    return (
        b.status, b.points, b.solutions, b.votes, b.flags, b.created, b.accuracy, b.accuracy_n,
        b.last_active_at, b.tasks_completed, b.skill, b.drift, b.activity, b.id,
    )  # fmt: skip


def refresh_global_elo(conn: sqlite3.Connection, bot_ids: list[int] | None) -> None:
    """Recompute ``globalElo`` (rounded mean of the top-20 solution scores, 1200 without) of ``bot_ids`` (all
    bots when ``None``)."""
    sql = (
        "UPDATE bots SET global_elo = COALESCE((SELECT CAST(round(avg(bt_score)) AS INTEGER) FROM "
        "(SELECT bt_score FROM solutions WHERE bot_id = bots.id ORDER BY bt_score DESC LIMIT 20)), 1200)"
    )
    if bot_ids is None:
        conn.execute(sql)
    else:
        conn.executemany(sql + " WHERE id = ?", ((i,) for i in bot_ids))
