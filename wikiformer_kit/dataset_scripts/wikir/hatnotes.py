"""Hatnotes: the short notes at the top of an article or section that point elsewhere ("Main article: X", "For
other uses, see X", Latgalian "Golvonais rakstīņs: X", "Najaukt ar X"). A wiki writes them with templates, which
the corpus drops, or by hand as an indented italic line (``:''Main article: [[X]]''``), which stays in the text as
the part's first line. WIKIR never takes one as an article's first sentence (its query).

A sentence or line is a hatnote when it opens a part (abstract or section text), is at most :data:`MAX_WORDS` words
long and starts with one of the phrases below (case-insensitive). The phrases are the hatnote wordings of the wikis' own
templates, per language; a language missing here keeps its hand-written hatnotes as text.
"""

from __future__ import annotations

from collections.abc import Sequence

import regex

MAX_WORDS = 40
"""Longer opening lines are prose, whatever their first words."""

PHRASES = {
    "en": r"main articles?:|further information:|see also:|for (?:other uses|more|a|the|further)\b.{0,80}\bsee\b|"
    r"not to be confused with\b|redirects? here\b",
    "ltg": r"golv[ao]n\w* raksts?\w*\b|najaukt ar\b|verīs taipoš\b",
    "lv": r"pamatraksts:|sīkāk skatīt\b|nejaukt ar\b|skatīt arī:",
    "de": r"hauptartikel:|siehe auch:|nicht zu verwechseln mit\b",
    "fr": r"articles? (?:détaillés?|principal|connexes?) ?:|ne pas confondre avec\b",
    "es": r"artículos? principal(?:es)?:|véase también:|no debe confundirse con\b",
    "it": r"voce principale:|disambiguazione\b",
    "pt": r"artigo principal:|ver (?:também|artigo principal):|não confundir com\b",
    "nl": r"zie (?:ook|hoofdartikel)\b|hoofdartikel:",
    "ru": r"основная статья:|см\. также:|не путать с\b",
    "uk": r"основна стаття:|докладніше:|див\. також:|не плутати з\b",
    "pl": r"osobny artykuł:|zobacz też:|główny artykuł:",
    "ja": r"詳細は|「.{1,40}」を参照",
    "zh": r"主条目：|主條目：|参见：|參見：",
}

_HATNOTE = regex.compile(r"^\W*(?:" + "|".join(f"(?:{p})" for p in PHRASES.values()) + ")", regex.I)


def is_hatnote(text: str) -> bool:
    """Whether ``text`` (a line or sentence that opens a part) is a hatnote."""
    return bool(text.strip()) and len(text.split()) <= MAX_WORDS and bool(_HATNOTE.match(text))


def skip_hatnotes(text: str, spans: list[tuple[int, int]], anchors: Sequence[str] = ()) -> list[tuple[int, int]]:
    """The sentence ``spans`` of a part of ``text`` without the hatnotes that open it.

    The corpus joins a hand-written hatnote line with the paragraph under it, so a hatnote may share a sentence
    with the real first one ("Main article: History of Alabama Alabama is a state ..."). Its end is then found
    from the part's link ``anchors``: the hatnote is its phrase and the links that follow it. A leading sentence
    that is a hatnote without such links is dropped whole; one whose first line is a hatnote starts after it.
    """
    kept = list(spans)
    while kept:
        start, end = kept[0]
        sentence = text[start:end]
        match = _HATNOTE.match(sentence)
        if not match:
            break
        cut = _after_links(sentence, match.end(), anchors)
        first_line, newline, rest = sentence.partition("\n")
        rest_of_sentence = sentence[cut:].lstrip(" \n:;,.–—-") if cut is not None else ""
        # a new sentence after the links (a capital, not a clause after a comma) is the real first sentence
        if rest_of_sentence[:1].isupper() and "," not in sentence[cut : len(sentence) - len(rest_of_sentence)]:
            kept[0] = (start + len(sentence) - len(rest_of_sentence), end)
            break
        if newline and rest.strip() and is_hatnote(first_line):
            kept[0] = (start + len(first_line) + 1, end)
            break
        if not is_hatnote(sentence):
            break
        kept.pop(0)
    return kept


_JOINER = regex.compile(r"[\s:,;.]*(?:(?:and|or|und|et|y|e|i|un|и|або|і)\s+)?", regex.I)


def _after_links(sentence: str, position: int, anchors: Sequence[str]) -> int | None:
    """The end of the run of link anchors that starts at ``position`` (after separators); None: no anchor there."""
    found = None
    while True:
        joined = _JOINER.match(sentence, position).end()
        anchor = next((a for a in sorted(anchors, key=len, reverse=True) if a and sentence.startswith(a, joined)), None)
        if anchor is None:
            return found
        position = found = joined + len(anchor)
