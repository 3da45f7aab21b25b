"""Sentence boundaries in plain text: where a link's sentence starts and ends, for every reader."""

from __future__ import annotations

import re
from bisect import bisect_right

# A sentence ends at . ! ? (or …) and optional closing quotes/brackets, followed by whitespace and then a
# capital or a digit (checked on the captured character: `re` has no class for capitals in every script);
# "J. Smith" and "e.g. this" are kept together by the abbreviation check. In scripts without spaces or
# capitals (Chinese, Japanese) 。！？ end a sentence as they stand, and so do the full stops of scripts that have
# their own: the Devanagari danda and double danda, the Arabic full stop and question mark, the Armenian, Ethiopic
# and Burmese full stops.
_SENTENCE_END = re.compile(r"[.!?…][\"'”’»)\]]*\s+(?=[\"'“‘«(\[]?(\w))|[。！？।॥۔؟։።။][」』”’)）]*\s*")
_ABBREVIATIONS = frozenset(
    "mr mrs ms dr prof st mt ft jr sr vs etc no fig figs eq eqs sec al approx ca cf e.g i.e inc ltd co gen col "
    "lt sgt capt gov rev hon".split()
)
_INITIALS = re.compile(r"[^\W\d_](?:\.[^\W\d_])*")  # "J", "U.S", "B.L": the last dot is the match's
_LONGEST_ABBREVIATION = 8  # longer words are neither abbreviations nor initials we know

LINE_BREAK = re.compile(r"\n")
"""Paragraphs are lines (text already laid out one block per line)."""
BLANK_LINE = re.compile(r"\n[ \t]*\n\s*")
"""Paragraphs are separated by blank lines; a single newline is a space (wikitext as rendered)."""


def sentence_spans(text: str, paragraph_break: re.Pattern = LINE_BREAK) -> list[tuple[int, int]]:
    """Character spans ``(start, end)`` of the sentences of plain ``text``, in order; a sentence never crosses a
    ``paragraph_break`` (`LINE_BREAK` or `BLANK_LINE`)."""
    finder = SentenceFinder(text, paragraph_break)
    return [span for paragraph in range(len(finder.paragraphs)) for span in finder.sentences(paragraph)[0]]


class SentenceFinder:
    """The sentence that holds a position of ``text``, as :func:`sentence_spans` cuts it, splitting only the
    paragraphs asked about: a section's links stand in a few of its paragraphs, and splitting the others was most of
    the cost of finding their sentences."""

    def __init__(self, text: str, paragraph_break: re.Pattern = LINE_BREAK):
        self.text = text
        self.paragraphs: list[tuple[int, int]] = []
        start = 0
        for brk in paragraph_break.finditer(text):
            self.paragraphs.append((start, brk.start()))
            start = brk.end()
        self.paragraphs.append((start, len(text)))
        self.paragraph_starts = [start for start, _ in self.paragraphs]
        self.split: dict[int, tuple[list[tuple[int, int]], list[int]]] = {}

    def around(self, first: int, last: int) -> tuple[int, int]:
        """Where the sentences from the one that holds position ``first`` to the one that holds ``last`` start and
        end (the last sentence starting at or before a position holds it, or ends the paragraph when the position
        falls in the break after it)."""
        starts = self.paragraph_starts
        paragraph = bisect_right(starts, first) - 1
        spans, span_starts = self.sentences(paragraph)
        start = spans[bisect_right(span_starts, first) - 1][0]
        if paragraph + 1 < len(starts) and last >= starts[paragraph + 1]:
            spans, span_starts = self.sentences(bisect_right(starts, last) - 1)
        return start, spans[bisect_right(span_starts, last) - 1][1]

    def sentences(self, paragraph: int) -> tuple[list[tuple[int, int]], list[int]]:
        """The sentence spans of one paragraph and their starts, split on first use."""
        split = self.split.get(paragraph)
        if split is None:
            spans: list[tuple[int, int]] = []
            _split_paragraph(self.text, *self.paragraphs[paragraph], spans)
            split = self.split[paragraph] = spans, [start for start, _ in spans]
        return split


def _split_paragraph(text: str, start: int, end: int, spans: list[tuple[int, int]]) -> None:
    sentence_start, split = start, False
    for match in _SENTENCE_END.finditer(text, start, end):
        opener = match.group(1)
        if opener is not None and not (opener.isupper() or opener.isdigit()):
            continue  # "... etc. and so on": the next sentence would start with a capital or a digit
        if opener is not None and _ends_with_abbreviation(text, sentence_start, match.start()):
            continue  # an initial or an abbreviation, not the end of a sentence
        spans.append((sentence_start, match.end()))
        sentence_start, split = match.end(), True
    if sentence_start < end or not split:  # an empty paragraph is still one (empty) sentence
        spans.append((sentence_start, end))


def _ends_with_abbreviation(text: str, sentence_start: int, cut: int) -> bool:
    """Whether the word before ``cut`` is an initial ("J") or a known abbreviation ("e.g")."""
    window_start = max(sentence_start, cut - _LONGEST_ABBREVIATION - 1)
    tail = text[window_start:cut]
    if not tail or tail[-1].isspace():
        return False
    word = tail.rsplit(None, 1)[-1]
    if len(word) == len(tail) and window_start > sentence_start:
        return False  # the word goes on before the window: longer than any abbreviation
    word = word.casefold()
    return word in _ABBREVIATIONS or _INITIALS.fullmatch(word) is not None
