"""The sectioned XML shape shown in the Wikiformer README, streamed with lxml iterparse.

::

    <document id="...">                      (one per file, or many under any root element)
        <title>Main Document Title</title>
        <content>optional lead text</content>  (also <abstract>)
        <section id="sec1">
            <title>Section 1</title>
            <content>Text. See also <reference target="sec2"/></content>
            <section>...nested...</section>
        </section>
    </document>

Mapping onto the Wiki Structure Tree: ``<document><title>`` is the title (else ``title``/``id`` attributes, else
``<file stem>-<n>``); the id is the ``id`` attribute or ``<id>`` child, else ``<file stem>-<n>`` (n counts the
documents of the file from 1); a ``<section>`` directly under the document is level 2 (as ``==`` in wikitext),
each nesting adds one. ``<reference target="X">`` is a :class:`Link` to ``X`` with the sentence it stands in;
its anchor is the element's text, else the title of the section (or document) whose id is ``X``, else ``X``
itself, and that anchor is what the text reads. The references in a "See also" section are the ``see_also``
targets.

Each ``<document>`` is freed once read, so memory stays bounded by one document; libxml2's default limits
(nesting depth 256, 10 MB per text node) stay on. XML that is not well-formed
(or not UTF-8) stops the file with a :class:`Skipped` naming the line; the documents before it are kept.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from lxml import etree

from wikiformer_kit.dataset_scripts.corpus.article import Article
from wikiformer_kit.dataset_scripts.corpus.formats._builder import ArticleBuilder, document_id, normalize_space
from wikiformer_kit.dataset_scripts.corpus.formats.base import ReaderOptions, Redirect, Skipped, open_input

NAME = "xml-sections"
READS_WIDE_TEXT = True
"""Text in UTF-16 is read: the XML parser decodes the encoding the document declares."""

_TEXT_ELEMENTS = ("content", "abstract", "text", "p", "paragraph")


def sniff(path: Path, head: bytes) -> bool:
    """XML whose head holds a ``<document>`` with ``<section>`` or ``<title>`` children (not a MediaWiki dump)."""
    lowered = head.lower()
    return b"<document" in lowered and (b"<section" in lowered or b"<title" in lowered) and b"<mediawiki" not in lowered


def read(path: Path, options: ReaderOptions) -> Iterator[Article | Redirect | Skipped]:
    """Stream the ``<document>`` elements of one XML file: an Article per document with text, else a Skipped."""
    stream = open_input(path)
    count = 0
    line = 0
    with stream:
        try:
            for _, element in etree.iterparse(stream, events=("end",), tag="document"):
                count += 1
                line = element.sourceline or line
                yield _document(element, path, count, options)
                element.clear(keep_tail=True)
                parent = element.getparent()
                while parent is not None and element.getprevious() is not None:
                    del parent[0]
        except etree.XMLSyntaxError as error:
            message = str(error).lower()
            reason = "non-utf8" if "utf-8" in message or "encoding" in message else "malformed-xml"
            if count == 0 and ("document is empty" in message or "no element found" in message):
                reason = "empty"
            where = f"line {error.lineno}" if error.lineno else "start of file"
            yield Skipped(reason, str(path), where, f"{error.msg}; {count} documents read before it")
            return
        except (EOFError, OSError) as error:  # a truncated .bz2/.gz
            yield Skipped("truncated", str(path), f"after line {line}", f"{error}; {count} documents read before it")
            return
    if count == 0:
        yield Skipped("empty", str(path), document_id(path), "no <document> element in the file")


def _document(element: etree._Element, path: Path, number: int, options: ReaderOptions) -> Article | Skipped:
    fallback = f"{document_id(path)}-{number}"
    doc_id = element.get("id") or normalize_space(element.findtext("id") or "") or fallback
    title = normalize_space(element.findtext("title") or "") or element.get("title") or doc_id
    if options.max_article_bytes:
        size = len(etree.tostring(element))
        if size > options.max_article_bytes:
            return Skipped("too-large", str(path), f"{doc_id} ({title})", f"{size} bytes > {options.max_article_bytes}")
    titles = {doc_id: title}
    for section in element.iter("section"):
        if section.get("id"):
            titles[section.get("id")] = normalize_space(section.findtext("title") or "")
    builder = ArticleBuilder(doc_id, title, NAME, path, options, url=element.get("url") or "")
    _children(element, builder, level=2, titles=titles)
    return builder.build()


def _children(parent: etree._Element, builder: ArticleBuilder, level: int, titles: dict[str, str]) -> None:
    """Write the text elements and sections under ``parent``; the title and id children are metadata."""
    for child in parent:
        tag = child.tag if isinstance(child.tag, str) else ""
        if tag == "section":
            builder.heading(level, normalize_space(child.findtext("title") or ""))
            _children(child, builder, level + 1, titles)
        elif tag in ("title", "id", "url") or not tag:
            continue
        else:
            _text(child, builder, titles)
            builder.paragraph_break()


def _text(element: etree._Element, builder: ArticleBuilder, titles: dict[str, str]) -> None:
    """Mixed content in document order: text, ``<reference>`` links, and the text of any other inline element."""
    builder.text(element.text or "")
    for child in element:
        tag = child.tag if isinstance(child.tag, str) else ""
        if tag == "reference":
            target = normalize_space(child.get("target") or "")
            anchor = normalize_space("".join(child.itertext())) or titles.get(target) or target
            if target:
                builder.link(target, anchor)
            else:
                builder.text(anchor)
        elif tag:
            if tag in _TEXT_ELEMENTS:
                builder.paragraph_break()
            _text(child, builder, titles)
        builder.text(child.tail or "")
