"""Open the DuckDB snapshot store read-only, read what the analysis needs into polars, close at once.

DuckDB locks a file across processes: while this reader holds it, a snapshot writer in another process
cannot open it. :func:`load` therefore connects with ``read_only=True``, runs a handful of queries against
the public views (``docs/architecture.md``, "Contract: the store's public schema") and closes the
connection before returning. Everything returned is in memory as polars frames (exposed as LazyFrames).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import fields
from pathlib import Path

import duckdb
import polars as pl

from solvelens.analysis.bot import STANDING_COLUMNS, BotNotFoundError, find_bot
from solvelens.analysis.frames import BotFrames, EmptyStoreError, Frames
from solvelens.analysis.platforms import PlatformSelection, select_platform
from solvelens.analysis.points import HistoryPoints, history_points
from solvelens.store import (
    NotAStoreError,
    StoreError,
    StoreLockTimeout,
    StoreNotFoundError,
    open_readonly,
)
from solvelens.store.schema import (
    ACTIVITY_EVENTS,
    ACTIVITY_GAPS,
    COMPARISON_RECORDS,
    CORE_VIEWS,
    HISTORY_COLUMNS,
    INTERNAL,
    MODEL_COUNTS,
    RESOURCES,
    SNAPSHOT_LOG_COLUMNS,
    SOLUTIONS,
    Resource,
    snapshot_column,
)

__all__ = [
    "EmptyStoreError",
    "Frames",
    "NotAStoreError",
    "StoreError",
    "StoreLockTimeout",
    "StoreNotFoundError",
    "StoreReader",
    "load",
    "load_bot",
    "read_only",
    "read_snapshots",
]

#: What :func:`read_only` yields: an open read-only connection to the store, which a caller that reads
#: several things in a row passes on (``con=``) so the file is opened once.
StoreReader = duckdb.DuckDBPyConnection


_UTC = pl.Datetime("us", "UTC")
#: polars dtype of each SQL type the store's schema uses (:mod:`solvelens.store.schema`).
_POLARS_TYPES: dict[str, pl.DataType] = {
    "BIGINT": pl.Int64(),
    "INTEGER": pl.Int32(),
    "DOUBLE": pl.Float64(),
    "VARCHAR": pl.String(),
    "JSON": pl.String(),
    "TIMESTAMPTZ": _UTC,
}


def _view_dtypes(resource: Resource, *, rank: bool = False) -> dict[str, pl.DataType]:
    """The polars dtypes of a versioned resource's public view, from its typed fields in the schema
    (``snapshot_id`` BIGINT first, the view's ``rank`` INTEGER when it has one)."""
    extra = {"rank": _POLARS_TYPES["INTEGER"]} if rank else {}
    return {
        "snapshot_id": _POLARS_TYPES["BIGINT"],
        **extra,
        **{f.column: _POLARS_TYPES[f.sql_type] for f in resource.fields},
    }


def _solution_dtypes() -> dict[str, pl.DataType]:
    """The ``solutions`` view: ``solution_id``, then ``problem_id`` and ``rank`` (from the problem's solution
    list), then the other typed fields."""
    fields = _view_dtypes(SOLUTIONS)
    head = {"snapshot_id": fields.pop("snapshot_id"), "solution_id": fields.pop("solution_id")}
    return {**head, "problem_id": _POLARS_TYPES["VARCHAR"], "rank": _POLARS_TYPES["INTEGER"], **fields}


def _log_dtypes(columns: tuple[str, ...]) -> dict[str, pl.DataType]:
    return {c: _POLARS_TYPES[SNAPSHOT_LOG_COLUMNS[c].split()[0]] for c in columns}


#: Columns read from the ``snapshots`` view (``platform``: what the platform declared, JSON text or null;
#: ``requests``: each optional list's request as sent, JSON text or null when not recorded).
_SNAPSHOT_COLUMNS = (
    "snapshot_id",
    "taken_at",
    "base_url",
    "status",
    "started_at",
    "duration_s",
    "platform",
    "requests",
)
#: The frames :class:`~solvelens.analysis.frames.Frames` holds (a declared resource without one is not read).
_FRAMES = frozenset(f.name for f in fields(Frames))
#: The declared resources read from their views (:mod:`solvelens.resources`): per snapshot, every selected
#: snapshot (:data:`_COLUMNS`) or the optional ones (:data:`_OPTIONAL_DTYPES`).
_VIEWS: dict[str, Resource] = {
    r.name: r
    for r in RESOURCES
    if r.linked and r.write not in ("solutions", "stats") and r.name in _FRAMES and not r.optional
}
#: polars dtypes each frame is cast to, so readers get the documented types whatever DuckDB returned: the
#: views' from the store's schema, the two aggregates' (computed here) as documented on
#: :class:`~solvelens.analysis.frames.Frames`.
_DTYPES: dict[str, dict[str, pl.DataType]] = {
    "snapshots": _log_dtypes(_SNAPSHOT_COLUMNS),
    **{name: _view_dtypes(resource, rank=resource.ranked) for name, resource in _VIEWS.items()},
    "solutions": _solution_dtypes(),
    **{
        r.name: {"snapshot_id": pl.Int64(), "metric": pl.String(), "value": pl.Float64()}
        for r in RESOURCES
        if r.write == "stats"
    },
    "problem_counts": {
        "snapshot_id": pl.Int64(),
        "category": pl.String(),
        "status": pl.String(),
        "author_type": pl.String(),
        "problems": pl.Int64(),
        "solutions": pl.Int64(),
        "comparisons": pl.Int64(),
    },
    "model_counts": {
        "snapshot_id": pl.Int64(),
        "llm_model": pl.String(),
        "solutions": pl.Int64(),
        "contested_solutions": pl.Int64(),
        "percentile_sum": pl.Float64(),
        "top1": pl.Float64(),
        "top3": pl.Float64(),
    },
}


def _history_dtypes(table: str, drop: tuple[str, ...] = ("platform", "raw")) -> dict[str, pl.DataType]:
    return {c: _POLARS_TYPES[t.split()[0]] for c, t in HISTORY_COLUMNS[table].items() if c not in drop}


#: The optional resources' frames (:class:`~solvelens.analysis.frames.Frames`), each read from its view.
_OPTIONAL_DTYPES: dict[str, dict[str, pl.DataType]] = {
    **{
        r.name: _view_dtypes(r, rank=r.ranked)
        for r in RESOURCES
        if r.linked and r.optional and r.name in _FRAMES
    },
    "activity": _history_dtypes(ACTIVITY_EVENTS),
    "activity_gaps": _history_dtypes(ACTIVITY_GAPS),
    "comparisons": _history_dtypes(COMPARISON_RECORDS),
    "comparison_coverage": {
        "snapshot_id": pl.Int64(),
        "solution_id": pl.String(),
        "problem_id": pl.String(),
        "stored": pl.Int64(),
        "comparison_count": pl.Int64(),
    },
    "data_quality": {
        "snapshot_id": pl.Int64(),
        "resource": pl.String(),
        "scope": pl.String(),
        "announced": pl.Int64(),
        "stored": pl.Int64(),
        "reason": pl.String(),
    },
}
_DTYPES.update(_OPTIONAL_DTYPES)


def _optional_frames(
    con: duckdb.DuckDBPyConnection, views: set[str], keep: str, filtered: bool, window: str
) -> dict[str, pl.DataFrame]:
    """The optional resources' frames: of the drawn snapshots (``keep``, a condition on ``snapshot_id``)
    for the per-snapshot views, for the history (items once) the items first seen by a snapshot of the window
    (``window``) when a time filter was given (``filtered``), else every item; empty (with its columns) for a
    view the store does not have yet."""
    out: dict[str, pl.DataFrame] = {}
    for name, dtypes in _OPTIONAL_DTYPES.items():
        if name not in views:
            out[name] = pl.DataFrame(schema=dtypes)
            continue
        column = snapshot_column(name)
        where = (keep if column == "snapshot_id" else window).replace("snapshot_id IN", f"{column} IN")
        if column != "snapshot_id" and not filtered:
            where = "TRUE"
        out[name] = con.sql(f"SELECT {', '.join(dtypes)} FROM {name} WHERE {where}").pl()
    return out


#: The columns read from each view (every typed column, never ``raw``).
_COLUMNS: dict[str, str] = {
    r.name: ", ".join(_DTYPES[r.name])
    for r in RESOURCES
    if r.linked and not r.optional and r.write not in ("problems", "solutions")
}
_PROBLEM_COLUMNS = ", ".join(_DTYPES["problems"])
_SOLUTION_COLUMNS = ", ".join(_DTYPES["solutions"])


#: Sum of top-k credits of contested solutions (``s``: rank, n per problem, t per rank; the rule of
#: :func:`solvelens.analysis.solutions.top_k_credit`).
_TOP_CREDIT = (
    "coalesce(sum(least(greatest({k} + 1 - rank, 0), t)::DOUBLE / t) FILTER (WHERE n >= 2), 0)::DOUBLE"
)
#: The model counts computed from the ``solutions`` view, for a store without the writer's rows (one of
#: schema version 4 or older, read-only here, or a file holding only the public views).
_MODEL_COUNTS_FROM_VIEW = (
    "WITH s AS (SELECT snapshot_id, coalesce(llm_model, 'unknown') AS llm_model, rank, "
    "count(*) OVER (PARTITION BY snapshot_id, problem_id) AS n, "
    "count(*) OVER (PARTITION BY snapshot_id, problem_id, rank) AS t "
    "FROM solutions WHERE {keep}) "
    "SELECT snapshot_id, llm_model, count(*)::BIGINT AS solutions, "
    "count(*) FILTER (WHERE n >= 2)::BIGINT AS contested_solutions, "
    "coalesce(sum(greatest(0.0, least(1.0, (n - rank - (t - 1) / 2.0)::DOUBLE / (n - 1)))) "
    "FILTER (WHERE n >= 2), 0) AS percentile_sum, "
    f"{_TOP_CREDIT.format(k=1)} AS top1, {_TOP_CREDIT.format(k=3)} AS top3 "
    "FROM s GROUP BY ALL"
)


def _model_counts(con: duckdb.DuckDBPyConnection, keep: str) -> pl.DataFrame:
    """The ``model_counts`` frame of the selected snapshots (``keep``): the writer's rows (schema version 5,
    :data:`~solvelens.store.schema.MODEL_COUNTS`), else computed from the ``solutions`` view."""
    source = (
        f"SELECT * FROM {MODEL_COUNTS} WHERE {keep}"
        if _has_write_time_figures(con)
        else _MODEL_COUNTS_FROM_VIEW.format(keep=keep)
    )
    # The writer's figures are exact decimals (schema version 7): read as the doubles the frame holds.
    columns = ", ".join(
        f"{c}::DOUBLE AS {c}" if dtype == pl.Float64() else c for c, dtype in _DTYPES["model_counts"].items()
    )
    return con.sql(f"SELECT {columns} FROM ({source}) ORDER BY snapshot_id, llm_model").pl()


def _typed(name: str, frame: pl.DataFrame) -> pl.DataFrame:
    return frame.cast(_DTYPES[name], strict=False)  # type: ignore[arg-type]


@contextmanager
def _connect(path: Path, lock_timeout_s: float) -> Iterator[duckdb.DuckDBPyConnection]:
    """The store's read-only connection (shared store lock held, ``TimeZone=UTC``); DuckDB errors become
    :class:`NotAStoreError`, the store's own errors (missing file, lock timeout) pass through."""
    try:
        with open_readonly(path, lock_timeout_s=lock_timeout_s) as con:
            yield con
    except duckdb.Error as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise NotAStoreError(f"cannot read store {path}: {first}") from exc


def _view_names(con: duckdb.DuckDBPyConnection) -> set[str]:
    """The public views (and tables) of the store: schema ``main`` only, where the views live; an internal
    table of the same name (``activity_gaps``) is not its view."""
    sql = "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main'"
    return {row[0] for row in con.sql(sql).fetchall()}


def _snapshot_rows(con: duckdb.DuckDBPyConnection, path: Path, names: set[str] | None = None) -> pl.DataFrame:
    """Every complete snapshot (:data:`_SNAPSHOT_COLUMNS`, typed, sorted by taken_at); raises
    :class:`NotAStoreError` when a core view is missing (``names``: the file's tables and views)."""
    names = _view_names(con) if names is None else names
    missing = [view for view in CORE_VIEWS if view not in names]
    if missing:
        raise NotAStoreError(f"{path} is not a solvelens store (missing views: {', '.join(missing)})")
    # A store of schema version 1 (not yet migrated by a write) has no ``platform``, one written before the
    # requests were recorded no ``requests``: unknown (null).
    view = {r[0] for r in con.sql("SELECT column_name FROM (DESCRIBE snapshots)").fetchall()}
    columns = ", ".join(c if c in view else f"NULL::JSON AS {c}" for c in _SNAPSHOT_COLUMNS)
    rows = con.sql(f"SELECT {columns} FROM snapshots ORDER BY taken_at, snapshot_id").pl()
    return _typed("snapshots", rows)


def read_snapshots(
    db_path: str | Path, *, lock_timeout_s: float = 60.0, con: StoreReader | None = None
) -> pl.DataFrame:
    """Every complete snapshot of the store at ``db_path``, of every platform (read-only, closed at once;
    ``con``: a read-only connection to it the caller holds open (:func:`read_only`), read through instead).

    Columns: snapshot_id Int64, taken_at Datetime[us, UTC], base_url, status, duration_s Float64, platform
    (JSON text or null); sorted by taken_at. Raises what :func:`load` raises.
    """
    path = Path(db_path)
    if con is not None:
        return _snapshot_rows(con, path)
    with _connect(path, lock_timeout_s) as opened:
        return _snapshot_rows(opened, path)


def _window(snapshots: pl.DataFrame, since: dt.datetime | None, last_days: float | None) -> pl.DataFrame:
    """Keep the snapshots taken at or after ``since`` and within ``last_days`` of the newest one."""
    if since is not None:
        when = since if since.tzinfo else since.replace(tzinfo=dt.UTC)
        snapshots = snapshots.filter(pl.col("taken_at") >= when)
    if last_days is not None and snapshots.height:
        newest = snapshots["taken_at"].max()
        snapshots = snapshots.filter(
            pl.col("taken_at") >= newest - dt.timedelta(days=float(last_days))  # type: ignore[operator]
        )
    return snapshots


#: The condition on ``snapshot_id`` keeping the drawn snapshots (``_selected``, set by :func:`_select`).
_KEEP = "snapshot_id IN (SELECT snapshot_id FROM _selected)"


def _select(
    con: duckdb.DuckDBPyConnection,
    path: Path,
    names: set[str],
    platform: str | None,
    since: dt.datetime | None,
    last_days: float | None,
    every_snapshot: bool,
) -> tuple[pl.DataFrame, PlatformSelection, pl.DataFrame, HistoryPoints]:
    """Every snapshot, the platform chosen, its snapshots of the window and the drawn ones (registered on
    ``con`` as ``_window`` and ``_selected``, tables of ``snapshot_id``)."""
    every = _snapshot_rows(con, path, names)
    chosen = select_platform(every, platform)
    snapshots = _window(chosen.snapshots.select(_SNAPSHOT_COLUMNS), since, last_days)
    points = history_points(snapshots)
    if every_snapshot:
        points = HistoryPoints(snapshots["snapshot_id"], complete=True)
    con.register("_window", snapshots.select("snapshot_id").to_arrow())
    con.register("_selected", pl.DataFrame({"snapshot_id": points.snapshot_ids}).to_arrow())
    return every, chosen, snapshots, points


#: The read-only connection context of :func:`load` (for readers in other analysis modules).
read_only = _connect


def load(
    db_path: str | Path,
    *,
    last_days: float | None = None,
    since: dt.datetime | None = None,
    platform: str | None = None,
    lock_timeout_s: float = 60.0,
    every_snapshot: bool = False,
) -> Frames:
    """Read the store at ``db_path`` read-only into :class:`~solvelens.analysis.frames.Frames`; close it.

    One platform only: ``platform`` (an id, a base URL or a unique id prefix; see
    :mod:`solvelens.analysis.platforms`), by default the newest complete snapshot's platform. ``last_days``
    keeps snapshots taken within that many days before that platform's newest one; ``since`` keeps snapshots
    taken at or after that instant (timezone-aware, or naive meaning UTC). Both may be given.

    The store's shared lock (``solvelens.store.open_readonly``) is held while reading, so a snapshot being
    written is waited for (up to ``lock_timeout_s`` seconds) instead of failing.

    Raises :class:`StoreNotFoundError` when the file does not exist, :class:`StoreLockTimeout` when a writer
    holds it too long, :class:`NotAStoreError` when it cannot be read or lacks a public view and
    :class:`~solvelens.analysis.platforms.PlatformNotFoundError` when ``platform`` matches none of its
    platforms. An empty store (no complete snapshot) is not an error: its frames are empty and
    ``snapshot_count`` is 0.

    Bounded reads (issue 30): ``snapshots`` holds every snapshot of the window, but the per-snapshot frames
    (``leaderboard``, ``bots``, ``bot_me``, ``categories``, ``platform_stats``, ``problem_counts``,
    ``model_counts``, ``llm_leaderboard``, ``comparison_coverage``, ``data_quality``) hold only the snapshots
    :func:`solvelens.analysis.points.history_points` draws (every snapshot of a history of at most 480; of a
    longer one the recent days and one snapshot per day, week or month before: ``Frames.points`` says which
    and states the rule). ``every_snapshot=True`` reads every snapshot of the window instead.
    """
    path = Path(db_path)
    with _connect(path, lock_timeout_s) as con:
        names = _view_names(con)
        every, chosen, snapshots, points = _select(
            con, path, names, platform, since, last_days, every_snapshot
        )
        keep = _KEEP
        window = "snapshot_id IN (SELECT snapshot_id FROM _window)"
        frames = {
            name: con.sql(f"SELECT {cols} FROM {name} WHERE {keep}").pl() for name, cols in _COLUMNS.items()
        }
        frames["problem_counts"] = con.sql(
            "SELECT snapshot_id, category, status, author_type, count(*)::BIGINT AS problems, "
            "coalesce(sum(solution_count), 0)::BIGINT AS solutions, "
            "coalesce(sum(comparison_count), 0)::BIGINT AS comparisons "
            f"FROM problems WHERE {keep} GROUP BY ALL ORDER BY ALL"
        ).pl()
        frames["model_counts"] = _model_counts(con, keep)
        latest = int(snapshots["snapshot_id"][-1]) if snapshots.height else None
        latest_filter = f"snapshot_id = {latest}" if latest is not None else "FALSE"
        frames["problems"] = con.sql(f"SELECT {_PROBLEM_COLUMNS} FROM problems WHERE {latest_filter}").pl()
        frames["solutions"] = con.sql(f"SELECT {_SOLUTION_COLUMNS} FROM solutions WHERE {latest_filter}").pl()
        # Another platform's history items (or another clock's) must not show: then only the items first
        # seen by the selected snapshots (an item first seen by a pruned snapshot is lost in that case).
        narrowed = (
            since is not None or last_days is not None or chosen.left_out > 0 or chosen.others.height > 0
        )
        frames.update(_optional_frames(con, names, keep, narrowed, window))
        frames = {name: _typed(name, frame) for name, frame in frames.items()}
    return Frames(
        path=path,
        snapshots=snapshots.lazy(),
        snapshot_count=snapshots.height,
        latest_snapshot_id=latest,
        platform=chosen.platform,
        platform_label=chosen.label,
        all_snapshots=every.lazy(),
        other_platforms=chosen.others,
        clock_note=chosen.clock_note,
        has_data_quality="data_quality" in names,
        points=points,
        **{name: frame.lazy() for name, frame in frames.items()},
    )


#: Each leaderboard row of ``lb`` (snapshot_id, bot_id, position: the stored rank, points) with its
#: competition rank, by the rule of :func:`solvelens.analysis.leaderboard_history` (rows in list position
#: order, equal positions broken on bot_id; a row with the points of the row before it shares that row's
#: rank; in a snapshot whose list is not ordered by points, rank is the position). One sort (``lag`` and the
#: count of null points before a row share it): in an ordered list rows of equal points between two null-point
#: rows (``seg``) are adjacent, so their rank is the smallest position among them.
_RANKED_SQL = """
WITH w AS (
    SELECT *, lag(points) OVER o AS before,
        sum(CASE WHEN points IS NULL THEN 1 ELSE 0 END) OVER (o ROWS UNBOUNDED PRECEDING) AS seg
    FROM {lb} WINDOW o AS (PARTITION BY snapshot_id ORDER BY position, bot_id)
), snaps AS (
    SELECT snapshot_id, bool_or(coalesce(points > before, false)) AS unordered FROM w GROUP BY snapshot_id
), runs AS (
    SELECT snapshot_id, seg, points, min(position) AS start FROM w WHERE points IS NOT NULL GROUP BY ALL
)
SELECT w.snapshot_id, w.bot_id,
    CASE WHEN s.unordered OR w.points IS NULL THEN w.position ELSE r.start END::INTEGER AS rank
FROM w JOIN snaps s USING (snapshot_id)
LEFT JOIN runs r ON r.snapshot_id = w.snapshot_id AND r.seg = w.seg AND r.points = w.points
"""
#: The bot's standing (:data:`solvelens.analysis.bot.STANDING_COLUMNS` but ``taken_at``) at every drawn
#: snapshot with a ranked bot; ``$bot``: its id; ``$recompute``: whether the stored ranks are list positions
#: (a store older than schema version 5). The writer stores competition ranks over points, the rule above, so
#: they are read as they are; only a snapshot where a bot has no points (its ranks are the walk's positions)
#: or an older store's are ranked here.
_STANDING_SQL = f"""
WITH lb AS MATERIALIZED (
    SELECT snapshot_id, bot_id, rank::INTEGER AS position, points::BIGINT AS points
    FROM leaderboard WHERE {_KEEP} AND rank IS NOT NULL
),
odd AS (SELECT DISTINCT snapshot_id FROM lb WHERE points IS NULL OR $recompute),
ranked AS MATERIALIZED (
    SELECT snapshot_id, bot_id, position AS rank FROM lb ANTI JOIN odd USING (snapshot_id)
    UNION ALL
    SELECT * FROM ({_RANKED_SQL.format(lb="(SELECT * FROM lb SEMI JOIN odd USING (snapshot_id))")})
),
counts AS (SELECT snapshot_id, count(*) AS ranked_bots FROM lb GROUP BY snapshot_id),
mine AS (
    SELECT r.snapshot_id, r.rank, v.name, v.rank::INTEGER AS position, v.points::BIGINT AS points,
        v.elo::DOUBLE AS elo
    FROM ranked r JOIN leaderboard v ON v.snapshot_id = r.snapshot_id AND v.bot_id = r.bot_id
    WHERE r.bot_id = $bot AND v.{_KEEP} AND v.bot_id = $bot AND v.rank IS NOT NULL
),
tied AS (
    SELECT m.snapshot_id, count(*) AS tied FROM ranked r
    JOIN mine m ON r.snapshot_id = m.snapshot_id AND r.rank = m.rank GROUP BY m.snapshot_id
)
SELECT c.snapshot_id, c.ranked_bots, m.name, m.rank, m.position, m.points, m.elo, t.tied
FROM counts c LEFT JOIN mine m USING (snapshot_id) LEFT JOIN tied t USING (snapshot_id)
"""


def _has_write_time_figures(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether the store holds the figures the writer computes once (schema version 5 or its migration):
    :data:`~solvelens.store.schema.MODEL_COUNTS` rows, and competition ranks as leaderboard ranks (an older
    store holds list positions)."""
    return bool(
        con.execute(
            "SELECT count(*) FROM duckdb_tables() WHERE schema_name = ? AND table_name = 'model_counts'",
            [INTERNAL],
        ).fetchall()[0][0]
    )


def _bot_rows(
    con: duckdb.DuckDBPyConnection, view: str, where: str, params: dict[str, object]
) -> pl.DataFrame:
    """snapshot_id, bot_id, name of ``view``'s rows of the drawn snapshots matching ``where``."""
    ranked = " AND rank IS NOT NULL" if view == "leaderboard" else ""
    sql = f"SELECT snapshot_id, bot_id, name FROM {view} WHERE {_KEEP}{ranked} AND ({where})"
    rows = con.sql(sql, params=params).pl()
    return rows.cast({c: _DTYPES["bot_me"][c] for c in rows.columns})  # type: ignore[arg-type]


def _find(con: duckdb.DuckDBPyConnection, query: str) -> tuple[str, str]:
    """:func:`solvelens.analysis.find_bot` over the drawn snapshots' leaderboard, ``bots`` and ``bot_me``,
    reading only the bots whose id or a name (ignoring case) is ``query``; every bot's names only when none
    matches (for the error's close matches)."""
    views = ("leaderboard", "bots", "bot_me")
    match = "SELECT DISTINCT bot_id FROM {} WHERE " + _KEEP + " AND (bot_id = $q OR lower(name) = lower($q))"
    ids = con.sql(" UNION ".join(match.format(v) for v in views), params={"q": query.strip()}).fetchall()

    def found(where: str, params: dict[str, object]) -> tuple[str, str]:
        history, bots, own = (_bot_rows(con, v, where, params) for v in views)
        return find_bot(
            query, history, pl.concat([bots, own]).unique(["snapshot_id", "bot_id"], keep="first")
        )

    try:
        return found("bot_id IN (SELECT unnest($ids::VARCHAR[]))", {"ids": [row[0] for row in ids]})
    except BotNotFoundError:
        return found("TRUE", {})


def _bot_profiles(con: duckdb.DuckDBPyConnection, bot_id: str) -> pl.DataFrame:
    """The bot's ``bots`` rows, else its ``bot_me`` rows, at the drawn snapshots (``bot_me``'s columns)."""
    columns = list(_DTYPES["bot_me"])
    frames = [
        con.sql(
            f"SELECT {', '.join(columns)} FROM {view} WHERE {_KEEP} AND bot_id = $bot", params={"bot": bot_id}
        )
        .pl()
        .cast({c: _DTYPES[view][c] for c in columns}, strict=False)  # type: ignore[arg-type]
        for view in ("bots", "bot_me")
    ]
    return pl.concat(frames, how="vertical_relaxed").unique(["snapshot_id", "bot_id"], keep="first")


def load_bot(
    db_path: str | Path, query: str, *, platform: str | None = None, lock_timeout_s: float = 60.0
) -> BotFrames:
    """Read what one bot's page needs from the store at ``db_path`` (read-only, closed at once): the bot
    ``query`` names (an id, a name, or a name ignoring case; :func:`solvelens.analysis.find_bot`) and its
    rows and the drawn snapshots' stored ranks (for the ranked bots and the ties; the writer stores
    competition ranks, so only an older store's snapshots are ranked here).

    ``platform`` as :func:`load`; the drawn snapshots as :func:`load` (``BotFrames.points``). Returns
    :class:`~solvelens.analysis.frames.BotFrames`. Raises what :func:`load` raises,
    :class:`~solvelens.analysis.frames.EmptyStoreError` for a store without a complete snapshot of the
    platform and :class:`solvelens.analysis.BotNotFoundError` (naming close matches) when no single bot
    matches.
    """
    path = Path(db_path)
    with _connect(path, lock_timeout_s) as con:
        names = _view_names(con)
        _, _, snapshots, points = _select(con, path, names, platform, None, None, False)
        if not snapshots.height:
            raise EmptyStoreError(
                f"store {path} has no complete snapshot: run `solvelens snapshot --db {path}` first"
            )
        bot_id, name = _find(con, query)
        recompute = not _has_write_time_figures(con)
        standing = con.sql(_STANDING_SQL, params={"bot": bot_id, "recompute": recompute}).pl()
        profiles = _bot_profiles(con, bot_id)
        latest = int(snapshots["snapshot_id"][-1])
        problems = con.sql(f"SELECT {_PROBLEM_COLUMNS} FROM problems WHERE snapshot_id = {latest}").pl()
        solutions = con.sql(f"SELECT {_SOLUTION_COLUMNS} FROM solutions WHERE snapshot_id = {latest}").pl()
    times = snapshots.select("snapshot_id", "taken_at")
    standing = standing.join(times, on="snapshot_id", how="inner").cast(STANDING_COLUMNS)  # type: ignore[arg-type]
    return BotFrames(
        path=path,
        bot_id=bot_id,
        name=name,
        snapshots=snapshots,
        points=points,
        standing=standing.select(list(STANDING_COLUMNS)).sort("taken_at", "snapshot_id"),
        profiles=profiles,
        solutions=_typed("solutions", solutions),
        problems=_typed("problems", problems),
    )
