"""The report's small tables and sentences, as the page template renders them: rank stability, the model
leaderboard, gaps in the history and the baselines of the rank changes (the bot table is
:mod:`solvelens.report.table`)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import polars as pl

from solvelens import analysis as an
from solvelens.report.frames import ReportFrames
from solvelens.report.slots import fmt_time


def stability_text(volatility: pl.DataFrame, top_n: int, span: dt.timedelta) -> str:
    """One paragraph: who held #1 longest, how many bots held it, the most volatile and the calm among
    today's top ``top_n``."""
    if volatility.is_empty() or span.total_seconds() == 0:
        return "Rank stability needs at least two snapshots."
    held = volatility.filter(pl.col("time_at_1_s") > 0).sort("time_at_1_s", descending=True)
    parts = []
    if held.height:
        top = held.row(0, named=True)
        parts.append(
            f"{top['name']} held #1 longest: {an.format_duration(top['time_at_1_s'])} of "
            f"{an.format_duration(span)} ({top['share_at_1']:.0%})"
        )
        if held.height > 1:
            parts.append(f"{held.height} bots held #1 at some point")
    current = volatility.filter(pl.col("rank_now") <= top_n)
    if current.height:
        most = current.sort(["volatility", "name"], descending=[True, False]).row(0, named=True)
        calm = current.filter(pl.col("moves") == 0).height
        parts.append(
            f"the most volatile of today's top {top_n} is {most['name']} "
            f"({most['volatility']:.2f} places per snapshot on average)"
        )
        parts.append(f"{calm} of them never changed rank")
    return "; ".join(parts) + "."


def volatility_rows(volatility: pl.DataFrame) -> list[dict[str, Any]]:
    """Rows of the stability table: name, rank_now, best, worst, volatility, moves, at_1, share_at_1."""
    return [
        {
            "name": row["name"],
            "rank_now": "–" if row["rank_now"] is None else row["rank_now"],
            "best": row["best_rank"],
            "worst": row["worst_rank"],
            "volatility": f"{row['volatility']:.2f}",
            "moves": row["moves"],
            "at_1": an.format_duration(row["time_at_1_s"]) if row["time_at_1_s"] else "–",
            "share_at_1": "–"
            if not row["time_at_1_s"] or row["share_at_1"] is None
            else f"{row['share_at_1']:.0%}",
        }
        for row in volatility.iter_rows(named=True)
    ]


def _interval(row: dict[str, Any], metric: str) -> str:
    value, lo, hi = row[metric], row[f"{metric}_lo"], row[f"{metric}_hi"]
    if value is None:
        return "–"
    if lo is None or hi is None:
        return f"{value:.1%}"
    return f"{value:.1%} [{lo:.1%}, {hi:.1%}]"


def model_rows(board: pl.DataFrame) -> list[dict[str, Any]]:
    """Rows of the model table: rank, model, solutions, contested, percentile, top1, top3, ranked."""
    return [
        {
            "rank": row["rank"] if row["ranked"] else "not ranked",
            "model": row["llm_model"],
            "solutions": f"{row['solutions']:,}",
            "contested": f"{row['contested_solutions']:,}",
            "percentile": _interval(row, "mean_percentile"),
            "top1": _interval(row, "top1_rate"),
            "top3": _interval(row, "top3_rate"),
            "ranked": row["ranked"],
        }
        for row in board.iter_rows(named=True)
    ]


def models_note(board: pl.DataFrame, min_solutions: int) -> str:
    """The sentence under the model table counting the models too small to rank, or ``""``."""
    unranked = board.filter(~pl.col("ranked")).height
    if not unranked:
        return ""
    return (
        f"{unranked} model(s) have fewer than {min_solutions} solutions in contested problems and are not "
        "ranked."
    )


def gap_rows(gaps: pl.DataFrame) -> list[dict[str, Any]]:
    """Rows of the gaps table: from, to (UTC), days, missed snapshots."""
    return [
        {
            "from": fmt_time(row["gap_start"]),
            "to": fmt_time(row["gap_end"]),
            "days": f"{row['gap_days']:.1f}",
            "missed": row["missed"],
        }
        for row in gaps.iter_rows(named=True)
    ]


def _taken_at(history: pl.DataFrame, snapshot_id: int) -> str:
    return fmt_time(history.filter(pl.col("snapshot_id") == snapshot_id)["taken_at"].first())  # type: ignore[arg-type]


def baselines(f: ReportFrames) -> dict[str, str]:
    """When the snapshots the rank changes compare with were taken: ``prev``, ``7d``, ``first``."""
    refs = f.refs
    return {
        "prev": _taken_at(f.history, refs["prev"]) if refs["prev"] is not None else "none (one snapshot)",
        "7d": _taken_at(f.history, refs["7d"])
        if refs["7d"] is not None
        else f"none: the history spans less than {an.format_duration(f.window)}",
        "first": fmt_time(f.snapshots["taken_at"][0]) if f.multi else "none (one snapshot)",
    }
