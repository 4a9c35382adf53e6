"""``fewer_collections``: a larger young-generation threshold and frozen objects while fetching, restored
afterwards (also after an error), and cycles still collected meanwhile; ``no_collection_at_exit``: what is
alive is frozen when the process ends."""

from __future__ import annotations

import gc
import subprocess
import sys
import weakref

import pytest

from solvelens.flows.gc_tuning import FETCH_GC_THRESHOLD, fewer_collections


class _Node:
    def __init__(self) -> None:
        self.me = self  # a reference cycle only the collector frees


def test_thresholds_and_freeze_are_restored_even_after_an_error() -> None:
    before = gc.get_threshold()
    with pytest.raises(RuntimeError), fewer_collections():
        assert gc.get_threshold()[0] == FETCH_GC_THRESHOLD
        assert gc.get_freeze_count() > 0
        raise RuntimeError("a failing fetch step")
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0


def test_cycles_made_while_fetching_are_still_collected() -> None:
    with fewer_collections():
        node = _Node()
        ref = weakref.ref(node)
        del node
        kept = [{} for _ in range(2 * FETCH_GC_THRESHOLD)]  # live records, as parsed pages make them
        assert ref() is None  # the young generation was collected on the way, without gc.collect()
        assert len(kept) == 2 * FETCH_GC_THRESHOLD


def _exit_freeze_count(call: bool) -> str:
    """A fresh interpreter's output: an ``atexit`` handler registered first (so it runs last) prints whether
    anything was frozen by then; ``call``: ``no_collection_at_exit()`` (twice) was called."""
    code = (
        "import atexit, gc\n"
        "atexit.register(lambda: print('frozen at exit:', gc.get_freeze_count() > 0))\n"
        "from solvelens.flows.gc_tuning import no_collection_at_exit\n"
        + ("no_collection_at_exit(); no_collection_at_exit()\n" if call else "")
    )
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout


def test_no_collection_at_exit_freezes_what_is_alive_when_the_process_ends() -> None:
    assert _exit_freeze_count(call=True).splitlines() == ["frozen at exit: True"]
    assert _exit_freeze_count(call=False).splitlines() == ["frozen at exit: False"]
