"""The one word rule: spaced scripts by whitespace, CJK as BERT splits it, Thai and its neighbours by ICU."""

import pytest
from tokenizers.normalizers import BertNormalizer

from wikiformer_kit.dataset_scripts.corpus import words as words_module
from wikiformer_kit.dataset_scripts.corpus.words import (
    count_words,
    cut_words,
    first_words,
    has_fewer_words,
    is_spaced,
    letter_words,
    truncate_words,
    word_spans,
)


def _words(text):
    return [text[s:e] for s, e in word_spans(text)]


@pytest.mark.parametrize(
    "text",
    ["Plain  English text,\nwith punctuation — and dashes.", "Київ — столиця України.", "Η Αθήνα είναι πόλη.", ""],
)
def test_spaced_scripts_count_their_whitespace_tokens(text):
    assert count_words(text) == len(text.split())
    assert _words(text) == text.split()


def test_each_ideograph_is_a_word_as_bert_splits_it():
    text = "北京是中华人民共和国的首都"
    assert _words(text) == list(text)
    bert = BertNormalizer(handle_chinese_chars=True, strip_accents=False, lowercase=False)
    assert _words("東京タワーは日本") == bert.normalize_str("東京タワーは日本").split()


def test_kana_runs_are_one_word_and_cjk_punctuation_is_none():
    text = "東京タワーは、日本の電波塔である。"
    assert _words(text) == ["東", "京", "タワーは", "日", "本", "の", "電", "波", "塔", "である"]
    assert count_words(text) == 10


def test_latin_and_digits_next_to_ideographs_are_words_of_their_own():
    assert _words("iPhone于2007年发布") == ["iPhone", "于", "2007", "年", "发", "布"]


def test_thai_lao_khmer_burmese_and_tibetan_are_cut_by_the_dictionary_breaker():
    assert _words("ภาษาไทยเป็นภาษาราชการ") == ["ภาษา", "ไทย", "เป็น", "ภาษา", "ราชการ"]
    assert count_words("ພາສາລາວ") == 2
    assert count_words("ភាសាខ្មែរជាភាសា") == 3
    assert count_words("བོད་ཀྱི་སྐད་ཡིག") == 4  # the tsheg between syllables is no word


def test_truncation_keeps_the_original_spacing_and_cuts_after_the_last_word():
    assert truncate_words("  one two\n three four ", 3) == "one two\n three"
    assert truncate_words("one two", 0) == "one two"
    assert truncate_words("北京是中国的首都。", 3) == "北京是"
    assert first_words("a b c", 0) == ""
    assert first_words("東京タワー", 5) == "東京タワー"


@pytest.mark.parametrize("count", [1, 2, 3, 4, 9])
def test_first_words_ends_where_the_word_spans_say(count):
    # the spaced path cuts at the last split part; it must end exactly at the count-th word of word_spans
    texts = (
        "  one two\n three\u00a0four \u2003five\t", "x", " \u3000a  b", "one–two “three”  four",
        "one two three four five six seven eight nine ten 東京タワー", "one two 北京是中国的首都。 three four",
        "one tw北o three four five", "ภาษา one two three four five six seven eight nine ten", "abc。def ghi",
    )  # fmt: skip
    for text in texts:
        spans = list(word_spans(text))
        expected = text if len(spans) <= count else text[: spans[count - 1][1]]
        assert first_words(text, count) == expected


def test_the_quick_test_of_a_spaced_text_misses_no_character_of_other_scripts():
    special = [chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000 and words_module._SPECIAL.match(chr(c))]
    assert len(special) > 80_000
    assert all(words_module._SPECIAL_BLOCKS.match(c) for c in special)
    assert not is_spaced("Tokyo – “東”") and is_spaced("Tokyo – “East” — Ŝ ㄱ")


def test_letter_words_are_lowercased_letters_without_digits():
    assert [w for w, _, _ in letter_words("Tokyo東京2020年")] == ["tokyo", "東", "京", "年"]
    assert letter_words("ABC 北") == [("abc", 0, 3), ("北", 4, 5)]


def test_a_word_keeps_its_combining_marks_in_every_script():
    # words of the Hindi Wikipedia's page बर्लिन and the name of the language: vowel signs and the virama are
    # combining marks (\p{M}), not letters, and must not cut a word
    lead = "बर्लिन जर्मनी की राजधानी और हिन्दी"
    assert [w for w, _, _ in letter_words(lead)] == ["बर्लिन", "जर्मनी", "की", "राजधानी", "और", "हिन्दी"]
    # Hindi next to ideographs (a text without spaces) and a Latin letter with a combining accent
    assert [w for w, _, _ in letter_words("हिन्दी東京")] == ["हिन्दी", "東", "京"]
    assert [w for w, _, _ in letter_words("Cafe\u0301 2020")] == ["cafe\u0301"]


@pytest.mark.parametrize("count", [0, 1, 2, 3, 4, 5, 11])
def test_fewer_words_is_the_count_compared(count):
    texts = (
        "", "   ", "one", "one two three", "a   ", "  a b \n\t", "one two three four\u00a0five", "北京是中国",
        "東京タワーは日本", "ภาษาไทยเป็นภาษา", "one 北京 two", "x" * 50 + " y", "a b c d e f g h i j k l 北京",
        "北京 a b c d e f g h i j k l", "a 。 b 。 c d e f g h i j k", "aé b c d e f g h i j k l m",
    )  # fmt: skip
    for text in texts:
        assert has_fewer_words(text, count) == (count_words(text) < count), (text, count)
    # exactly count words: not fewer; one less: fewer
    assert not has_fewer_words("a b c", 3) and has_fewer_words("a b", 3)


def test_cut_words_is_the_remembered_truncation_without_the_memory():
    for text, budget in (("  one two\n three four ", 3), ("one two", 0), ("北京是中国的首都。", 3)):
        assert cut_words(text, budget) == truncate_words(text, budget)
