"""Text handling of WIKIR: an article's body in reading order, where its links stand, and the cleaning of
documents and queries (any script)."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import regex

from wikiformer_kit.dataset_scripts.corpus.article import Article
from wikiformer_kit.dataset_scripts.corpus.sentences import sentence_spans
from wikiformer_kit.dataset_scripts.corpus.words import count_words, first_words
from wikiformer_kit.dataset_scripts.wikir.hatnotes import skip_hatnotes

# The original keeps [a-zA-Z0-9] and turns everything else into spaces, which erases every non-Latin script;
# letters, digits and combining marks of any script are kept here (a mark belongs to its letter in Devanagari,
# Thai, ...).
_NON_ALPHANUMERIC = regex.compile(r"[^\p{L}\p{N}\p{M}]+")


def clean(text: str, max_words: int, *, lowercase: bool = False, keep_non_alphanumeric: bool = False) -> str:
    """``text`` as WIKIR stores it: non-alphanumerics as spaces (unless kept), optionally lower-cased, white space
    collapsed, cut to ``max_words`` words (:mod:`dataset_scripts.corpus.words`: scripts without spaces count as
    BERT splits them)."""
    if not keep_non_alphanumeric:
        text = _NON_ALPHANUMERIC.sub(" ", text)
    if lowercase:
        text = text.lower()
    return " ".join(first_words(text, max_words).split())


@dataclass
class Body:
    """An article's text in reading order, cut into parts: the abstract, then each section's heading and text.

    Args:
        parts: the texts (``""`` for an empty abstract or section).
        text_part: index in ``parts`` of each section's text (key ``-1``: the abstract).
        first_words: words before each part.
        anchors: the anchors of each text part's links (part index -> anchors), which end its hatnotes.
    """

    parts: list[str]
    text_part: dict[int, int]
    first_words: list[int]
    anchors: dict[int, list[str]] = field(default_factory=dict)

    @classmethod
    def of(cls, article: Article) -> Body:
        """The body of an article (headings are lines of the text, as WikiExtractor writes them)."""
        parts, text_part = [article.abstract], {-1: 0}
        for number, section in enumerate(article.sections):
            parts.append(section.title)
            text_part[number] = len(parts)
            parts.append(section.text)
        first_words = [0, *itertools.accumulate(map(count_words, parts))][:-1]  # words before each part
        anchors: dict[int, list[str]] = {}
        for link in article.links:
            if link.section in text_part:
                anchors.setdefault(text_part[link.section], []).append(link.anchor)
        return cls(parts, text_part, first_words, anchors)

    @property
    def words(self) -> int:
        """Words in the whole body."""
        return self.first_words[-1] + count_words(self.parts[-1])

    def first_sentence(self) -> tuple[int, int, int] | None:
        """``(part, start, end)`` of the first sentence of the first text part that has one (None: no text); the
        hatnotes that open a part ("Main article: X", :mod:`.hatnotes`) are not sentences of it."""
        for index in sorted(self.text_part.values()):
            spans = sentence_spans(self.parts[index])
            for start, end in skip_hatnotes(self.parts[index], spans, self.anchors.get(index, ())):
                if self.parts[index][start:end].strip():
                    return index, start, end
        return None

    def text(self, without: tuple[int, int, int] | None = None) -> str:
        """The whole body, or the body without one span ``(part, start, end)``."""
        parts = list(self.parts)
        if without is not None:
            index, start, end = without
            parts[index] = parts[index][:start] + parts[index][end:]
        return "\n".join(p for p in parts if p)


class LinkLocator:
    """Where each link of an article stands in its :class:`Body`, found from the link's sentence and anchor.

    Links come in document order, so each part is searched from where the previous link of that part was found;
    a link whose sentence or anchor is not found in its part is reported as unlocated (None).
    """

    def __init__(self, body: Body):
        self.body = body
        self._cursor: dict[int, int] = {}

    def locate(self, section: int, sentence: str, anchor: str) -> tuple[int, int] | None:
        """``(part, character offset of the anchor)``, or None when it cannot be found."""
        index = self.body.text_part.get(section)
        if index is None:
            return None
        text, cursor = self.body.parts[index], self._cursor.get(index, 0)
        start = text.find(sentence, cursor) if sentence else -1
        if start < 0 and sentence:
            start = text.find(sentence)
        if start >= 0:
            found = _find_word(text, anchor, start, start + len(sentence)) if anchor else start
            offset = found if found >= 0 else start
            self._cursor[index] = start
        else:
            offset = text.find(anchor, cursor) if anchor else -1
            if offset < 0:
                return None
            self._cursor[index] = offset
        return index, offset

    def word_position(self, part: int, offset: int) -> int:
        """The number of words of the body before character ``offset`` of ``part``."""
        return self.body.first_words[part] + count_words(self.body.parts[part][:offset])


def _find_word(text: str, anchor: str, start: int, end: int) -> int:
    """The first occurrence of ``anchor`` in ``text[start:end]`` that is not inside a longer word ("Angola" in
    "the Angolan army, in Angola" is the second one), else the first occurrence at all (-1: none)."""
    first = found = text.find(anchor, start, end)
    while found >= 0:
        before = text[found - 1] if found > 0 else " "
        after = text[found + len(anchor)] if found + len(anchor) < len(text) else " "
        if not (before.isalnum() or after.isalnum()):
            return found
        found = text.find(anchor, found + 1, end)
    return first
