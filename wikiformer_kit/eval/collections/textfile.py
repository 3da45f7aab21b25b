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
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from wikiformer_kit.eval.collections.errors import CollectionFormatError

COMPRESSED_SUFFIXES = (".gz", ".bz2", ".xz")
"""Single compressed files, read through (an archive of several files is `eval.collections.archive`'s job)."""

_BOMS = ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))


def open_binary(path: str | Path) -> BinaryIO:
    """The bytes of a file, decompressed when it ends in ``.gz``, ``.bz2`` or ``.xz``."""
    name = str(path)
    if name.endswith(".gz"):
        return gzip.open(path, "rb")
    if name.endswith(".bz2"):
        return bz2.open(path, "rb")
    if name.endswith(".xz"):
        return lzma.open(path, "rb")
    return open(path, "rb")


def encoding_of(head: bytes) -> str:
    """The text encoding a file's first bytes declare with a byte-order mark; UTF-8 without one."""
    return next((encoding for bom, encoding in _BOMS if head.startswith(bom)), "utf-8")


def read_head(path: str | Path, size: int = 8192) -> bytes:
    """The first ``size`` bytes of a file, decompressed; empty when the file cannot be read."""
    try:
        with open_binary(path) as stream:
            return stream.read(size)
    except (OSError, EOFError, lzma.LZMAError):
        return b""


def compression_damage(path: str | Path) -> str | None:
    """Why a file named ``.gz``, ``.bz2`` or ``.xz`` cannot be decompressed (damaged, or not compressed at all),
    or None when it can (or is not named as compressed)."""
    suffix = next((s for s in COMPRESSED_SUFFIXES if str(path).endswith(s)), None)
    if suffix is None:
        return None
    try:
        with open_binary(path) as stream:
            stream.read(8192)
    except (OSError, EOFError, lzma.LZMAError) as error:
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
                    line = raw.decode("utf-8-sig" if number == 1 else "utf-8", errors)
                    yield number, line.replace("\r\n", "\n")
        else:
            with open_text(path, errors) as stream:
                for number, line in enumerate(stream, start=1):
                    yield number, line
    except UnicodeDecodeError as error:
        raise CollectionFormatError(path, f"not text in the expected encoding ({error.reason})", number) from None
    except (EOFError, OSError, lzma.LZMAError) as error:
        raise CollectionFormatError(path, f"cannot be read to the end ({error})", number + 1) from None
