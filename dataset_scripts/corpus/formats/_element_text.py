"""The visible text of an HTML element, as the HTML readers read it (lxml trees)."""

from __future__ import annotations

from collections.abc import Callable, Collection

import lxml.etree

from wikiformer_kit.dataset_scripts.corpus.formats._builder import normalize_space


def visible_text(
    element: lxml.etree._Element, blocks: Collection[str], stand_in: Callable[[lxml.etree._Element], str | None]
) -> str:
    """The text of ``element`` and its descendants, block elements separated by a space.

    Args:
        element: the element.
        blocks: tags whose content is a block of its own.
        stand_in: for a descendant, the text that stands for it and its content (``""`` leaves it out, e.g. a
            reference; a formula's alt text) or None to read into it. Comments and processing instructions are
            left out.
    """
    parts: list[str] = []
    stack: list[tuple[lxml.etree._Element, bool]] = [(element, False)]
    while stack:
        node, closing = stack.pop()
        if closing:
            if node.tag in blocks:
                parts.append(" ")
            if node is not element:
                parts.append(node.tail or "")
            continue
        if node is not element:
            text = stand_in(node) if isinstance(node.tag, str) else ""
            if text is not None:
                parts.append(text)
                parts.append(node.tail or "")
                continue
        if node.tag in blocks:
            parts.append(" ")
        parts.append(node.text or "")
        stack.append((node, True))
        stack.extend((child, False) for child in reversed(node))
    return normalize_space("".join(parts))
