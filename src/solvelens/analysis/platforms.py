"""Which platform each snapshot is of, and picking ONE platform to analyse.

A store may hold snapshots of several platforms (the demo's sandbox, a sandbox served by hand, the real
platform). Every analysis, the report, ``solvelens diff`` and the alerts work on one platform at a time:
mixing two would draw two leaderboards as one and take rates across the jump between them.

A platform's identity is what it declared about itself (``snapshots.platform->>'id'``, the ``X-Platform-Id``
header: the sandbox keeps it in its database, so the same sandbox on a new port is the same platform) when it
declared one, else the snapshot's ``base_url`` (the real platform declares nothing). A sandbox snapshotted
before it declared an id (a store of schema version 1: ``platform`` unknown) counts under its base URL.

The default platform is the newest complete snapshot's: the one taken last by the wall clock (``started_at``,
then the snapshot id), since comparing ``taken_at`` across platforms would compare a sandbox's simulated dates
with real ones. ``--platform ID|URL`` picks another: a full identity,
one of the platform's base URLs (a trailing ``/`` or a missing ``/api/v1`` is forgiven) or a unique prefix of
its id of at least 4 characters.

Within one platform, simulated and real clocks are never mixed (:func:`select_platform` says how many
snapshots it left out):

- when some of its snapshots declared a simulated clock and others did not, only those on the newest
  snapshot's clock are kept;
- a snapshot of a platform that declares a simulated clock, stamped with the wall clock instead of the
  platform's (``taken_at`` within :data:`WALL_CLOCK_S` of the run's own ``started_at``: ``solvelens snapshot``
  of a hand-served sandbox without ``--taken-at``), is on real time: when the platform also has snapshots on
  its simulated clock (the demo's), those are kept and the wall-clock ones left out.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from solvelens.analysis.clock import simulated_snapshots
from solvelens.analysis.frames import Frames
from solvelens.analysis.timescale import format_time
from solvelens.store.errors import StoreInputError

FrameLike = pl.DataFrame | pl.LazyFrame

#: Columns of :func:`platforms`.
PLATFORM_COLUMNS = ("platform", "label", "base_url", "snapshots", "first_taken_at", "last_taken_at")
#: The shortest id prefix ``--platform`` accepts.
MIN_PREFIX = 4
#: A ``taken_at`` this close (seconds) to the run's ``started_at`` was stamped from the wall clock.
WALL_CLOCK_S = 60.0


class PlatformNotFoundError(StoreInputError, LookupError):
    """``--platform`` names no platform of the store; the message lists the store's platforms (exit 2)."""


def platform_key() -> pl.Expr:
    """The polars expression of a snapshot's platform identity (String): the declared id
    (``platform`` JSON text, ``$.id``) when present, else ``base_url``."""
    declared = pl.col("platform").cast(pl.String).str.json_path_match("$.id")
    return pl.coalesce(declared.replace("", None), pl.col("base_url")).alias("platform_key")


def with_platform_key(snapshots: FrameLike) -> pl.DataFrame:
    """``snapshots`` (snapshot_id, taken_at, base_url, platform; optional started_at) with a
    ``platform_key`` String column (:func:`platform_key`), ``simulated`` (the platform declared a simulated
    clock) and ``on_simulated_clock`` (... and the snapshot's time is that clock's, not the wall clock's:
    see the module docstring) Boolean columns; sorted by taken_at, snapshot_id."""
    frame = snapshots.lazy().collect()
    if "platform" not in frame.columns:
        frame = frame.with_columns(platform=pl.lit(None, dtype=pl.String))
    frame = frame.sort("taken_at", "snapshot_id")
    frame = frame.with_columns(platform_key(), simulated_snapshots(frame))
    if "started_at" in frame.columns:
        offset = (pl.col("taken_at") - pl.col("started_at")).dt.total_microseconds().abs() / 1e6
        wall = (offset <= WALL_CLOCK_S).fill_null(False)
    else:
        wall = pl.lit(False)
    return frame.with_columns(on_simulated_clock=pl.col("simulated") & ~wall)


def _label(platform: str, base_url: str, declared: bool, simulated: bool) -> str:
    if not declared:
        return base_url
    kind = "sandbox" if simulated else "platform"
    return f"{kind} {platform[:8]} (last at {base_url})"


def platforms(store: Frames | FrameLike) -> pl.DataFrame:
    """The platforms of a store, newest first.

    ``store``: a :class:`~solvelens.analysis.frames.Frames` (its ``all_snapshots``) or a snapshots frame
    (snapshot_id, taken_at, base_url, platform; of a store file: :func:`solvelens.analysis.read_snapshots`).
    Output columns: platform String (the identity, see the module docstring), label String (what the report
    and the CLI call it: the base URL, or ``sandbox 1a2b3c4d (last at URL)`` for a declared id), base_url
    String (its newest snapshot's), snapshots UInt32, first_taken_at, last_taken_at (Datetime UTC);
    sorted by last_taken_at descending. Empty for a store without complete snapshots.
    """
    frame = with_platform_key(_snapshots_of(store))
    if frame.is_empty():
        return pl.DataFrame(
            schema={
                "platform": pl.String,
                "label": pl.String,
                "base_url": pl.String,
                "snapshots": pl.UInt32,
                "first_taken_at": pl.Datetime("us", "UTC"),
                "last_taken_at": pl.Datetime("us", "UTC"),
            }
        )
    grouped = frame.group_by("platform_key").agg(
        base_url=pl.col("base_url").last(),
        snapshots=pl.len().cast(pl.UInt32),
        first_taken_at=pl.col("taken_at").first(),
        last_taken_at=pl.col("taken_at").last(),
        last_id=pl.col("snapshot_id").last(),
        declared=(pl.col("platform_key") != pl.col("base_url")).all(),
        simulated=pl.col("simulated").last(),
    )
    labels = [
        _label(r["platform_key"], r["base_url"], r["declared"], r["simulated"])
        for r in grouped.iter_rows(named=True)
    ]
    grouped = grouped.with_columns(label=pl.Series(labels, dtype=pl.String))
    return grouped.sort(["last_taken_at", "last_id"], descending=True).select(
        pl.col("platform_key").alias("platform"), *PLATFORM_COLUMNS[1:]
    )


def _snapshots_of(store: Frames | FrameLike) -> FrameLike:
    if isinstance(store, pl.DataFrame | pl.LazyFrame):
        return store
    return store.all_snapshots if store.all_snapshots is not None else store.snapshots


def _normalise_url(url: str) -> str:
    url = url.strip().rstrip("/")
    return url if url.endswith("/api/v1") else f"{url}/api/v1"


def match_platform(wanted: str, snapshots: pl.DataFrame) -> str | None:
    """The identity ``wanted`` names among ``snapshots`` (with ``platform_key``): an identity; a base URL
    (an undeclared platform's identity first, else the one platform whose snapshots had that URL); or a
    unique id prefix (:data:`MIN_PREFIX` characters or more). ``None`` when none matches; raises
    :class:`PlatformNotFoundError` when a URL was used by several platforms."""
    keys = snapshots["platform_key"].unique().to_list()
    if wanted in keys:
        return wanted
    url = _normalise_url(wanted)
    undeclared = [k for k in keys if "://" in k and _normalise_url(k) == url]
    if undeclared:
        return undeclared[0]
    normalised = pl.col("base_url").map_elements(_normalise_url, return_dtype=pl.String)
    by_url = snapshots.filter(normalised == url)["platform_key"].unique().to_list()
    if len(by_url) > 1:
        raise PlatformNotFoundError(
            f"{wanted!r} was the address of several platforms ({', '.join(sorted(by_url))}); "
            "pass one of these ids to --platform"
        )
    if by_url:
        return str(by_url[0])
    if len(wanted) >= MIN_PREFIX:
        prefixed = [k for k in keys if k.lower().startswith(wanted.lower())]
        if len(prefixed) == 1:
            return prefixed[0]
    return None


def describe_platforms(table: pl.DataFrame) -> str:
    """One line listing platforms (the output of :func:`platforms`): ``ID (label, N snapshots, last
    TIME); ...``."""
    return "; ".join(
        f"{r['platform']} ({r['label'] + ', ' if r['label'] != r['platform'] else ''}"
        f"{r['snapshots']} snapshot(s), last {format_time(r['last_taken_at'])})"
        for r in table.iter_rows(named=True)
    )


@dataclass(frozen=True)
class PlatformSelection:
    """One platform picked from a store's snapshots.

    ``platform``: its identity (None when the store has no complete snapshot); ``label``: how to call it;
    ``snapshots``: its snapshots (the input's columns plus ``platform_key`` and ``simulated``; sorted by
    taken_at), on one clock; ``others``: the store's other platforms (:func:`platforms` rows);
    ``left_out``: snapshots of this platform left out because their clock differs from the newest one's
    (simulated vs real); ``clock_note``: a sentence saying so, or ``""``.
    """

    platform: str | None
    label: str
    snapshots: pl.DataFrame
    others: pl.DataFrame
    left_out: int = 0
    clock_note: str = ""


def one_clock(own: pl.DataFrame) -> tuple[pl.DataFrame, str]:
    """One platform's snapshots (:func:`with_platform_key` rows, sorted) on one clock, and a sentence
    saying what was left out (``""`` when nothing): the platform's simulated clock when any snapshot is on
    it and the newest is on it or only wall-stamped; else the newest snapshot's clock."""
    newest = own.row(-1, named=True)
    on_sim = bool(newest["on_simulated_clock"]) or (
        bool(newest["simulated"]) and bool(own["on_simulated_clock"].any())
    )
    kept = own.filter(pl.col("on_simulated_clock") == on_sim)
    left_out = own.height - kept.height
    if not left_out:
        return kept, ""
    if on_sim:
        why = (
            "they carry real (wall-clock) times while the platform runs a simulated clock (snapshot a "
            "sandbox with --taken-at set to its /health clock)"
        )
    else:
        why = "they are on a simulated clock and its newest snapshot is on real time"
    note = (
        f"{left_out} snapshot(s) of this platform are left out: {why}; simulated and real time are never "
        "mixed in one history."
    )
    return kept, note


def latest_platform(frame: pl.DataFrame) -> str:
    """The platform of the snapshot taken last by the wall clock (``started_at``, then ``snapshot_id``;
    :func:`with_platform_key` rows)."""
    order = ["started_at", "snapshot_id"] if "started_at" in frame.columns else ["snapshot_id"]
    return str(frame.sort(order, nulls_last=False)["platform_key"][-1])


def select_platform(snapshots: FrameLike, platform: str | None = None) -> PlatformSelection:
    """Pick one platform's snapshots from ``snapshots`` (every complete snapshot of the store: snapshot_id,
    taken_at, base_url, platform).

    ``platform`` None: the newest snapshot's platform; else matched by :func:`match_platform`. Raises
    :class:`PlatformNotFoundError` (one line listing the store's platforms and ``--platform``) when it
    matches none.
    """
    frame = with_platform_key(snapshots)
    table = platforms(frame.drop("platform_key", "simulated", "on_simulated_clock"))
    if frame.is_empty():
        return PlatformSelection(None, "", frame, table)
    if platform is None:
        key = latest_platform(frame)
    else:
        found = match_platform(platform, frame)
        if found is None:
            raise PlatformNotFoundError(
                f"no platform {platform!r} in this store; its platforms: {describe_platforms(table)}; "
                "pass one of these ids or base URLs to --platform"
            )
        key = found
    own = frame.filter(pl.col("platform_key") == key)
    kept, note = one_clock(own)
    row = table.filter(pl.col("platform") == key).row(0, named=True)
    return PlatformSelection(
        platform=key,
        label=row["label"],
        snapshots=kept,
        others=table.filter(pl.col("platform") != key),
        left_out=own.height - kept.height,
        clock_note=note,
    )
