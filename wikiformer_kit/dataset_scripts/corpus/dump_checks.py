"""Checks on a whole dump before its shards are planned: a multistream index that belongs to its dump, no part
missing from a multi-file dump.

Both mistakes would otherwise cost a long run: an index from another dump date makes every task decode garbage
(or skip its range as a truncated file), and a missing part silently drops a range of page ids from every dataset.
"""

from __future__ import annotations

import bz2
import re
from collections.abc import Sequence
from pathlib import Path

from wikiformer_kit.dataset_scripts.corpus.formats.base import CorpusFormatError

BZ2_STREAM_MAGIC = re.compile(rb"BZh[1-9]1AY&SY")
"""The first bytes of a bz2 stream: ``BZh``, the block size digit and the first block's magic number."""

PART_NAME = re.compile(r"^(?P<dump>.+?)(?P<part>\d+)\.xml-p(?P<first>\d+)p(?P<last>\d+)\.bz2$")
"""Wikimedia's part file names: ``enwiki-20240601-pages-articles-multistream3.xml-p151574p311329.bz2``."""

PART_INDEX_NAME = re.compile(r"-index\d+\.txt-p\d+p\d+\.bz2$")
"""A part file's multistream index (read with its part, never as an input of its own)."""

_TITLE = re.compile(rb"<title>(.*?)</title>", re.S)


class MultistreamIndexError(CorpusFormatError):
    """A multistream index that does not describe the dump beside it; the message names both files and the
    first offset that does not fit."""


class MissingPartError(CorpusFormatError):
    """A multi-file dump given without one of its parts; the message names the missing page range."""


def part_index(path: Path) -> Path | None:
    """The index of a multistream part file (``...-multistream3.xml-p1p9.bz2`` ->
    ``...-multistream-index3.txt-p1p9.bz2``), if it lies beside it."""
    match = PART_NAME.match(path.name)
    if not match or not match["dump"].endswith("multistream"):
        return None
    name = f"{match['dump']}-index{match['part']}.txt-p{match['first']}p{match['last']}.bz2"
    index = path.with_name(name)
    return index if index.exists() else None


def check_index(dump: str | Path, index: str | Path, offsets: Sequence[int], checked: Sequence[int]) -> None:
    """Refuse an ``offset:id:title`` index that does not belong to the multistream ``dump``.

    Args:
        offsets: every stream offset the index lists, sorted.
        checked: the offsets a task will start reading at (each must start a bz2 stream).

    Raises:
        MultistreamIndexError: the index lists nothing, an offset past the end of the dump or one that does not
            start a bz2 stream, or the first page of the first stream is not the one the index names.
    """
    dump, index = Path(dump), Path(index)
    size = dump.stat().st_size
    where = f"{index.name} does not match {dump.name}"
    if not offsets:
        raise MultistreamIndexError(f"{where}: the index lists no stream ({index})")
    if offsets[-1] >= size:
        raise MultistreamIndexError(f"{where}: offset {offsets[-1]} is past the end of the dump ({size} bytes)")
    with open(dump, "rb") as file:
        for offset in sorted({*checked, offsets[-1]}):
            file.seek(offset)
            if not BZ2_STREAM_MAGIC.match(file.read(10)):
                raise MultistreamIndexError(f"{where}: no bz2 stream starts at offset {offset}")
        first_title = _first_title(file, offsets[0])
    expected = _index_first_title(index)
    if first_title is not None and expected is not None and first_title != expected:
        raise MultistreamIndexError(
            f"{where}: the stream at offset {offsets[0]} starts with page {first_title!r}, the index says {expected!r}"
        )


def _first_title(file, offset: int) -> str | None:
    """The title of the first page in the bz2 stream at ``offset`` (None when the stream holds no title)."""
    import html

    file.seek(offset)
    decompressor, text = bz2.BZ2Decompressor(), b""
    while not decompressor.eof:
        data = file.read(1 << 16)
        if not data:
            break
        text += decompressor.decompress(data)
        match = _TITLE.search(text)
        if match:
            return html.unescape(match.group(1).decode("utf-8", "replace"))
    return None


def _index_first_title(index: Path) -> str | None:
    with bz2.open(index, "rt", encoding="utf-8", errors="replace") as lines:
        for line in lines:
            parts = line.rstrip("\n").split(":", 2)
            if len(parts) == 3 and parts[0].isdigit():
                return parts[2]
    return None


def check_parts(files: Sequence[Path]) -> None:
    """Refuse a multi-file dump with a gap: among files named as Wikimedia names parts (``<dump>N.xml-pApB.bz2``),
    each dump's page ranges must follow one another (``B + 1`` is where the next part starts).

    Raises:
        MissingPartError: naming the dump, the missing page range and the parts on either side of it.
    """
    dumps: dict[str, list[tuple[int, int, Path]]] = {}
    for path in files:
        match = PART_NAME.match(path.name)
        if match:
            dumps.setdefault(match["dump"], []).append((int(match["first"]), int(match["last"]), path))
    for dump, parts in dumps.items():
        parts.sort()
        for (_, last, before), (first, _, after) in zip(parts, parts[1:], strict=False):
            if first != last + 1:
                raise MissingPartError(
                    f"{dump}: the part with pages {last + 1}-{first - 1} is missing (between {before.name} and "
                    f"{after.name}); add it to the inputs"
                )
