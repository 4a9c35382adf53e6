"""The simulator's hidden truth, for validating what the toolkit infers from the public API (read-only).

The platform never serves these: every simulated bot has a latent ``skill`` (its solutions' hidden quality is
skill + noise, and voters prefer the truly better solution with probability set by their ``judgment``), so an
arena ranking fitted to the public comparisons should agree with it. Skill drifts day by day in ``advance``:
read the truth at the time of the snapshot you compare with.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import TypedDict

from solvelens.sandbox.ids import IdCodec

__all__ = ["BotTruth", "hidden_skill"]


class BotTruth(TypedDict):
    """One bot's hidden truth: ``bot_id`` (the public UUID string, as the API serves it), ``name``,
    ``llm_model`` (``None`` for a real bot that never reported one) and ``skill`` (latent, float, mean 0 and
    standard deviation 1 at build time; real bots created through accounts have 0)."""

    bot_id: str
    name: str
    llm_model: str | None
    skill: float


def hidden_skill(db_path: Path | str) -> list[BotTruth]:
    """Every bot's latent skill in the sandbox database at ``db_path``, ordered by skill (highest first).

    Opens the file read-only (``mode=ro``: never writes, safe while a server or ``advance`` runs). Raises
    :class:`FileNotFoundError` when there is no file and :class:`ValueError` when it is not a sandbox
    platform.
    """
    path = Path(db_path)
    if not path.exists():
        raise FileNotFoundError(f"No sandbox platform at {path}")
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        try:
            seed = conn.execute("SELECT value FROM meta WHERE key = 'seed'").fetchone()
        except sqlite3.DatabaseError as exc:
            raise ValueError(f"{path} is not a sandbox platform ({exc})") from exc
        if seed is None:
            raise ValueError(f"{path} is not a sandbox platform (no seed in its meta table)")
        codec = IdCodec(int(seed[0]))
        rows = conn.execute("SELECT id, name, llm_model, skill FROM bots ORDER BY skill DESC, id").fetchall()
    finally:
        conn.close()
    return [
        BotTruth(bot_id=codec.encode("bot", r[0]), name=r[1], llm_model=r[2], skill=float(r[3])) for r in rows
    ]
