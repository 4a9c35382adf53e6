"""Prefect flow that compacts the snapshot store on a schedule of its own (``solvelens schedule``: weekly,
Sundays 03:15 UTC by default, ``--compact-cron``): a thin wrapper over :func:`solvelens.store.compact`.

Compaction rewrites the store into a fresh file (zstd raw JSON, no freed blocks) and swaps it in atomically;
it holds the store's exclusive lock meanwhile, so a snapshot due then waits for it (up to its lock timeout,
60 s by default: compaction runs at a quarter past the hour, away from the hourly snapshot at :00). A year of
hourly snapshots of 2,000 bots grows ~3 GB uncompacted and stays near 1 GB compacted (issue 30).
"""

from __future__ import annotations

from typing import Any

from prefect import flow, task
from prefect.artifacts import acreate_markdown_artifact

from solvelens.flows.termination import redeliver_swallowed_termination

#: Key of the markdown artifact each run publishes.
ARTIFACT_KEY = "solvelens-compact"
#: Seconds a compaction waits for a snapshot writer holding the store.
LOCK_TIMEOUT_S = 1800.0


@task(name="compact-store")
def compact_task(db_path: str, lock_timeout_s: float = LOCK_TIMEOUT_S) -> dict[str, Any]:
    """Compact the store (see :func:`solvelens.store.compact`); returns its result (``path``,
    ``before_bytes``, ``after_bytes``, ``reclaimed_bytes``, ``seconds``)."""
    from solvelens.store import compact

    return compact(db_path, lock_timeout_s=lock_timeout_s)


@flow(name="solvelens-compact", log_prints=False)
async def compact_flow(db_path: str, lock_timeout_s: float = LOCK_TIMEOUT_S) -> dict[str, Any]:
    """Compact the store ``db_path`` in place and publish a markdown artifact (key ``solvelens-compact``) with
    the sizes before and after (bytes). Returns :func:`solvelens.store.compact`'s result. Raises
    :class:`solvelens.store.StoreError` subclasses (missing file, not a store, lock timeout after
    ``lock_timeout_s`` seconds, a failed copy: the store is left unchanged then)."""
    redeliver_swallowed_termination()
    result = compact_task(db_path, lock_timeout_s)
    lines = [
        "# Store compacted",
        "",
        f"- store: `{db_path}`",
        f"- size: {result['before_bytes']:,} -> {result['after_bytes']:,} bytes "
        f"({result['reclaimed_bytes']:,} reclaimed) in {result['seconds']:.1f} s",
    ]
    await acreate_markdown_artifact("\n".join(lines) + "\n", key=ARTIFACT_KEY, description="store compacted")
    return result
