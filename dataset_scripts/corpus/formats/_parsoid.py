"""Parsoid HTML (the HTML MediaWiki renders from wikitext, every template expanded) written to an ArticleBuilder.

Parsoid marks what a page is made of, so the reader keeps the prose and drops the rest by those marks:

- sections are ``<section data-mw-section-id>`` elements, each opened by its heading (``h2``-``h6``: level 2-6,
  as ``==`` to ``======`` in wikitext); text before the first heading is the lead (the abstract);
- links are ``a[rel~="mw:WikiLink"]``: the target is the page the ``title`` attribute names (else ``href``
  ``./Title``, query dropped, so a red link ``./Title?action=edit&redlink=1`` stays a link to the missing page);
  a link to another namespace or to the page itself keeps its text only, as in the wikitext path;
- dropped with what they hold: references (``sup.reference``, ``ol.references``, ``.mw-references-wrap``),
  hatnotes (``role="note"``, ``.hatnote``, ``.navigation-not-searchable``), navboxes, infoboxes, tables, figures and
  their captions, galleries, ``style``/``script``/``link``/``meta``, maintenance boxes (``.ambox``, ``.metadata``,
  the other message boxes), edit links, hidden elements (``display:none``), and source code (``syntaxhighlight``),
  which the wikitext path leaves out too;
- math (``mw:Extension/math``) is written as its alt text (the TeX source), not as the MathML it renders to;
- ``<meta property="mw:PageProp/disambiguation">`` marks a disambiguation page, ``<link rel="mw:PageProp/Category">``
  its categories.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import lxml.etree

from wikiformer_kit.dataset_scripts.corpus.formats._builder import ArticleBuilder, link_target, normalize_space
from wikiformer_kit.dataset_scripts.corpus.formats._element_text import visible_text
from wikiformer_kit.dataset_scripts.corpus.titles import Namespaces, classify_link, normalize_title

HEADINGS = {"h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_DROPPED_TAGS = {"style", "script", "link", "meta", "table", "figure", "figcaption", "img", "audio", "video",
                 "svg", "noscript", "template", "head", "title", "caption", "iframe", "object", "embed", "map",
                 "button"}  # fmt: skip
_DROPPED_CLASSES = {
    "reference", "mw-ref", "references", "mw-references-wrap", "reflist", "refbegin", "mw-cite-backlink",
    "hatnote", "dablink", "rellink", "navigation-not-searchable", "shortdescription",
    "navbox", "navbox-styles", "vertical-navbox", "navbar", "sidebar", "infobox", "taxobox", "sistersitebox", "portal",
    "ambox", "ombox", "tmbox", "cmbox", "imbox", "fmbox", "mbox-small", "metadata", "noprint",
    "mw-editsection", "mw-empty-elt", "thumb", "gallery", "toc", "mw-kartographer-maplink", "mwe-math-mathml-inline",
    "mwe-math-mathml-display",
}  # fmt: skip
_DROPPED_ROLES = {"note", "navigation"}
_DROPPED_TYPEOF = ("mw:File", "mw:Image", "mw:Extension/ref", "mw:Extension/references", "mw:Extension/gallery",
                   "mw:Extension/templatestyles", "mw:Extension/graph", "mw:Extension/timeline",
                   "mw:Extension/mapframe", "mw:Extension/imagemap", "mw:Extension/syntaxhighlight",
                   "mw:Extension/source", "mw:Extension/score")  # fmt: skip
_MATH_TYPEOF = "mw:Extension/math"
_BLOCKS = {"p", "div", "li", "ul", "ol", "dl", "dt", "dd", "tr", "section", "article", "blockquote", "pre", "header",
           "footer", "main", "aside", "hr", "br", "body", "details", "summary", "center", "h1"}  # fmt: skip
_UNREAD_ELEMENTS = re.compile(r"<(head|style|script)\b[^>]*>.*?</\1\s*>", re.S | re.I)
# Parsoid writes one space before each attribute: a literal space lets the regex skip ahead (4x faster than \s)
_UNREAD_ATTRIBUTES = re.compile(r""" (?:data-mw|data-parsoid|data-mw-i18n|srcset)=(?:'[^']*'|"[^"]*")""")
_HIDDEN = re.compile(r"display\s*:\s*none", re.I)
_DISPLAYSTYLE = re.compile(r"^\{\\displaystyle\s*(.*)\}$", re.S)


@dataclass
class PageMarks:
    """What a Parsoid page says about itself beyond its text."""

    is_disambiguation: bool = False
    categories: list[str] = field(default_factory=list)


def parse_document(html: str) -> tuple[lxml.etree._Element | None, str]:
    """The element tree of a Parsoid document (libxml2 repairs malformed markup), and why there is none: ``(None,
    "")`` when there is no markup, ``(None, message)`` when the page nests deeper than libxml2's limit (whose deeper
    content libxml2 would silently drop).

    The head, style sheets, scripts and the attributes the reader never looks at but that make up a third of a page
    (``data-mw``, ``data-parsoid``, ``srcset``) are cut before parsing: the parse is the largest cost of the reader.
    """
    html = _UNREAD_ATTRIBUTES.sub("", _UNREAD_ELEMENTS.sub("", html))
    parser = lxml.etree.HTMLParser(  # every Parsoid element has an id: not indexing them saves a fifth of the parse
        encoding="utf-8", remove_comments=True, remove_pis=True, huge_tree=True, collect_ids=False
    )
    try:
        root = lxml.etree.fromstring(html.encode("utf-8"), parser=parser)
    except (lxml.etree.LxmlError, ValueError):
        return None, ""
    if root is None:
        return None, ""
    too_deep = [error for error in parser.error_log if error.type_name == "ERR_RESOURCE_LIMIT"]
    if too_deep:
        return None, f"HTML line {too_deep[0].line}: {too_deep[0].message}"
    return root, ""


def page_marks(root: lxml.etree._Element) -> PageMarks:
    """Whether the page is a disambiguation page, and its categories (as ``Category:Name`` titles)."""
    marks = PageMarks()
    for element in root.iter("meta", "link"):  # iter's tag filter runs in libxml2: 3x faster than an XPath here
        if element.get("property") == "mw:PageProp/disambiguation":
            marks.is_disambiguation = True
        elif element.get("rel") == "mw:PageProp/Category" and element.get("href"):
            marks.categories.append(link_target(element.get("href", "").split("#", 1)[0]))
    return marks


class ParsoidWalker:
    """Writes the body of a Parsoid document to an :class:`ArticleBuilder` in document order (iteratively, so a
    deeply nested page cannot exhaust the recursion limit).

    Args:
        builder: receives text, links, paragraph breaks and headings.
        namespaces: the wiki's namespace names, to tell article links from links to other namespaces.
    """

    def __init__(self, builder: ArticleBuilder, namespaces: Namespaces):
        self.builder = builder
        self.namespaces = namespaces
        self.page_title = normalize_title(builder.title)
        self.pending: list[str] = []  # text not yet given to the builder: one call per run of text, not per node

    def flush(self) -> None:
        """Give the builder the text collected since the last link, heading or paragraph break."""
        if self.pending:
            self.builder.text("".join(self.pending))
            self.pending.clear()

    def walk(self, root: lxml.etree._Element) -> None:
        """Write ``root`` (the ``<body>``, or the whole document) and everything below it."""
        builder, pending = self.builder, self.pending
        stack: list[tuple[lxml.etree._Element, bool]] = [(root, False)]
        while stack:
            element, closing = stack.pop()
            tag = element.tag
            if closing:
                if tag in _BLOCKS:
                    self.flush()
                    builder.paragraph_break()
                elif tag == "td" or tag == "th":
                    pending.append(" ")
                if element.tail:
                    pending.append(element.tail)
                continue
            if not isinstance(tag, str) or is_dropped(element):
                pass
            elif _is_math(element):
                pending.append(math_text(element))
            elif tag in HEADINGS:
                self.flush()
                builder.heading(HEADINGS[tag], element_text(element))
            elif tag == "a":
                self._anchor(element)
            else:
                if tag in _BLOCKS:
                    self.flush()
                    builder.paragraph_break()
                if element.text:
                    pending.append(element.text)
                stack.append((element, True))
                stack.extend((child, False) for child in reversed(element))
                continue
            if element.tail:
                pending.append(element.tail)
        self.flush()

    def _anchor(self, element: lxml.etree._Element) -> None:
        anchor = element_text(element) if len(element) else (element.text or "")
        if "mw:WikiLink" not in (element.get("rel") or "").split():
            self.pending.append(anchor)  # external, interwiki and media links keep their text only
            return
        target = wikilink_target(element)
        kind = classify_link(target, self.namespaces) if target else "other"
        title = normalize_title(target) if kind == "article" else ""
        if title and title != self.page_title:
            self.flush()
            self.builder.link(title, anchor)
        else:
            self.pending.append(anchor)


def wikilink_target(element: lxml.etree._Element) -> str:
    """The page a Parsoid wikilink points to: its ``title`` attribute, else its ``./Title`` href (query dropped)."""
    title = element.get("title")
    if title and title.strip():
        return title.strip()
    href = (element.get("href") or "").split("?", 1)[0]
    return link_target(href) if href.strip() else ""


def is_dropped(element: lxml.etree._Element) -> bool:
    """Whether an element and everything in it is left out of the text (see the module docstring)."""
    if element.tag in _DROPPED_TAGS:
        return True
    classes = element.get("class")
    if classes and not _DROPPED_CLASSES.isdisjoint(classes.split()):
        return True
    if element.get("role") in _DROPPED_ROLES:
        return True
    typeof = element.get("typeof")
    if typeof and any(token.startswith(_DROPPED_TYPEOF) for token in typeof.split()):
        return True
    style = element.get("style")
    return bool(style) and _HIDDEN.search(style) is not None


def _is_math(element: lxml.etree._Element) -> bool:
    if element.tag == "math":
        return True
    typeof, classes = element.get("typeof"), element.get("class")
    return bool(typeof and _MATH_TYPEOF in typeof.split() or classes and "mwe-math-element" in classes.split())


def math_text(element: lxml.etree._Element) -> str:
    """A formula as its alt text: the ``alttext`` of its MathML, else its fallback image's ``alt``;
    ``{\\displaystyle ...}`` unwrapped."""
    candidates = [element, *element.iter("math", "img")]
    text = next(
        (node.get("alttext") or node.get("alt") for node in candidates if node.get("alttext") or node.get("alt")), ""
    )
    text = normalize_space(text)
    match = _DISPLAYSTYLE.match(text)
    return normalize_space(match.group(1)) if match else text


def element_text(element: lxml.etree._Element) -> str:
    """Visible text of an element without its dropped descendants (math as alt text; blocks separated by a space)."""
    return visible_text(element, _BLOCKS, _stand_in)


def _stand_in(element: lxml.etree._Element) -> str | None:
    if is_dropped(element):
        return ""
    return math_text(element) if _is_math(element) else None
