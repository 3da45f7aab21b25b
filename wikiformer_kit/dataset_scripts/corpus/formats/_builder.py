"""Shared by the structured-format readers: assemble an :class:`Article` from a document walked in order.

A reader feeds plain text, links, paragraph breaks and headings in document order; the builder keeps the text
clean (whitespace collapsed, one paragraph per line), records each link's character span, and at the end cuts
the sentence each link stands in, builds the section tree with :func:`tree.build_sections`, and collects the
See also targets. Readers of every format therefore produce identical records for identical structure.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

from wikiformer_kit.dataset_scripts.corpus.article import ROOT, Article, Link
from wikiformer_kit.dataset_scripts.corpus.formats.base import ReaderOptions, Skipped, open_input
from wikiformer_kit.dataset_scripts.corpus.see_also import heading_key, see_also_names
from wikiformer_kit.dataset_scripts.corpus.sentences import sentence_spans
from wikiformer_kit.dataset_scripts.corpus.titles import normalize_title
from wikiformer_kit.dataset_scripts.corpus.tree import build_sections

COMPRESSION_SUFFIXES = (".bz2", ".gz", ".xz")

_WIKI_PATH = re.compile(r"(?:^|/)wiki/(?P<title>[^?#]+)")


def normalize_space(text: str) -> str:
    """Collapse every run of whitespace (newlines included) to one space and strip the ends."""
    return " ".join(text.split())


def link_target(href: str) -> str:
    """The target a hyperlink names: an in-page ``#anchor`` as written; a Wikipedia article URL (``/wiki/Title``,
    ``https://en.wikipedia.org/wiki/Title``, Parsoid's ``./Title``) as the page title with spaces; any other
    reference percent-decoded as written."""
    href = href.strip()
    if href.startswith("#"):
        return unquote(href)
    parts = urlsplit(href)
    match = _WIKI_PATH.search(parts.path)
    if match and (not parts.netloc or parts.netloc.endswith("wikipedia.org")):
        return normalize_title(match.group("title"))
    if not parts.scheme and not parts.netloc and parts.path.startswith("./"):
        return normalize_title(parts.path[2:])
    return unquote(href)


@dataclass
class _PendingLink:
    target: str
    anchor: str
    start: int
    end: int


@dataclass
class TextBlock:
    """The plain text of one node (the abstract or one section) with the character spans of its links."""

    parts: list[str] = field(default_factory=list)
    links: list[_PendingLink] = field(default_factory=list)
    length: int = 0
    last: str = "\n"  # the last character written; "\n" at the start so that leading spaces are dropped

    def add_text(self, text: str) -> tuple[int, int]:
        """Append text (whitespace collapsed); returns the span it occupies."""
        if not text:
            return self.length, self.length
        words = text.split()  # str.split is several times faster than a regex on long texts
        collapsed = (" " if text[0].isspace() else "") + " ".join(words) + (" " if words and text[-1].isspace() else "")
        if self.last in " \n":
            collapsed = collapsed.lstrip(" ")
        if not collapsed:
            return self.length, self.length
        start = self.length + (len(collapsed) - len(collapsed.lstrip(" ")))
        end = self.length + len(collapsed.rstrip(" "))
        self.parts.append(collapsed)
        self.length += len(collapsed)
        self.last = collapsed[-1]
        return start, max(start, end)

    def add_link(self, target: str, anchor: str) -> None:
        """Append a link's anchor text and remember the link (an empty target is kept as text only)."""
        anchor_text = normalize_space(anchor)
        start, end = self.add_text(anchor_text)
        target = normalize_space(target)
        if target:
            self.links.append(_PendingLink(target, anchor_text, start, end))

    def paragraph_break(self) -> None:
        """End the current paragraph (no-op at the start or after another break)."""
        if self.last == "\n":
            return
        if self.last == " ":
            self.parts[-1] = self.parts[-1][:-1]
            self.length -= 1
        self.parts.append("\n")
        self.length += 1
        self.last = "\n"

    def finish(self, section: int) -> tuple[str, list[Link]]:
        """The block's text (trailing whitespace removed) and its links with their sentences."""
        text = "".join(self.parts).rstrip()
        links: list[Link] = []
        if self.links:
            spans = sentence_spans(text)
            starts = [s for s, _ in spans]
            for pending in self.links:
                first = spans[max(0, bisect.bisect_right(starts, pending.start) - 1)]
                last = spans[max(0, bisect.bisect_right(starts, max(pending.start, pending.end - 1)) - 1)]
                sentence = text[first[0] : max(first[1], last[1])].strip()
                links.append(Link(target=pending.target, anchor=pending.anchor, sentence=sentence, section=section))
        return text, links


class ArticleBuilder:
    """Collects one document in reading order and turns it into an :class:`Article` (or a :class:`Skipped` naming
    ``file``); ``title`` may be set later (e.g. once the first heading is seen), ``source`` is the format name."""

    def __init__(self, id: str, title: str, source: str, file: Path | str, options: ReaderOptions, url: str = ""):
        self.id = id
        self.title = title
        self.source = source
        self.file = str(file)
        self.options = options
        self.url = url
        self.abstract = TextBlock()
        self.headings: list[tuple[int, str, TextBlock]] = []

    @property
    def block(self) -> TextBlock:
        """The block text is currently written to: the last section's, or the abstract before any heading."""
        return self.headings[-1][2] if self.headings else self.abstract

    def text(self, text: str) -> None:
        """Append plain text to the current block."""
        self.block.add_text(text)

    def link(self, target: str, anchor: str) -> None:
        """Append a link (its anchor is part of the text) to the current block."""
        self.block.add_link(target, anchor)

    def paragraph_break(self) -> None:
        """End the current paragraph."""
        self.block.paragraph_break()

    def heading(self, level: int, title: str) -> None:
        """Start a new section; ``level`` on the wikitext scale (2 = a top-level section)."""
        self.headings.append((max(1, level), normalize_space(title), TextBlock()))

    def build(self) -> Article | Skipped:
        """The finished Article, or ``Skipped(reason="empty")`` when the document has no text at all."""
        title = normalize_space(self.title) or self.id
        abstract, links = self.abstract.finish(ROOT)
        texts: list[tuple[int, str, str]] = []
        for index, (level, heading, block) in enumerate(self.headings):
            section_text, section_links = block.finish(index)
            texts.append((level, heading, section_text))
            links.extend(section_links)
        if not abstract and not any(text for _, _, text in texts):
            return Skipped("empty", self.file, record=f"{self.id} ({title})", detail="no text in the document")
        sections = build_sections(title, texts)
        see_also_sections = set()
        names = see_also_names(self.options.language, self.options.see_also_titles)
        for index, section in enumerate(sections):
            if heading_key(section.title) in names or section.parent in see_also_sections:
                see_also_sections.add(index)
        see_also = list(dict.fromkeys(link.target for link in links if link.section in see_also_sections))
        return Article(
            id=self.id,
            title=title,
            abstract=abstract,
            sections=sections,
            links=links,
            see_also=see_also,
            url=self.url,
            source=self.source,
            language=self.options.language,
        )


def _without_compression(path: Path) -> str:
    name = path.name
    for compression in COMPRESSION_SUFFIXES:
        if name.lower().endswith(compression):
            name = name[: -len(compression)]
    return name


def plain_suffix(path: Path) -> str:
    """The file suffix that names the format, ignoring a compression suffix (``page.html.gz`` → ``.html``)."""
    return Path(_without_compression(path)).suffix.lower()


def document_id(path: Path) -> str:
    """The id (and fallback title) of a one-document file: its name without suffixes (``notes.md.gz`` → ``notes``)."""
    return Path(_without_compression(path)).stem


def read_document(path: Path) -> bytes | Skipped:
    """All bytes of a one-document file, decompressed when it is ``.bz2``/``.gz``/``.xz``.

    A file that cannot be opened raises :class:`CorpusFormatError` naming it; a compressed file that breaks off or
    is corrupt gives ``Skipped(reason="truncated")``.
    """
    stream = open_input(path)
    try:
        with stream:
            return stream.read()
    except (OSError, EOFError) as error:
        return Skipped("truncated", str(path), document_id(path), f"cannot decompress: {error}")


def decode_document(data: bytes, path: Path, options: ReaderOptions, record: str = "") -> str | Skipped:
    """Decode one whole document, or say why it is skipped (``record``, default :func:`document_id`, names it).

    Bytes that are not UTF-8 give ``Skipped(reason="non-utf8")`` naming the byte offset: a counted skip rather
    than a silent replacement that would put U+FFFD into training text. A byte-order mark is dropped.
    """
    record = record or document_id(path)
    if options.max_article_bytes and len(data) > options.max_article_bytes:
        return Skipped(
            "too-large", str(path), record, f"{len(data)} bytes > max_article_bytes={options.max_article_bytes}"
        )
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        return Skipped("non-utf8", str(path), record, f"invalid UTF-8 at byte {error.start}: {error.reason}")


def read_text_document(path: Path, options: ReaderOptions, fallback=None) -> str | Skipped:
    """The text of a one-document file (:func:`read_document`, :func:`decode_document`), or why it is skipped;
    ``fallback(data)`` decodes bytes that are not UTF-8 another way, or returns ``None``."""
    data = read_document(path)
    if isinstance(data, Skipped):
        return data
    text = decode_document(data, path, options)
    if isinstance(text, Skipped) and text.reason == "non-utf8" and fallback is not None:
        return fallback(data) or text
    return text
