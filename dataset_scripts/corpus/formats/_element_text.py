"""The visible text of an HTML element, as the HTML readers read it (lexbor trees, through selectolax)."""

from __future__ import annotations

from collections.abc import Callable, Collection

from selectolax.lexbor import LexborNode

from wikiformer_kit.dataset_scripts.corpus.formats._builder import normalize_space

_TEXT = "-text"  # selectolax's tag of a text node; comments, doctypes and documents start with "-" or "!"


def visible_text(
    element: LexborNode, blocks: Collection[str], stand_in: Callable[[LexborNode, str], str | None]
) -> str:
    """The text of ``element`` and its descendants, block elements separated by a space.

    Args:
        element: the element.
        blocks: tags whose content is a block of its own.
        stand_in: for a descendant element, given it and its tag: the text that stands for it and its content
            (``""`` leaves it out, e.g. a reference; a formula's alt text) or None to read into it. Comments are
            left out.
    """
    parts: list[str] = []
    depth = 0
    node = element
    while True:
        tag = node.tag
        descend = False
        if tag == _TEXT:
            parts.append(node.text_content or "")
        elif tag[0] not in "-!":
            text = stand_in(node, tag) if depth else None
            if text is not None:
                parts.append(text)
            else:
                if tag in blocks:
                    parts.append(" ")
                descend = True
        if descend:
            child = node.first_child
            if child is not None:
                node, depth = child, depth + 1
                continue
            if tag in blocks:
                parts.append(" ")
        while depth:
            sibling = node.next
            if sibling is not None:
                node = sibling
                break
            node, depth = node.parent, depth - 1
            if node.tag in blocks:
                parts.append(" ")
        else:
            return normalize_space("".join(parts))
