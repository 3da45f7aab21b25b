"""WikiExtractor text output: ``<doc id url title>`` blocks, one paragraph a line, section titles as ``## Title.``.

This is the format of the original Wikiformer demo data (WikiExtractor with section titles marked by one ``#``
per wikitext level). The reader streams the file line by line, one document at a time:

- a heading is a line made of ``#`` characters only, a space and text; its level is the number of ``#`` (``##``
  is a top-level section, as ``==`` in wikitext); WikiExtractor's added trailing ``.`` is removed (it adds one
  unless the title ends with ``!`` or ``?``). A level jump attaches to the nearest shallower section.
- the first line after ``<doc ...>`` repeats the title and is dropped;
- the text is HTML-unescaped (WikiExtractor escapes ``&``, ``<`` and ``>``); links written by
  ``--links`` (``<a href="Target">anchor</a>``) become :class:`Link` records;
- wikitext that WikiExtractor let through (``[[links]]``, ``<ref>`` fragments, ``{{templates}}``, category lines)
  is parsed with mwparserfromhell: link text is kept (and the link recorded), the rest removed;
- a document with no text, a document without ``</doc>``, or bytes that are not UTF-8 yield a counted
  :class:`Skipped` naming the file and the document; nothing is dropped silently.
"""

from __future__ import annotations

import html
import lzma
import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import mwparserfromhell
from mwparserfromhell.nodes import Comment, ExternalLink, HTMLEntity, Tag, Template, Text, Wikilink

from wikiformer_kit.dataset_scripts.corpus.article import Article
from wikiformer_kit.dataset_scripts.corpus.formats._builder import ArticleBuilder
from wikiformer_kit.dataset_scripts.corpus.formats.base import ReaderOptions, Redirect, Skipped, open_input, without_bom
from wikiformer_kit.dataset_scripts.corpus.titles import classify_link, normalize_title

NAME = "wikiextractor-text"

_DOC_OPEN = re.compile(r'^<doc id="(?P<id>[^"]*)"(?: revid="[^"]*")? url="(?P<url>[^"]*)" title="(?P<title>.*)">\s*$')
_DOC_OPEN_LOOSE = re.compile(r"^<doc(?:\s|>)")
_ATTRIBUTE = re.compile(r'(\w+)="([^"]*)"')
_HEADING = re.compile(r"^(?P<hashes>#+) +(?P<title>\S.*?)\s*$")
# WikiExtractor --links writes <a href="Target">anchor</a> and, as its output is HTML-escaped, usually as
# &lt;a href="Target"&gt;anchor&lt;/a&gt;: both forms are links.
_ANCHOR = re.compile(r'(?:<|&lt;)a href="(?P<href>[^"]*)"(?:>|&gt;)(?P<anchor>.*?)(?:<|&lt;)/a(?:>|&gt;)')
_WIKITEXT_SIGNS = ("[[", "]]", "{{", "}}", "'''", "''", "<ref", "</ref", "{|", "|}", "<!--")
_LEFTOVER_TOKENS = re.compile(r"\[\[|\]\]|\{\{|\}\}|\{\||\|\}|'''?|</?ref\b[^>]*>?")
_REFER_TO = re.compile(r"\bmay (?:also )?refer to:?$")
_DROPPED_TAGS = {"ref", "references", "gallery", "math", "score", "syntaxhighlight", "timeline", "templatedata"}


def sniff(path: Path, head: bytes) -> bool:
    """Whether the file starts with a WikiExtractor ``<doc ...>`` line."""
    return head.lstrip().startswith(b"<doc ")


def read(path: Path, options: ReaderOptions) -> Iterator[Article | Redirect | Skipped]:
    """Stream the documents of one WikiExtractor text file, plain or compressed (its ``--compress`` writes
    ``.bz2``): an Article per document with text, else a Skipped with the reason."""
    handle = open_input(path)
    with handle:
        yield from _read_lines(path, handle, options)


def _read_lines(path: Path, lines: Iterable[bytes], options: ReaderOptions) -> Iterator[Article | Skipped]:
    header: dict[str, str] | None = None
    body: list[bytes] = []
    size = 0
    number = 0
    for raw in readable_lines(path, lines):
        if isinstance(raw, Skipped):  # the stream broke (a truncated .bz2): report it and the open document
            if header is not None:
                yield Skipped("unterminated", str(path), _record(header), f"the file breaks off at line {number + 1}")
            yield raw
            return
        number += 1
        stripped = raw.strip()
        if header is None:
            if not stripped:
                continue
            header = _parse_header(raw)
            if header is None:
                yield Skipped("stray-line", str(path), f"line {number}", "text outside any <doc> block")
                continue
            header["line"] = str(number)
            body, size = [], 0
        elif stripped == b"</doc>":
            yield _document(path, header, body, size, options)
            header = None
        elif raw.startswith((b"<doc ", b"<doc>")):
            yield Skipped("unterminated", str(path), _record(header), f"no </doc> before line {number}")
            header = _parse_header(raw) or {"id": f"line {number}", "title": "", "url": ""}
            header["line"] = str(number)
            body, size = [], 0
        else:
            size += len(raw)
            if not options.max_article_bytes or size <= options.max_article_bytes:
                body.append(raw)
    if header is not None:
        yield Skipped("unterminated", str(path), _record(header), "file ends before </doc> (truncated?)")


def readable_lines(path: Path, lines: Iterable[bytes]) -> Iterator[bytes | Skipped]:
    """The lines of a stream, then a ``Skipped(reason="truncated")`` instead of an exception if the stream breaks
    (a truncated ``.bz2``/``.gz`` raises ``EOFError`` part way, a damaged ``.xz`` ``LZMAError``); a UTF-8 byte-order
    mark before the first line is dropped."""
    iterator = iter(lines)
    number = 0
    while True:
        try:
            raw = next(iterator)
        except StopIteration:
            return
        except (EOFError, OSError, lzma.LZMAError) as error:
            yield Skipped("truncated", str(path), f"line {number + 1}", f"cannot read further: {error}")
            return
        number += 1
        yield without_bom(raw) if number == 1 else raw


def read_line_records(
    path: Path, options: ReaderOptions, record: Callable[[Path, int, str, ReaderOptions], Article | Skipped]
) -> Iterator[Article | Skipped]:
    """Stream a one-record-a-line file: ``record(path, number, line, options)`` for each non-blank line.

    A line over ``max_article_bytes`` or with bytes that are not UTF-8 yields :class:`Skipped` naming the file and
    the line number instead; a stream that breaks off yields ``Skipped(reason="truncated")`` (see
    :func:`readable_lines`).
    """
    with open_input(path) as handle:
        for number, raw in enumerate(readable_lines(path, handle), start=1):
            if isinstance(raw, Skipped):
                yield raw
            elif raw.strip():
                yield _decoded_record(path, number, raw, options, record)


def _decoded_record(
    path: Path,
    number: int,
    raw: bytes,
    options: ReaderOptions,
    record: Callable[[Path, int, str, ReaderOptions], Article | Skipped],
) -> Article | Skipped:
    where = f"line {number}"
    if options.max_article_bytes and len(raw) > options.max_article_bytes:
        return Skipped("too-large", str(path), where, f"{len(raw)} bytes > {options.max_article_bytes}")
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        return Skipped("non-utf8", str(path), where, f"invalid UTF-8 at byte {error.start} of the line")
    return record(path, number, line, options)


def _parse_header(raw: bytes) -> dict[str, str] | None:
    try:
        line, valid = raw.decode("utf-8").strip(), "yes"
    except UnicodeDecodeError:
        line, valid = raw.decode("utf-8", "replace").strip(), ""
    match = _DOC_OPEN.match(line)
    if match:
        return {**match.groupdict(), "utf8": valid}
    if _DOC_OPEN_LOOSE.match(line):
        attributes = dict(_ATTRIBUTE.findall(line))
        return {"id": attributes.get("id", ""), "url": attributes.get("url", ""), "title": attributes.get("title", ""),
                "utf8": valid}  # fmt: skip
    return None


def _record(header: dict[str, str]) -> str:
    return f"{header.get('id', '')} ({header.get('title', '')})"


def _document(
    path: Path, header: dict[str, str], body: list[bytes], size: int, options: ReaderOptions
) -> Article | Skipped:
    if options.max_article_bytes and size > options.max_article_bytes:
        return Skipped("too-large", str(path), _record(header), f"{size} bytes > {options.max_article_bytes}")
    if not header.get("utf8"):
        return Skipped("non-utf8", str(path), _record(header), "invalid UTF-8 in the <doc> line")
    try:
        lines = b"".join(body).decode("utf-8").split("\n")
    except UnicodeDecodeError as error:
        return Skipped("non-utf8", str(path), _record(header), f"invalid UTF-8 in the document: {error.reason}")
    doc_id = header["id"] or f"{path.name}:{header['line']}"
    builder = ArticleBuilder(doc_id, header["title"], NAME, path, options, url=header["url"])
    if lines and lines[0].strip() == header["title"].strip():
        lines = lines[1:]
    parse_body(builder, lines)
    return mark_disambiguation(builder.build())


def mark_disambiguation(record: Article | Skipped) -> Article | Skipped:
    """Flag an English disambiguation page: WikiExtractor removed its templates, so the signs left are the title
    suffix "(disambiguation)" and a lead whose last line is "X may (also) refer to:"."""
    if isinstance(record, Article):
        last_line = record.abstract.rsplit("\n", 1)[-1]
        record.is_disambiguation = record.title.endswith("(disambiguation)") or bool(_REFER_TO.search(last_line))
    return record


def parse_body(builder: ArticleBuilder, lines: Iterable[str]) -> None:
    """Feed WikiExtractor body lines (HTML-escaped, one paragraph a line; those after the repeated title) to an
    :class:`ArticleBuilder`."""
    for line in lines:
        heading = _HEADING.match(line)
        if heading:
            title = html.unescape(heading.group("title"))
            builder.heading(len(heading.group("hashes")), title[:-1] if title.endswith(".") else title)
            continue
        _paragraph(builder, line)
        builder.paragraph_break()


def _paragraph(builder: ArticleBuilder, line: str) -> None:
    position = 0
    for match in _ANCHOR.finditer(line):
        _plain(builder, html.unescape(line[position : match.start()]))
        _wiki_link(builder, html.unescape(match.group("href")), html.unescape(match.group("anchor")))
        position = match.end()
    _plain(builder, html.unescape(line[position:]))


def _plain(builder: ArticleBuilder, text: str) -> None:
    if not any(sign in text for sign in _WIKITEXT_SIGNS):
        builder.text(text)
        return
    # WikiExtractor left raw wikitext here: parse it rather than guess with patterns.
    for node in mwparserfromhell.parse(text).nodes:
        _wikitext_node(builder, node)


def _wiki_link(builder: ArticleBuilder, target: str, anchor: str) -> None:
    """A link to a Wikipedia page: the target as the title it resolves to; links to files, categories, other
    namespaces, other languages or the same page keep (at most) their text."""
    kind = classify_link(target)
    if kind == "article":
        builder.link(normalize_title(target), anchor)
    elif kind in ("other", "self"):
        builder.text(anchor)


def _wikitext_node(builder: ArticleBuilder, node) -> None:
    if isinstance(node, Text):
        builder.text(_LEFTOVER_TOKENS.sub("", node.value))
    elif isinstance(node, Wikilink):
        target = str(node.title).strip()
        anchor = node.text.strip_code() if node.text is not None else target.lstrip(":")
        _wiki_link(builder, target, _LEFTOVER_TOKENS.sub("", anchor))
    elif isinstance(node, ExternalLink):
        builder.text(node.title.strip_code() if node.title is not None else "")
    elif isinstance(node, HTMLEntity):
        builder.text(node.normalize())
    elif isinstance(node, Tag):
        if str(node.tag).lower() not in _DROPPED_TAGS and node.contents is not None:
            for child in node.contents.nodes:
                _wikitext_node(builder, child)
    elif isinstance(node, (Template, Comment)):
        return
    else:
        builder.text(_LEFTOVER_TOKENS.sub("", node.__strip__(normalize=True, collapse=True) or ""))
