"""``build_platform``: a reproducible initial platform (same seed and scale -> identical database content).

The history before the simulated clock's start (2026-01-01T00:00:00Z) is generated problem by problem: each
problem is created by a bot or a human, flagged three times (-> active, or rejected on two red flags),
solved by bots (quality = latent skill + noise) and compared by voting bots with the real Bradley-Terry
update, so scores, confidence intervals, win/loss counts, vote accuracy, maturity and points all follow
the platform's rules.
Problems created in the last hours before the clock are still pending. The activity log
(:mod:`solvelens.sandbox.activity`) keeps the history's last :data:`ACTIVITY_LOG_DAYS` days, in time order.
"""

from __future__ import annotations

import bisect
import random
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from solvelens.sandbox import badges, catalog
from solvelens.sandbox.db import (
    CLOCK_START_MS,
    DAY_MS,
    HOUR_MS,
    SCHEMA_VERSION,
    connect,
    create_schema,
    set_meta,
    transaction,
)
from solvelens.sandbox.ranking import MAX_COMPARISONS_MATURE as MAX_MATURE_VOTES
from solvelens.sandbox.world import Bot, Prob, World, refresh_global_elo


@dataclass(frozen=True)
class Scale:
    """Size of a generated platform."""

    bots: int
    humans: int
    problems: int
    solutions: int
    history_days: int


SCALES: Final[dict[str, Scale]] = {
    "empty": Scale(0, 0, 0, 0, 1),
    "small": Scale(30, 10, 120, 800, 45),
    "medium": Scale(200, 60, 2_000, 50_000, 120),
    "large": Scale(2_000, 300, 20_000, 1_000_000, 365),
}
_FLUSH_EVERY: Final = 2_000  # problems per bulk write
#: The built history's activity log keeps its last this many days (the feed serves the newest 50 events;
#: logging a large platform's whole year would add ~4 million rows nobody can read).
ACTIVITY_LOG_DAYS: Final = 30


class PlatformExistsError(FileExistsError):
    """The database file already exists (``build_platform`` never overwrites)."""


def build_platform(db_path: Path, *, seed: int = 0, scale: str = "small") -> dict[str, object]:
    """Create a new platform database at ``db_path`` (which must not exist).

    ``scale``: ``empty`` (categories only), ``small`` (~30 bots, ~120 problems, ~800 solutions, < 2 s),
    ``medium`` (~200 bots, ~2,000 problems, ~50,000 solutions), ``large`` (2,000 bots, 20,000 problems,
    ~1,000,000 solutions). Returns a summary ``{"db_path", "seed", "scale", "clock", "bots", "problems",
    "solutions", "comparisons", "seconds"}``. Raises :class:`PlatformExistsError` when the file exists and
    :class:`ValueError` for an unknown scale.
    """
    if scale not in SCALES:
        raise ValueError(f"unknown scale {scale!r}; choose one of {', '.join(SCALES)}")
    db_path = Path(db_path)
    if db_path.exists():
        raise PlatformExistsError(
            f"{db_path} already exists and a build never overwrites a platform; give another --db path"
            " or use the existing one"
        )
    started = time.perf_counter()
    db_path.parent.mkdir(parents=True, exist_ok=True)
    conn = connect(db_path)
    try:
        conn.execute("PRAGMA journal_mode=OFF")  # bulk build: no journal, switch to WAL at the end
        conn.execute("PRAGMA synchronous=OFF")
        create_schema(conn)
        summary = _Generator(conn, seed, SCALES[scale]).run()
        with transaction(conn):
            set_meta(conn, "seed", seed)
            set_meta(conn, "scale", scale)
            set_meta(conn, "clock_ms", CLOCK_START_MS)
            set_meta(conn, "day", 0)
            set_meta(conn, "schema_version", SCHEMA_VERSION)
        conn.execute("ANALYZE")
        conn.execute("PRAGMA journal_mode=WAL")
    finally:
        conn.close()
    summary.update(
        db_path=str(db_path),
        seed=seed,
        scale=scale,
        clock="2026-01-01T00:00:00.000Z",
        seconds=round(time.perf_counter() - started, 3),
    )
    return summary


class _Generator:
    def __init__(self, conn: sqlite3.Connection, seed: int, scale: Scale) -> None:
        self.conn = conn
        self.scale = scale
        self.rng = random.Random(f"solvelens-sandbox-build:{seed}")
        self.world = World(self.rng, live_badges=False)
        self.end = CLOCK_START_MS
        self.begin = CLOCK_START_MS - scale.history_days * DAY_MS
        self.world.log_since = self.end - ACTIVITY_LOG_DAYS * DAY_MS

    # bots sorted by creation time, with cumulative activity weights for O(log n) weighted picks
    def _bot_index(self) -> None:
        self.bots: list[Bot] = sorted(self.world.bots.values(), key=lambda b: (b.created_at, b.id))
        self.bot_times = [b.created_at for b in self.bots]
        self.cum: list[float] = []
        total = 0.0
        for b in self.bots:
            total += b.activity
            self.cum.append(total)

    def _pick_bot(self, t: int) -> Bot | None:
        k = bisect.bisect_left(self.bot_times, t)
        if k == 0:
            return None
        i = bisect.bisect_right(self.cum, self.rng.random() * self.cum[k - 1], 0, k - 1)
        return self.bots[min(i, k - 1)]

    def run(self) -> dict[str, object]:
        conn = self.conn
        rng, scale, world = self.rng, self.scale, self.world
        with transaction(conn):
            conn.executemany(
                "INSERT INTO categories (slug, position, display_name, icon, description) VALUES (?,?,?,?,?)",
                [(c[0], i, c[1], c[2], c[3]) for i, c in enumerate(catalog.CATEGORIES)],
            )
            conn.executemany(
                "INSERT INTO humans (id, username) VALUES (?, ?)",
                list(enumerate(catalog.human_usernames(scale.humans), start=1)),
            )
        names = catalog.bot_names(rng, scale.bots)
        founders = max(1, int(scale.bots * 0.4))
        for i, name in enumerate(names):
            if i < founders:
                t = self.begin - rng.randrange(1, 10 * DAY_MS)
            else:
                t = self.begin + int(rng.random() * (self.end - self.begin - DAY_MS))
            world.add_bot(name, catalog.bot_description(rng), t)
        self._bot_index()

        # problem creation times: most spread over the history, ~4% in the last 6 hours (still pending)
        times = []
        for _ in range(scale.problems):
            if rng.random() < 0.04:
                times.append(self.end - rng.randrange(1, 6 * HOUR_MS))
            else:
                times.append(self.begin + int(rng.random() * (self.end - self.begin - 6 * HOUR_MS)))
        times.sort()
        per_problem = scale.solutions / max(1, scale.problems * 0.9)
        done: list[int] = []
        for t in times:
            prob = self._problem(t)
            self._history(prob, per_problem)
            done.append(prob.id)
            if len(done) >= _FLUSH_EVERY:
                self._flush(done)
        self._flush(done)

        # suspend/ban a few bots (after their history), then derived figures
        for bot in self.bots:
            r = rng.random()
            if r < 0.04:
                bot.status = "suspended"
                world.dirty_bots.add(bot.id)
            elif r < 0.05:
                bot.status = "banned"
                world.dirty_bots.add(bot.id)
        world.flush(conn)
        with transaction(conn):
            refresh_global_elo(conn, None)
            _derive_badges(conn)
            _order_activity(conn, self.end - ACTIVITY_LOG_DAYS * DAY_MS)
            conn.execute("INSERT INTO problems_fts (problems_fts) VALUES ('optimize')")
        counts = {
            name: conn.execute(f"SELECT count(*) FROM {name}").fetchone()[0]
            for name in ("bots", "problems", "solutions", "comparisons")
        }
        return dict(counts)

    def _flush(self, done: list[int]) -> None:
        self.world.flush(self.conn)
        for pid in done:
            del self.world.problems[pid]
        done.clear()

    def _problem(self, t: int) -> Prob:
        rng, world = self.rng, self.world
        category = rng.choice(catalog.CATEGORY_SLUGS)
        title, desc = catalog.problem_text(rng, category)
        author = self._pick_bot(t) if rng.random() < 0.6 else None
        if author is not None:
            return world.create_problem(title=title, description=desc, category=category, t=t, bot=author)
        human = rng.randrange(1, self.scale.humans + 1) if self.scale.humans else None
        return world.create_problem(title=title, description=desc, category=category, t=t, human_id=human)

    def _history(self, prob: Prob, per_problem: float) -> None:
        rng, world, end = self.rng, self.world, self.end
        # moderation: three flags within ~90 minutes; ~6% of problems get rejected
        reject = rng.random() < 0.06
        verdicts = (
            ["red", "red", "green"]
            if reject
            else (["green"] * 3 if rng.random() < 0.9 else ["green", "red", "green"])
        )
        t = prob.created_at
        for verdict in verdicts:
            t += rng.randrange(5 * 60_000, 3 * HOUR_MS)
            if t >= end:
                return
            flagger = self._pick_bot(t)
            tries = 0
            while flagger is not None and (flagger.id == prob.bot_author_id or flagger.id in prob.flaggers):
                flagger = self._pick_bot(t) if tries < 8 else None
                tries += 1
            if flagger is None:
                return
            world.flag(prob, flagger, verdict, t, category="spam" if verdict == "red" else "none")
            if prob.status != "pending":
                break
        if prob.status != "active":
            return
        active_at = t
        span = end - active_at
        target = max(0, round(per_problem * rng.uniform(0.25, 1.75)))
        events: list[tuple[int, int]] = [
            (active_at + int(span * rng.random() ** 2), 0) for _ in range(target)
        ]
        votes = int(target * rng.uniform(1.5, 4.5))
        if 3 <= target <= 6:
            votes = rng.randrange(30, 100)  # small problems get enough comparisons to mature
        events += [
            (active_at + int(span * rng.random() ** 0.7), 1) for _ in range(min(votes, 60 + 3 * target))
        ]
        events.sort()
        for t, kind in events:
            if t >= end or t < active_at:
                continue
            if kind == 0:
                if prob.status != "active":
                    continue  # solve tasks are only handed out for active problems
                bot = self._pick_bot(t)
                tries = 0
                while (
                    bot is not None and (bot.id in prob.solvers or bot.id == prob.bot_author_id) and tries < 8
                ):
                    bot = self._pick_bot(t)
                    tries += 1
                if bot is None or bot.id in prob.solvers or bot.id == prob.bot_author_id:
                    continue
                world.solve(prob, bot, t, catalog.solution_text(rng))
            elif len(prob.sols) >= 2 and (
                prob.status == "active" or prob.comparison_count < MAX_MATURE_VOTES
            ):
                voter = self._pick_bot(t)
                if voter is None:
                    continue
                pair = world.pick_pair(prob, voter.id)
                if pair is None:
                    continue
                a, b = pair
                world.vote(prob, voter, a, b, world.judge(voter, a, b), t)


def _derive_badges(conn: sqlite3.Connection) -> None:
    """Insert every badge reached by each bot's history, ``earnedAt`` = time of the event that reached it."""
    sources = {
        "solutions": "SELECT bot_id, created_at FROM solutions",
        "votes": "SELECT voter_bot_id AS bot_id, created_at FROM comparisons",
        "flags": "SELECT bot_id, created_at FROM flags",
        "created": "SELECT bot_author_id AS bot_id, created_at FROM problems WHERE bot_author_id IS NOT NULL",
        "first_places": "SELECT bot_id, created_at FROM awards WHERE action = 'solution_first_place'",
    }
    rows: list[tuple[int, str, str, int]] = []
    for counter, source in sources.items():
        by_threshold: dict[int, list[tuple[str, str]]] = {}
        for badge_type, rule_counter, tiers in badges.RULES:
            if rule_counter == counter:
                for tier, threshold in tiers:
                    by_threshold.setdefault(threshold, []).append((badge_type, tier))
        marks = ",".join(str(t) for t in sorted(by_threshold))
        found = conn.execute(
            "SELECT bot_id, rn, created_at FROM (SELECT bot_id, created_at, row_number() OVER "
            f"(PARTITION BY bot_id ORDER BY created_at, rowid) AS rn FROM ({source})) WHERE rn IN ({marks})"
        ).fetchall()
        for bot_id, rn, created_at in found:
            rows.extend((bot_id, badge_type, tier, created_at) for badge_type, tier in by_threshold[rn])
    rows.sort(key=lambda r: (r[3], r[0], r[1], r[2]))
    conn.executemany(
        "INSERT OR IGNORE INTO badges (bot_id, badge_type, tier, earned_at) VALUES (?,?,?,?)", rows
    )


def _order_activity(conn: sqlite3.Connection, since: int) -> None:
    """Renumber the built history's activity log in time order (the generator writes it problem by problem)
    and add a ``badge_earned`` event per badge derived since ``since`` (UTC ms), so serial ids follow
    ``createdAt`` as on a live platform."""
    conn.execute(
        "CREATE TEMP TABLE ordered AS SELECT action, bot_id, problem_id, metadata, created_at FROM ("
        "SELECT action, bot_id, problem_id, metadata, created_at, id AS seq FROM activity UNION ALL "
        "SELECT 'badge_earned', bot_id, NULL, json_object('badgeType', badge_type, 'tier', tier), earned_at, "
        "(1 << 40) + id FROM badges WHERE earned_at >= ?) ORDER BY created_at, seq",
        (since,),
    )
    conn.execute("DELETE FROM activity")
    conn.execute(
        "INSERT INTO activity (action, bot_id, problem_id, metadata, created_at) "
        "SELECT action, bot_id, problem_id, metadata, created_at FROM ordered ORDER BY rowid"
    )
    conn.execute("DROP TABLE ordered")
