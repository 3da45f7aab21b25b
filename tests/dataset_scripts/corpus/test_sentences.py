"""Sentence spans: abbreviations and initials kept together, paragraphs as lines or as blank-line blocks."""

from __future__ import annotations

from bisect import bisect_right
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from wikiformer_kit.dataset_scripts.corpus.sentences import BLANK_LINE, LINE_BREAK, SentenceFinder, sentence_spans

PAGE = (
    Path(__file__).resolve().parents[3]
    / "wikiformer_kit/data/samples/wikipedia/other-languages/de/Mozilla Firefox.wikitext"
)


def sentences(text: str, **kwargs) -> list[str]:
    return [text[start:end].strip() for start, end in sentence_spans(text, **kwargs)]


def test_abbreviations_and_initials_stay_in_their_sentence():
    text = (
        "Dr. Smith met J. R. Doe in the U.S. on Monday. It rained, e.g. heavily! Did it? Yes.\nNew paragraph 2. Three."
    )
    assert sentences(text) == [
        "Dr. Smith met J. R. Doe in the U.S. on Monday.",
        "It rained, e.g. heavily!",
        "Did it?",
        "Yes.",
        "New paragraph 2.",
        "Three.",
    ]
    assert sentences("") == [""]


def test_a_long_word_before_the_stop_ends_the_sentence():
    assert sentences("It was internationalised. Then it grew. Mr. X (« quoted ».) Ёлка.") == [
        "It was internationalised.", "Then it grew.", "Mr. X (« quoted ».)", "Ёлка.",
    ]  # fmt: skip


def test_sentences_of_scripts_without_spaces_end_at_their_own_stops():
    assert sentences("東京は日本の首都である。人口は多い！「本当？」と聞いた") == [
        "東京は日本の首都である。", "人口は多い！", "「本当？」", "と聞いた",
    ]  # fmt: skip


def test_the_devanagari_danda_ends_a_sentence():
    assert sentences("भारत एक देश है। इसकी राजधानी दिल्ली है॥ अंत") == [
        "भारत एक देश है।", "इसकी राजधानी दिल्ली है॥", "अंत",
    ]  # fmt: skip


def test_wikitext_paragraphs_are_blank_line_blocks():
    text = "A sentence wrapped\nover two lines. Another one.\n\n  \nA new paragraph\nwithout a stop\n\nLast"
    assert sentences(text, paragraph_break=BLANK_LINE) == [
        "A sentence wrapped\nover two lines.", "Another one.", "A new paragraph\nwithout a stop", "Last",
    ]  # fmt: skip
    assert sentences(text) == [  # as lines instead: every line a paragraph, blank ones empty
        "A sentence wrapped", "over two lines.", "Another one.", "", "", "A new paragraph", "without a stop", "", "Last",
    ]  # fmt: skip


@given(st.text(alphabet=st.sampled_from("ab. \nJ!?Ée.g"), max_size=80), st.booleans())
def test_spans_are_ordered_disjoint_and_lose_no_word(text, blank_lines):
    options = {"paragraph_break": BLANK_LINE} if blank_lines else {}
    spans = sentence_spans(text, **options)
    assert all(0 <= start <= end <= len(text) for start, end in spans)
    assert all(a_end <= b_start for (_, a_end), (b_start, _) in zip(spans, spans[1:], strict=False))
    covered = " ".join(text[start:end] for start, end in spans)
    assert covered.split() == text.split()


def around_by_spans(text: str, paragraph_break, first: int, last: int) -> tuple[int, int]:
    """What SentenceFinder.around must give: the sentences of the whole text, looked up by their starts."""
    spans = sentence_spans(text, paragraph_break)
    starts = [start for start, _ in spans]
    return spans[bisect_right(starts, first) - 1][0], spans[bisect_right(starts, last) - 1][1]


def test_the_finder_gives_the_sentences_of_the_whole_text_on_a_real_page():
    text = PAGE.read_text(encoding="utf-8")[:6000]
    for paragraph_break in (BLANK_LINE, LINE_BREAK):
        finder = SentenceFinder(text, paragraph_break)
        for first in range(0, len(text), 7):
            for last in (first, first + 40, first + 900):  # in the same sentence, a few further, paragraphs later
                assert finder.around(first, last) == around_by_spans(text, paragraph_break, first, last)


@given(st.text(alphabet=st.sampled_from("ab. \nJ!?Ée.g"), max_size=80), st.data())
def test_the_finder_agrees_with_the_spans_anywhere(text, data):
    first = data.draw(st.integers(0, len(text)))
    last = data.draw(st.integers(first, len(text) + 3))
    assert SentenceFinder(text, BLANK_LINE).around(first, last) == around_by_spans(text, BLANK_LINE, first, last)
