"""Markup that survives the parse as text, and markup that must go before the parse so that it does not break it.

- HTML tags the tokenizer could not pair (an orphan ``</div>`` or ``</span>``, ``<table class=…><tr>`` rows of a
  hand-written HTML table, ``</onlyinclude>``, ``<li>``, Parsoid's ``<i id="mwAiw">`` pasted into wikitext) are
  text to mwparserfromhell: :func:`strip_stray_tags` removes them from the plain text.
- Formulas, chemistry and code (``<math>``, ``<chem>``, ``<syntaxhighlight>`` ...) hold braces, and ``}}`` in
  ``\\frac{1}{\\sqrt{2}}`` would close a template or a table early in the brace scan of
  :func:`~dataset_scripts.corpus.wikitext.strip_non_text`, leaking the table's row markup as text:
  :func:`cut_braced_tags` cuts them first (they never become text anyway).
"""

from __future__ import annotations

import re

HTML_TAGS = (
    "div", "span", "table", "tbody", "thead", "tfoot", "caption", "tr", "td", "th", "col", "colgroup", "li", "ul",
    "ol", "dl", "dt", "dd", "p", "br", "hr", "b", "i", "u", "s", "strike", "small", "big", "center", "font", "code",
    "tt", "kbd", "samp", "var", "abbr", "cite", "dfn", "em", "strong", "q", "blockquote", "ins", "del", "mark",
    "ruby", "rb", "rp", "rt", "rtc", "bdi", "bdo", "data", "time", "wbr", "sup", "sub", "h1", "h2", "h3", "h4",
    "h5", "h6", "onlyinclude", "includeonly", "noinclude", "nowiki", "poem", "section", "templatestyles",
    "references", "ref", "gallery", "figure", "figcaption", "img", "a", "link", "meta", "nav", "article",
)  # fmt: skip
"""HTML elements and MediaWiki's tags whose stray opening or closing tag is removed from text."""
BRACED_TAGS = ("math", "chem", "ce", "syntaxhighlight", "source", "score", "timeline", "hiero", "graph")
"""Tags whose content may hold braces and is never text."""

_STRAY_TAG = re.compile(r"</?(?:" + "|".join(HTML_TAGS) + r")\b[^<>\n]*>", re.I)
_BRACED = re.compile(r"<(" + "|".join(BRACED_TAGS) + r")\b[^<>]*?(?:/>|>.*?</\1\s*>)", re.S | re.I)
_BRACED_HINT = re.compile("<(?:" + "|".join(BRACED_TAGS) + ")")


def strip_stray_tags(text: str) -> str:
    """``text`` without the HTML and MediaWiki tags left in it as text (each replaced by a space)."""
    return _STRAY_TAG.sub(" ", text) if "<" in text else text


def cut_braced_tags(wikitext: str) -> str:
    """``wikitext`` with its closed ``<math>``, ``<chem>``, ``<syntaxhighlight>``, ... elements emptied
    (``<math/>``): the tag stays where it was, so that a line it opens does not start with the ``;`` or ``:``
    after it, which would make that line a definition list."""
    if "<" not in wikitext or not _BRACED_HINT.search(wikitext):
        return wikitext
    return _BRACED.sub(lambda match: f"<{match.group(1)}/>", wikitext)
