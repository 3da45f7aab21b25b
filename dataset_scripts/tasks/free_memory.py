"""Give freed memory back to the system between the large steps of a long-lived process."""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
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
