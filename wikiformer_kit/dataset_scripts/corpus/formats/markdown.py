"""Markdown files (CommonMark + tables), one document per file, parsed with markdown-it-py.

Mapping onto the Wiki Structure Tree:

- the **title** is the YAML front matter's ``title``, else the first heading when it is a ``#`` (h1), else the
  file stem; that first ``#`` heading is never a section; the id is the file stem;
- a ``#`` heading that is not the title is a level-1 section (directly below the root, like ``##``); ``##`` is
  level 2 (a top-level section, as ``==`` in wikitext), ``###`` level 3, ... ``######`` level 6; Setext
  headings map the same way. Text before the first section heading is the abstract;
- ``[text](target)`` links (inline, reference-style, autolinks, inline ``<a href>``) become :class:`Link` records
  with the sentence they stand in; the links under a "See also" heading are the ``see_also`` targets;
- fenced and indented code blocks and images are left out (not prose); inline code keeps its text; tables keep
  their cell text; raw HTML keeps its text, without script/style;
- blocks (quotes, lists) nested deeper than 100 levels, which markdown-it would silently drop, make the
  document a ``too-deep`` skip.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import yaml
from markdown_it import MarkdownIt
from markdown_it.token import Token

from wikiformer_kit.dataset_scripts.corpus.article import Article
from wikiformer_kit.dataset_scripts.corpus.formats._builder import (
    ArticleBuilder,
    document_id,
    link_target,
    normalize_space,
    plain_suffix,
    read_text_document,
)
from wikiformer_kit.dataset_scripts.corpus.formats.base import ReaderOptions, Redirect, Skipped
from wikiformer_kit.dataset_scripts.corpus.formats.html import fragment_text, inline_anchor_href

NAME = "markdown"
SUFFIXES = (".md", ".markdown", ".mdown", ".mkd", ".mkdn")

_MAX_NESTING = 100
_PARSER = MarkdownIt("commonmark", {"maxNesting": _MAX_NESTING}).enable(["table", "strikethrough"])
_BREAK_AFTER = {"paragraph_close", "list_item_close", "blockquote_close", "tr_close", "hr", "html_block"}
_SKIPPED_SCHEMES = ("mailto:", "javascript:", "tel:", "data:")


def sniff(path: Path, head: bytes) -> bool:
    """Markdown has no signature: recognised by its file suffix."""
    return plain_suffix(path) in SUFFIXES


def read(path: Path, options: ReaderOptions) -> Iterator[Article | Redirect | Skipped]:
    """Read one Markdown file as one Article, or a :class:`Skipped` (``empty``, ``non-utf8``, ``too-large``,
    ``too-deep``, ``truncated``)."""
    text = read_text_document(path, options)
    yield text if isinstance(text, Skipped) else parse(text, path, options)


def parse(text: str, path: Path, options: ReaderOptions) -> Article | Skipped:
    """Turn the Markdown source of one document into an Article (``path``'s stem: the id and fallback title)."""
    front_title, text = _front_matter(text)
    doc_id = document_id(path)
    builder = ArticleBuilder(doc_id, front_title or doc_id, NAME, path, options)
    title_pending = True
    tokens = _PARSER.parse(text)
    if any(token.level >= _MAX_NESTING - 1 for token in tokens):  # markdown-it drops what lies deeper
        return Skipped("too-deep", str(path), doc_id, f"blocks nested deeper than {_MAX_NESTING} levels")
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if token.type == "heading_open":
            level = int(token.tag[1])
            title = _inline_text(tokens[index + 1].children or []) if index + 1 < len(tokens) else ""
            if title_pending and level == 1:
                builder.title = front_title or title or doc_id
            else:
                builder.heading(level, title)
            title_pending = False
            index += 3  # heading_open, inline, heading_close
            continue
        if token.type == "inline":
            _inline(builder, token.children or [])
        elif token.type == "html_block":
            builder.text(fragment_text(token.content))
        elif token.type in ("th_close", "td_close"):
            builder.text(" ")
        if token.type in _BREAK_AFTER:
            builder.paragraph_break()
        index += 1
    return builder.build()


def _front_matter(text: str) -> tuple[str, str]:
    """``(title, rest)``: a leading YAML front matter block is removed and its ``title`` returned."""
    if not text.startswith("---"):
        return "", text
    lines = text.split("\n", 200)
    if lines[0].strip() != "---":
        return "", text
    for number, line in enumerate(lines[1:], start=1):
        if line.strip() in ("---", "..."):
            try:
                meta = yaml.safe_load("\n".join(lines[1:number]))
            except yaml.YAMLError:
                return "", text
            if not isinstance(meta, dict):
                return "", text
            parts = text.split("\n", number + 1)
            title = meta.get("title")
            return (normalize_space(str(title)) if title else ""), (
                parts[number + 1] if len(parts) > number + 1 else ""
            )
    return "", text


def _inline_text(children: list[Token]) -> str:
    parts = [
        child.content if child.type in ("text", "code_inline") else " "
        for child in children
        if child.type in ("text", "code_inline", "softbreak", "hardbreak")
    ]
    return normalize_space("".join(parts))


def _inline(builder: ArticleBuilder, children: list[Token]) -> None:
    """Write a paragraph's inline tokens; link anchors are captured until their closing token."""
    href: str | None = None
    anchor: list[str] = []
    for child in children:
        kind = child.type
        if kind == "link_open" or (kind == "html_inline" and inline_anchor_href(child.content) is not None):
            href = str(child.attrs.get("href", "")) if kind == "link_open" else inline_anchor_href(child.content)
            anchor = []
        elif kind == "link_close" or (kind == "html_inline" and child.content.lower().startswith("</a")):
            if href is not None:
                _emit_link(builder, href, "".join(anchor))
            href = None
        elif kind in ("text", "code_inline", "softbreak", "hardbreak"):
            piece = child.content if kind in ("text", "code_inline") else " "
            if href is not None:
                anchor.append(piece)
            else:
                builder.text(piece)
    if href is not None:  # an unclosed inline <a>: keep its text
        _emit_link(builder, href, "".join(anchor))


def _emit_link(builder: ArticleBuilder, href: str, anchor: str) -> None:
    if not href or href.strip().lower().startswith(_SKIPPED_SCHEMES):
        builder.text(anchor)
    else:
        builder.link(link_target(href), anchor)
