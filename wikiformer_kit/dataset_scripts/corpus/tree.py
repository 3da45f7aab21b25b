"""Turn a flat sequence of headings into the Wiki Structure Tree, whatever the source format.

Every reader walks its document in order and reports ``(level, title, text)`` for each heading; this module
assigns parents and title paths. A level jump (``==`` then ``====``) attaches to the nearest shallower section,
so nothing is ever dropped (the original Wikiformer parser stopped reading the article there).
"""

from __future__ import annotations

from collections.abc import Iterable

from wikiformer_kit.dataset_scripts.corpus.article import ROOT, Section


def build_sections(article_title: str, headings: Iterable[tuple[int, str, str]]) -> list[Section]:
    """The flat section list of the WST, in document order with ``parent`` and ``path`` (from ``article_title``)
    filled in, from ``headings``: ``(level, title, text)`` in document order; ``level`` >= 1 (1 is treated like 2: a
    heading directly below the root)."""
    sections: list[Section] = []
    stack: list[int] = []  # indices of the open ancestors, shallowest first
    for level, title, text in headings:
        while stack and sections[stack[-1]].level >= level:
            stack.pop()
        parent = stack[-1] if stack else ROOT
        path = (sections[parent].path if parent != ROOT else [article_title]) + [title]
        sections.append(Section(title=title, level=level, text=text, path=path, parent=parent))
        stack.append(len(sections) - 1)
    return sections
