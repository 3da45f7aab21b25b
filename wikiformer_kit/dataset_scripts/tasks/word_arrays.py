"""PROP's and HARP's word units of many texts at once, found with NumPy over the texts' UTF-8 bytes.

The rule is :func:`~dataset_scripts.tasks.language_model.words`' (runs of letters with the combining marks after
them, each CJK ideograph and each kana run a word of its own), applied to every character through one lookup
table listed from Python's own ``re`` classes. Each byte gets its character's kind, so that words are found as
runs of bytes and taken from the texts' Arrow data as they are, without a string per word in Python. Texts are
processed about :data:`CHARACTERS_PER_SLICE` characters at a time, so that a unit of long articles needs a few
tens of MiB.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

import numpy as np
import pyarrow as pa

from wikiformer_kit.dataset_scripts.corpus.words import DICTIONARY_SCRIPTS, IDEOGRAPHS, KANA, combining_marks
from wikiformer_kit.dataset_scripts.corpus.words import _segments as dictionary_segments

OTHER, LETTER, MARK, IDEOGRAPH, KANA_LETTER, DICTIONARY = range(6)
"""What a character is to the word rule (the values of :func:`code_point_kinds`)."""
CHARACTERS_PER_SLICE = 1 << 22
"""Characters of texts split at once (a longer text is a slice of its own)."""


@functools.cache
def code_point_kinds() -> np.ndarray:
    """Per code point (0 to U+10FFFF), its kind: :data:`LETTER` (Python's ``[^\\W\\d_]``), :data:`MARK` (the
    combining marks of :func:`~dataset_scripts.corpus.words.combining_marks`), :data:`IDEOGRAPH`,
    :data:`KANA_LETTER`, :data:`DICTIONARY` (a script cut by ICU's dictionary) or :data:`OTHER`. Unicode has
    letters and marks in planes 0-3 and 14 only (4-13 are unassigned, 15-16 private use)."""
    points = np.array([*range(0x40000), *range(0xE0000, 0xF0000)], dtype=np.int64)
    every = "".join(map(chr, points.tolist()))
    kinds = np.zeros(0x110000, dtype=np.uint8)
    # later kinds win: the own-run scripts' letters and marks are theirs, not LETTER's or MARK's
    for kind, body in (
        (LETTER, "^\\W\\d_"),
        (MARK, combining_marks()),
        (IDEOGRAPH, IDEOGRAPHS),
        (KANA_LETTER, KANA),
        (DICTIONARY, DICTIONARY_SCRIPTS),
    ):
        for match in re.finditer(f"[{body}]+", every):
            kinds[points[match.start() : match.end()]] = kind
    return kinds


@functools.cache
def _byte_table() -> bytes:
    """:func:`code_point_kinds` of the 256 byte values, as a ``bytes.translate`` table."""
    return code_point_kinds()[:0x100].tobytes()


def _byte_kinds(data: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """UTF-8 bytes -> (each byte's kind, that of its character; the first byte of each character of 2 to 4 bytes;
    their kinds). ASCII bytes are looked up directly; only the others' code points are decoded (a few percent of
    a text in a Latin script)."""
    # right for ASCII; the bytes of longer characters are set below. A byte table through bytes.translate: NumPy's
    # fancy indexing would first widen every byte to an 8-byte index
    kinds = np.frombuffer(bytearray(data).translate(_byte_table()), dtype=np.uint8)
    leads = np.flatnonzero(data >= 0xC0)
    first = data[leads]
    size = 2 + (first >= 0xE0).astype(np.int64) + (first >= 0xF0)
    point = (first & np.where(size == 2, 0x1F, np.where(size == 3, 0x0F, 0x07))).astype(np.int64)
    for k in (1, 2, 3):
        more = np.flatnonzero(size > k)
        point[more] = (point[more] << 6) | (data[leads[more] + k] & 0x3F)
    lead_kinds = code_point_kinds()[point]
    for k in (0, 1, 2, 3):
        more = np.flatnonzero(size > k)
        kinds[leads[more] + k] = lead_kinds[more]
    return kinds, leads, lead_kinds


def _runs(member: np.ndarray, text_starts: np.ndarray, text_ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(starts, ends) of the maximal runs of ``member`` bytes, none across two texts."""
    before = np.concatenate([[False], member[:-1]])
    before[text_starts] = False
    after = np.concatenate([member[1:], [False]])
    after[text_ends - 1] = False
    return np.flatnonzero(member & ~before), np.flatnonzero(member & ~after) + 1


def _spans(
    data: np.ndarray, offsets: np.ndarray, dictionary_runs: bool = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(starts, ends) of the words of texts whose UTF-8 bytes are ``data`` (text ``i`` at ``offsets[i]`` to
    ``offsets[i + 1]``), in order; whether each is a run of :data:`DICTIONARY` characters (with ``dictionary_runs``:
    such runs are spans too, to be cut by ICU; without, none is); the first bytes of the :data:`DICTIONARY`
    characters."""
    kinds, leads, lead_kinds = _byte_kinds(data)
    filled = offsets[1:] > offsets[:-1]
    text_starts, text_ends = offsets[:-1][filled], offsets[1:][filled]
    starts, ends = _runs((kinds == LETTER) | (kinds == MARK), text_starts, text_ends)
    # a run of letters and marks is a word from its first letter on: marks that follow no letter are none
    marked = np.flatnonzero(kinds[starts] == MARK)
    for run in marked.tolist():
        letters = np.flatnonzero(kinds[starts[run] : ends[run]] == LETTER)
        starts[run] = starts[run] + letters[0] if len(letters) else -1
    if len(marked):
        ends, starts = ends[starts >= 0], starts[starts >= 0]
    dictionary = leads[lead_kinds == DICTIONARY]
    spans = [(starts, ends, False)]  # (starts, ends, whether they are runs to be cut by ICU)
    ideographs = leads[lead_kinds == IDEOGRAPH]
    if len(ideographs):
        spans.append((ideographs, ideographs + 2 + (data[ideographs] >= 0xE0) + (data[ideographs] >= 0xF0), False))
    for kind in (KANA_LETTER, DICTIONARY) if dictionary_runs and len(dictionary) else (KANA_LETTER,):
        member = kinds == kind
        if member.any():
            spans.append((*_runs(member, text_starts, text_ends), kind == DICTIONARY))
    runs = np.zeros(len(starts), dtype=bool)
    if len(spans) > 1:
        starts, ends = np.concatenate([s for s, _, _ in spans]), np.concatenate([e for _, e, _ in spans])
        runs = np.concatenate([np.full(len(s), cut) for s, _, cut in spans])
        order = np.argsort(starts, kind="stable")
        starts, ends, runs = starts[order], ends[order], runs[order]
    return starts, ends, runs, dictionary


def _utf8(texts: list[str]) -> tuple[pa.Array, np.ndarray, np.ndarray]:
    """The texts as an Arrow array, with its UTF-8 bytes and each text's first byte (and the end)."""
    strings = pa.array(texts, pa.string())
    offsets = np.frombuffer(strings.buffers()[1], dtype=np.int32)[: len(texts) + 1].astype(np.int64)
    data = np.frombuffer(strings.buffers()[2] or b"", dtype=np.uint8)[: offsets[-1]]
    return strings, data, offsets


def _taken(strings: pa.Array, starts: np.ndarray, ends: np.ndarray) -> pa.Array:
    """The pieces ``[starts[i], ends[i])`` of an Arrow string array's UTF-8 data (ascending, apart), as strings."""
    # one string array whose odd values are the pieces (the even ones what lies between them), taken apart
    bounds = np.empty(2 * len(starts) + 1, dtype=np.int32)
    bounds[0], bounds[1::2], bounds[2::2] = 0, starts, ends
    spans = pa.StringArray.from_buffers(2 * len(starts), pa.py_buffer(bounds), strings.buffers()[2] or b"")
    return spans.take(pa.array(np.arange(1, 2 * len(starts), 2, dtype=np.int64)))


def _slice_words(texts: list[str]) -> tuple[pa.Array, np.ndarray, np.ndarray]:
    """The words of some texts: (words, the text of each word, whether each text holds a :data:`DICTIONARY`
    character)."""
    strings, data, offsets = _utf8(texts)
    starts, ends, _, dictionary_bytes = _spans(data, offsets)
    dictionary = np.zeros(len(texts), dtype=bool)
    dictionary[np.searchsorted(offsets, dictionary_bytes, side="right") - 1] = True
    return _taken(strings, starts, ends), np.searchsorted(offsets, starts, side="right") - 1, dictionary


def dictionary_script_words(texts: Sequence[str]) -> list[list[str]]:
    """The words of each text as :func:`~dataset_scripts.corpus.words.letter_words` finds them (for texts that
    hold a script cut by ICU's dictionary: each run of it cut by ICU's word breaker, every word lowercased on its
    own), found with the same kinds as :func:`letter_word_arrays`."""
    found: list[list[str]] = [[] for _ in texts]
    for part in slices_of(texts):
        strings, data, offsets = _utf8(list(texts[part]))
        starts, ends, runs, _ = _spans(data, offsets, dictionary_runs=True)
        text_of = (np.searchsorted(offsets, starts, side="right") - 1 + part.start).tolist()
        for word, run, text in zip(_taken(strings, starts, ends).to_pylist(), runs.tolist(), text_of, strict=True):
            if run:
                found[text].extend(word[s:e].lower() for s, e in dictionary_segments(word))
            else:
                found[text].append(word.lower())
    return found


def slices_of(texts: Sequence[str], characters: int = CHARACTERS_PER_SLICE, spacing: int = 0) -> list[slice]:
    """Consecutive slices of ``texts`` of about ``characters`` characters each (``spacing`` more a text: what joins
    them)."""
    bounds, size = [0], 0
    for i, text in enumerate(texts):
        if size and size + len(text) > characters:
            bounds.append(i)
            size = 0
        size += len(text) + spacing
    bounds.append(len(texts))
    return [slice(a, b) for a, b in zip(bounds[:-1], bounds[1:], strict=True) if b > a]


def letter_word_arrays(texts: Sequence[str]) -> tuple[pa.Array, np.ndarray, np.ndarray]:
    """The word units of every lowercased text, flattened: ``(words, counts, dictionary)``, ``counts[i]`` the number
    of words of text ``i``; ``dictionary[i]``: text ``i`` holds a script cut by ICU's dictionary (Thai, Khmer, ...),
    whose words are not found here (its count is 0 and none of its words are in ``words``)."""
    found, counts, dictionary = [], np.zeros(len(texts), dtype=np.int64), np.zeros(len(texts), dtype=bool)
    for part in slices_of(texts):
        words, text_of, own = _slice_words(list(texts[part]))
        if own.any():
            keep = ~own[text_of]
            words, text_of = words.filter(pa.array(keep)), text_of[keep]
        found.append(words)
        counts[part] = np.bincount(text_of, minlength=part.stop - part.start)
        dictionary[part] = own
    return (pa.concat_arrays(found) if found else pa.array([], pa.string())), counts, dictionary
