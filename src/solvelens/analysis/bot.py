"""One bot's story: find it by name or id, its rank/points/Elo history, a summary (peak rank, time in the
top 10, percentile, changes), and its solutions' ranks by problem and by category next to the median bot.

Inputs: :func:`solvelens.analysis.leaderboard_history` (``history``), the store's ``bots`` profiles, and
``solutions`` / ``problems`` of the newest snapshot (:class:`solvelens.analysis.frames.Frames`). A bot
outside the leaderboard's top N is handled the same way as the leader. Times are UTC; a bot "holds" a rank
from a snapshot until the next one.
"""

from __future__ import annotations

import datetime as dt
import difflib
from dataclasses import dataclass

import polars as pl

from solvelens.analysis.growth import UNCATEGORISED
from solvelens.analysis.leaderboard import BASELINES, WEEK, reference_snapshots
from solvelens.analysis.solutions import with_rank_percentile

FrameLike = pl.DataFrame | pl.LazyFrame


class BotNotFoundError(LookupError):
    """No bot (or more than one) matches the name or id asked for; the message lists close matches."""


def find_bot(query: str, history: pl.DataFrame, bots: FrameLike | None = None) -> tuple[str, str]:
    """The ``(bot_id, name)`` of the bot ``query`` names: an exact bot id, an exact name, or a name that
    matches ignoring case. Searches the leaderboard ``history`` and (when given) the ``bots`` profiles, so
    a bot that is not ranked now is found too; the newest name wins.

    Raises :class:`BotNotFoundError` when nothing matches (naming the closest names) or when a
    case-insensitive name matches several bots (naming their ids).
    """
    frames = [history.select("snapshot_id", "bot_id", "name")]
    if bots is not None:
        frames.append(bots.lazy().select("snapshot_id", "bot_id", "name").collect())
    known = (
        pl.concat(frames)
        .drop_nulls("bot_id")
        .sort("snapshot_id")
        .group_by("bot_id")
        .agg(pl.col("name").last())
        .sort("name", "bot_id")
    )
    query = query.strip()
    for candidates in (
        known.filter(pl.col("bot_id") == query),
        known.filter(pl.col("name") == query),
        known.filter(pl.col("name").str.to_lowercase() == query.lower()),
    ):
        if candidates.height == 1:
            return candidates["bot_id"][0], candidates["name"][0]
        if candidates.height > 1:
            listing = ", ".join(f"{n} ({i})" for i, n in candidates.select("bot_id", "name").iter_rows())
            raise BotNotFoundError(
                f"{candidates.height} bots are named {query!r}: {listing}; pass the bot id"
            )
    names = known["name"].drop_nulls().to_list()
    close = difflib.get_close_matches(query, names, n=5, cutoff=0.5)
    close += [n for n in names if query.lower() in n.lower() and n not in close][: 5 - len(close)]
    hint = f"; did you mean: {', '.join(close)}?" if close else f" among the {len(names)} bots in the store"
    raise BotNotFoundError(f"no bot named or with id {query!r}{hint}")


def _held(history: pl.DataFrame) -> pl.DataFrame:
    """Snapshot times with held_s: seconds until the next snapshot (0 for the newest)."""
    return (
        history.select("snapshot_id", "taken_at")
        .unique()
        .sort("taken_at", "snapshot_id")
        .with_columns(
            held_s=(
                (pl.col("taken_at").shift(-1) - pl.col("taken_at")).dt.total_microseconds() / 1e6
            ).fill_null(0.0)
        )
    )


#: The columns of :func:`bot_standing` (and of :func:`solvelens.analysis.load.load_bot`'s ``standing``).
STANDING_COLUMNS = {
    "snapshot_id": pl.Int64(),
    "taken_at": pl.Datetime("us", "UTC"),
    "ranked_bots": pl.UInt32(),
    "name": pl.String(),
    "rank": pl.Int32(),
    "position": pl.Int32(),
    "points": pl.Int64(),
    "elo": pl.Float64(),
    "tied": pl.UInt32(),
}


def bot_standing(history: pl.DataFrame, bot_id: str) -> pl.DataFrame:
    """The bot's row of the leaderboard ``history`` (:func:`solvelens.analysis.leaderboard_history`) at
    every snapshot it holds, with the two figures that need the other bots' rows.

    Output columns (:data:`STANDING_COLUMNS`): snapshot_id Int64, taken_at, ranked_bots UInt32 (bots ranked
    in that snapshot), then the bot's name, rank Int32, position Int32, points Int64, elo Float64 and tied
    UInt32 (ranked bots sharing its rank, itself included), all null where it was not ranked; sorted by
    taken_at. :func:`solvelens.analysis.load.load_bot` computes the same frame in DuckDB.
    """
    times = history.select("snapshot_id", "taken_at").unique()
    counts = history.group_by("snapshot_id").agg(ranked_bots=pl.len().cast(pl.UInt32))
    tied = history.group_by("snapshot_id", "rank").agg(tied=pl.len().cast(pl.UInt32))
    mine = (
        history.filter(pl.col("bot_id") == bot_id)
        .drop("taken_at", "bot_id")
        .join(tied, on=["snapshot_id", "rank"], how="left")
    )
    frame = times.join(counts, on="snapshot_id", how="left").join(mine, on="snapshot_id", how="left")
    return frame.select(list(STANDING_COLUMNS)).sort("taken_at", "snapshot_id")


def bot_history(
    history: pl.DataFrame, bot_id: str, *, bots: FrameLike | None = None, top_n: int = 10
) -> pl.DataFrame:
    """The bot's standing at every snapshot of ``history`` (also those where it was not ranked).

    Output columns: snapshot_id Int64, taken_at, bot_id, name (null when not ranked), rank Int32 (null:
    not ranked), position Int32, points Int64, elo Float64, ranked_bots UInt32 (bots ranked in that
    snapshot), percentile Float64 (share of the other ranked bots ranked below it, a bot tied with it on
    points counting half: ``(N - rank - (t - 1) / 2) / (N - 1)`` with ``t`` bots sharing its competition
    rank; 1 = sole top, 0 = sole last; the order the platform lists a tie in moves nothing), tied UInt32
    (ranked bots sharing its rank, itself included; 1 = untied, null when not ranked), in_top_n Boolean
    (rank <= ``top_n``), held_s Float64 (seconds until the next snapshot); with ``bots`` also
    total_solutions Int64, total_votes Int64, vote_accuracy Float64 from its profile; sorted by taken_at.
    """
    return standing_history(bot_standing(history, bot_id), bot_id, bots=bots, top_n=top_n)


def standing_history(
    standing: pl.DataFrame, bot_id: str, *, bots: FrameLike | None = None, top_n: int = 10
) -> pl.DataFrame:
    """:func:`bot_history` from the bot's ``standing`` (:func:`bot_standing`, or
    :func:`solvelens.analysis.load.load_bot`'s); same output columns."""
    times = _held(standing)
    frame = times.join(standing.drop("taken_at"), on="snapshot_id", how="left").with_columns(
        bot_id=pl.lit(bot_id),
        percentile=(
            pl.col("ranked_bots").cast(pl.Float64)
            - pl.col("rank")
            - (pl.col("tied").cast(pl.Float64) - 1.0) / 2.0
        )
        / (pl.col("ranked_bots").cast(pl.Float64) - 1).clip(lower_bound=1.0),
        in_top_n=(pl.col("rank") <= top_n).fill_null(False),
    )
    columns = ["snapshot_id", "taken_at", "bot_id", "name", "rank", "position", "points", "elo"]
    columns += ["ranked_bots", "percentile", "tied", "in_top_n", "held_s"]
    if bots is not None:
        profile = (
            bots.lazy()
            .filter(pl.col("bot_id") == bot_id)
            .select(
                "snapshot_id",
                "total_solutions",
                "total_votes",
                "vote_accuracy",
                profile_points="total_points",
                profile_name="name",
                profile_elo="elo",
            )
            .collect()
        )
        frame = frame.join(profile, on="snapshot_id", how="left").with_columns(
            name=pl.coalesce("name", "profile_name"),
            points=pl.coalesce("points", "profile_points"),
            elo=pl.coalesce("elo", "profile_elo"),
        )
        columns += ["total_solutions", "total_votes", "vote_accuracy"]
    return frame.select(columns).sort("taken_at", "snapshot_id")


@dataclass(frozen=True)
class BotSummary:
    """A bot's headline figures (times UTC, durations in seconds).

    ``rank``/``percentile``/``points``/``elo`` are at the newest snapshot (``rank`` None: not ranked now);
    ``peak_rank`` is its best rank in the history and ``peak_at`` when it first reached it;
    ``time_in_top_n_s`` how long it held a top-``top_n`` rank; ``rank_changes`` maps each baseline
    (prev, 7d, first; see :mod:`solvelens.analysis.leaderboard`) to its rank change (positive = up; None:
    no baseline or not ranked then); ``tied``: ranked bots sharing its rank now, itself included (1 =
    untied; 0 when not ranked now).
    """

    bot_id: str
    name: str
    rank: int | None
    ranked_bots: int
    percentile: float | None
    points: int | None
    elo: float | None
    peak_rank: int | None
    peak_at: dt.datetime | None
    time_in_top_n_s: float
    top_n: int
    snapshots_ranked: int
    snapshots: int
    span_s: float
    rank_changes: dict[str, int | None]
    points_changes: dict[str, int | None]
    tied: int = 1


def bot_summary(
    history: pl.DataFrame,
    bot_id: str,
    *,
    name: str | None = None,
    bots: FrameLike | None = None,
    top_n: int = 10,
    window: dt.timedelta = WEEK,
) -> BotSummary:
    """Summarise :func:`bot_history` of ``bot_id`` (``name`` is used when the bot was never ranked)."""
    return standing_summary(
        bot_standing(history, bot_id), bot_id, name=name, bots=bots, top_n=top_n, window=window
    )


def _changes(standing: pl.DataFrame, window: dt.timedelta) -> dict[str, int | None]:
    """``rank_change_<b>`` and ``points_change_<b>`` of the bot for each baseline ``b`` (as
    :func:`~solvelens.analysis.leaderboard.current_leaderboard` computes them; empty when it is not ranked at
    the newest snapshot)."""
    refs = reference_snapshots(standing, window=window)
    ranked = standing.filter(pl.col("rank").is_not_null())
    at = {row["snapshot_id"]: row for row in ranked.iter_rows(named=True)}
    newest = standing["snapshot_id"][-1] if standing.height else None
    now = at.get(newest)
    if now is None:
        return {}
    out: dict[str, int | None] = {}
    for b in BASELINES:
        then = at.get(refs[b]) if refs[b] is not None else None
        out[f"rank_change_{b}"] = None if then is None else then["rank"] - now["rank"]
        both = then is not None and then["points"] is not None and now["points"] is not None
        out[f"points_change_{b}"] = now["points"] - then["points"] if both else None  # type: ignore[index]
    return out


def standing_summary(
    standing: pl.DataFrame,
    bot_id: str,
    *,
    name: str | None = None,
    bots: FrameLike | None = None,
    top_n: int = 10,
    window: dt.timedelta = WEEK,
) -> BotSummary:
    """:func:`bot_summary` from the bot's ``standing`` (:func:`bot_standing`, or
    :func:`solvelens.analysis.load.load_bot`'s)."""
    own = standing_history(standing, bot_id, bots=bots, top_n=top_n)
    ranked = own.filter(pl.col("rank").is_not_null())
    newest = own.tail(1).row(0, named=True) if own.height else {}
    peak = ranked.sort("rank", "taken_at").head(1)
    row = _changes(standing.sort("taken_at", "snapshot_id"), window)
    names = own["name"].drop_nulls()
    return BotSummary(
        bot_id=bot_id,
        name=names[-1] if names.len() else (name or bot_id),
        rank=newest.get("rank"),
        ranked_bots=int(newest.get("ranked_bots") or 0),
        percentile=newest.get("percentile"),
        points=newest.get("points"),
        elo=newest.get("elo"),
        peak_rank=int(peak["rank"][0]) if peak.height else None,
        peak_at=peak["taken_at"][0] if peak.height else None,
        time_in_top_n_s=float(own.filter(pl.col("in_top_n"))["held_s"].sum()),
        top_n=top_n,
        snapshots_ranked=ranked.height,
        snapshots=own.height,
        span_s=float(own["held_s"].sum()),
        rank_changes={b: row.get(f"rank_change_{b}") for b in BASELINES},
        points_changes={b: row.get(f"points_change_{b}") for b in BASELINES},
        tied=int(newest.get("tied") or 0),
    )


def bot_solutions(solutions: FrameLike, problems: FrameLike, bot_id: str) -> pl.DataFrame:
    """The bot's solutions at the newest snapshot with their rank within their problem.

    Output columns: problem_id, title, category (:data:`~solvelens.analysis.growth.UNCATEGORISED` for
    none), rank Int32 (competition rank: solutions with equal scores share it), tied UInt32 (solutions
    sharing that rank, itself included; 1 = untied), solutions_in_problem UInt32, rank_percentile Float64
    (1 = best, a tie counting half, null when the problem has one solution), score Float64, llm_model;
    sorted by rank_percentile descending, title.
    """
    ranked = with_rank_percentile(solutions).filter(pl.col("bot_id") == bot_id)
    info = problems.lazy().select("problem_id", "title", "category").collect()
    return (
        ranked.join(info, on="problem_id", how="left")
        .with_columns(pl.col("category").fill_null(UNCATEGORISED))
        .select(
            "problem_id",
            "title",
            "category",
            "rank",
            "tied",
            "solutions_in_problem",
            "rank_percentile",
            "score",
            "llm_model",
        )
        .sort(["rank_percentile", "title"], descending=[True, False], nulls_last=True)
    )


def bot_categories(solutions: FrameLike, problems: FrameLike, bot_id: str) -> pl.DataFrame:
    """Per category: the bot's solutions and how they rank within their problems, next to the median bot.

    For every bot with contested solutions in a category its mean rank percentile and top-1 rate are
    computed (ties as :func:`~solvelens.analysis.solutions.with_rank_percentile`: a tied solution beats half
    of those it ties with, a tie for first shares the top-1); the median bot's figures are the medians over
    those bots.
    Output columns: category String, solutions UInt32 (the bot's), contested UInt32, mean_percentile
    Float64, top1_rate Float64 (the bot's; null without contested solutions), median_bot_percentile
    Float64, median_bot_top1_rate Float64, bots UInt32 (bots with contested solutions there); one row
    per category the bot has a solution in, plus ``"all"`` over every category; sorted by solutions
    descending, category ("all" first).
    """
    info = problems.lazy().select("problem_id", "category").collect()
    frame = (
        with_rank_percentile(solutions)
        .join(info, on="problem_id", how="left")
        .with_columns(pl.col("category").fill_null(UNCATEGORISED))
    )
    frame = pl.concat([frame, frame.with_columns(category=pl.lit("all"))])
    per_bot = frame.group_by("category", "bot_id").agg(
        solutions=pl.len().cast(pl.UInt32),
        contested=pl.col("contested").sum().cast(pl.UInt32),
        mean_percentile=pl.col("rank_percentile").mean(),
        top1_rate=pl.col("top1").filter(pl.col("contested")).mean(),
    )
    median = (
        per_bot.filter(pl.col("contested") > 0)
        .group_by("category")
        .agg(
            median_bot_percentile=pl.col("mean_percentile").median(),
            median_bot_top1_rate=pl.col("top1_rate").median(),
            bots=pl.len().cast(pl.UInt32),
        )
    )
    mine = per_bot.filter(pl.col("bot_id") == bot_id).drop("bot_id")
    return (
        mine.join(median, on="category", how="left")
        .with_columns(pl.col("bots").fill_null(0), first=pl.col("category") == "all")
        .sort(["first", "solutions", "category"], descending=[True, True, False])
        .drop("first")
    )
