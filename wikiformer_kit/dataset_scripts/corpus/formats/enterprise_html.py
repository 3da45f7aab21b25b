"""Wikimedia Enterprise HTML dumps: ``<wiki>-NS0-<date>-ENTERPRISE-HTML.json.tar.gz`` as Wikimedia ships them,
or their NDJSON members (``.ndjson``/``.jsonl``, optionally ``.gz``/``.bz2``/``.xz``).

The archive is a tar (gzip-compressed) of NDJSON files, one article a line (``name``, ``identifier``, ``url``,
``in_language``, ``is_part_of``, ``redirects``, ``categories``, ``article_body.html``: the page as Parsoid renders
it, every template expanded), read as a stream, one record in memory at a time, and shared between processes by
records (``read``'s ``part``; why records: docs/corpus-and-datasets.md). Each record becomes one :class:`Article`
(:mod:`._parsoid`: what is kept and dropped) and its ``redirects`` :class:`Redirect` records; the categories are
those of the HTML's ``mw:PageProp/Category`` links in page order, then those of the record's own ``categories``
list that the HTML lacks. A bad record never stops the file: it is a :class:`Skipped` naming the file, the member
and the line; an archive that breaks off ends with ``Skipped(reason="truncated")``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from wikiformer_kit.dataset_scripts.corpus.article import Article
from wikiformer_kit.dataset_scripts.corpus.disambiguation import is_disambiguation
from wikiformer_kit.dataset_scripts.corpus.formats import structured_contents
from wikiformer_kit.dataset_scripts.corpus.formats._builder import ArticleBuilder
from wikiformer_kit.dataset_scripts.corpus.formats._enterprise_records import (
    NO_TITLE,
    first_record_line,
    is_plain_ndjson,
    load_record,
    names_a_record,
    namespaces_of,
    read_records,
    record_category_titles,
    record_field,
    record_language,
)
from wikiformer_kit.dataset_scripts.corpus.formats._parsoid import ParsoidWalker, page_marks, parse_document
from wikiformer_kit.dataset_scripts.corpus.formats._parsoid_see_also import see_also_by_structure
from wikiformer_kit.dataset_scripts.corpus.formats.base import ReaderOptions, Redirect, Skipped
from wikiformer_kit.dataset_scripts.corpus.see_also import FOUND_BY_NAME, FOUND_BY_STRUCTURE, knows_language
from wikiformer_kit.dataset_scripts.corpus.titles import categories_from_titles, normalize_title

NAME = "enterprise-html"
SPLITS_BY_RECORD = True
"""A gzip archive cannot be cut by bytes: several processes share one file by records (``read``'s ``part``); a plain
NDJSON file is cut into byte ranges instead (``read``'s ``byte_range``: :func:`splits_by_bytes`)."""

_RECORD_KEYS = (b'"article_body"', b'"in_language"', b'"is_part_of"', b'"main_entity"', b'"namespace"')


def sniff(path: Path, head: bytes) -> bool:
    """An Enterprise record on the first line (an object with ``name``, ``identifier`` and one of the fields only
    Enterprise records carry), in a plain NDJSON file or in the first member of a tar."""
    first = first_record_line(head)
    return names_a_record(first) and any(key in first for key in _RECORD_KEYS)


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


def parse_record(raw: bytes, file: str, where: str, options: ReaderOptions) -> list[Article | Redirect | Skipped]:
    """One NDJSON line of an Enterprise dump as its Redirects and Article, or a :class:`Skipped` naming ``file``
    and ``where`` (the member and line)."""
    loaded = load_record(raw, file, where, options)
    if isinstance(loaded, Skipped):
        return [loaded]
    record, where = loaded
    title = record.get("name") if isinstance(record.get("name"), str) else ""
    html = record_field(record, "article_body", "html")
    if not isinstance(html, str) or not html.strip():
        # the same dumps in their other shape: sniffing sees only a file's first bytes, the record says what it is
        if structured_contents.has_sections(record):
            return [structured_contents.parse_loaded(record, where, file, options)]
        return [
            Skipped("no-html", file, where, "no article_body.html (nor Structured Contents sections) in the record")
        ]
    namespace = record_field(record, "namespace", "identifier")
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


def parse_page(html: str, record: dict[str, Any], file: str, where: str, options: ReaderOptions) -> Article | Skipped:
    """The Article of one record's Parsoid HTML (``options.language`` is the record's language)."""
    title = record.get("name") if isinstance(record.get("name"), str) else ""
    if not title.strip():
        return Skipped("no-title", file, where, NO_TITLE)
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
    # as the wikitext path sees them: the categories written in the page, not those its templates or MediaWiki add
    # (hidden and tracking categories); a page whose HTML marks none keeps the record's list
    article.categories = categories_from_titles(marks.written_categories if marks.categories else categories)
    if article.see_also:
        article.see_also_found_by = FOUND_BY_NAME
    elif not (options.see_also_titles or article.is_disambiguation or knows_language(options.language)):
        found = see_also_by_structure(body if body is not None else tree.root, namespaces_of(options.language))
        if found and found[1]:
            article.see_also, article.see_also_found_by = found[1], FOUND_BY_STRUCTURE
    return article
