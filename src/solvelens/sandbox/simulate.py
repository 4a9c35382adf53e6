"""``advance``: move the platform's simulated clock forward, one day at a time, while a server may
be serving it.

Each simulated day (reproducible from the seed and the day number):

- bots' latent skill drifts (a persistent per-bot trend plus noise, occasional jumps when a bot "upgrades its
  model"), and their activity follows their trend, so leaderboard ranks visibly shift over weeks;
- a few bots join; ~5-15 problems arrive (x scale factor), go through flag moderation (most become active,
  a few are rejected; late arrivals stay pending until the next day);
- simulated bots solve active problems and vote on pairs of solutions with the same
  :class:`~solvelens.sandbox.world.World` rules as the generator and the dispatcher (BT update, accuracy,
  points, maturity, badges);
- the day's writes and the clock move (``meta.clock_ms`` += 24 h) are committed in ONE transaction, so a
  server reading the WAL database sees either the whole day or none of it; with ``step_minutes`` the day is
  committed in steps instead (each step's events and the clock moved to the step's end), and ``on_step`` runs
  between steps (e.g. a snapshot, or a wall-clock pause so the platform moves in real time). Stepping does
  not change what a whole day produces. Bots created through accounts (real bots) are never driven by the
  simulator.
"""

from __future__ import annotations

import bisect
import heapq
import itertools
import math
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from solvelens.sandbox import catalog
from solvelens.sandbox.db import (
    DAY_MS,
    HOUR_MS,
    clock_ms,
    connect,
    ensure_schema,
    get_meta,
    iso,
    set_meta,
    transaction,
)
from solvelens.sandbox.options import VOTE_DEADLOCKS
from solvelens.sandbox.ranking import MAX_COMPARISONS_MATURE, TARGET_SOLUTIONS_PER_PROBLEM
from solvelens.sandbox.world import Bot, Prob, World

#: Daily volume multiplier per scale (small = 1).
SCALE_FACTOR: Final = {"empty": 1, "small": 1, "medium": 4, "large": 20}
_COUNTS: Final = ("new_bots", "new_problems", "solutions", "votes", "deadlocked", "flags", "matured")


def advance(
    db_path: Path,
    *,
    days: int = 1,
    seed: int | None = None,
    step_minutes: float | None = None,
    on_step: Callable[[str], None] | None = None,
    vote_deadlocks: float = VOTE_DEADLOCKS,
) -> dict[str, Any]:
    """Advance the platform at ``db_path`` by ``days`` simulated days.

    ``vote_deadlocks``: the share of the simulated votes lost to a database deadlock after their row was
    written, as on the real platform (:meth:`~solvelens.sandbox.world.World.vote_deadlocked`: the comparison
    row only, no count moves; drawn from their own seeded stream); counted in ``"deadlocked"``.

    ``step_minutes``: commit each day in steps of this many simulated minutes (the clock moves to each
    step's end; a reader between steps sees the events up to it); ``on_step(clock)`` is called after each
    committed step with the simulated clock (ISO UTC) while no write lock is held. A small platform logs
    ~300 activity events a day, a medium one ~1,800: steps of 60 simulated minutes keep each step under the
    feed's 50 events on small.

    ``seed`` defaults to the platform's own seed; the same seed, starting state and days give the same result.
    Returns ``{"days", "day" (days simulated since the build), "clock" (ISO UTC), "new_bots", "new_problems",
    "solutions", "votes" (counted ones), "deadlocked", "flags", "matured", "seconds"}``. Raises
    :class:`FileNotFoundError` when there is no platform at ``db_path`` and :class:`ValueError` when
    ``days < 1``, ``step_minutes`` is not positive or ``vote_deadlocks`` is not in 0-1.
    An error in a stepped day rolls back only the current step.
    """
    if days < 1:
        raise ValueError("days must be >= 1")
    if not 0.0 <= vote_deadlocks <= 1.0:
        raise ValueError(f"vote_deadlocks must be between 0 and 1, got {vote_deadlocks}")
    if step_minutes is not None and not 0 < step_minutes <= 24 * 60:
        raise ValueError(f"step_minutes must be in (0, 1440], got {step_minutes}")
    step_ms = None if step_minutes is None else max(1, int(step_minutes * 60_000))
    db_path = Path(db_path)
    if not db_path.exists():
        raise FileNotFoundError(f"No sandbox platform at {db_path}")
    started = time.perf_counter()
    totals = dict.fromkeys(_COUNTS, 0)
    conn = connect(db_path)
    try:
        ensure_schema(conn)  # a platform built before the activity log gets it now
        for _ in range(days):
            for key, value in _Day(conn, seed, step_ms, on_step, vote_deadlocks).run().items():
                totals[key] += value
        day = int(get_meta(conn, "day") or 0)
        clock = iso(clock_ms(conn))
    finally:
        conn.close()
    seconds = round(time.perf_counter() - started, 3)
    return {"days": days, "day": day, "clock": clock, **totals, "seconds": seconds}


class _Day:
    def __init__(
        self,
        conn: Any,
        seed: int | None,
        step_ms: int | None = None,
        on_step: Callable[[str], None] | None = None,
        vote_deadlocks: float = 0.0,
    ) -> None:
        self.conn = conn
        self.step_ms, self.on_step = step_ms, on_step
        base = seed if seed is not None else int(get_meta(conn, "seed") or 0)
        self.day = int(get_meta(conn, "day") or 0)
        self.rng = random.Random(f"solvelens-sandbox-sim:{base}:{self.day}")
        self.deadlocks = vote_deadlocks
        self.deadlock_rng = random.Random(f"solvelens-sandbox-deadlock:{base}:{self.day}")
        self.factor = SCALE_FACTOR.get(get_meta(conn, "scale") or "small", 1)
        self.start = clock_ms(conn)
        self.end = self.start + DAY_MS
        self.seq = itertools.count()  # the event heap's tie-break: the order events were pushed
        self.counts = dict.fromkeys(_COUNTS, 0)

    def run(self) -> dict[str, int]:
        conn, rng, f = self.conn, self.rng, self.factor
        with transaction(conn, immediate=True):
            pending_sql = "SELECT id FROM problems WHERE status = 'pending' ORDER BY id"
            pending = [r[0] for r in conn.execute(pending_sql)]
            votable = [
                r[0]
                for r in conn.execute(
                    "SELECT id FROM problems WHERE status = 'active' OR (status = 'mature' AND "
                    "comparison_count < ?) "
                    "ORDER BY id",
                    (MAX_COMPARISONS_MATURE,),
                )
            ]
            # the problems closest to maturing (few solutions, many comparisons) plus a random sample
            hot = [
                r[0]
                for r in conn.execute(
                    "SELECT id FROM problems WHERE status = 'active' AND solution_count >= 3 "
                    "AND comparison_count < 40 * solution_count ORDER BY comparison_count DESC, id LIMIT ?",
                    (5 * f,),
                )
            ]
            rest = sorted(set(votable) - set(hot))
            touched = sorted({*hot, *rng.sample(rest, min(len(rest), 25 * f))})
            self.hot = set(hot)
            world = World.load(conn, rng, problem_ids=pending + touched)
            self.world = world
            sim_sql = "SELECT id FROM bots WHERE simulated = 1 AND status = 'active'"
            sim_ids = {r[0] for r in conn.execute(sim_sql)}
            taken = {r[0].lower() for r in conn.execute("SELECT name FROM bots")}
            self._drift([world.bots[i] for i in sorted(sim_ids)])
            pool = [world.bots[i] for i in sorted(sim_ids)]
            for name in catalog.bot_names(rng, rng.randint(0, 2) * f, taken):
                bot = world.add_bot(name, catalog.bot_description(rng), self.start + rng.randrange(DAY_MS))
                pool.append(bot)
                self.counts["new_bots"] += 1
            self.pool = sorted(pool, key=lambda b: (b.created_at, b.id))
            self._index()
            self.problem_list = [world.problems[i] for i in sorted(world.problems)]
            self.hot_list = [world.problems[i] for i in hot if i in world.problems]
            self.events: list[tuple[int, int, int, int]] = []  # heap of (time, seq, kind, problem id)
            for pid in pending:
                self._push(self._flag_events(world.problems[pid], self.start))
            # problems arrive at their time (kind 3), so a stepped day shows each only once it exists
            self._push([(self.start + rng.randrange(DAY_MS), 3, 0) for _ in range(rng.randint(5, 15) * f)])
            self._push([(self.start + rng.randrange(DAY_MS), 1, 0) for _ in range(rng.randint(40, 80) * f)])
            self._push([(self.start + rng.randrange(DAY_MS), 2, 0) for _ in range(rng.randint(150, 300) * f)])
            mature_before = sum(1 for p in world.problems.values() if p.status == "mature")
            self._play()
            mature_after = sum(1 for p in world.problems.values() if p.status == "mature")
            self.counts["matured"] = mature_after - mature_before
            world.flush(conn, in_transaction=True)
            set_meta(conn, "clock_ms", self.end)
            set_meta(conn, "day", self.day + 1)
        return self.counts

    def _push(self, events: list[tuple[int, int, int]]) -> None:
        for t, kind, pid in events:
            heapq.heappush(self.events, (t, next(self.seq), kind, pid))

    def _play(self) -> None:
        """Apply the day's events in time order (committing a step at each step boundary)."""
        world = self.world
        cut = self.start + self.step_ms if self.step_ms else None
        while self.events:
            t, _, kind, pid = heapq.heappop(self.events)
            while cut is not None and t >= cut and cut < self.end:
                self._commit_step(cut)
                cut += self.step_ms or 0
            if kind == 0:
                self._flag(world.problems[pid], t)
            elif kind == 1:
                self._solve(t)
            elif kind == 2:
                self._vote(t)
            else:
                prob = self._new_problem(t)
                self.problem_list.append(prob)
                self._push(self._flag_events(prob, t))
        while cut is not None and cut < self.end:
            self._commit_step(cut)
            cut += self.step_ms or 0

    def _commit_step(self, cut: int) -> None:
        """Commit the events before ``cut`` with the clock at ``cut``, call ``on_step``, begin the next
        step."""
        self.world.flush(self.conn, in_transaction=True, until=cut)
        set_meta(self.conn, "clock_ms", cut)
        self.conn.execute("COMMIT")
        try:
            if self.on_step is not None:
                self.on_step(iso(cut) or "")
        finally:
            self.conn.execute("BEGIN IMMEDIATE")

    # --------------------------------------------------------------------------------------- bots
    def _drift(self, bots: list[Bot]) -> None:
        rng, world = self.rng, self.world
        for bot in bots:
            bot.drift = 0.9 * bot.drift + rng.gauss(0.0, 0.02)
            jump = rng.gauss(0.8, 0.3) if rng.random() < 0.01 else 0.0
            bot.skill += bot.drift + jump
            bot.activity = min(
                20.0, max(0.05, bot.activity * math.exp(2.0 * bot.drift + rng.gauss(0.0, 0.1)))
            )
            world.dirty_bots.add(bot.id)

    def _index(self) -> None:
        self.times = [b.created_at for b in self.pool]
        self.cum: list[float] = []
        total = 0.0
        for b in self.pool:
            total += b.activity
            self.cum.append(total)

    def _pick_bot(self, t: int, exclude: set[int] | None = None) -> Bot | None:
        k = bisect.bisect_left(self.times, t)
        if k == 0:
            return None
        for _ in range(8):
            i = min(bisect.bisect_right(self.cum, self.rng.random() * self.cum[k - 1], 0, k - 1), k - 1)
            bot = self.pool[i]
            if not exclude or bot.id not in exclude:
                return bot
        return None

    # --------------------------------------------------------------------------------------- events
    def _new_problem(self, t: int) -> Prob:
        rng = self.rng
        category = rng.choice(catalog.CATEGORY_SLUGS)
        title, desc = catalog.problem_text(rng, category)
        author = self._pick_bot(t) if rng.random() < 0.6 else None
        humans = self.conn.execute("SELECT count(*) FROM humans").fetchone()[0]
        self.counts["new_problems"] += 1
        if author is not None:
            return self.world.create_problem(
                title=title, description=desc, category=category, t=t, bot=author
            )
        human = rng.randrange(1, humans + 1) if humans else None
        return self.world.create_problem(
            title=title, description=desc, category=category, t=t, human_id=human
        )

    def _flag_events(self, prob: Prob, t: int) -> list[tuple[int, int, int]]:
        needed = max(0, 3 - prob.green - prob.red)
        out = []
        for _ in range(needed):
            t += self.rng.randrange(10 * 60_000, 4 * HOUR_MS)
            if t < self.end:
                out.append((t, 0, prob.id))
        return out

    def _flag(self, prob: Prob, t: int) -> None:
        if prob.status != "pending":
            return
        exclude = {*prob.flaggers, prob.bot_author_id or 0}
        bot = self._pick_bot(t, exclude)
        if bot is None:
            return
        red = self.rng.random() < 0.08
        self.world.flag(prob, bot, "red" if red else "green", t, category="spam" if red else "none")
        self.counts["flags"] += 1

    @staticmethod
    def _votable(p: Prob) -> bool:
        return len(p.sols) >= 2 and (
            p.status == "active" or (p.status == "mature" and p.comparison_count < MAX_COMPARISONS_MATURE)
        )

    def _solvable(self, p: Prob) -> bool:
        return (
            p.status == "active" and p.solution_count < TARGET_SOLUTIONS_PER_PROBLEM and p.id not in self.hot
        )

    def _draw(self, pool: list[Prob], ok: Callable[[Prob], bool], want: int) -> list[Prob]:
        """Up to ``want`` distinct problems of ``pool`` passing ``ok`` (rejection sampling, O(1) each)."""
        found: list[Prob] = []
        for _ in range(12 * want):
            if not pool or len(found) >= want:
                break
            p = self.rng.choice(pool)
            if ok(p) and p not in found:
                found.append(p)
        return found

    def _solve(self, t: int) -> None:
        cands = self._draw(self.problem_list, self._solvable, 3)
        if not cands:
            return
        prob = min(cands, key=lambda p: (p.solution_count, p.id))
        bot = self._pick_bot(t, {*prob.solvers, prob.bot_author_id or 0})
        if bot is None:
            return
        self.world.solve(prob, bot, t, catalog.solution_text(self.rng))
        self.counts["solutions"] += 1

    def _vote(self, t: int) -> None:
        # most votes go to the problems closest to maturing
        hot = self.hot_list and self.rng.random() < 0.6
        cands = self._draw(self.hot_list if hot else self.problem_list, self._votable, 1)
        if not cands:
            return
        prob = cands[0]
        voter = self._pick_bot(t)
        if voter is None:
            return
        pair = self.world.pick_pair(prob, voter.id)
        if pair is None:
            return
        a, b = pair
        winner = self.world.judge(voter, a, b)
        if self.deadlocks and self.deadlock_rng.random() < self.deadlocks:
            self.world.vote_deadlocked(prob, voter, a, b, winner, t)
            self.counts["deadlocked"] += 1
            return
        self.world.vote(prob, voter, a, b, winner, t)
        self.counts["votes"] += 1
