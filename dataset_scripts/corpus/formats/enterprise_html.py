"""Wikimedia Enterprise HTML dumps: ``<wiki>-NS0-<date>-ENTERPRISE-HTML.json.tar.gz`` as Wikimedia ships them,
or their NDJSON members (``.ndjson``/``.jsonl``, optionally ``.gz``/``.bz2``/``.xz``).

The archive is a tar (gzip-compressed) of NDJSON files, one article a line: ``name``, ``identifier``, ``url``,
``in_language.identifier``, ``is_part_of.identifier``, ``version``, ``redirects``, ``categories`` and
``article_body.html``, the page as Parsoid renders it (every template expanded: the words editors put in templates
are in the text), often ``article_body.wikitext`` too. The tar is read as a stream, member by member and line by
line: nothing is unpacked to disk and no more than one record is in memory. Several processes share one archive
by records (``read``'s ``part``), counted across its members: gzip cannot be cut by bytes, so a process given whole
members would still decompress the archive up to them, and parsing, not decompressing, is the cost (gunzip, tar and
line splitting are about 7% of the parse, the lines alone 2%); records keep the processes within one record of
each other however the members differ in size, and an archive of one member is shared as well as one of many.

Each record becomes one :class:`Article` (see :mod:`._parsoid` for what is kept and dropped): id = ``identifier``,
title = ``name``, the language from ``in_language`` (else ``is_part_of``: ``dewiki`` → ``de``), which picks the
See also names and the namespace names. The page's ``redirects`` become :class:`Redirect` records, so that links
to a redirect resolve as they do in an XML dump. A disambiguation page (``mw:PageProp/disambiguation``, or a
disambiguation category of the record's language) is flagged. The categories are recorded by name, without their
namespace and sort key: those of the HTML's ``link[rel="mw:PageProp/Category"]`` in page order (every category,
the ones templates add included), then those of the record's own ``categories`` list (``{"name": "Kategorie:...",
"url": ...}``, as records of the Enterprise API carry it) that the HTML lacks. The See also section is found by
its heading, or, for a language whose heading the tables lack, by its structure (:mod:`._parsoid_see_also`), as in
the wikitext path.

A bad record never stops the file: invalid JSON, a record with no ``article_body.html``, a page outside namespace
0, bytes that are not UTF-8 or a line over ``max_article_bytes`` yield :class:`Skipped` naming the file, the
member and the line; an archive that breaks off yields ``Skipped(reason="truncated")`` after the records before
the break.
"""

from __future__ import annotations

import json
import lzma
import tarfile
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from wikiformer_kit.dataset_scripts.corpus.article import Article
from wikiformer_kit.dataset_scripts.corpus.disambiguation import is_disambiguation
from wikiformer_kit.dataset_scripts.corpus.formats._builder import ArticleBuilder
from wikiformer_kit.dataset_scripts.corpus.formats._parsoid import ParsoidWalker, page_marks, parse_document
from wikiformer_kit.dataset_scripts.corpus.formats._parsoid_see_also import see_also_by_structure
from wikiformer_kit.dataset_scripts.corpus.formats.base import ReaderOptions, Redirect, Skipped, open_input, read_head
from wikiformer_kit.dataset_scripts.corpus.mediawiki_languages import namespace_names
from wikiformer_kit.dataset_scripts.corpus.see_also import FOUND_BY_NAME, FOUND_BY_STRUCTURE, knows_language
from wikiformer_kit.dataset_scripts.corpus.titles import ENGLISH, Namespaces, categories_from_titles, normalize_title

NAME = "enterprise-html"
SPLITS_BY_RECORD = True
"""A gzip archive cannot be cut by bytes: several processes share one file by records (``read``'s ``part``); a plain
NDJSON file is cut into byte ranges instead (``read``'s ``byte_range``: :func:`splits_by_bytes`)."""

_TAR_MAGIC = slice(257, 262)
_RECORD_KEYS = (b'"article_body"', b'"in_language"', b'"is_part_of"', b'"main_entity"', b'"namespace"')
RecordParser = Callable[[bytes, str, str, ReaderOptions], list[Article | Redirect | Skipped]]
_BROKEN = (EOFError, OSError, zlib.error, lzma.LZMAError, tarfile.TarError)
_COMPRESSED_SUFFIXES = (".gz", ".bz2", ".xz")


def _is_tar(head: bytes) -> bool:
    return head[_TAR_MAGIC] == b"ustar"


def sniff(path: Path, head: bytes) -> bool:
    """An Enterprise record on the first line (an object with ``name``, ``identifier`` and one of the fields only
    Enterprise records carry), in a plain NDJSON file or in the first member of a tar."""
    first = first_record_line(head)
    return (
        first.startswith(b"{")
        and b'"name"' in first
        and b'"identifier"' in first
        and any(key in first for key in _RECORD_KEYS)
    )


def first_record_line(head: bytes) -> bytes:
    """The first line of a file's head, or of its first tar member's (as far as the head reaches)."""
    if _is_tar(head):
        start = head.find(b'{"', 512)
        head = head[start:] if start >= 0 else b""
    return head.lstrip().split(b"\n", 1)[0]


def read(
    path: Path,
    options: ReaderOptions,
    part: tuple[int, int] | None = None,
    byte_range: tuple[int, int] | None = None,
) -> Iterator[Article | Redirect | Skipped]:
    """Stream the records of an Enterprise HTML dump file (a ``.json.tar.gz`` or an NDJSON file).

    Args:
        path: the file.
        options: reader options (``language`` is the fallback for a record that names none).
        part: ``(k, n)`` to parse only the records ``k``, ``k + n``, ``k + 2n``, ... of the file (counted over all its
            members, blank lines not counted), so that ``n`` processes share one archive; the others are read past
            unparsed. A break in the archive is reported by part 0 only.
        byte_range: ``(start, end)`` of a plain NDJSON file (``end`` -1: to its end): only the lines that start in
            it are read (:func:`read_byte_range`), so that processes share a file without reading it whole.

    Yields:
        The page's Redirects then its :class:`Article` for each record, or a :class:`Skipped` naming the file,
        the member and the line (in a byte range, the line's first byte).
    """
    yield from read_records(path, options, parse_record, part, byte_range)


def splits_by_bytes(path: Path) -> bool:
    """Whether a file can be cut into byte ranges: a plain NDJSON file (:func:`is_plain_ndjson`)."""
    return is_plain_ndjson(path)


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
    options)`` (``where`` names the member and line); ``part`` and ``byte_range`` as in :func:`read`. Shared with the
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
            offset += len(raw)
            if raw.strip():
                yield from parse(raw, str(path), where, options)


def parse_record(raw: bytes, file: str, where: str, options: ReaderOptions) -> list[Article | Redirect | Skipped]:
    """One NDJSON line of an Enterprise dump as its Redirects and Article, or a :class:`Skipped` naming ``file``
    and ``where`` (the member and line)."""
    loaded = load_record(raw, file, where, options)
    if isinstance(loaded, Skipped):
        return [loaded]
    record, where = loaded
    title = record.get("name") if isinstance(record.get("name"), str) else ""
    html = _field(record, "article_body", "html")
    if not isinstance(html, str) or not html.strip():
        # the same dumps in their other shape: sniffing sees only a file's first bytes, the record says what it is
        from wikiformer_kit.dataset_scripts.corpus.formats import structured_contents

        if structured_contents.has_sections(record):
            return [structured_contents.parse_loaded(record, where, file, options)]
        return [
            Skipped("no-html", file, where, "no article_body.html (nor Structured Contents sections) in the record")
        ]
    namespace = _field(record, "namespace", "identifier")
    if namespace not in (None, 0, "0"):
        return [Skipped("not-an-article", file, where, f"namespace {namespace}, not 0")]
    language = record_language(record) or options.language
    article = parse_page(html, record, file, where, replace(options, language=language))
    redirects = [
        Redirect(normalize_title(entry["name"]), normalize_title(title))
        for entry in record.get("redirects") or []
        if title and isinstance(entry, dict) and isinstance(entry.get("name"), str) and entry["name"].strip()
    ]
    return [*redirects, article]


def load_record(raw: bytes, file: str, where: str, options: ReaderOptions) -> tuple[dict[str, Any], str] | Skipped:
    """One NDJSON line as its JSON object and ``where`` with the record's name added, or the Skipped saying why
    not (``too-large``, ``non-utf8``, ``bad-json``, ``bad-record``)."""
    if options.max_article_bytes and len(raw) > options.max_article_bytes:
        return Skipped("too-large", file, where, f"{len(raw)} bytes > max_article_bytes={options.max_article_bytes}")
    try:
        record = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as error:
        return Skipped("non-utf8", file, where, f"invalid UTF-8 at byte {error.start} of the line")
    except json.JSONDecodeError as error:
        return Skipped("bad-json", file, where, f"{error.msg} at column {error.colno}")
    if not isinstance(record, dict):
        return Skipped("bad-record", file, where, "not a JSON object")
    title = record.get("name") if isinstance(record.get("name"), str) else ""
    return record, (f"{where} ({title})" if title else where)


def parse_page(html: str, record: dict[str, Any], file: str, where: str, options: ReaderOptions) -> Article | Skipped:
    """The Article of one record's Parsoid HTML (``options.language`` is the record's language)."""
    title = record.get("name") if isinstance(record.get("name"), str) else ""
    page_id = str(record.get("identifier") or where)
    tree = parse_document(html)
    if tree is None:
        return Skipped("empty", file, where, "no HTML content")
    url = record.get("url") if isinstance(record.get("url"), str) else ""
    builder = ArticleBuilder(page_id, title or page_id, NAME, file, options, url=url)
    body = tree.body
    ParsoidWalker(builder, namespaces_of(options.language)).walk(body if body is not None else tree.root)
    article = builder.build()
    if isinstance(article, Skipped):
        return Skipped(article.reason, file, where, article.detail)
    marks = page_marks(tree)
    categories = marks.categories + record_category_titles(record)
    article.is_disambiguation = marks.is_disambiguation or any(
        is_disambiguation(f"[[{category}]]", options.language) for category in categories
    )
    article.categories = categories_from_titles(categories)
    if article.see_also:
        article.see_also_found_by = FOUND_BY_NAME
    elif not (options.see_also_titles or article.is_disambiguation or knows_language(options.language)):
        found = see_also_by_structure(body if body is not None else tree.root, namespaces_of(options.language))
        if found and found[1]:
            article.see_also, article.see_also_found_by = found[1], FOUND_BY_STRUCTURE
    return article


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
    language = _field(record, "in_language", "identifier")
    if isinstance(language, str) and language.strip():
        return language.strip()
    wiki = _field(record, "is_part_of", "identifier")
    if isinstance(wiki, str) and wiki.endswith("wiki") and len(wiki) > 4:
        return wiki[: -len("wiki")].replace("_", "-")
    return ""


def _field(record: dict[str, Any], outer: str, inner: str) -> Any:
    value = record.get(outer)
    return value.get(inner) if isinstance(value, dict) else None


@lru_cache(maxsize=64)
def namespaces_of(language: str) -> Namespaces:
    """English namespace names with those MediaWiki knows for ``language``."""
    aliases = namespace_names(language)
    return ENGLISH.with_aliases(aliases) if aliases else ENGLISH
