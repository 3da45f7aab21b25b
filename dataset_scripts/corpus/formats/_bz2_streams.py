"""bz2 input decompressed with less CPU: a whole ``.bz2`` file, or the bz2 streams between two offsets of a
multistream dump.

Where ``indexed_bzip2`` is installed it decompresses, serially (``parallelization=1``: the build's processes are
its unit of parallelism); otherwise Python's ``bz2`` module does, with the same output. Either way a stream that
breaks off raises ``EOFError`` and damaged data ``OSError``, as the ``bz2`` module does, so that readers keep
turning them into counted skips; ``on_bytes`` is told how many compressed bytes were read, for progress bars.
"""

from __future__ import annotations

import atexit
import bz2
import io
import os
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

try:
    import indexed_bzip2
except ImportError:  # optional: the bz2 module reads the same files, with more CPU
    indexed_bzip2 = None

_BUFFER = 1 << 20
_RAW_READ = 1 << 17  # output a call at most: an error loses its call's output, so little of what came before it
_ENDED_EARLY = "Compressed file ended before the end-of-stream marker was reached"  # the bz2 module's words
_OPEN_READERS: weakref.WeakSet = weakref.WeakSet()


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
    if indexed_bzip2 is None:
        return bz2.open(window, "rb")
    return io.BufferedReader(_IndexedBzip2Reader(window), buffer_size=_BUFFER)


class _Window(io.RawIOBase):
    """The bytes ``[start, end)`` of a file as a seekable file of their own (offset 0 = ``start``). It has no
    ``fileno``, so that indexed_bzip2 reads through it rather than the whole file; every byte read for the first
    time is reported to ``on_bytes``."""

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


class _IndexedBzip2Reader(io.RawIOBase):
    """indexed_bzip2's serial decompression of a window, raising what the bz2 module raises. Its reader is made on
    the first read, so that data that is not bz2 fails when read, as with the bz2 module, not when opened."""

    def __init__(self, window: _Window):
        self.window = window
        self.reader = None
        self.failure: Exception | None = None

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        if self.window.size == 0:
            raise EOFError(_ENDED_EARLY)
        if self.failure is not None:  # a new reader would start again from the first stream
            raise self.failure
        try:
            if self.reader is None:
                self.reader = indexed_bzip2.IndexedBzip2FileRaw(self.window, parallelization=1)
                _OPEN_READERS.add(self)
            return self.reader.readinto(memoryview(buffer)[:_RAW_READ])
        except (RuntimeError, ValueError) as error:
            # indexed_bzip2 says "not bz2" with ValueError, and data that ends early or is damaged with RuntimeError.
            ended = isinstance(error, RuntimeError) and self.window.read_to_end()
            self._close_reader()
            self.failure = EOFError(_ENDED_EARLY) if ended else OSError(f"Invalid data stream: {error}")
            raise self.failure from error

    def _close_reader(self) -> None:
        if self.reader is not None:
            self.reader.close()
            self.reader = None

    def close(self) -> None:
        self._close_reader()
        self.window.close()
        super().close()


@atexit.register
def _close_open_readers() -> None:
    """An indexed_bzip2 reader of a Python file object that is still open when the interpreter shuts down aborts
    the process (its destructor needs the interpreter): a generator left unfinished at exit must not do that."""
    for reader in list(_OPEN_READERS):
        reader.close()
