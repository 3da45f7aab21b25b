"""The bz2 streams between two offsets of a multistream dump, as one decompressed file object.

Python's ``bz2`` module decompresses (as for a whole ``.bz2`` file: :func:`.base.open_binary`); a range that ends
inside a stream raises ``EOFError`` and damaged data ``OSError`` when read there, which the reader turns into a
counted skip. (indexed_bzip2 was measured in its place: about 11% fewer instructions, but more CPU in whole runs on
the development machine: docs/benchmarks.md.)
"""

from __future__ import annotations

import bz2
import io
import os
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from wikiformer_kit.eval.collections.textfile import CountingReader


def open_bz2_streams(
    path: str | Path, start: int, end: int, on_bytes: Callable[[int], object] | None = None
) -> BinaryIO:
    """The decompressed bytes of the whole bz2 streams in ``[start, end)`` of a file (``end`` -1: to its end), as a
    multistream dump's index gives them; ``on_bytes`` is called with the compressed bytes read (progress bars)."""
    byte_range = _ByteRange(path, start, end)
    if byte_range.remaining == 0:
        byte_range.close()
        return io.BytesIO(b"")
    return bz2.open(byte_range if on_bytes is None else CountingReader(byte_range, on_bytes), "rb")


class _ByteRange(io.RawIOBase):
    """The bytes ``[start, end)`` of a file, read in order."""

    def __init__(self, path: str | Path, start: int, end: int):
        self.file = open(path, "rb")
        size = os.fstat(self.file.fileno()).st_size
        start, stop = min(start, size), size if end < 0 else min(end, size)
        self.file.seek(start)
        self.remaining = max(0, stop - start)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        count = self.file.readinto(memoryview(buffer)[: min(len(buffer), self.remaining)]) or 0
        self.remaining -= count
        return count

    def close(self) -> None:
        self.file.close()
        super().close()
