"""What a word is, in every script: the one rule by which the kit counts, caps and cuts words (the table of
``docs/languages.md``). Text written with spaces has a word per whitespace-separated token; each CJK ideograph and
each run of kana is a word, as BERT's basic tokenizer splits them (the ranges below are BERT's); Thai, Lao, Khmer,
Burmese and Tibetan runs are cut by ICU's dictionary word breaker (``icu4py``); CJK punctuation separates words.

:func:`count_words`, :func:`truncate_words` and :func:`first_words` count and cut; :func:`letter_words` gives the
word units of PROP and HARP (letters only, lowercased, digits and ``_`` excluded) by the same rule.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterator

IDEOGRAPHS = (
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
    "\U00020000-\U0002a6df\U0002a700-\U0002b73f\U0002b740-\U0002b81f\U0002b820-\U0002ceaf\U0002f800-\U0002fa1f"
)
"""The code points BERT's basic tokenizer treats as Chinese characters (one token each)."""
KANA = "\u3041-\u309f\u30a0-\u30fa\u30fc-\u30ff\u31f0-\u31ff\uff66-\uff9f"
"""Hiragana, katakana (the middle dot ``・`` excepted: it is punctuation) and half-width katakana."""
DICTIONARY_SCRIPTS = "\u0e00-\u0eff\u0f00-\u0fff\u1000-\u109f\u1780-\u17ff\u19e0-\u19ff"
"""Thai, Lao, Tibetan, Myanmar, Khmer (and Khmer symbols): written without spaces between words."""


def _cjk_punctuation() -> str:
    blocks = [(0x3000, 0x303F), (0x30FB, 0x30FB), (0xFE30, 0xFE4F), (0xFF00, 0xFF65)]
    points = [chr(c) for lo, hi in blocks for c in range(lo, hi + 1)]
    return "".join(re.escape(c) for c in points if unicodedata.category(c)[0] in "PZS")


CJK_PUNCTUATION = _cjk_punctuation()
_OWN_RUNS = re.compile(f"[{IDEOGRAPHS}{KANA}{DICTIONARY_SCRIPTS}]")


@functools.cache
def combining_marks() -> str:
    """The combining marks (Unicode category M: Devanagari vowel signs and virama, Arabic harakat, accents written
    apart) as a character class body, those of the scripts matched as runs of their own (ideographs, kana,
    Thai, ...) left out. Python's ``\\w`` has no marks, so ``[^\\W\\d_]+`` would cut ``हिन्दी`` at each sign."""
    blocks = [(0x0300, 0x1EFFF), (0xE0100, 0xE01EF)]  # every mark of Unicode lies in these
    points = [c for lo, hi in blocks for c in range(lo, hi + 1) if unicodedata.category(chr(c))[0] == "M"]
    points = [c for c in points if not _OWN_RUNS.match(chr(c))]
    ranges: list[list[int]] = []
    for c in points:
        if ranges and ranges[-1][1] == c - 1:
            ranges[-1][1] = c
        else:
            ranges.append([c, c])
    return "".join(re.escape(chr(lo)) + (f"-{re.escape(chr(hi))}" if hi > lo else "") for lo, hi in ranges)


def letter_run() -> str:
    """The pattern of a word of letters in a script written with spaces: letters and the combining marks after
    them, digits and ``_`` excluded (``हिन्दी`` is one word, not three letters cut at its vowel signs). Built on
    first use: listing Unicode's marks costs tens of milliseconds that counting words never needs."""
    return f"[^\\W\\d_]+(?:[{combining_marks()}]+[^\\W\\d_]*)*"


_LETTER = f"[^\\W\\d_{IDEOGRAPHS}{KANA}{DICTIONARY_SCRIPTS}]"
_SEPARATOR = f"\\s{CJK_PUNCTUATION}"
_TOKEN = re.compile(
    f"[{IDEOGRAPHS}]|[{KANA}]+|[{DICTIONARY_SCRIPTS}]+|[^{_SEPARATOR}{IDEOGRAPHS}{KANA}{DICTIONARY_SCRIPTS}]+"
)


@functools.cache
def _letters() -> re.Pattern:
    marks = combining_marks()
    return re.compile(f"[{IDEOGRAPHS}]|[{KANA}]+|[{DICTIONARY_SCRIPTS}]+|{_LETTER}+(?:[{marks}]+{_LETTER}*)*")


_SPECIAL = re.compile(f"[{CJK_PUNCTUATION}{IDEOGRAPHS}{KANA}{DICTIONARY_SCRIPTS}]")
# a few ranges that hold every character of _SPECIAL: scanning a long text for them is twice as fast, and most
# texts of spaced scripts (with their dashes and quotes) have none
_SPECIAL_BLOCKS = re.compile(
    "[\u0e00-\u109f\u1780-\u17ff\u19e0-\u19ff\u3000-\u9fff\uf900-\ufaff\ufe30-\uff9f\U00020000-\U0002fa1f]"
)
_DICTIONARY_RUN = re.compile(f"[{DICTIONARY_SCRIPTS}]")


def is_spaced(text: str) -> bool:
    """Whether ``text`` holds no character of a script written without spaces (its words are its tokens)."""
    return text.isascii() or _SPECIAL_BLOCKS.search(text) is None or _SPECIAL.search(text) is None


@functools.lru_cache(maxsize=65536)
def _segments(run: str) -> tuple[tuple[int, int], ...]:
    """The words of a Thai/Lao/Khmer/Burmese/Tibetan run by ICU's word breaker (offsets in ``run``)."""
    from icu4py.breakers import WordBreaker

    # the run holds code points of the Basic Multilingual Plane only, so ICU's UTF-16 offsets are ours
    return tuple((s, e) for s, e in WordBreaker(run, "en").segments() if any(c.isalpha() for c in run[s:e]))


def _spans(pattern: re.Pattern, text: str) -> Iterator[tuple[int, int]]:
    for match in pattern.finditer(text):
        start, end = match.span()
        if _DICTIONARY_RUN.match(text, start):
            for s, e in _segments(match.group()):
                yield start + s, start + e
        else:
            yield start, end


def word_spans(text: str) -> Iterator[tuple[int, int]]:
    """Character spans of the words of ``text`` (see the module docstring), in order."""
    if is_spaced(text):
        for match in re.finditer(r"\S+", text):
            yield match.span()
    else:
        yield from _spans(_TOKEN, text)


# Every sampler and the statistics count and cut the same section texts (a section is counted up to five times
# per article); caching on the text costs one hash of a string that Python then keeps, instead of a split.
@functools.lru_cache(maxsize=4096)
def count_words(text: str) -> int:
    """Number of words in ``text``: whitespace-separated tokens, scripts without spaces counted as BERT splits
    them (see the module docstring)."""
    if is_spaced(text):
        return len(text.split())
    return sum(1 for _ in _spans(_TOKEN, text))


def has_fewer_words(text: str, count: int) -> bool:
    """Whether ``count_words(text) < count``, without splitting what follows the ``count``-th word (a long
    document's rest)."""
    # the text up to its count-th word (all of it when it has fewer) holds count words exactly when the text has them
    return count > 0 and count_words(first_words(text, count)) < count


def cut_words(text: str, max_words: int) -> str:
    """``text`` stripped and cut after its ``max_words``-th word (0: no limit), keeping its spacing and newlines."""
    text = text.strip()
    if max_words <= 0:
        return text
    return first_words(text, max_words)


truncate_words = functools.lru_cache(maxsize=4096)(cut_words)
"""Remembers the texts cut most recently: the samplers cut the same sections again."""


def first_words(text: str, count: int) -> str:
    """``text`` up to the end of its ``count``-th word (all of it when it has fewer; ``""`` for 0)."""
    if count <= 0:
        return ""
    # split at most count times: what follows the count-th word's white space is the last part
    parts = text.split(None, count)
    cut = text if len(parts) <= count else text[: len(text) - len(parts[count])].rstrip()
    # a cut that holds no character of a script without spaces is the same by either rule (the words up to it are
    # the same), whatever follows it: only the words kept are scanned, not a long article's whole text
    if is_spaced(cut):
        return cut
    for number, (_, end) in enumerate(_spans(_TOKEN, text), start=1):
        if number == count:
            return text[:end]
    return text


def letter_words(text: str) -> list[tuple[str, int, int]]:
    """``(word, start, end)`` of the word units of PROP and HARP: runs of letters with their
    combining marks (digits and ``_`` excluded), lowercased; in scripts without spaces the words of
    :func:`word_spans`."""
    return [(text[s:e].lower(), s, e) for s, e in _spans(_letters(), text)]
