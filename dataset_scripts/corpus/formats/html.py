"""HTML files, one document per file, parsed with lxml.html (which recovers from malformed markup).

Mapping onto the Wiki Structure Tree:

- the **title** is the first heading when it is an ``h1``, else ``<title>``, else the file stem; the id is the
  file stem. An ``h1`` that is not the title is a level-1 section (directly below the root); ``h2`` is level 2
  (a top-level section, as ``==`` in wikitext) down to ``h6``. Text before the first section heading is the
  abstract;
- ``<a href>`` links become :class:`Link` records with the sentence they stand in (Wikipedia URLs ``/wiki/Title``
  and Parsoid ``./Title`` give the page title); the links under a "See also" heading are the ``see_also``
  targets; links inside headings keep only their text;
- ``script``, ``style``, ``nav``, ``noscript``, ``template``, ``svg`` and embedded objects are dropped, as are
  comments and Wikipedia's edit links and reference markers; block elements end a paragraph.
- malformed markup is repaired by libxml2 as browsers do; a page nested deeper than libxml2's limit (2048
  elements with ``huge_tree``), whose deeper content libxml2 would drop, is skipped with reason ``too-deep``.

Encoding: UTF-8; a file that is not UTF-8 but declares its charset (``<meta charset>``) is decoded with that
charset; otherwise it is skipped with reason ``non-utf8``.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterator
from pathlib import Path

import lxml.etree
import lxml.html

from wikiformer_kit.dataset_scripts.corpus.article import Article
from wikiformer_kit.dataset_scripts.corpus.formats._builder import (
    ArticleBuilder,
    decode_document,
    document_id,
    link_target,
    normalize_space,
    plain_suffix,
    read_document,
)
from wikiformer_kit.dataset_scripts.corpus.formats._element_text import visible_text
from wikiformer_kit.dataset_scripts.corpus.formats.base import ReaderOptions, Redirect, Skipped

NAME = "html"
SUFFIXES = (".html", ".htm", ".xhtml")

_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_DROPPED = {"script", "style", "nav", "noscript", "template", "svg", "iframe", "object", "embed", "canvas",
            "select", "button", "head", "math"}  # fmt: skip
_DROPPED_CLASSES = {"mw-editsection", "reference", "mw-references-wrap", "noprint", "navbox"}
_BLOCKS = {"p", "div", "li", "ul", "ol", "dl", "dt", "dd", "table", "tr", "section", "article", "blockquote",
           "pre", "header", "footer", "main", "aside", "figure", "figcaption", "form", "fieldset", "address",
           "hr", "br", "body", "details", "summary", "caption", "center"}  # fmt: skip
_CELLS = {"td", "th"}
_SKIPPED_SCHEMES = ("mailto:", "javascript:", "tel:", "data:")
_DECLARED_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.IGNORECASE)
_FRAGMENT_OPTIONS = ReaderOptions()


def sniff(path: Path, head: bytes) -> bool:
    """An HTML suffix, or a document starting with ``<!DOCTYPE html`` / ``<html``."""
    start = head.lstrip()[:200].lower()
    return plain_suffix(path) in SUFFIXES or start.startswith((b"<!doctype html", b"<html"))


def read(path: Path, options: ReaderOptions) -> Iterator[Article | Redirect | Skipped]:
    """Read one HTML file as one article.

    Args:
        path: the HTML file.
        options: reader options.

    Yields:
        The :class:`Article`, or a :class:`Skipped` (``empty``, ``non-utf8``, ``too-large``, ``too-deep``,
        ``truncated``).
    """
    data = read_document(path)
    text = data if isinstance(data, Skipped) else decode_document(data, path, options)
    if isinstance(text, Skipped) and text.reason == "non-utf8" and isinstance(data, bytes):
        text = _decode_declared(data) or text
    if isinstance(text, Skipped):
        yield text
        return
    yield parse(text, path, options)


def _decode_declared(data: bytes) -> str | None:
    """The document decoded with the charset its ``<meta>`` declares, when it declares a known one."""
    match = _DECLARED_CHARSET.search(data[:4096])
    if not match:
        return None
    try:
        return data.decode(codecs.lookup(match.group(1).decode("ascii")).name)
    except (LookupError, UnicodeDecodeError):
        return None


def parse(text: str, path: Path, options: ReaderOptions) -> Article | Skipped:
    """Turn the text of one HTML document into an Article.

    Args:
        text: the HTML source.
        path: its file (the id and the fallback title are its stem).
        options: reader options.
    """
    doc_id = document_id(path)
    builder = ArticleBuilder(doc_id, doc_id, NAME, path, options)
    parser = lxml.html.HTMLParser(encoding="utf-8", remove_comments=True, remove_pis=True, huge_tree=True)
    try:
        root = lxml.html.document_fromstring(text.encode("utf-8"), parser=parser)
    except (lxml.etree.ParserError, ValueError):
        return Skipped("empty", str(path), doc_id, "no HTML content")
    too_deep = [error for error in parser.error_log if error.type_name == "ERR_RESOURCE_LIMIT"]
    if too_deep:  # libxml2 silently drops what lies deeper than its limit: skip rather than lose text
        return Skipped("too-deep", str(path), doc_id, f"line {too_deep[0].line}: {too_deep[0].message}")
    page_title = root.findtext(".//title")
    if page_title and normalize_space(page_title):
        builder.title = normalize_space(page_title)
    first_heading = next((el for el in root.iter(*_HEADINGS) if not _inside_dropped(el)), None)
    walk(
        root, builder, title_heading=first_heading if first_heading is not None and first_heading.tag == "h1" else None
    )
    return builder.build()


def walk(root: lxml.html.HtmlElement, builder: ArticleBuilder, title_heading=None) -> None:
    """Write an element tree to the builder in document order (iteratively: no recursion limit on deep pages).

    Args:
        root: the element to walk.
        builder: receives text, links, paragraph breaks and headings.
        title_heading: the heading element that is the article title rather than a section.
    """
    stack: list[tuple[lxml.html.HtmlElement, bool]] = [(root, False)]
    while stack:
        element, closing = stack.pop()
        if closing:
            if element.tag in _BLOCKS:
                builder.paragraph_break()
            elif element.tag in _CELLS:
                builder.text(" ")
            builder.text(element.tail or "")
            continue
        tag = element.tag if isinstance(element.tag, str) else ""
        if not tag or _is_dropped(element):
            builder.text(element.tail or "")
            continue
        if tag in _HEADINGS:
            title = _element_text(element)
            if element is title_heading:
                builder.title = title or builder.title
            else:
                builder.heading(_HEADINGS[tag], title)
            builder.text(element.tail or "")
            continue
        if tag == "a" and element.get("href") is not None:
            href = element.get("href", "")
            anchor = _element_text(element)
            if href.strip().lower().startswith(_SKIPPED_SCHEMES) or not href.strip():
                builder.text(anchor)
            else:
                builder.link(link_target(href), anchor)
            builder.text(element.tail or "")
            continue
        if tag in _BLOCKS:
            builder.paragraph_break()
        builder.text(element.text or "")
        stack.append((element, True))
        stack.extend((child, False) for child in reversed(element))


def _is_dropped(element: lxml.html.HtmlElement) -> bool:
    if element.tag in _DROPPED:
        return True
    classes = element.get("class")
    return bool(classes) and not _DROPPED_CLASSES.isdisjoint(classes.split())


def _inside_dropped(element: lxml.html.HtmlElement) -> bool:
    return _is_dropped(element) or any(_is_dropped(ancestor) for ancestor in element.iterancestors())


def _element_text(element: lxml.html.HtmlElement) -> str:
    """Visible text of an element, without dropped descendants (block children separated by a space)."""
    return visible_text(element, _BLOCKS, _left_out)


def _left_out(element: lxml.html.HtmlElement) -> str | None:
    return "" if _is_dropped(element) else None


def fragment_text(markup: str) -> str:
    """Plain text of an HTML fragment (e.g. a raw HTML block inside Markdown), without script/style."""
    try:
        fragment = lxml.html.fragment_fromstring(markup, create_parent="div")
    except (lxml.etree.ParserError, ValueError):
        return ""
    collector = ArticleBuilder("", "", NAME, "", options=_FRAGMENT_OPTIONS)
    walk(fragment, collector)
    parts = ["".join(collector.abstract.parts)]
    for _, title, block in collector.headings:
        parts += [title, "".join(block.parts)]
    return normalize_space(" ".join(parts))


def inline_anchor_href(tag: str) -> str | None:
    """The ``href`` of a raw ``<a ...>`` start tag (as Markdown passes inline HTML through), else None."""
    if not tag[:3].lower().startswith("<a") or not (tag[2:3].isspace() or tag[2:3] == ">"):
        return None
    try:
        anchor = lxml.html.fragment_fromstring(tag + "</a>")
    except (lxml.etree.ParserError, ValueError):
        return None
    return anchor.get("href") if anchor.tag == "a" else None
