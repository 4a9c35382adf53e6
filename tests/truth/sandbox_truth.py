"""The platform's truth: what the sandbox's SQLite database holds, in plain SQL, one function per figure.

Nothing here imports ``solvelens.analysis``, the client or the store: each figure a user reads is recomputed
from the sandbox's own tables (:mod:`solvelens.sandbox.db` documents them) so a test can compare the two.
The only product code used is the sandbox's id encoding (:class:`~solvelens.sandbox.ids.IdCodec`), because
the store holds the public UUID ids the platform served.

Every function takes the path of a *frozen* copy of the sandbox database (:func:`freeze`, taken right after a
snapshot, while nothing writes), so the truth of snapshot N stays readable after the sandbox moved on.
Timestamps are returned as integer milliseconds since the Unix epoch (UTC), as the sandbox stores them;
scores and accuracies rounded to 4 decimals in Python, as the API serves them.

Diff truth functions take two frozen copies ``a`` (before) and ``b`` (after) and compare them with SQL over
both files (``ATTACH``).
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from solvelens.sandbox.ids import IdCodec

Row = dict[str, Any]

#: ``/activity`` serves at most this many events, newest first (the real platform's cap).
FEED_SIZE = 50
HOUR_MS = 3_600_000


def freeze(db_path: Path, dest: Path) -> Path:
    """Copy the live sandbox database at ``db_path`` to ``dest`` (SQLite's online backup: one consistent
    state even while the server reads it); returns ``dest``."""
    src = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    out = sqlite3.connect(dest)
    try:
        src.backup(out)
    finally:
        out.close()
        src.close()
    return dest


@contextmanager
def _open(db: Path, other: Path | None = None) -> Iterator[sqlite3.Connection]:
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        if other is not None:
            con.execute("ATTACH DATABASE ? AS b", (f"file:{other}?mode=ro",))
        yield con
    finally:
        con.close()


def _codec(con: sqlite3.Connection) -> IdCodec:
    return IdCodec(int(con.execute("SELECT value FROM meta WHERE key = 'seed'").fetchone()[0]))


def _rows(con: sqlite3.Connection, sql: str, args: tuple[Any, ...] = ()) -> list[Row]:
    cur = con.execute(sql, args)
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r, strict=True)) for r in cur.fetchall()]


def _encode(con: sqlite3.Connection, rows: list[Row], kinds: dict[str, str]) -> list[Row]:
    codec = _codec(con)
    for row in rows:
        for column, kind in kinds.items():
            row[column] = codec.encode_opt(kind, row[column])  # type: ignore[arg-type]
    return rows


def _served(rows: list[Row], *columns: str) -> list[Row]:
    """Round ``columns`` to 4 decimals as the API serves them (Python's ``round`` on the stored double,
    which differs from SQLite's ``round`` on a few binary halves such as 0.74375)."""
    for row in rows:
        for column in columns:
            row[column] = round(row[column], 4)
    return rows


def clock_ms(db: Path) -> int:
    """The platform's simulated clock (``meta.clock_ms``), ms since the epoch UTC."""
    with _open(db) as con:
        return int(con.execute("SELECT value FROM meta WHERE key = 'clock_ms'").fetchone()[0])


def problems(db: Path) -> list[Row]:
    """Listed problems: every problem whose status is not ``rejected`` (the platform never lists those).
    Keys: problem_id, title, status, category, author_type, solution_count, comparison_count, created_at."""
    with _open(db) as con:
        rows = _rows(
            con,
            "SELECT id AS problem_id, title, status, category, author_type, solution_count, "
            "comparison_count, created_at FROM problems WHERE status != 'rejected'",
        )
        return _encode(con, rows, {"problem_id": "problem"})


def solutions(db: Path) -> list[Row]:
    """Every solution of a listed problem with its bot's *current* name, score rounded to 4 decimals and
    its competition rank within the problem over that score (equal scores share the best rank, "1224").
    Keys: solution_id, problem_id, rank, score, comparison_count, win_count, loss_count,
    confidence_interval, bot_id, bot_name, llm_model, created_at."""
    with _open(db) as con:
        rows = _rows(
            con,
            "SELECT s.id AS solution_id, s.problem_id, "
            "rank() OVER (PARTITION BY s.problem_id ORDER BY round(s.bt_score, 4) DESC) AS rank, "
            "s.bt_score AS score, s.comparison_count, s.win_count, s.loss_count, "
            "s.confidence_interval, s.bot_id, b.name AS bot_name, "
            "s.llm_model, s.created_at FROM solutions s JOIN problems p ON p.id = s.problem_id "
            "LEFT JOIN bots b ON b.id = s.bot_id WHERE p.status != 'rejected'",
        )
        rows = _served(rows, "score", "confidence_interval")
        return _encode(con, rows, {"solution_id": "solution", "problem_id": "problem", "bot_id": "bot"})


def categories(db: Path) -> list[Row]:
    """The categories and, per category, the count of ALL its problems whatever their status (rejected
    included: the real platform's ``activeProblems``). Keys: slug, name, problem_count."""
    with _open(db) as con:
        return _rows(
            con,
            "SELECT c.slug, c.display_name AS name, "
            "(SELECT count(*) FROM problems p WHERE p.category = c.slug) AS problem_count FROM categories c",
        )


def leaderboard(db: Path) -> list[Row]:
    """Active bots by points (most first, ties by internal id), ``rank`` = the competition rank over points
    (1 + the active bots with more points: bots tied on points share it; issue 29).
    Keys: rank, bot_id, name, points, elo, total_solutions, total_votes, vote_accuracy, status."""
    with _open(db) as con:
        rows = _rows(
            con,
            "SELECT rank() OVER (ORDER BY total_points DESC) AS rank, id AS bot_id, name, "
            "total_points AS points, global_elo AS elo, total_solutions, total_votes, "
            "vote_accuracy, status FROM bots WHERE status = 'active'",
        )
        return _encode(con, _served(rows, "vote_accuracy"), {"bot_id": "bot"})


def bots(db: Path) -> list[Row]:
    """The profile of every active bot (the bots on the leaderboard). Keys: bot_id, name, status,
    total_points, total_solutions, total_votes, vote_accuracy, elo, last_active_at, created_at."""
    with _open(db) as con:
        rows = _rows(
            con,
            "SELECT id AS bot_id, name, status, total_points, total_solutions, total_votes, "
            "vote_accuracy, global_elo AS elo, last_active_at, created_at "
            "FROM bots WHERE status = 'active'",
        )
        return _encode(con, _served(rows, "vote_accuracy"), {"bot_id": "bot"})


def platform_stats(db: Path) -> list[Row]:
    """``/stats`` in long form (metric, value): listed problems (total, by author type, active, mature),
    all solutions, the sum of listed problems' comparison counts, active bots, and bots last active within
    the hour before the simulated clock."""
    with _open(db) as con:
        now = int(con.execute("SELECT value FROM meta WHERE key = 'clock_ms'").fetchone()[0])
        p = con.execute(
            "SELECT count(*), total(author_type = 'human'), total(author_type = 'bot'), "
            "total(comparison_count), total(status = 'active'), total(status = 'mature') "
            "FROM problems WHERE status != 'rejected'"
        ).fetchone()
        bots_row = con.execute(
            "SELECT total(status = 'active'), total(last_active_at > ? AND last_active_at <= ?) FROM bots",
            (now - HOUR_MS, now),
        ).fetchone()
        solutions_n = con.execute("SELECT count(*) FROM solutions").fetchone()[0]
    values = {
        "totalProblems": p[0],
        "humanProblems": p[1],
        "botProblems": p[2],
        "totalComparisons": p[3],
        "activeProblems": p[4],
        "matureProblems": p[5],
        "totalBots": bots_row[0],
        "activeBots": bots_row[1],
        "totalSolutions": solutions_n,
    }
    return [{"metric": k, "value": float(v)} for k, v in values.items()]


def activity_feed(db: Path, size: int = FEED_SIZE) -> list[Row]:
    """The ``size`` newest events (highest ids) with the bot's name of the event's time (the old name of the
    first rename recorded after the event, else the current one) and the problem's title joined at this
    moment. Keys: event_id (the serial id as text), action, bot_id, bot_name, problem_id, problem_title,
    created_at."""
    with _open(db) as con:
        rows = _rows(
            con,
            "SELECT CAST(a.id AS TEXT) AS event_id, a.action, a.bot_id, coalesce((SELECT r.old_name FROM "
            "bot_renames r WHERE r.bot_id = a.bot_id AND r.last_activity_id >= a.id ORDER BY r.id LIMIT 1), "
            "b.name) AS bot_name, a.problem_id, "
            "p.title AS problem_title, a.created_at FROM activity a LEFT JOIN bots b ON b.id = a.bot_id "
            "LEFT JOIN problems p ON p.id = a.problem_id ORDER BY a.id DESC LIMIT ?",
            (size,),
        )
        return _encode(con, rows, {"bot_id": "bot", "problem_id": "problem"})


def votes(db: Path) -> list[Row]:
    """Every recorded vote (comparison row), also those of problems rejected since (a store keeps what it
    once read). Keys: comparison_id, problem_id, solution_a_id, solution_b_id, winner, voter_bot_id."""
    with _open(db) as con:
        rows = _rows(
            con,
            "SELECT c.id AS comparison_id, c.problem_id, c.solution_a AS solution_a_id, "
            "c.solution_b AS solution_b_id, c.winner, c.voter_bot_id FROM comparisons c",
        )
        kinds = {
            "comparison_id": "comparison",
            "problem_id": "problem",
            "solution_a_id": "solution",
            "solution_b_id": "solution",
            "voter_bot_id": "bot",
        }
        return _encode(con, rows, kinds)


# -- between two snapshots: ``a`` (before) is the main database, ``b`` (after) is attached as ``b`` ----------

_LISTED = "status != 'rejected'"


def problems_added(a: Path, b: Path) -> list[Row]:
    """Problems listed at ``b`` and not at ``a``. Keys: problem_id, title, status, category."""
    with _open(a, b) as con:
        rows = _rows(
            con,
            f"SELECT id AS problem_id, title, status, category FROM b.problems WHERE {_LISTED} "
            f"AND id NOT IN (SELECT id FROM main.problems WHERE {_LISTED})",
        )
        return _encode(con, rows, {"problem_id": "problem"})


def problems_removed(a: Path, b: Path) -> list[Row]:
    """Problems listed at ``a`` and not at ``b`` (rejected since), with their status at ``a``.
    Keys: problem_id, title, status."""
    with _open(a, b) as con:
        rows = _rows(
            con,
            f"SELECT id AS problem_id, title, status FROM main.problems WHERE {_LISTED} "
            f"AND id NOT IN (SELECT id FROM b.problems WHERE {_LISTED})",
        )
        return _encode(con, rows, {"problem_id": "problem"})


def status_changes(a: Path, b: Path) -> list[Row]:
    """Problems listed at both whose status differs. Keys: problem_id, before, after."""
    with _open(a, b) as con:
        rows = _rows(
            con,
            "SELECT x.id AS problem_id, x.status AS before, y.status AS after FROM main.problems x "
            f"JOIN b.problems y ON y.id = x.id WHERE x.{_LISTED} AND y.{_LISTED} AND x.status != y.status",
        )
        return _encode(con, rows, {"problem_id": "problem"})


def solutions_added(a: Path, b: Path) -> list[Row]:
    """Per problem listed at ``b``: its solution rows at ``a`` (0 when not listed there) and at ``b``,
    where they grew. Keys: problem_id, before, after, added."""
    with _open(a, b) as con:
        rows = _rows(
            con,
            "WITH nb AS (SELECT s.problem_id, count(*) AS n FROM b.solutions s JOIN b.problems p "
            f"ON p.id = s.problem_id WHERE p.{_LISTED} GROUP BY s.problem_id), "
            "na AS (SELECT s.problem_id, count(*) AS n FROM main.solutions s JOIN main.problems p "
            f"ON p.id = s.problem_id WHERE p.{_LISTED} GROUP BY s.problem_id) "
            "SELECT nb.problem_id, coalesce(na.n, 0) AS before, nb.n AS after, nb.n - coalesce(na.n, 0) "
            "AS added FROM nb LEFT JOIN na USING (problem_id) WHERE nb.n > coalesce(na.n, 0)",
        )
        return _encode(con, rows, {"problem_id": "problem"})


def solutions_added_count(a: Path, b: Path) -> int:
    """The number of solutions (not problems) of problems listed at ``b`` that did not exist at ``a``."""
    with _open(a, b) as con:
        return int(
            con.execute(
                "SELECT count(*) FROM b.solutions s JOIN b.problems p ON p.id = s.problem_id "
                f"WHERE p.{_LISTED} AND s.id NOT IN (SELECT id FROM main.solutions)"
            ).fetchone()[0]
        )


def new_bots(a: Path, b: Path) -> list[Row]:
    """Bots on the leaderboard (active) at ``b`` and not at ``a``. Keys: bot_id, name."""
    with _open(a, b) as con:
        rows = _rows(
            con,
            "SELECT id AS bot_id, name FROM b.bots WHERE status = 'active' "
            "AND id NOT IN (SELECT id FROM main.bots WHERE status = 'active')",
        )
        return _encode(con, rows, {"bot_id": "bot"})


def renamed_bots(a: Path, b: Path) -> list[Row]:
    """Bots present at both whose name differs. Keys: bot_id, name_before, name_after."""
    with _open(a, b) as con:
        rows = _rows(
            con,
            "SELECT x.id AS bot_id, x.name AS name_before, y.name AS name_after FROM main.bots x "
            "JOIN b.bots y ON y.id = x.id WHERE x.name != y.name",
        )
        return _encode(con, rows, {"bot_id": "bot"})


def points(a: Path, b: Path) -> list[Row]:
    """Bots on the leaderboard at both whose points changed. Keys: bot_id, points_before, points_after,
    gained."""
    with _open(a, b) as con:
        rows = _rows(
            con,
            "SELECT x.id AS bot_id, x.total_points AS points_before, y.total_points AS points_after, "
            "y.total_points - x.total_points AS gained FROM main.bots x JOIN b.bots y ON y.id = x.id "
            "WHERE x.status = 'active' AND y.status = 'active' AND x.total_points != y.total_points",
        )
        return _encode(con, rows, {"bot_id": "bot"})


_RANKS = (
    "WITH ra AS (SELECT id, rank() OVER (ORDER BY total_points DESC) AS r FROM main.bots "
    "WHERE status = 'active'), rb AS (SELECT id, rank() OVER (ORDER BY total_points DESC) AS r "
    "FROM b.bots WHERE status = 'active') "
)


def rank_moves(a: Path, b: Path, min_move: int) -> list[Row]:
    """Bots ranked at both (competition rank over points among active bots: equal points share a rank)
    that moved at least ``min_move`` places. Keys: bot_id, rank_before, rank_after, move (up = positive)."""
    with _open(a, b) as con:
        rows = _rows(
            con,
            _RANKS + "SELECT ra.id AS bot_id, ra.r AS rank_before, rb.r AS rank_after, ra.r - rb.r AS move "
            "FROM ra JOIN rb USING (id) WHERE abs(ra.r - rb.r) >= ?",
            (min_move,),
        )
        return _encode(con, rows, {"bot_id": "bot"})


def top_entered(a: Path, b: Path, n: int) -> list[Row]:
    """Bots ranked <= ``n`` at ``b`` and not at ``a`` (unranked counts as outside). Keys: bot_id,
    rank_before (None: unranked), rank_after."""
    with _open(a, b) as con:
        rows = _rows(
            con,
            _RANKS + "SELECT rb.id AS bot_id, ra.r AS rank_before, rb.r AS rank_after FROM rb "
            "LEFT JOIN ra USING (id) WHERE rb.r <= ? AND (ra.r IS NULL OR ra.r > ?)",
            (n, n),
        )
        return _encode(con, rows, {"bot_id": "bot"})


def top_left(a: Path, b: Path, n: int) -> list[Row]:
    """Bots ranked <= ``n`` at ``a`` and not at ``b``. Keys: bot_id, rank_before, rank_after (None:
    unranked)."""
    with _open(a, b) as con:
        rows = _rows(
            con,
            _RANKS + "SELECT ra.id AS bot_id, ra.r AS rank_before, rb.r AS rank_after FROM ra "
            "LEFT JOIN rb USING (id) WHERE ra.r <= ? AND (rb.r IS NULL OR rb.r > ?)",
            (n, n),
        )
        return _encode(con, rows, {"bot_id": "bot"})


def top_solution_changes(a: Path, b: Path) -> list[Row]:
    """Problems listed at both, with solutions at both, where no bot holding the best score (4 decimals;
    ties share the top) at ``a`` still holds it at ``b``. Keys: problem_id."""
    holders = (
        "SELECT s.problem_id, s.bot_id FROM {db}.solutions s JOIN {db}.problems p ON p.id = s.problem_id "
        "WHERE p.status != 'rejected' AND round(s.bt_score, 4) = (SELECT max(round(t.bt_score, 4)) "
        "FROM {db}.solutions t WHERE t.problem_id = s.problem_id)"
    )
    with _open(a, b) as con:
        rows = _rows(
            con,
            f"WITH ha AS ({holders.format(db='main')}), hb AS ({holders.format(db='b')}) "
            "SELECT DISTINCT ha.problem_id FROM ha WHERE ha.problem_id IN (SELECT problem_id FROM hb) "
            "AND NOT EXISTS (SELECT 1 FROM hb WHERE hb.problem_id = ha.problem_id AND hb.bot_id IN "
            "(SELECT bot_id FROM ha h2 WHERE h2.problem_id = ha.problem_id))",
        )
        return _encode(con, rows, {"problem_id": "problem"})


def stats_deltas(a: Path, b: Path) -> list[Row]:
    """``/stats`` figures whose value differs between ``a`` and ``b`` (:func:`platform_stats` of each).
    Keys: metric, before, after, delta."""
    before = {r["metric"]: r["value"] for r in platform_stats(a)}
    after = {r["metric"]: r["value"] for r in platform_stats(b)}
    return [
        {"metric": m, "before": before[m], "after": after[m], "delta": after[m] - before[m]}
        for m in after
        if after[m] != before[m]
    ]


def reachable_votes(db: Path, cap: int = 50) -> list[Row]:
    """The votes a client can read at all: those among the ``cap`` newest (created_at, then id) of either
    of their solutions (``/solutions/{id}/comparisons`` serves no more). Keys as :func:`votes`."""
    with _open(db) as con:
        rows = _rows(
            con,
            "WITH sides AS (SELECT id, solution_a AS s, created_at FROM comparisons UNION ALL "
            "SELECT id, solution_b, created_at FROM comparisons), ranked AS (SELECT id, row_number() OVER "
            "(PARTITION BY s ORDER BY created_at DESC, id DESC) AS n FROM sides) "
            "SELECT c.id AS comparison_id, c.problem_id, c.solution_a AS solution_a_id, "
            "c.solution_b AS solution_b_id, c.winner, c.voter_bot_id FROM comparisons c "
            "JOIN problems p ON p.id = c.problem_id WHERE p.status != 'rejected' "
            "AND c.id IN (SELECT id FROM ranked WHERE n <= ?)",
            (cap,),
        )
        kinds = {
            "comparison_id": "comparison",
            "problem_id": "problem",
            "solution_a_id": "solution",
            "solution_b_id": "solution",
            "voter_bot_id": "bot",
        }
        return _encode(con, rows, kinds)


def stored_votes(db: Path, earlier: Sequence[Path] = (), cap: int = 50) -> list[Row]:
    """The votes a store that read every list at each snapshot holds (docs/evidence-budget.md, "Stored and
    covered"): the votes of listed problems (at ``db``'s time) reachable at ``db``'s time or at the time of
    any ``earlier`` frozen truth (a vote the cap of 50 hides now was read while it was among the newest 50,
    and the platform still holds it). Without ``earlier``: :func:`reachable_votes`. Keys as :func:`votes`."""
    now = reachable_votes(db, cap)
    seen = {v["comparison_id"] for v in now}
    before = {v["comparison_id"] for e in earlier for v in reachable_votes(e, cap)} - seen
    if not before:
        return now
    listed = {p["problem_id"] for p in problems(db)}
    return now + [v for v in votes(db) if v["comparison_id"] in before and v["problem_id"] in listed]


def capped_vote_lists(db: Path, cap: int = 50, earlier: Sequence[Path] = ()) -> list[Row]:
    """Solutions of listed problems whose announced votes (``comparisonCount``) differ from the votes on
    them a whole read of every list holds: more announced than any client can read (each list stops at
    the ``cap`` newest), or fewer (a vote recorded without its count moving). Keys: solution_id,
    announced, stored (the votes on it every list together holds; with ``earlier`` truths, the votes on it
    a store holds: :func:`stored_votes`)."""
    if earlier:
        held: dict[str, int] = {}
        for v in stored_votes(db, earlier, cap):
            for side in {v["solution_a_id"], v["solution_b_id"]}:
                held[side] = held.get(side, 0) + 1
        return [
            {
                "solution_id": s["solution_id"],
                "announced": s["comparison_count"],
                "stored": held.get(s["solution_id"], 0),
            }
            for s in solutions(db)
            if held.get(s["solution_id"], 0) != s["comparison_count"]
        ]
    with _open(db) as con:
        rows = _rows(
            con,
            "WITH sides AS (SELECT id, solution_a AS s, created_at FROM comparisons UNION ALL "
            "SELECT id, solution_b, created_at FROM comparisons), ranked AS (SELECT id, row_number() OVER "
            "(PARTITION BY s ORDER BY created_at DESC, id DESC) AS n FROM sides), "
            "reach AS (SELECT DISTINCT id FROM ranked WHERE n <= :cap), "
            "held AS (SELECT sides.s, count(DISTINCT sides.id) AS n FROM sides JOIN reach USING (id) "
            "GROUP BY sides.s) "
            "SELECT s.id AS solution_id, s.comparison_count AS announced, coalesce(held.n, 0) AS stored "
            "FROM solutions s JOIN problems p ON p.id = s.problem_id LEFT JOIN held ON held.s = s.id "
            "WHERE p.status != 'rejected' AND coalesce(held.n, 0) != s.comparison_count",
            {"cap": cap},
        )
        return _encode(con, rows, {"solution_id": "solution"})


# -- the optional and quality views ----------------------------------------------------------------------


def bot_me(db: Path, bot_id: str) -> list[Row]:
    """The profile ``/bot/me`` serves to the bot whose public id is ``bot_id`` (one row). Keys: bot_id,
    name, status, total_points, total_solutions, total_votes, vote_accuracy, elo."""
    with _open(db) as con:
        rows = _rows(
            con,
            "SELECT id AS bot_id, name, status, total_points, total_solutions, total_votes, vote_accuracy, "
            "global_elo AS elo FROM bots WHERE id = ?",
            (_codec(con).decode("bot", bot_id),),
        )
        return _encode(con, _served(rows, "vote_accuracy"), {"bot_id": "bot"})


#: A lazy model board's score figures before a model's first recalculation.
_STALE = {
    "avg_bt_score": 1500.0,
    "best_bt_score": 1500.0,
    "total_wins": 0,
    "total_comparisons": 0,
    "win_rate": 0.0,
    "top3_count": 0,
    "first_place_count": 0,
}
_LAZY = {
    "avg_bt_score": "avgBtScore",
    "best_bt_score": "bestBtScore",
    "total_wins": "totalWins",
    "total_comparisons": "totalComparisons",
    "win_rate": "winRate",
    "top3_count": "top3Count",
    "first_place_count": "firstPlaceCount",
}


def llm_leaderboard(db: Path, *, lazy: bool = True) -> list[Row]:
    """The platform's model ranking asked with ``sort=avg_score``: per model written on any solution (those
    of rejected problems too), ordered by the average score as served (4 decimals) descending, then by name;
    ``rank`` = the competition rank over that score (equal scores share the best rank, "1224"). ``lazy``
    (the sandbox's default ``--llm-board lazy``): the score figures are those the platform stored at the
    model's last recalculation (``llm_board``), the stale values (win rate 0, scores 1500) for a model never
    recalculated. Keys: rank, model_name, model_version (of the model's
    newest solution), model_family (the name's leading letters), total_solutions, avg_bt_score,
    best_bt_score, total_wins, total_comparisons, win_rate (0 without comparisons), top3_count and
    first_place_count (placement awards), unique_bots."""
    with _open(db) as con:
        rows = _rows(
            con,
            "WITH aw AS (SELECT solution_id, max(action = 'solution_first_place') AS first FROM awards "
            "WHERE action IN ('solution_first_place', 'solution_top_3') GROUP BY solution_id), "
            "newest AS (SELECT llm_model, llm_model_version, row_number() OVER (PARTITION BY llm_model "
            "ORDER BY created_at DESC, id DESC) AS n FROM solutions WHERE llm_model IS NOT NULL) "
            "SELECT s.llm_model AS model_name, (SELECT llm_model_version FROM newest "
            "WHERE newest.llm_model = s.llm_model AND n = 1) AS model_version, "
            "count(*) AS total_solutions, avg(s.bt_score) AS avg_bt_score, max(s.bt_score) AS best_bt_score, "
            "sum(s.win_count) AS total_wins, sum(s.comparison_count) AS total_comparisons, "
            "count(aw.solution_id) AS top3_count, coalesce(sum(aw.first), 0) AS first_place_count, "
            "count(DISTINCT s.bot_id) AS unique_bots FROM solutions s "
            "LEFT JOIN aw ON aw.solution_id = s.id WHERE s.llm_model IS NOT NULL GROUP BY s.llm_model",
        )
        stored = (
            {m: json.loads(f) for m, f in con.execute("SELECT model, figures FROM llm_board")} if lazy else {}
        )
    for row in rows:
        row["model_family"] = (re.match(r"[a-z]+", row["model_name"].lower()) or ["other"])[0]
        wins, votes = row["total_wins"], row["total_comparisons"]
        row["win_rate"] = round(wins / votes, 4) if votes else 0.0
        if lazy:
            figures = stored.get(row["model_name"])
            row.update(_STALE if figures is None else {k: figures[v] for k, v in _LAZY.items()})
    rows = _served(rows, "avg_bt_score", "best_bt_score")
    rows.sort(key=lambda r: (-r["avg_bt_score"], r["model_name"]))
    return [{"rank": 1 + sum(o["avg_bt_score"] > row["avg_bt_score"] for o in rows), **row} for row in rows]


def llm_families(db: Path) -> list[Row]:
    """The platform's model families (``/llm-leaderboard/families``): per family, its number of distinct
    models written on any solution (those of rejected problems too). The family rule is written here, as the
    sandbox documents it: a model name's leading letters, lower-cased (``other`` when it has none). Keys:
    family, model_count."""
    with _open(db) as con:
        models = [
            r[0] for r in con.execute("SELECT DISTINCT llm_model FROM solutions WHERE llm_model IS NOT NULL")
        ]
    counts: dict[str, int] = {}
    for name in models:
        found = re.match(r"[a-z]+", str(name).lower())
        family = found.group(0) if found else "other"
        counts[family] = counts.get(family, 0) + 1
    return [{"family": f, "model_count": n} for f, n in sorted(counts.items())]


def activity_gap(a: Path, b: Path) -> list[Row]:
    """The gap a snapshot at ``b`` records when the feed then no longer reaches the newest event the feed
    served at ``a`` (every event between them may be lost), else no row. Keys: newest_stored_event_id,
    oldest_fetched_event_id (ids as text), gap_from, gap_to (their created_at, ms), events_per_hour (the
    fetched feed's events - 1 over the hours between its oldest and newest), suggested_interval_s (half
    the time the feed takes to fill at that rate, seconds)."""
    before, after = activity_feed(a), activity_feed(b)
    newest = max(before, key=lambda e: int(e["event_id"]))
    oldest = min(after, key=lambda e: int(e["event_id"]))
    if int(oldest["event_id"]) <= int(newest["event_id"]):
        return []
    times = [e["created_at"] for e in after]
    hours = (max(times) - min(times)) / HOUR_MS
    rate = (len(after) - 1) / hours if hours > 0 else None
    return [
        {
            "newest_stored_event_id": newest["event_id"],
            "oldest_fetched_event_id": oldest["event_id"],
            "gap_from": newest["created_at"],
            "gap_to": oldest["created_at"],
            "events_per_hour": rate,
            "suggested_interval_s": 0.5 * len(after) / rate * 3600 if rate else None,
        }
    ]


def vote_coverage(db: Path, cap: int = 50, earlier: Sequence[Path] = ()) -> list[Row]:
    """Votes announced (the listed problems' ``comparisonCount``) and those of listed problems a whole
    read of every vote list holds (:func:`reachable_votes`; with ``earlier`` truths, at any of their times
    too: :func:`stored_votes`), one row. Keys: announced, stored."""
    with _open(db) as con:
        (announced,) = con.execute(
            "SELECT total(comparison_count) FROM problems WHERE status != 'rejected'"
        ).fetchone()
    return [{"announced": int(announced), "stored": len(stored_votes(db, earlier, cap))}]


def comparison_coverage(db: Path, cap: int = 50, earlier: Sequence[Path] = ()) -> list[Row]:
    """Solutions of listed problems announcing more votes than a whole read of every list holds (the
    platform's cap). Keys: solution_id, problem_id, stored, comparison_count."""
    short = {r["solution_id"]: r for r in capped_vote_lists(db, cap, earlier) if r["stored"] < r["announced"]}
    problem_of = {s["solution_id"]: s["problem_id"] for s in solutions(db)}
    return [
        {
            "solution_id": sid,
            "problem_id": problem_of[sid],
            "stored": r["stored"],
            "comparison_count": r["announced"],
        }
        for sid, r in short.items()
    ]


def data_quality(
    db: Path,
    *,
    llm: bool = False,
    families: bool = False,
    families_total: bool = False,
    votes: bool = False,
    cap: int = 50,
    earlier: Sequence[Path] = (),
) -> list[Row]:
    """Every row the snapshot's data-quality table must hold: announced (what the platform's totals and
    counts say) and stored (what its lists serve) per whole list, per ``/stats`` total checked, per problem
    whose ``solutionCount`` disagrees with its rows and, with ``votes``, per solution whose
    ``comparisonCount`` disagrees with the votes every list together serves; ``llm``: the model leaderboard
    was fetched; ``families``: the model families were (one unpaged answer: announced NULL, which never
    differs, unless ``families_total``: the convention gives every list a total, all but ``platform``).
    Keys: resource, scope ('' for a whole list), announced, stored, differs (bool)."""
    listed = problems(db)
    sols = solutions(db)
    stats = {r["metric"]: int(r["value"]) for r in platform_stats(db)}
    bots_n = len(leaderboard(db))
    rows = [
        ("problems", "", len(listed), len(listed)),
        ("solutions", "", sum(p["solution_count"] for p in listed), len(sols)),
        ("leaderboard", "", bots_n, bots_n),
        ("platform_stats", "totalProblems", stats["totalProblems"], len(listed)),
        ("platform_stats", "totalSolutions", stats["totalSolutions"], len(sols)),
        ("platform_stats", "totalBots", stats["totalBots"], bots_n),
    ]
    per_problem: dict[str, int] = {}
    for s in sols:
        per_problem[s["problem_id"]] = per_problem.get(s["problem_id"], 0) + 1
    rows += [
        ("solutions", p["problem_id"], p["solution_count"], per_problem.get(p["problem_id"], 0))
        for p in listed
        if p["solution_count"] != per_problem.get(p["problem_id"], 0)
    ]
    if llm:
        models = len(llm_leaderboard(db))
        rows.append(("llm_leaderboard", "", models, models))
    if families:
        found = len(llm_families(db))
        rows.append(("llm_families", "", found if families_total else None, found))
    if votes:
        (coverage,) = vote_coverage(db, cap, earlier)
        rows.append(("comparisons", "", coverage["announced"], coverage["stored"]))
        rows.append(("platform_stats", "totalComparisons", stats["totalComparisons"], coverage["stored"]))
        capped = capped_vote_lists(db, cap, earlier)
        rows += [("comparisons", r["solution_id"], r["announced"], r["stored"]) for r in capped]
    keys = ("resource", "scope", "announced", "stored")
    return [dict(zip(keys, r, strict=True)) | {"differs": r[2] is not None and r[2] != r[3]} for r in rows]


# -- the report's charts ---------------------------------------------------------------------------------


def ranked(db: Path) -> dict[str, Row]:
    """Active bots (the leaderboard) by public id: ``rank`` = competition rank over points (equal points
    share the best rank, "1135"), ``name``, ``points``, ``solutions`` and ``votes`` (profile counters)."""
    with _open(db) as con:
        rows = _rows(
            con,
            "SELECT id AS bot_id, rank() OVER (ORDER BY total_points DESC) AS rank, name, "
            "total_points AS points, total_solutions AS solutions, total_votes AS votes "
            "FROM bots WHERE status = 'active'",
        )
        return {r["bot_id"]: r for r in _encode(con, rows, {"bot_id": "bot"})}


def listed_totals(db: Path) -> Row:
    """The simulated clock (ms) and the listed problems and their listed solutions. Keys: clock_ms,
    problems, solutions."""
    with _open(db) as con:
        clock, problems_n, solutions_n = con.execute(
            "SELECT (SELECT value FROM meta WHERE key = 'clock_ms'), count(*), (SELECT count(*) "
            "FROM solutions s JOIN problems q ON q.id = s.problem_id WHERE q.status != 'rejected') "
            "FROM problems WHERE status != 'rejected'"
        ).fetchone()
    return {"clock_ms": int(clock), "problems": problems_n, "solutions": solutions_n}


def solution_scores(db: Path) -> list[Row]:
    """Every solution of a listed problem: its score as served (4 decimals) and its competition rank
    within the problem over that score. Keys: score, rank."""
    return [{"score": s["score"], "rank": s["rank"]} for s in solutions(db)]


def category_counts(db: Path) -> list[Row]:
    """Per category with a listed problem (``uncategorised`` for none): its display name (``Uncategorised``
    for none), listed problems and mature ones. Keys: name, problems, mature."""
    with _open(db) as con:
        return _rows(
            con,
            "SELECT coalesce(c.display_name, p.category, 'Uncategorised') AS name, count(*) AS problems, "
            "total(p.status = 'mature') AS mature FROM problems p LEFT JOIN categories c "
            "ON c.slug = p.category WHERE p.status != 'rejected' GROUP BY p.category",
        )
