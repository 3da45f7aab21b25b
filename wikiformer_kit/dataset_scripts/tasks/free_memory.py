"""Give freed memory back to the system between the large steps of a long-lived process."""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache

import pyarrow as pa


def release_freed_memory() -> None:
    """Collect garbage, then return what Arrow's pool and the C allocator hold but no longer use.

    A process that builds one bucket after another would otherwise keep the high-water mark of every earlier step
    (the allocators keep freed pages for reuse), so its resident memory would grow with the corpus, not the bucket.
    What survives the first call (modules, tokenizers, indexes) is frozen out of later collections: each then
    looks at what was made since, not at every object of the process again.
    """
    gc.collect()
    _freeze_survivors()
    pa.default_memory_pool().release_unused()
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


YOUNG_OBJECTS_PER_COLLECTION = 100_000
"""Container objects made between two collections of the youngest generation while tasks are built (Python's
default: 700)."""


@contextmanager
def rare_collections(threshold: int = YOUNG_OBJECTS_PER_COLLECTION) -> Iterator[None]:
    """Run the block with the cyclic garbage collector started after ``threshold`` new container objects instead
    of 700, the older generations' thresholds unchanged.

    Building rows makes millions of short-lived dicts, lists and tuples (rows, word lists, spans) that reference
    counting frees, beside many that a unit keeps (its rows, a worker's recent attention): with Python's default,
    every 700 of them start a collection, and the older generations' collections walk everything kept; with HARP's
    rows these collections took about a tenth of the stage. Cycles are rare here, so collecting less often costs
    little memory."""
    before = gc.get_threshold()
    gc.set_threshold(threshold, *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)


@cache
def _freeze_survivors() -> None:
    """``gc.freeze()``, the first time only (``gc.get_freeze_count`` would tell, but it walks every frozen object)."""
    gc.freeze()


@cache
def _malloc_trim():
    """glibc's ``malloc_trim``, or None where the C library has none (macOS, musl)."""
    name = ctypes.util.find_library("c")
    try:
        return ctypes.CDLL(name).malloc_trim if name else None
    except (OSError, AttributeError):
        return None
