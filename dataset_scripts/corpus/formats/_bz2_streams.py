"""bz2 input as a file object: a whole ``.bz2`` file, or the bz2 streams between two offsets of a multistream dump.

Python's ``bz2`` module decompresses; a stream that breaks off raises ``EOFError`` and damaged data ``OSError``,
which the readers turn into counted skips; ``on_bytes`` is told how many compressed bytes were read, for progress
bars. (indexed_bzip2 was measured in its place: it runs about 11% fewer instructions, but reading a dump in whole
processes took more CPU with it on the development machine, so the bz2 module stays: docs/benchmarks.md.)
"""

from __future__ import annotations

import bz2
import io
import os
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO


def open_bz2_file(path: str | Path, on_bytes: Callable[[int], object] | None = None) -> BinaryIO:
    """The decompressed bytes of a ``.bz2`` file, all its streams one after another.

    Args:
        path: the file; a missing or unreadable one raises ``OSError`` here, damaged data only when read.
        on_bytes: called with the number of compressed bytes read, for progress bars.
    """
    return _decompressed(_Window(path, 0, -1, on_bytes))


def open_bz2_streams(
    path: str | Path, start: int, end: int, on_bytes: Callable[[int], object] | None = None
) -> BinaryIO:
    """The decompressed bytes of the whole bz2 streams in ``[start, end)`` of a file (``end`` -1: to its end), as a
    multistream dump's index gives them; a range that ends inside a stream raises ``EOFError`` when read there.

    Args:
        path: the dump file.
        start: offset of the first stream.
        end: offset just past the last stream, or -1.
        on_bytes: called with the number of compressed bytes read, for progress bars.
    """
    window = _Window(path, start, end, on_bytes)
    if window.size == 0:
        window.close()
        return io.BytesIO(b"")
    return _decompressed(window)


def _decompressed(window: _Window) -> BinaryIO:
    return bz2.open(window, "rb")


class _Window(io.RawIOBase):
    """The bytes ``[start, end)`` of a file as a seekable file of their own (offset 0 = ``start``); every byte read
    for the first time is reported to ``on_bytes``."""

    def __init__(self, path: str | Path, start: int, end: int, on_bytes: Callable[[int], object] | None):
        self.file = open(path, "rb")
        total = os.fstat(self.file.fileno()).st_size
        self.start = min(start, total)
        self.size = max(0, (total if end < 0 else min(end, total)) - self.start)
        self.position = 0
        self.furthest = 0
        self.on_bytes = on_bytes

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self.position

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self.position, io.SEEK_END: self.size}[whence]
        self.position = max(0, base + offset)
        return self.position

    def readinto(self, buffer) -> int:
        wanted = min(len(buffer), self.size - self.position)
        if wanted <= 0:
            return 0
        self.file.seek(self.start + self.position)
        count = self.file.readinto(memoryview(buffer)[:wanted]) or 0
        self.position += count
        if self.position > self.furthest:
            if self.on_bytes is not None:
                self.on_bytes(self.position - self.furthest)
            self.furthest = self.position
        return count

    def read_to_end(self) -> bool:
        """Whether every byte of the window has been read."""
        return self.furthest >= self.size

    def close(self) -> None:
        self.file.close()
        super().close()
