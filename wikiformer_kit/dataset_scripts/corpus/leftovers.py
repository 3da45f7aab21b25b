"""Markup that survives the parse as text, and markup that must go before the parse so that it does not break it.

- HTML tags the tokenizer could not pair (an orphan ``</div>`` or ``</span>``, ``<table class=…><tr>`` rows of a
  hand-written HTML table, ``</onlyinclude>``, ``<li>``, Parsoid's ``<i id="mwAiw">`` pasted into wikitext) are
  text to mwparserfromhell: :func:`strip_stray_tags` removes them from the plain text.
- Formulas, chemistry and code (``<math>``, ``<chem>``, ``<syntaxhighlight>`` ...) hold braces, and ``}}`` in
  ``\\frac{1}{\\sqrt{2}}`` would close a template or a table early in the brace scan of
  :func:`~dataset_scripts.corpus.wikitext.strip_non_text`, leaking the table's row markup as text:
  :func:`cut_braced_tags` handles them first. A formula stays as its TeX source (what the Enterprise HTML reader
  writes too: MathML's alt text), its markup characters escaped as HTML entities until the walk of the parse
  writes it back (:func:`formula_text`); code, scores and timelines are emptied (they never become text).
"""

from __future__ import annotations

import html
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
"""Tags whose content may hold braces."""
FORMULA_TAGS = frozenset({"math", "chem", "ce"})
"""Of :data:`BRACED_TAGS`, those whose content is text: a formula, written as its TeX source."""

_STRAY_TAG = re.compile(r"</?(?:" + "|".join(HTML_TAGS) + r")\b[^<>\n]*>", re.I)
_BRACED = re.compile(r"<(" + "|".join(BRACED_TAGS) + r")\b[^<>]*?(?:/>|>(.*?)</\1\s*>)", re.S | re.I)
_BRACED_HINT = re.compile("<(?:" + "|".join(BRACED_TAGS) + ")")


def strip_stray_tags(text: str) -> str:
    """``text`` without the HTML and MediaWiki tags left in it as text (each replaced by a space)."""
    return _STRAY_TAG.sub(" ", text) if "<" in text else text


def cut_braced_tags(wikitext: str) -> str:
    """``wikitext`` with the braces of its closed ``<math>``, ``<chem>``, ``<syntaxhighlight>``, ... elements out of
    the way of the brace scan: a formula's markup characters and line breaks escaped (:func:`formula_text` reads it
    back), any other such element emptied (``<score/>``). The tag stays where it was, so that a line it opens does
    not start with the ``;`` or ``:`` after it, which would make that line a definition list."""
    if "<" not in wikitext or not _BRACED_HINT.search(wikitext):
        return wikitext
    return _BRACED.sub(_escaped_or_emptied, wikitext)


def _escaped_or_emptied(match: re.Match) -> str:
    name, content = match.group(1), match.group(2)
    if name.lower() not in FORMULA_TAGS or not content or not content.strip():
        return f"<{name}/>"
    return f"<{name}>{content.translate(_ESCAPES)}</{name}>"


_ESCAPES = str.maketrans({c: f"&#{ord(c)};" for c in "&{}[]|<>'=~_:;*#"} | {"\n": " ", "\r": " ", "\t": " "})


def formula_text(escaped: str) -> str:
    """The TeX source of a formula :func:`cut_braced_tags` escaped, on one line (:func:`separate_brackets`)."""
    return separate_brackets(" ".join(html.unescape(escaped).split()))


def separate_brackets(tex: str) -> str:
    """A formula with a space inside ``{{``, ``}}``, ``[[``, ``]]``, ``{|`` and ``|}``: left in a text, these are
    template, link or table debris to the cleaning that follows, and TeX reads ``} }`` as ``}}``."""
    return _ADJACENT_BRACKETS.sub(r"\1 ", tex)


_ADJACENT_BRACKETS = re.compile(r"(\{(?=[{|])|\}(?=\})|\[(?=\[)|\](?=\])|\|(?=\}))")
