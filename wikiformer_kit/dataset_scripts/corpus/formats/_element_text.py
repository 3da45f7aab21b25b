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

    def enter(node: LexborNode) -> bool:
        tag = node.tag
        if tag == _TEXT:
            parts.append(node.text_content or "")
            return False
        if tag[0] in "-!":
            return False
        text = stand_in(node, tag) if node is not element else None
        if text is not None:
            parts.append(text)
            return False
        if tag in blocks:
            parts.append(" ")
        return True

    def leave(node: LexborNode) -> None:
        if node.tag in blocks:
            parts.append(" ")

    walk_elements(element, enter, leave)
    return normalize_space("".join(parts))


def walk_elements(root: LexborNode, enter: Callable[[LexborNode], bool], leave: Callable[[LexborNode], None]) -> None:
    """Visit ``root`` and its descendants in document order, iteratively (a page nested deeper than Python's
    recursion limit is read whole).

    Args:
        root: the first node visited.
        enter: called on each node; returns whether to visit the node's children.
        leave: called on each node ``enter`` went into, after its children.
    """
    node, depth = root, 0
    while True:
        if enter(node):
            child = node.first_child
            if child is not None:
                node, depth = child, depth + 1
                continue
            leave(node)
        while depth:
            sibling = node.next
            if sibling is not None:
                node = sibling
                break
            node, depth = node.parent, depth - 1
            leave(node)
        else:
            return
