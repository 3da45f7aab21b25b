"""The See also section of a Parsoid page by its structure, where no heading name is known for the language: the
signals of :func:`..see_also.looks_like_see_also` read from the rendered page instead of its wikitext.

A candidate is a top-level ``<section>`` (its heading at most 5 words, no subsection, no reference or citation in
it) whose list items are mostly entries (1-2 article links, at most 12 words of prose and no digit outside the first
link), with at most 40 words of prose outside its lists and no "Word:" lead-in line; the page must have 25 words of
prose before it (lists aside) and the top-level sections after it at most 80 words of prose each. The first such
section is the See also section and its article links are the targets, as the wikitext path finds them.
"""

from __future__ import annotations

import re

from selectolax.lexbor import LexborNode

from wikiformer_kit.dataset_scripts.corpus.formats._element_text import visible_text, walk_elements
from wikiformer_kit.dataset_scripts.corpus.formats._parsoid import (
    HEADINGS,
    element_text,
    is_dropped,
    math_text,
    wikilink_target,
)
from wikiformer_kit.dataset_scripts.corpus.see_also import (
    LATE_PROSE_WORDS,
    MAX_ITEM_LINKS,
    MAX_ITEM_WORDS,
    MAX_PROSE_WORDS,
    MIN_ENTRIES,
    MIN_PROSE_BEFORE,
    prose_words,
)
from wikiformer_kit.dataset_scripts.corpus.titles import Namespaces, classify_link, normalize_title

_LISTS = frozenset({"ul", "ol", "dl"})
_ITEM_BLOCKS = frozenset({"p", "div", "li", "dt", "dd", "br"})
_CITATIONS = 'sup.reference, .mw-references-wrap, ol.references, cite, [typeof~="mw:Extension/references"]'
_DIGIT = re.compile(r"\d")
_LEAD_IN = re.compile(r"[^\W\d_][^\S\n]*[:：][^\S\n]*$", re.M)


def see_also_by_structure(body: LexborNode, namespaces: Namespaces) -> tuple[str, list[str]] | None:
    """The heading and the article links (titles, in order, once each) of the section that has the structure of a
    See also section, or None."""
    top = [node for node in _children(body) if node.tag == "section" and _heading(node) is not None]
    before = prose_words(_prose(_lead(body)))
    proses = [_prose(section, skip_heading=True) for section in top]
    words = [prose_words(prose) for prose in proses]
    # whether a later top-level section has too much prose, for each position: read once, not once per candidate
    late = [False] * len(top)
    for position in range(len(top) - 2, -1, -1):
        late[position] = late[position + 1] or words[position + 1] > LATE_PROSE_WORDS
    for position, section in enumerate(top):
        heading = _heading(section)
        if before >= MIN_PROSE_BEFORE and not late[position]:
            tree = _looks_like_see_also(section, heading, proses[position], namespaces)
            if tree is not None:
                return element_text(heading), _targets(tree, namespaces)
        before += words[position]
    return None


class _SectionTree:
    """The list items and links of a section that are read (no element between them and the section, themselves
    included, is dropped from the text), and the list item each link belongs to: found in one walk. Walking up from
    each item and link instead costs the depth of the lists for every one of them, quadratic (and worse) on deeply
    nested lists."""

    def __init__(self, section: LexborNode):
        self.items: list[LexborNode] = []  # in document order
        self.anchors: list[LexborNode] = []  # in document order
        self.own_anchors: dict[int, list[LexborNode]] = {}  # by list item (mem_id): its links outside nested lists
        open_items: list[int | None] = [None]  # for each open element: the innermost list item it is in (or is)

        def enter(node: LexborNode) -> bool:
            tag = node.tag
            if tag[0] in "-!":  # text and comments hold no element
                return False
            if node.mem_id != section.mem_id:
                if is_dropped(node.attributes, tag):
                    return False  # nothing in it is read
                if tag == "li":
                    self.items.append(node)
                elif tag == "a":
                    self.anchors.append(node)
                    if open_items[-1] is not None:
                        self.own_anchors.setdefault(open_items[-1], []).append(node)
            open_items.append(node.mem_id if tag == "li" else open_items[-1])
            return True

        def leave(node: LexborNode) -> None:
            open_items.pop()

        walk_elements(section, enter, leave)


def _looks_like_see_also(
    section: LexborNode, heading: LexborNode, outside: str, namespaces: Namespaces
) -> _SectionTree | None:
    """The items and links of a top-level section (its prose outside its lists: ``outside``) when it has the
    structure of a See also section, else None; the later sections' prose is checked by the caller."""
    if prose_words(element_text(heading)) > 5 or len(section.css("section")) > 1:  # lexbor matches the section itself
        return None
    if section.css_first(_CITATIONS) is not None:
        return None
    tree = _SectionTree(section)
    items = [item for item in tree.items if _own_text(item).strip()]
    if not items:
        return None
    entries = links = 0
    for item in items:
        own = tree.own_anchors.get(item.mem_id, [])
        anchors = [a for a in own if _article_target(a, namespaces)]
        text = _own_text(item)
        prose = text
        for anchor in anchors:
            prose = prose.replace(element_text(anchor), " ", 1)
        rest = text.replace(element_text(anchors[0]), " ", 1) if anchors else text
        if 0 < len(anchors) <= MAX_ITEM_LINKS and prose_words(prose) <= MAX_ITEM_WORDS and not _DIGIT.search(rest):
            entries += 1
            links += len(anchors)
        elif any("mw:ExtLink" in (a.attributes.get("rel") or "") for a in own):
            return None  # an external-links list
    if entries < 0.75 * len(items) or links > 1.5 * entries:
        return None
    if prose_words(outside) > MAX_PROSE_WORDS or _LEAD_IN.search(outside):
        return None
    return tree if entries >= MIN_ENTRIES else None


def _targets(tree: _SectionTree, namespaces: Namespaces) -> list[str]:
    targets: dict[str, None] = {}
    for anchor in tree.anchors:
        title = _article_target(anchor, namespaces)
        if title:
            targets.setdefault(title)
    return list(targets)


def _article_target(anchor: LexborNode, namespaces: Namespaces) -> str:
    """The article a wikilink points to ("" for another namespace, another wiki, an external link or no target)."""
    attributes = anchor.attributes
    if "mw:WikiLink" not in (attributes.get("rel") or "").split():
        return ""
    target = wikilink_target(attributes)
    return normalize_title(target) if target and classify_link(target, namespaces) == "article" else ""


def _children(node: LexborNode) -> list[LexborNode]:
    found, child = [], node.first_child
    while child is not None:
        found.append(child)
        child = child.next
    return found


def _heading(section: LexborNode) -> LexborNode | None:
    return next((child for child in _children(section) if child.tag in HEADINGS), None)


def _lead(body: LexborNode) -> LexborNode | None:
    """The section before the first heading (Parsoid's ``data-mw-section-id="0"``)."""
    return next((node for node in _children(body) if node.tag == "section" and _heading(node) is None), None)


def _own_text(item: LexborNode) -> str:
    """A list item's text without its nested lists."""
    return visible_text(item, _ITEM_BLOCKS, _item_stand_in)


def _item_stand_in(element: LexborNode, tag: str) -> str | None:
    attributes = element.attributes
    if tag in _LISTS or is_dropped(attributes, tag):
        return ""
    return math_text(element, attributes) if tag == "math" else None


def _prose(section: LexborNode | None, skip_heading: bool = False) -> str:
    """A section's text outside its lists (and its heading with ``skip_heading``), one line a block."""
    if section is None:
        return ""

    def stand_in(element: LexborNode, tag: str) -> str | None:
        if tag in _LISTS or (skip_heading and tag in HEADINGS) or is_dropped(element.attributes, tag):
            return ""
        return None

    return visible_text(section, (), stand_in)
