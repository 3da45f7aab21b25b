"""Reading collection files as text: compressed or not, with a byte-order mark or not, errors naming the line.

Collections come as plain files or compressed ones (``qrels.tsv.gz``, ``collection.tsv.bz2``); some tools write a
UTF-8 byte-order mark, and Windows tools UTF-16. Every reader of this package goes through `open_text` so that all
of them accept the same files, and a byte that is not text becomes an error naming the file and line instead of a
bare ``UnicodeDecodeError``.
"""

from __future__ import annotations

import bz2
import codecs
import gzip
import io
import json
import lzma
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import BinaryIO

from wikiformer_kit.eval.collections.errors import CollectionFormatError

COMPRESSED_SUFFIXES = (".gz", ".bz2", ".xz")
"""Single compressed files, read through (an archive of several files is `eval.collections.archive`'s job)."""

UTF16_HINT = "re-encode it as UTF-8 (iconv -f UTF-16 -t UTF-8)"
"""What to do with a UTF-16 file that a reader of bytes (or sniffing, without a byte-order mark) cannot read."""

_MAGIC = {".gz": b"\x1f\x8b", ".bz2": b"BZh", ".xz": b"\xfd7zXZ\x00"}
_BOMS = ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))


_DECOMPRESSORS = {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}
_STREAM_DECOMPRESSORS = {
    ".gz": lambda: zlib.decompressobj(16 + zlib.MAX_WBITS),
    ".bz2": bz2.BZ2Decompressor,
    ".xz": lzma.LZMADecompressor,
}


def open_binary(path: str | Path, on_bytes: Callable[[int], object] | None = None) -> BinaryIO:
    """The bytes of a file, decompressed when it ends in ``.gz``, ``.bz2`` (multi-stream included) or ``.xz``;
    ``on_bytes`` is called with the number of bytes read from the file itself (compressed), for progress bars."""
    decompress = next((open_ for suffix, open_ in _DECOMPRESSORS.items() if str(path).endswith(suffix)), None)
    source = path if on_bytes is None else CountingReader(open(path, "rb"), on_bytes)
    if decompress is not None:
        return decompress(source, "rb")
    return open(path, "rb") if on_bytes is None else source


class CountingReader(io.RawIOBase):
    """A file whose reads are reported to a callback."""

    def __init__(self, file: BinaryIO, on_bytes: Callable[[int], object]):
        self.file, self.on_bytes = file, on_bytes

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        count = self.file.readinto(buffer)
        self.on_bytes(count or 0)
        return count

    def close(self) -> None:
        self.file.close()
        super().close()


def encoding_of(head: bytes) -> str:
    """The text encoding a file's first bytes declare with a byte-order mark; UTF-8 without one."""
    return next((encoding for bom, encoding in _BOMS if head.startswith(bom)), "utf-8")


DAMAGE_ERRORS = (OSError, EOFError, lzma.LZMAError, zlib.error)
"""What decompressing a truncated or corrupt ``.gz``, ``.bz2`` or ``.xz`` file raises."""


def damaged(error: BaseException) -> str:
    """The message for a file that cannot be read to its end: truncated or corrupt, so to be fetched again."""
    return f"truncated or damaged ({str(error) or type(error).__name__}): download it again"


def looks_utf16(raw: bytes) -> bool:
    """UTF-16 without a byte-order mark: mostly-ASCII text with a NUL byte beside each character."""
    pairs = len(raw) // 2
    return pairs > 0 and max(raw[0::2].count(0), raw[1::2].count(0)) > 0.8 * pairs


def read_head(path: str | Path, size: int = 8192) -> bytes:
    """The first ``size`` bytes of a file, decompressed; of a truncated compressed file, what decompresses before
    the damage (so that it is recognised, and its reader names the damage); empty when nothing can be read."""
    name = str(path)
    suffix = next((s for s in COMPRESSED_SUFFIXES if name.endswith(s)), None)
    try:
        with open(path, "rb") as raw:
            if suffix is None:
                return raw.read(size)
            return _decompressed_head(raw, suffix, size)
    except OSError:
        return b""


def _decompressed_head(raw: BinaryIO, suffix: str, size: int) -> bytes:
    decompressor = _STREAM_DECOMPRESSORS[suffix]()
    head = b""
    try:
        while len(head) < size and (data := raw.read(4096)):
            while data:
                head += decompressor.decompress(data)
                data = b""
                if decompressor.eof:  # one member ends; another may follow (concatenated .gz files)
                    data, decompressor = decompressor.unused_data, _STREAM_DECOMPRESSORS[suffix]()
    except (*DAMAGE_ERRORS, ValueError):
        pass  # the head decompressed before the damage
    return head[:size]


def _raw_head(path: str | Path, size: int) -> bytes:
    try:
        with open(path, "rb") as stream:
            return stream.read(size)
    except OSError:
        return b""


def compression_damage(path: str | Path) -> str | None:
    """Why a file named ``.gz``, ``.bz2`` or ``.xz`` cannot be decompressed within its first 8 KB (truncated or
    damaged, or not compressed at all), or None when it can (or is not named as compressed)."""
    suffix = next((s for s in COMPRESSED_SUFFIXES if str(path).endswith(s)), None)
    if suffix is None:
        return None
    try:
        with open_binary(path) as stream:
            stream.read(8192)
    except DAMAGE_ERRORS as error:
        if _MAGIC[suffix] == _raw_head(path, len(_MAGIC[suffix])):  # a compressed file, cut or corrupt
            return f"not a valid {suffix[1:]} file: {damaged(error)}"
        return f"not a valid {suffix[1:]} file ({error}): damaged, or not compressed although named {suffix}"
    return None


def open_text(path: str | Path, errors: str = "strict") -> io.TextIOWrapper:
    """A text stream over a (possibly compressed) file, decoded as its byte-order mark says (UTF-8 without)."""
    encoding = encoding_of(read_head(path, 4))
    return io.TextIOWrapper(open_binary(path), encoding=encoding, errors=errors, newline=None)


def read_text(path: str | Path, errors: str = "strict") -> str:
    """The whole text of a file (see `open_text`).

    Raises:
        CollectionFormatError: bytes that are not text in the file's encoding, naming the line (with
            ``errors="strict"``), or a compressed file that is truncated or corrupt.
    """
    return "".join(line for _, line in numbered_lines(path, errors))


def read_json(path: str | Path):
    """The JSON value of a whole file (read as `read_text`).

    Raises:
        CollectionFormatError: not valid JSON (or not text, as `read_text`), naming the file.
    """
    try:
        return json.loads(read_text(path))
    except json.JSONDecodeError as error:
        raise CollectionFormatError(path, f"not valid JSON ({error})") from None


def numbered_lines(path: str | Path, errors: str = "strict") -> Iterator[tuple[int, str]]:
    """``(line number, line)`` for every line of a file (see `open_text`), 1-based.

    Raises:
        CollectionFormatError: as `read_text`.
    """
    number = 0
    encoding = encoding_of(read_head(path, 4))
    try:
        if encoding != "utf-16":  # UTF-8 is decoded line by line, so an error names its own line
            with open_binary(path) as stream:
                for number, raw in enumerate(stream, start=1):
                    if number == 1 and b"\0" in raw and looks_utf16(raw):
                        raise CollectionFormatError(path, f"UTF-16 text without a byte-order mark: {UTF16_HINT}", 1)
                    line = raw.decode("utf-8-sig" if number == 1 else "utf-8", errors)
                    yield number, line.replace("\r\n", "\n")
        else:
            with open_text(path, errors) as stream:
                for number, line in enumerate(stream, start=1):
                    yield number, line
    except UnicodeDecodeError as error:
        raise CollectionFormatError(path, f"not text in the expected encoding ({error.reason})", number) from None
    except DAMAGE_ERRORS as error:
        raise CollectionFormatError(path, f"cannot be read to the end: {damaged(error)}", number + 1) from None


def content_lines(path: str | Path, errors: str = "strict") -> Iterator[tuple[int, str]]:
    """`numbered_lines` without the blank ones."""
    return ((number, line) for number, line in numbered_lines(path, errors) if line.strip())
