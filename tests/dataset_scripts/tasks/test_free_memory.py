"""Freed memory goes back to the system between the plan stage's buckets."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import PROJECT_ROOT
from wikiformer_kit.dataset_scripts.tasks import free_memory

CHILD = """
import pyarrow as pa, pyarrow.compute as pc
from wikiformer_kit.dataset_scripts.tasks.free_memory import release_freed_memory

def anonymous_mib():
    for line in open("/proc/self/status"):
        if line.startswith("RssAnon"):
            return int(line.split()[1]) // 1024

titles = pa.array([f"title {i}" for i in range(2_000_000)])
work = [pc.sort_indices(titles), pc.utf8_upper(titles), titles.to_pylist()]
del titles, work
before = anonymous_mib()
release_freed_memory()
print(before, anonymous_mib())
"""


@pytest.mark.skipif(not sys.platform.startswith("linux") or free_memory._malloc_trim() is None, reason="glibc only")
def test_a_finished_steps_memory_leaves_the_process():
    result = subprocess.run([sys.executable, "-c", CHILD], cwd=PROJECT_ROOT, capture_output=True, text=True, check=True)
    before, after = map(int, result.stdout.split())
    assert after < before - 50, (before, after)  # ~170 -> ~55 MiB: what the allocators kept of the freed work


def test_without_malloc_trim_it_still_collects(monkeypatch):
    monkeypatch.setattr(free_memory.ctypes.util, "find_library", lambda name: None)
    free_memory._malloc_trim.cache_clear()
    try:
        assert free_memory._malloc_trim() is None
        free_memory.release_freed_memory()
    finally:
        free_memory._malloc_trim.cache_clear()


FREEZE_CHILD = """
import gc, weakref
from wikiformer_kit.dataset_scripts.tasks.free_memory import release_freed_memory

class Node:
    pass

release_freed_memory()  # what lives now (modules...) is frozen out of later collections
frozen = gc.get_freeze_count()
node = Node()
node.self = node  # a cycle made after the first call: only the collector frees it
alive = weakref.ref(node)
del node
release_freed_memory()
print(frozen, alive() is None, gc.get_freeze_count() == frozen)
"""


def test_later_calls_collect_only_what_was_made_since_the_first():
    result = subprocess.run(
        [sys.executable, "-c", FREEZE_CHILD], cwd=PROJECT_ROOT, capture_output=True, text=True, check=True
    )
    frozen, collected, unchanged = result.stdout.split()
    assert int(frozen) > 1000 and collected == "True" and unchanged == "True"


def test_rare_collections_raise_the_youngest_threshold_and_restore_it():
    import gc

    before = gc.get_threshold()
    collections = []
    gc.callbacks.append(lambda phase, info: phase == "start" and collections.append(info["generation"]))
    try:
        with pytest.raises(RuntimeError), free_memory.rare_collections(50_000):
            assert gc.get_threshold() == (50_000, *before[1:])
            collections.clear()
            kept = [[i] for i in range(40_000)]  # 40,000 new lists: fewer than the threshold, so no collection
            assert collections == []
            raise RuntimeError("the threshold is restored on the way out too")
        assert gc.get_threshold() == before
        assert len(kept) == 40_000
    finally:
        gc.callbacks.pop()
