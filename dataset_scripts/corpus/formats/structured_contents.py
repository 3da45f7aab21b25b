"""Wikimedia Enterprise Structured Contents: one article a JSON line, already cut into nested parts.

A record has ``name``, ``identifier``, ``url``, ``in_language``, ``abstract`` and its sections (``sections`` in the
snapshots, ``article_sections`` in the API's answers): ``{"type": "section", "name", "has_parts": [...]}``, whose
parts are paragraphs (``value`` with ``links``: ``{"url", "text"}``), lists of list items, and nested sections. It
is shipped as NDJSON files in a ``.tar.gz`` like the HTML dumps and read the same way (streamed, shared by records
between processes: :func:`.enterprise_html.read_records`); a file that sniffing takes for an HTML dump (its first
record's sections lie beyond the bytes sniffed) is read right all the same, as the HTML reader hands a record
without HTML but with sections to this module.

Mapping: a section at depth d is a level d + 1 heading (a top-level section is level 2, as ``==``); a first section
named "Abstract" is the lead (else the record's ``abstract``); every part with a ``value`` is a paragraph, and each
of its links is found in it by its text, in order (a link whose text is not in the value is left out rather than
placed wrongly). A link is kept when its URL is an article of the record's own wiki. Infoboxes are left out.
Structured Contents has **no See also section** (Wikimedia leaves it out), so LTM gets no group from these
articles; the task build says so.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from wikiformer_kit.dataset_scripts.corpus.article import Article
from wikiformer_kit.dataset_scripts.corpus.formats._builder import ArticleBuilder, link_target, normalize_space
from wikiformer_kit.dataset_scripts.corpus.formats.base import ReaderOptions, Redirect, Skipped
from wikiformer_kit.dataset_scripts.corpus.formats.enterprise_html import (
    first_record_line,
    load_record,
    namespaces_of,
    read_records,
    record_language,
)
from wikiformer_kit.dataset_scripts.corpus.titles import classify_link

NAME = "structured-contents"
SPLITS_BY_RECORD = True

_SECTION_KEYS = (b'"sections":', b'"article_sections":', b'"has_parts":', b'"infoboxes":', b'"infobox":')


def sniff(path: Path, head: bytes) -> bool:
    """A Structured Contents record on the first line (in a plain NDJSON file or in the first member of a tar): an
    object with ``name``, ``identifier`` and sections or infoboxes, without an HTML body."""
    first = first_record_line(head)
    return (
        first.startswith(b"{")
        and b'"name"' in first
        and b'"identifier"' in first
        and b'"article_body":' not in first
        and any(key in first for key in _SECTION_KEYS)
    )


def read(
    path: Path, options: ReaderOptions, part: tuple[int, int] | None = None
) -> Iterator[Article | Redirect | Skipped]:
    """Stream the records of a Structured Contents file (NDJSON, or a ``.tar.gz`` of NDJSON members).

    Args:
        path: the file.
        options: reader options (``language`` is the fallback for a record that names none).
        part: ``(k, n)``: parse only every ``n``-th record from the ``k``-th (see :func:`.enterprise_html.read`).

    Yields:
        One :class:`Article` per record, or a :class:`Skipped` naming the file, the member and the line.
    """
    yield from read_records(path, options, parse_record, part)


def parse_record(raw: bytes, file: str, where: str, options: ReaderOptions) -> list[Article | Redirect | Skipped]:
    """One NDJSON line of Structured Contents as its Article, or a :class:`Skipped` naming ``file`` and ``where``."""
    loaded = load_record(raw, file, where, options)
    if isinstance(loaded, Skipped):
        return [loaded]
    return [parse_loaded(*loaded, file, options)]


def has_sections(record: dict[str, Any]) -> bool:
    """Whether a record is a Structured Contents record (it lists its sections)."""
    return isinstance(record.get("sections", record.get("article_sections")), list)


def parse_loaded(record: dict[str, Any], where: str, file: str, options: ReaderOptions) -> Article | Skipped:
    """The Article of one decoded Structured Contents record, or a :class:`Skipped` naming ``file`` and ``where``."""
    sections = record.get("sections", record.get("article_sections"))
    if not isinstance(sections, list):
        return Skipped("no-sections", file, where, "no sections or article_sections list in the record")
    language = record_language(record) or options.language
    title = record.get("name") if isinstance(record.get("name"), str) else ""
    url = record.get("url") if isinstance(record.get("url"), str) else ""
    builder = ArticleBuilder(str(record.get("identifier") or where), title or where, NAME, file,
                             replace(options, language=language), url=url)  # fmt: skip
    writer = _PartWriter(builder, urlsplit(url).netloc, language)
    parts = [part for part in sections if isinstance(part, dict)]
    if parts and parts[0].get("type") == "section" and normalize_space(str(parts[0].get("name"))) == "Abstract":
        writer.parts(parts[0].get("has_parts"), depth=1)
        parts = parts[1:]
    elif isinstance(record.get("abstract"), str):
        builder.text(record["abstract"])
    writer.parts(parts, depth=0)
    article = builder.build()
    return Skipped(article.reason, file, where, article.detail) if isinstance(article, Skipped) else article


class _PartWriter:
    """Writes nested parts to the builder in order (iteratively: no recursion limit on deep nesting)."""

    def __init__(self, builder: ArticleBuilder, netloc: str, language: str):
        self.builder, self.netloc, self.namespaces = builder, netloc, namespaces_of(language)

    def parts(self, parts: Any, depth: int) -> None:
        """Write ``parts`` found at section depth ``depth`` (0: directly under the article)."""
        stack = [(part, depth) for part in reversed(parts if isinstance(parts, list) else [])]
        while stack:
            part, level = stack.pop()
            if not isinstance(part, dict):
                continue
            inner = level
            if part.get("type") == "section":
                self.builder.heading(level + 2, normalize_space(str(part.get("name") or "")))
                inner = level + 1
            elif isinstance(part.get("value"), str):
                self.paragraph(part["value"], part.get("links"))
            children = part.get("has_parts")
            if isinstance(children, list):
                stack.extend((child, inner) for child in reversed(children))

    def paragraph(self, value: str, links: Any) -> None:
        """One paragraph, its links placed where their text first stands after the previous link."""
        cursor = 0
        for link in links if isinstance(links, list) else []:
            text, target = self._link(link)
            at = value.find(text, cursor) if text else -1
            if at < 0:
                continue
            self.builder.text(value[cursor:at])
            if target:
                self.builder.link(target, text)
            else:
                self.builder.text(text)
            cursor = at + len(text)
        self.builder.text(value[cursor:])
        self.builder.paragraph_break()

    def _link(self, link: Any) -> tuple[str, str]:
        """A link's text and, when it is an article of the record's wiki, its target title ("" otherwise)."""
        if not isinstance(link, dict) or not isinstance(link.get("text"), str) or not isinstance(link.get("url"), str):
            return "", ""
        parts = urlsplit(link["url"])
        if not parts.path.startswith("/wiki/") or (self.netloc and parts.netloc and parts.netloc != self.netloc):
            return link["text"], ""
        target = link_target(link["url"])
        return link["text"], target if classify_link(target, self.namespaces) == "article" else ""
