"""The word rule over UTF-8 bytes: each character's kind, words never across two texts or two slices."""

from __future__ import annotations

import pytest

from wikiformer_kit.dataset_scripts.tasks import word_arrays
from wikiformer_kit.dataset_scripts.tasks.language_model import words
from wikiformer_kit.dataset_scripts.tasks.word_arrays import (
    DICTIONARY,
    IDEOGRAPH,
    KANA_LETTER,
    LETTER,
    MARK,
    OTHER,
    code_point_kinds,
    letter_word_arrays,
)


def test_each_character_has_the_kind_of_pythons_classes():
    kinds = code_point_kinds()
    expected = {
        "a": LETTER, "é": LETTER, "²": LETTER, "Ⅻ": LETTER, "\U00020000": IDEOGRAPH, "算": IDEOGRAPH,
        "\u0301": MARK, "\u093f": MARK, "\u3099": KANA_LETTER, "カ": KANA_LETTER, "ー": KANA_LETTER,
        "ก": DICTIONARY, "\u0e31": DICTIONARY, "1": OTHER, "_": OTHER, " ": OTHER, "・": OTHER, "。": OTHER,
        "\U000e0100": MARK, "\U000f0000": OTHER,
    }  # fmt: skip
    assert {c: int(kinds[ord(c)]) for c in expected} == expected


def test_words_of_texts_split_one_byte_apart_stay_in_their_text():
    texts = ["ab", "cd", "", "é", "\u0301e", "算盤", "かな", "ΟΔΟΣ"]
    found, counts, dictionary = letter_word_arrays([t.lower() for t in texts])
    assert found.to_pylist() == ["ab", "cd", "é", "e", "算", "盤", "かな", "οδος"]
    assert counts.tolist() == [1, 1, 0, 1, 1, 2, 1, 1] and not dictionary.any()


def test_a_text_in_a_dictionary_script_is_flagged_and_left_out():
    found, counts, dictionary = letter_word_arrays(["one", "ภาษาไทย two", "three"])
    assert found.to_pylist() == ["one", "three"]
    assert counts.tolist() == [1, 0, 1] and dictionary.tolist() == [False, True, False]


@pytest.mark.parametrize("characters", [1, 5, 40, 1 << 22])
def test_slices_of_any_size_give_the_words_of_each_text(monkeypatch, characters):
    monkeypatch.setattr(word_arrays, "CHARACTERS_PER_SLICE", characters)
    texts = ["The U.S. x-ray", "", "हिन्दी में", "as 算盤 かな\u3099カナー", "e\u0301te\u0301 \u0301a", "z" * 50]
    found, counts, _ = letter_word_arrays([t.lower() for t in texts])
    assert found.to_pylist() == [w for t in texts for w in words(t)]
    assert counts.tolist() == [len(words(t)) for t in texts]


def test_texts_in_a_dictionary_script_have_letter_words_words():
    from wikiformer_kit.dataset_scripts.corpus.words import letter_words
    from wikiformer_kit.dataset_scripts.tasks.word_arrays import dictionary_script_words

    texts = [
        "ภาษาไทย and English",
        "ΟΔΟΣ ភាសាខ្មែរ İstanbul 算盤 かな e\u0301a \u0301b",  # Greek's final sigma: each word lowered on its own
        "ພາສາລາວ123ລາວ",
        "",
    ]
    found = dictionary_script_words(texts)
    assert found == [[word for word, _, _ in letter_words(text)] for text in texts]
    assert found[0] == ["ภาษา", "ไทย", "and", "english"] and found[1][0] == "οδος"
