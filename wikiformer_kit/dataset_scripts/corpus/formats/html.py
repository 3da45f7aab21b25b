"""HTML files, one document per file, parsed by lexbor through selectolax (an HTML5 parser).

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
- malformed markup is repaired as browsers repair it, at any depth (the page is walked without recursion).

Encoding: UTF-8; a file that is not UTF-8 but declares its charset (``<meta charset>``) is decoded with that
charset; otherwise it is skipped with reason ``non-utf8``.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterator
from pathlib import Path

from selectolax.lexbor import LexborHTMLParser, LexborNode

from wikiformer_kit.dataset_scripts.corpus.article import Article
from wikiformer_kit.dataset_scripts.corpus.formats._builder import (
    ArticleBuilder,
    document_id,
    link_target,
    normalize_space,
    plain_suffix,
    read_text_document,
)
from wikiformer_kit.dataset_scripts.corpus.formats._element_text import visible_text, walk_elements
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
_HEADING_SELECTOR = ", ".join(_HEADINGS)
_TEXT = "-text"  # selectolax's tag of a text node; comments and doctypes start with "-" or "!"


def sniff(path: Path, head: bytes) -> bool:
    """An HTML suffix, or a document starting with ``<!DOCTYPE html`` / ``<html``."""
    start = head.lstrip()[:200].lower()
    return plain_suffix(path) in SUFFIXES or start.startswith((b"<!doctype html", b"<html"))


def read(path: Path, options: ReaderOptions) -> Iterator[Article | Redirect | Skipped]:
    """Read one HTML file as one Article, or a :class:`Skipped` (``empty``, ``non-utf8``, ``too-large``,
    ``truncated``)."""
    text = read_text_document(path, options, _decode_declared)
    yield text if isinstance(text, Skipped) else parse(text, path, options)


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
    """Turn the HTML source of one document into an Article (``path``'s stem: the id and fallback title)."""
    doc_id = document_id(path)
    if not text.strip():
        return Skipped("empty", str(path), doc_id, "no HTML content")
    builder = ArticleBuilder(doc_id, doc_id, NAME, path, options)
    tree = LexborHTMLParser(text)
    title = tree.css_first("title")
    page_title = normalize_space(title.text(deep=True)) if title is not None else ""
    if page_title:
        builder.title = page_title
    first_heading = next((node for node in tree.css(_HEADING_SELECTOR) if not _inside_dropped(node)), None)
    title_heading = first_heading if first_heading is not None and first_heading.tag == "h1" else None
    walk(tree.root, builder, title_heading=title_heading)
    return builder.build()


def walk(root: LexborNode, builder: ArticleBuilder, title_heading: LexborNode | None = None) -> None:
    """Write an element tree to the builder in document order (iteratively: no recursion limit on deep pages);
    ``title_heading`` is the heading element that is the article title rather than a section."""
    title_id = title_heading.mem_id if title_heading is not None else None

    def enter(node: LexborNode) -> bool:
        tag = node.tag
        if tag == _TEXT:
            builder.text(node.text_content or "")
            return False
        if tag[0] in "-!":
            return False
        attributes = node.attributes
        if _is_dropped(tag, attributes):
            return False
        if tag in _HEADINGS:
            title = _element_text(node)
            if node.mem_id == title_id:
                builder.title = title or builder.title
            else:
                builder.heading(_HEADINGS[tag], title)
            return False
        if tag == "a" and "href" in attributes:
            href = attributes.get("href") or ""
            anchor = _element_text(node)
            if href.strip().lower().startswith(_SKIPPED_SCHEMES) or not href.strip():
                builder.text(anchor)
            else:
                builder.link(link_target(href), anchor)
            return False
        if tag in _BLOCKS:
            builder.paragraph_break()
        return True

    walk_elements(root, enter, lambda node: _close(node.tag, builder))


def _close(tag: str, builder: ArticleBuilder) -> None:
    if tag in _BLOCKS:
        builder.paragraph_break()
    elif tag in _CELLS:
        builder.text(" ")


def _is_dropped(tag: str, attributes: dict[str, str | None]) -> bool:
    if tag in _DROPPED:
        return True
    classes = attributes.get("class")
    return bool(classes) and not _DROPPED_CLASSES.isdisjoint(classes.split())


def _inside_dropped(node: LexborNode) -> bool:
    while node is not None and node.tag[0] not in "-!":
        if _is_dropped(node.tag, node.attributes):
            return True
        node = node.parent
    return False


def _element_text(element: LexborNode) -> str:
    """Visible text of an element, without dropped descendants (block children separated by a space)."""
    return visible_text(element, _BLOCKS, _left_out)


def _left_out(element: LexborNode, tag: str) -> str | None:
    return "" if _is_dropped(tag, element.attributes) else None


def fragment_text(markup: str) -> str:
    """Plain text of an HTML fragment (e.g. a raw HTML block inside Markdown), without script/style."""
    if not markup.strip():
        return ""
    body = LexborHTMLParser(markup).body
    if body is None:
        return ""
    collector = ArticleBuilder("", "", NAME, "", options=_FRAGMENT_OPTIONS)
    walk(body, collector)
    parts = ["".join(collector.abstract.parts)]
    for _, title, block in collector.headings:
        parts += [title, "".join(block.parts)]
    return normalize_space(" ".join(parts))


def inline_anchor_href(tag: str) -> str | None:
    """The ``href`` of a raw ``<a ...>`` start tag (as Markdown passes inline HTML through), else None."""
    if not tag[:3].lower().startswith("<a") or not (tag[2:3].isspace() or tag[2:3] == ">"):
        return None
    anchor = LexborHTMLParser(tag + "</a>").css_first("a")
    return anchor.attributes.get("href") if anchor is not None else None
