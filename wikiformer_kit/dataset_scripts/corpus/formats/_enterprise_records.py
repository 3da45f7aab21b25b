"""The records of the Wikimedia Enterprise dumps (HTML and Structured Contents), shipped the same way: NDJSON files
or tars of NDJSON members (each may be compressed on its own: ``.ndjson.gz``), one record a line; read line by line,
shared between processes by records or by byte ranges, and the fields both record shapes carry (language,
categories). A UTF-8 byte-order mark before a file's or a member's first line is read past."""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import tarfile
import zlib
from collections.abc import Callable, Iterable, Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any

from wikiformer_kit.dataset_scripts.corpus.article import Article
from wikiformer_kit.dataset_scripts.corpus.formats.base import (
    ReaderOptions,
    Redirect,
    Skipped,
    open_input,
    read_head,
    without_bom,
)
from wikiformer_kit.dataset_scripts.corpus.mediawiki_languages import namespace_names
from wikiformer_kit.dataset_scripts.corpus.titles import ENGLISH, Namespaces

_TAR_MAGIC = slice(257, 262)
TOO_DEEP = "the record nests deeper than Python's recursion limit lets it be read; the records around it are kept"
NO_TITLE = "the record's name is missing, null or not a string (a title is never made up: it would be an ATI query)"
RecordParser = Callable[[bytes, str, str, ReaderOptions], list[Article | Redirect | Skipped]]
_BROKEN = (EOFError, OSError, zlib.error, lzma.LZMAError, tarfile.TarError)
_COMPRESSED_SUFFIXES = (".gz", ".bz2", ".xz")
_GZIP_MAGIC = b"\x1f\x8b\x08"
_MEMBER_DECOMPRESSORS = {".gz": gzip.GzipFile, ".bz2": bz2.BZ2File, ".xz": lzma.LZMAFile}
"""Tar members compressed one by one (``wiki_0.ndjson.gz``), read by the suffix of their name."""


def _is_tar(head: bytes) -> bool:
    return head[_TAR_MAGIC] == b"ustar"


def first_record_line(head: bytes) -> bytes:
    """The first line of a file's head, or of its first tar member's (as far as the head reaches; a member
    compressed with gzip is decompressed as far as it reaches)."""
    if _is_tar(head):
        head = _first_member_head(head)
    return without_bom(head).lstrip().split(b"\n", 1)[0]


def _first_member_head(head: bytes) -> bytes:
    """The start of a tar's first NDJSON member as far as a tar's ``head`` holds it (past the member headers)."""
    plain, packed = head.find(b'{"', 512), head.find(_GZIP_MAGIC, 512)
    if packed >= 0 and (plain < 0 or packed < plain):
        try:
            return zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(head[packed:])
        except zlib.error:
            return b""
    return head[plain:] if plain >= 0 else b""


def names_a_record(first: bytes) -> bool:
    """Whether a first line is a JSON object with the ``name`` and ``identifier`` every Enterprise record has."""
    return first.startswith(b"{") and b'"name"' in first and b'"identifier"' in first


def is_plain_ndjson(path: Path) -> bool:
    """Whether a file is NDJSON as it is: not compressed, not a tar."""
    if str(path).endswith(_COMPRESSED_SUFFIXES):
        return False
    try:
        with open(path, "rb") as stream:
            head = stream.read(512)
    except OSError:
        return False
    return not _is_tar(head) and first_record_line(head).startswith(b"{")


def read_records(
    path: Path,
    options: ReaderOptions,
    parse: RecordParser,
    part: tuple[int, int] | None = None,
    byte_range: tuple[int, int] | None = None,
) -> Iterator[Article | Redirect | Skipped]:
    """The records of an NDJSON file or of a tar of NDJSON members, each line given to ``parse(raw, file, where,
    options)`` (``where`` names the member and line); ``part`` and ``byte_range`` as in ``enterprise_html.read``. Shared with the
    other Wikimedia Enterprise formats, which are shipped the same way."""
    if byte_range is not None:
        yield from read_byte_range(path, options, parse, *byte_range)
        return
    selector = _RecordSelector(*(part or (0, 1)))
    is_tar = _is_tar(read_head(path, 512))
    records = _read_tar(path, options, selector, parse) if is_tar else _read_plain(path, options, selector, parse)
    for record in records:
        if not (isinstance(record, Skipped) and record.reason == "truncated" and selector.part):
            yield record


class _RecordSelector:
    """Which records of a file this reader parses: every ``parts``-th, from ``part``."""

    def __init__(self, part: int, parts: int):
        if not 0 <= part < parts:
            raise ValueError(f"part {part} of {parts}: need 0 <= part < parts")
        self.part, self.parts, self.seen = part, parts, 0

    def take(self) -> bool:
        """Whether the next record is this reader's."""
        mine = self.seen % self.parts == self.part
        self.seen += 1
        return mine


def _read_plain(
    path: Path, options: ReaderOptions, selector: _RecordSelector, parse: RecordParser
) -> Iterator[Article | Redirect | Skipped]:
    with open_input(path) as stream:
        yield from _read_lines(stream, path, "", options, selector, parse)


def _read_tar(
    path: Path, options: ReaderOptions, selector: _RecordSelector, parse: RecordParser
) -> Iterator[Article | Redirect | Skipped]:
    member_name = ""
    try:
        with tarfile.open(str(path), mode="r|*") as archive:
            for member in archive:
                member_name = member.name
                if not member.isfile():
                    continue
                stream = archive.extractfile(member)
                if stream is None:
                    continue
                decompressor = _MEMBER_DECOMPRESSORS.get(Path(member.name).suffix.lower())
                stream = decompressor(fileobj=stream) if decompressor is not None else stream
                for record in _read_lines(stream, path, member.name, options, selector, parse):
                    yield record
                    if isinstance(record, Skipped) and record.reason == "truncated":
                        return  # the archive breaks off here: nothing after it can be read
    except _BROKEN as error:
        yield Skipped("truncated", str(path), member_name, f"cannot read the archive further: {error}")


def _read_lines(
    stream: Iterable[bytes],
    path: Path,
    member: str,
    options: ReaderOptions,
    selector: _RecordSelector,
    parse: RecordParser,
) -> Iterator[Article | Redirect | Skipped]:
    """The records of one NDJSON stream; a stream that breaks off ends with ``Skipped(reason="truncated")``."""
    lines = iter(stream)
    number = 0
    while True:
        where = f"{member} line {number + 1}" if member else f"line {number + 1}"
        try:
            raw = next(lines)
        except StopIteration:
            return
        except _BROKEN as error:
            yield Skipped("truncated", str(path), where, f"cannot read further: {error}")
            return
        if number == 0:
            raw = without_bom(raw)
        number += 1
        if raw.strip() and selector.take():
            yield from parse(raw, str(path), where, options)


def read_byte_range(
    path: Path, options: ReaderOptions, parse: RecordParser, start: int, end: int
) -> Iterator[Article | Redirect | Skipped]:
    """The records of the lines of a plain NDJSON file that start in ``[start, end)`` (``end`` -1: the end of the
    file): a line that starts before ``start`` belongs to the range before, however far it reaches into this one,
    so that ranges cut anywhere read every line once. Each is named by its first byte (``line at byte N``)."""
    with open(path, "rb") as stream:
        offset = start
        if start > 0:
            stream.seek(start - 1)
            if stream.read(1) != b"\n":
                offset += len(stream.readline())  # the rest of a line the range before reads
        while end < 0 or offset < end:
            raw = stream.readline()
            if not raw:
                return
            where = f"line at byte {offset}"
            raw, offset = (without_bom(raw) if offset == 0 else raw), offset + len(raw)
            if raw.strip():
                yield from parse(raw, str(path), where, options)


def load_record(raw: bytes, file: str, where: str, options: ReaderOptions) -> tuple[dict[str, Any], str] | Skipped:
    """One NDJSON line as its JSON object and ``where`` with the record's name added, or the Skipped saying why
    not (``too-large``, ``non-utf8``, ``bad-json``, ``too-deep``, ``bad-record``)."""
    if options.max_article_bytes and len(raw) > options.max_article_bytes:
        return Skipped("too-large", file, where, f"{len(raw)} bytes > max_article_bytes={options.max_article_bytes}")
    try:
        record = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as error:
        return Skipped("non-utf8", file, where, f"invalid UTF-8 at byte {error.start} of the line")
    except json.JSONDecodeError as error:
        return Skipped("bad-json", file, where, f"{error.msg} at column {error.colno}")
    except RecursionError:
        return Skipped("too-deep", file, where, TOO_DEEP)
    if not isinstance(record, dict):
        return Skipped("bad-record", file, where, "not a JSON object")
    title = record.get("name") if isinstance(record.get("name"), str) else ""
    return record, (f"{where} ({title})" if title else where)


def record_category_titles(record: dict[str, Any]) -> list[str]:
    """The category titles of a record's own ``categories`` list (``[{"name": "Kategorie:Name", "url": ...}]``), with
    their namespace; entries without a name are left out."""
    entries = record.get("categories")
    if not isinstance(entries, list):
        return []
    return [entry["name"] for entry in entries if isinstance(entry, dict) and isinstance(entry.get("name"), str)]


def record_language(record: dict[str, Any]) -> str:
    """The language code a record names: ``in_language.identifier``, else its wiki's (``is_part_of``: ``dewiki`` →
    ``de``, ``zh_yuewiki`` → ``zh-yue``); empty when it names neither."""
    language = record_field(record, "in_language", "identifier")
    if isinstance(language, str) and language.strip():
        return language.strip()
    wiki = record_field(record, "is_part_of", "identifier")
    if isinstance(wiki, str) and wiki.endswith("wiki") and len(wiki) > 4:
        return wiki[: -len("wiki")].replace("_", "-")
    return ""


def record_field(record: dict[str, Any], outer: str, inner: str) -> Any:
    value = record.get(outer)
    return value.get(inner) if isinstance(value, dict) else None


@lru_cache(maxsize=64)
def namespaces_of(language: str) -> Namespaces:
    """English namespace names with those MediaWiki knows for ``language``."""
    aliases = namespace_names(language)
    return ENGLISH.with_aliases(aliases) if aliases else ENGLISH
