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
  the other message boxes), inline maintenance tags (a superscript in brackets linking a help or project page:
  "[réf. souhaitée]"), edit links, hidden elements (``display:none``), and source code (``syntaxhighlight``),
  which the wikitext path leaves out too;
- math (``mw:Extension/math``) is written as its alt text (the TeX source), not as the MathML it renders to;
- ``<meta property="mw:PageProp/disambiguation">`` marks a disambiguation page, ``<link rel="mw:PageProp/Category">``
  its categories.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from selectolax.lexbor import LexborHTMLParser, LexborNode

from wikiformer_kit.dataset_scripts.corpus.formats._builder import ArticleBuilder, link_target, normalize_space
from wikiformer_kit.dataset_scripts.corpus.formats._element_text import visible_text, walk_elements
from wikiformer_kit.dataset_scripts.corpus.leftovers import separate_brackets
from wikiformer_kit.dataset_scripts.corpus.titles import Namespaces, classify_link, normalize_title

Attributes = dict[str, "str | None"]

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
_BOX_CLASS = re.compile(r"(?:^|\s)(?:infobox|taxobox)_")
"""Infoboxes of the wikis that name them by version: French ``infobox_v3``, ``taxobox_v3`` (a ``div`` whose header,
"Chronologies" on a year page, would otherwise open the abstract), ``infobox_v2``."""
_DROPPED_ROLES = {"note", "navigation"}
_DROPPED_TYPEOF = ("mw:File", "mw:Image", "mw:Extension/ref", "mw:Extension/references", "mw:Extension/gallery",
                   "mw:Extension/templatestyles", "mw:Extension/graph", "mw:Extension/timeline",
                   "mw:Extension/mapframe", "mw:Extension/imagemap", "mw:Extension/syntaxhighlight",
                   "mw:Extension/source", "mw:Extension/score")  # fmt: skip
_MATH_TYPEOF = "mw:Extension/math"
_BLOCKS = {"p", "div", "li", "ul", "ol", "dl", "dt", "dd", "tr", "section", "article", "blockquote", "pre", "header",
           "footer", "main", "aside", "hr", "br", "body", "details", "summary", "center", "h1"}  # fmt: skip
_HIDDEN = re.compile(r"display\s*:\s*none", re.I)
_DISPLAYSTYLE = re.compile(r"^\{\\displaystyle\s*(.*)\}$", re.S)
_PAGE_MARKS = 'meta[property*="mw:PageProp"], link[rel*="mw:PageProp"]'  # a superset, each checked exactly


def _tag_id(name: str) -> int:
    """lexbor's id of an HTML tag: comparing a node's integer id costs a third of reading its tag's name."""
    return _TAG_FACTORY.create_node(name).tag_id


_TAG_FACTORY = LexborHTMLParser("")
_HEADING_IDS = {_tag_id(tag): level for tag, level in HEADINGS.items()}
_BLOCK_IDS = frozenset(map(_tag_id, _BLOCKS))
_CELL_IDS = frozenset(map(_tag_id, ("td", "th")))
_DROPPED_TAG_IDS = frozenset(map(_tag_id, _DROPPED_TAGS))
_ANCHOR_ID, _MATH_ID, _SUP_ID = _tag_id("a"), _tag_id("math"), _tag_id("sup")
_TEXT_ID, _LAST_NON_ELEMENT_ID = 2, 5  # lexbor's ids: text, then document, comment and doctype up to 5


@dataclass
class PageMarks:
    """What a Parsoid page says about itself beyond its text."""

    is_disambiguation: bool = False
    categories: list[str] = field(default_factory=list)
    written_categories: list[str] = field(default_factory=list)
    """The categories written in the page's own wikitext: Parsoid gives each an ``id`` and no ``about``, where a
    template's (a tracking category: "Use dmy dates", "Portail:…/Articles liés", "Page utilisant P1417", an
    infobox's) shares its transclusion's ``about`` and MediaWiki's own tracking categories carry neither."""


def parse_document(html: str) -> LexborHTMLParser | None:
    """The document tree of a Parsoid page (lexbor, an HTML5 parser: malformed markup repaired as browsers do, with
    no depth limit), or None when there is no markup.

    The page is parsed whole: lexbor parses it faster than a regular expression could cut the parts the reader
    never looks at (the head, ``data-mw`` and ``data-parsoid`` attributes: a third of its bytes) beforehand.
    """
    if not html.strip():
        return None
    return LexborHTMLParser(html)


def page_marks(tree: LexborHTMLParser) -> PageMarks:
    """Whether the page is a disambiguation page, and its categories (as ``Category:Name`` titles), all of them and
    those written in the page."""
    marks = PageMarks()
    for element in tree.css(_PAGE_MARKS):
        attributes = element.attributes
        if attributes.get("property") == "mw:PageProp/disambiguation":
            marks.is_disambiguation = True
        elif attributes.get("rel") == "mw:PageProp/Category" and attributes.get("href"):
            category = link_target((attributes.get("href") or "").split("#", 1)[0])
            marks.categories.append(category)
            if attributes.get("id") and not attributes.get("about"):
                marks.written_categories.append(category)
    return marks


class ParsoidWalker:
    """Writes the body of a Parsoid document to an :class:`ArticleBuilder` in document order (iteratively, so a
    deeply nested page cannot exhaust the recursion limit); ``namespaces`` tell article links from others."""

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

    def walk(self, root: LexborNode) -> None:
        """Write ``root`` (the ``<body>``, or the whole document) and everything below it."""
        walk_elements(root, self._enter, self._leave)
        self.flush()

    def _enter(self, node: LexborNode) -> bool:
        tag_id = node.tag_id
        if tag_id == _TEXT_ID:
            self.pending.append(node.text_content or "")
            return False
        if tag_id <= _LAST_NON_ELEMENT_ID:
            return False
        attributes = node.attributes
        if tag_id in _DROPPED_TAG_IDS or is_dropped(attributes):
            return False
        if tag_id == _SUP_ID and self._is_maintenance_tag(node):
            return False
        if tag_id == _MATH_ID or _is_math(attributes):
            self.pending.append(math_text(node, attributes))
            return False
        if tag_id in _HEADING_IDS:
            self.flush()
            self.builder.heading(_HEADING_IDS[tag_id], element_text(node))
            return False
        if tag_id == _ANCHOR_ID:
            self._anchor(node, attributes)
            return False
        if tag_id in _BLOCK_IDS:
            self.flush()
            self.builder.paragraph_break()
        return True

    def _leave(self, node: LexborNode) -> None:
        self._close(node.tag_id)

    def _close(self, tag_id: int) -> None:
        if tag_id in _BLOCK_IDS:
            self.flush()
            self.builder.paragraph_break()
        elif tag_id in _CELL_IDS:
            self.pending.append(" ")

    def _is_maintenance_tag(self, element: LexborNode) -> bool:
        """Whether a superscript is an inline maintenance tag ("[citation needed]", "[réf. souhaitée]",
        "[Lesquelles ?]"): its text in brackets, linking the help or project page that explains it."""
        text = (element.text(deep=True) or "").strip()
        if not (text.startswith("[") and text.endswith("]")):
            return False
        for anchor in element.css("a"):
            target = wikilink_target(anchor.attributes)
            if target and classify_link(target, self.namespaces) != "article" or ":" in target:
                return True
        return False

    def _anchor(self, element: LexborNode, attributes: Attributes) -> None:
        anchor = anchor_text(element)
        if "mw:WikiLink" not in (attributes.get("rel") or "").split():
            self.pending.append(anchor)  # external, interwiki and media links keep their text only
            return
        target = wikilink_target(attributes)
        kind = classify_link(target, self.namespaces) if target else "other"
        title = normalize_title(target) if kind == "article" else ""
        if title and title != self.page_title:
            self.flush()
            self.builder.link(title, anchor)
        else:
            self.pending.append(anchor)


def wikilink_target(attributes: Attributes) -> str:
    """The page a Parsoid wikilink points to: its ``title`` attribute, else its ``./Title`` href (query dropped)."""
    title = attributes.get("title")
    if title and title.strip():
        return title.strip()
    href = (attributes.get("href") or "").split("?", 1)[0]
    return link_target(href) if href.strip() else ""


def is_dropped(attributes: Attributes, tag: str = "") -> bool:
    """Whether an element (its attributes; its tag when given) and everything in it is left out of the text (see
    the module docstring)."""
    if tag in _DROPPED_TAGS:
        return True
    classes = attributes.get("class")
    if classes and (
        not _DROPPED_CLASSES.isdisjoint(classes.split()) or "box_" in classes and _BOX_CLASS.search(classes)
    ):
        return True
    if attributes.get("role") in _DROPPED_ROLES:
        return True
    typeof = attributes.get("typeof")
    if typeof and any(token.startswith(_DROPPED_TYPEOF) for token in typeof.split()):
        return True
    style = attributes.get("style")
    return bool(style) and _HIDDEN.search(style) is not None


def _is_math(attributes: Attributes, tag: str = "") -> bool:
    if tag == "math":
        return True
    typeof, classes = attributes.get("typeof"), attributes.get("class")
    return bool(typeof and _MATH_TYPEOF in typeof.split() or classes and "mwe-math-element" in classes.split())


def math_text(element: LexborNode, attributes: Attributes) -> str:
    """A formula as its alt text: the ``alttext`` of its MathML, else its fallback image's ``alt``;
    ``{\\displaystyle ...}`` unwrapped, its brackets as the wikitext reader writes them (:func:`separate_brackets`)."""
    text = attributes.get("alttext") or attributes.get("alt")
    if not text:
        for node in element.css("math, img"):
            found = node.attributes
            text = found.get("alttext") or found.get("alt")
            if text:
                break
    text = normalize_space(text or "")
    match = _DISPLAYSTYLE.match(text)
    return separate_brackets(normalize_space(match.group(1)) if match else text)


def anchor_text(element: LexborNode) -> str:
    """The text of a link: its text as written when it holds text only, else its :func:`element_text`."""
    parts = []
    node = element.first_child
    while node is not None:
        tag_id = node.tag_id
        if tag_id == _TEXT_ID:
            parts.append(node.text_content or "")
        elif tag_id > _LAST_NON_ELEMENT_ID:
            return element_text(element)
        node = node.next
    return "".join(parts)


def element_text(element: LexborNode) -> str:
    """Visible text of an element without its dropped descendants (math as alt text; blocks separated by a space)."""
    return visible_text(element, _BLOCKS, _stand_in)


def _stand_in(element: LexborNode, tag: str) -> str | None:
    attributes = element.attributes
    if is_dropped(attributes, tag):
        return ""
    return math_text(element, attributes) if _is_math(attributes, tag) else None
