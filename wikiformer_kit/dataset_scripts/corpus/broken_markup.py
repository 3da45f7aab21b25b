"""Broken markup costs the text it breaks, not the rest of the page.

MediaWiki renders past a construct left open: bold and italic quotes close at the end of their line, and a
heading is read before links are, so that no link holds one. mwparserfromhell instead lets an unclosed ``''`` or ``[[``
run on to the next match it finds, pages later, and every heading in between becomes text inside it: a Greek
history of Austria lost 52 section breaks to one unbalanced ``''``, a Ukrainian article 30 to one ``[[Файл:…``
whose caption never closed. :func:`contain_broken_markup` settles both before the page is tokenized.
"""

from __future__ import annotations

import re

_BOUNDARY = re.compile(r"\[\[|\]\]|\n=")
"""A link's opening and closing, and what a link cannot span: a heading (a file's caption may hold blank lines)."""
_QUOTES = re.compile(r"'{2,}")


def unstyle(text: str) -> str:
    """Remove bold and italic quote runs; of four quotes, one is a literal apostrophe (as MediaWiki renders it)."""
    return text.replace("'" * 5, "").replace("'" * 3, "").replace("'" * 2, "")


def cut_broken_links(text: str) -> str:
    """``text`` without the links that a heading interrupts: from the opening ``[[`` to the end of its line (a
    file's caption, most often), the text after it kept."""
    if "[[" not in text:
        return text
    cuts: list[tuple[int, int]] = []
    depth, opened = 0, -1
    for match in _BOUNDARY.finditer(text):
        mark = match.group()
        if mark == "[[":
            if depth == 0:
                opened = match.start()
            depth += 1
        elif mark == "]]":
            depth = max(depth - 1, 0)
        elif depth:
            line_end = text.find("\n", opened)
            cuts.append((opened, line_end))
            depth = 0
    if not cuts:
        return text
    pieces, kept_from = [], 0
    for start, end in cuts:
        pieces.append(text[kept_from:start])
        kept_from = end
    pieces.append(text[kept_from:])
    return "".join(pieces)


def _is_balanced(line: str) -> bool:
    """Whether a line's bold and italic quotes pair up (four quotes: an apostrophe and bold; five: both)."""
    italic = bold = 0
    for run in _QUOTES.findall(line):
        length = len(run)
        italic += length == 2 or length >= 5
        bold += 3 <= length != 2
    return italic % 2 == 0 and bold % 2 == 0


def unstyle_unbalanced_lines(text: str) -> str:
    """``text`` with the quotes of each line whose bold or italic is left open removed (MediaWiki closes them
    at the line's end; the tokenizer would run on to the next quotes, across headings)."""
    if "''" not in text:
        return text
    lines = text.split("\n")
    for index, line in enumerate(lines):
        if "''" in line and not _is_balanced(line):
            lines[index] = unstyle(line)
    return "\n".join(lines)


def contain_broken_markup(text: str) -> str:
    """Wikitext (templates and tables already cut) in which no quote run or broken link spans a heading: the
    quotes of a line that leaves them open removed (the kit writes plain text), the broken links cut
    (:func:`cut_broken_links`)."""
    return cut_broken_links(unstyle_unbalanced_lines(text))
