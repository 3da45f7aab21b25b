"""PROP's language models against hand-computed values: Dirichlet likelihoods, Poisson lengths, subsampling."""

from __future__ import annotations

import math
import random
from collections import Counter
from pathlib import Path

import pytest

from tests.dataset_scripts.tasks.references import CorpusCounts
from wikiformer_kit.dataset_scripts.tasks.language_model import (
    CollectionModel,
    DocumentModel,
    UnitTokens,
    content_words,
    has_word,
    load_stopwords,
    normal_length,
    poisson_length,
    word_lists,
    words,
)

STOP = load_stopwords()
THREE = ["Apple banana apple", "banana cherry", "cherry Cherry, apple: the"]


def log_likelihood(document: DocumentModel, word_set) -> float:
    """log P(S|D) = sum over the set's words (repeats counted) of log P(w|D) (eq. 2 of PROP)."""
    return math.fsum(math.log(document.probability(w)) for w in word_set)


def model(background: str = "cf", subsample: float = 0.0) -> CollectionModel:
    counts = CorpusCounts.from_texts(THREE, STOP)
    return CollectionModel(counts.cf, counts.df, counts.documents, counts.words, 1, subsample, background)


def test_inquery_list_is_vendored_and_used():
    assert len(STOP) == 418 and {"the", "a", "about"} <= STOP
    assert words("The U.S. x-ray, 2nd") == ["the", "u", "s", "x", "ray", "nd"]
    for text in ("", "12 34 !", "_3", "İ", "Ⅻ", "x1"):
        assert has_word(text) == bool(words(text))


def test_prop_words_keep_their_combining_marks():
    # Devanagari vowel signs and the virama are marks, not letters: PROP's word units must not split at them
    assert words("हिन्दी में बर्लिन") == ["हिन्दी", "में", "बर्लिन"]
    assert content_words("बर्लिन जर्मनी की राजधानी", frozenset({"की"})) == ["बर्लिन", "जर्मनी", "राजधानी"]


def assert_word_lists_equal_words(texts: list[str]) -> None:
    flat, counts = word_lists(texts)
    assert flat.to_pylist() == [word for text in texts for word in words(text)]
    assert counts.tolist() == [len(words(text)) for text in texts]


def test_word_lists_split_a_unit_at_once_as_words_splits_each_text():
    hand = [
        "The U.S. x-ray, 2nd_place",
        "e\u0301te\u0301 \u0301a 1\u0303b x²y ½ Ⅻ ΟΔΟΣ İstanbul",  # decomposed accents, marks after no letter
        "हिन्दी में बर्लिन",
        "as the suanpan 算盤 (lit. counting tray) かな\u3099カナー算\u0301a",  # ideographs and kana among letters
        "ภาษาไทย and English",  # ICU's dictionary words: the Python path, put back in order
        "",
        "  ",
    ]
    assert_word_lists_equal_words(hand)
    assert word_lists(hand[:1])[0].to_pylist() == ["the", "u", "s", "x", "ray", "nd", "place"]
    assert word_lists([])[1].tolist() == []


def test_word_lists_equal_words_at_every_code_point():
    # Arrow's classes are listed from Python's own: every letter, mark, digit and sign splits as words() splits it
    points = [chr(c) for c in range(0x20, 0x40000) if not 0xD800 <= c < 0xE000] + [
        chr(c) for c in range(0xE0000, 0xE0200)
    ]
    assert_word_lists_equal_words([f"a{c}b {c}\u0301x 1{c}" for c in points])


def test_word_lists_equal_words_on_the_vendored_wikitext_of_every_language():
    folder = (
        Path(__file__).resolve().parents[3] / "wikiformer_kit" / "data" / "samples" / "wikipedia" / "other-languages"
    )
    texts = [line for path in sorted(folder.glob("*/*.wikitext")) for line in path.read_text("utf-8").splitlines()]
    assert len(texts) > 1000
    assert_word_lists_equal_words(texts)


def test_nltk_english_list_and_the_original_codes_union():
    nltk = load_stopwords("nltk")
    assert len(nltk) == 179 and {"i", "me", "don't", "mightn", "wouldn't"} <= nltk and "#" not in "".join(nltk)
    union = load_stopwords("nltk+inquery")
    assert union == nltk | STOP and len(union) == 418 + 57  # 57 NLTK words are not in INQUERY
    assert {"t", "s", "don", "ll", "theirs"} <= union - STOP  # the contraction pieces [a-zA-Z]+ leaves
    assert load_stopwords("inquery") == load_stopwords("") == STOP
    with pytest.raises(FileNotFoundError, match="nltk\\+inqury.*vendored list name"):
        load_stopwords("nltk+inqury")


def test_a_stopword_file_is_read_as_given(tmp_path):
    path = tmp_path / "stop.txt"
    path.write_text("# my list\nFoo\n\n  bar \n", encoding="utf-8")
    assert load_stopwords(str(path)) == {"foo", "bar"}


def test_counts_and_mu_of_three_documents():
    counts = CorpusCounts.from_texts(THREE, STOP)
    assert counts.cf == Counter(apple=3, banana=2, cherry=3) and counts.df == Counter(apple=2, banana=2, cherry=2)
    assert (counts.documents, counts.words) == (3, 8)
    assert model().mu == pytest.approx(8 / 3)


def test_dirichlet_likelihoods_by_hand():
    # D1 = apple x2, banana x1; |D1| = 3; mu = 8/3; P(w|C) = 3/8, 2/8, 3/8
    # P(apple|D1) = (2 + 8/3 * 3/8) / (3 + 8/3) = 3 / (17/3) = 9/17; banana: (1 + 2/3) / (17/3) = 5/17; cherry: 3/17
    d1 = DocumentModel(THREE[0], model(), STOP)
    assert [d1.probability(w) for w in ("apple", "banana", "cherry")] == pytest.approx([9 / 17, 5 / 17, 3 / 17])
    assert log_likelihood(d1, ["apple", "cherry"]) == pytest.approx(math.log(27 / 289))
    assert log_likelihood(d1, ["apple", "apple"]) == pytest.approx(2 * math.log(9 / 17))
    # D3 = cherry x2, apple x1 ("the" is a stopword): P(banana|D3) = (0 + 2/3) / (17/3) = 2/17
    assert DocumentModel(THREE[2], model(), STOP).probability("banana") == pytest.approx(2 / 17)
    # the original code's background, document frequencies: P(w|C) = 1/3 each; P(apple|D1) = (2 + 8/9) / (17/3)
    assert DocumentModel(THREE[0], model("df"), STOP).probability("apple") == pytest.approx(26 / 51)


def test_draws_follow_the_document_model():
    d2 = DocumentModel(THREE[1], model(), STOP)  # |D2| = 2, |D2| + mu = 14/3; apple: (0 + 8/3 * 3/8) / (14/3)
    expected = {"apple": 3 / 14, "banana": (1 + 2 / 3) / (14 / 3), "cherry": (1 + 1) / (14 / 3)}
    assert sum(expected.values()) == pytest.approx(1.0)
    # 30,000 one-word sets without subsampling: single draws from P(w|D) (the vectorised sampler the build uses)
    sets = d2.sample_sets(random.Random(0), [1] * 30_000)
    drawn = Counter(d2.collection.vocabulary[int(s[0])] for s in sets)
    for word, probability in expected.items():
        assert drawn[word] / 30_000 == pytest.approx(probability, abs=0.01)
    # subsampling thins P(w|D) by keep(w): P(w) keep(w) / sum (keep: apple 0.5, banana 1, cherry 0.25)
    thinned = DocumentModel(THREE[1], model(), STOP)
    thinned.collection.keep_by_id[:] = [0.5, 1.0, 0.25]
    sets = thinned.sample_sets(random.Random(1), [1] * 30_000)
    drawn = Counter(thinned.collection.vocabulary[int(s[0])] for s in sets)
    mass = sum(p * k for p, k in zip(expected.values(), (0.5, 1.0, 0.25), strict=True))
    for (word, probability), keep in zip(expected.items(), (0.5, 1.0, 0.25), strict=True):
        assert drawn[word] / 30_000 == pytest.approx(probability * keep / mass, abs=0.01)


def test_vocabulary_cut_and_subsampling_keep_probability():
    counts = CorpusCounts.from_texts(THREE, STOP)
    cut = CollectionModel(counts.cf, counts.df, 3, 8, min_count=3, subsample=1e-5)
    assert cut.vocabulary == ["apple", "cherry"] and "banana" not in cut
    assert cut.mu == pytest.approx(6 / 3)
    # word2vec: keep = sqrt(t/f) + t/f with f = 3/8
    assert cut.keep["apple"] == pytest.approx(math.sqrt(1e-5 / 0.375) + 1e-5 / 0.375)
    rare = CollectionModel({"x": 1, "y": 10**7}, {"x": 1, "y": 1}, 1, 10**7 + 1, min_count=1, subsample=1e-3)
    assert rare.keep["x"] == 1.0 and rare.keep["y"] == pytest.approx(math.sqrt(1e-3 / (10**7 / (10**7 + 1))) + 1e-3)


def test_poisson_lengths_match_the_truncated_pmf():
    # P(l = k | l > 0) = 3^k e^-3 / k! / (1 - e^-3): 0.1572, 0.2358, 0.2358, 0.1769 for k = 1..4; mean 3 / (1 - e^-3)
    rng = random.Random(7)
    draws = [poisson_length(rng, 3.0) for _ in range(40_000)]
    assert min(draws) == 1
    counts = Counter(draws)
    for k, expected in ((1, 0.15719), (2, 0.23578), (3, 0.23578), (4, 0.17684)):
        assert 3**k * math.exp(-3) / math.factorial(k) / (1 - math.exp(-3)) == pytest.approx(expected, abs=1e-5)
        assert counts[k] / len(draws) == pytest.approx(expected, abs=0.01)
    assert sum(draws) / len(draws) == pytest.approx(3 / (1 - math.exp(-3)), abs=0.03)
    assert [poisson_length(random.Random(1), 3.0) for _ in range(3)] == [poisson_length(random.Random(1), 3.0)] * 3


def test_normal_lengths_are_truncated_gaussians_as_harps_code_draws_them():
    rng = random.Random(3)
    draws = [normal_length(rng) for _ in range(20_000)]
    assert min(draws) >= 1
    counts = Counter(draws)
    # int() truncates: l = 1 for 1 <= x < 2 (0.1359), l = 2 for 2 <= x < 3 (0.3413); x < 1 (0.0228) is redrawn
    assert counts[1] / len(draws) == pytest.approx(0.1359 / (1 - 0.0228), abs=0.01)
    assert counts[2] / len(draws) == pytest.approx(0.3413 / (1 - 0.0228), abs=0.01)
    # the mean of the accepted lengths: sum over k >= 1 of k P(k <= x < k + 1) / 0.9772 = 2.56 (rounding: 3.02)
    assert sum(draws) / len(draws) == pytest.approx(2.56, abs=0.03)


class _Draws(random.Random):
    """An RNG whose Gaussian draws are given in turn."""

    def __init__(self, values):
        super().__init__(0)
        self.values = iter(values)

    def gauss(self, mu=0.0, sigma=1.0):
        return next(self.values)


def test_normal_length_truncates_redraws_below_one_and_falls_back_to_three():
    assert normal_length(_Draws([3.99])) == 3  # truncated, not rounded to 4
    assert normal_length(_Draws([0.97, -0.4, 1.2])) == 1  # 0 and 0 (int(-0.4)) are drawn again
    assert normal_length(_Draws([0.5] * 101)) == 3  # 100 redraws below 1: the code's fallback


def test_sample_set_gives_up_when_subsampling_rejects_everything():
    counts = CorpusCounts.from_texts(["frequent " * 50], frozenset())
    hopeless = CollectionModel(counts.cf, counts.df, 1, counts.words, 1, subsample=1e-12)
    assert DocumentModel("frequent", hopeless, frozenset()).sample_sets(random.Random(0), [2]) == [None]
    assert DocumentModel("frequent", hopeless, frozenset()).sample_sets(random.Random(0), [1, 3, 2]) == [None] * 3


def test_sample_sets_are_filled_in_draw_order_and_are_reproducible():
    d1 = DocumentModel(THREE[0], model(), STOP)
    sets = d1.sample_sets(random.Random(5), [3, 1, 2])
    assert [len(s) for s in sets] == [3, 1, 2] and all(0 <= i < 3 for s in sets for i in s.tolist())
    again = d1.sample_sets(random.Random(5), [3, 1, 2])
    assert [s.tolist() for s in sets] == [s.tolist() for s in again]
    # the same draws make the sets whatever their sizes: [3, 1, 2] and [6] see the same six words
    assert sum((s.tolist() for s in sets), []) == d1.sample_sets(random.Random(5), [6])[0].tolist()
    # the likelihood is an exact sum: a reordered set ties exactly
    assert d1.log_likelihoods([sets[0], sets[0][::-1]])[0] == d1.log_likelihoods([sets[0][::-1]])[0]
    assert d1.log_likelihoods([sets[0]])[0] == pytest.approx(
        log_likelihood(d1, (d1.collection.vocabulary[i] for i in sets[0]))
    )


def test_unit_tokens_count_like_the_corpus_counts_and_keep_each_documents_words():
    texts = [*THREE, "", "the of and"]
    tokens = UnitTokens.from_texts(texts, STOP)
    counts = CorpusCounts.from_texts(texts, STOP)
    assert tokens.words == sorted(counts.cf) == ["apple", "banana", "cherry"]
    assert dict(zip(tokens.words, tokens.cf.tolist(), strict=True)) == counts.cf
    assert dict(zip(tokens.words, tokens.df.tolist(), strict=True)) == counts.df
    assert (tokens.documents, int(tokens.cf.sum())) == (counts.documents, counts.words)
    as_words = [
        [tokens.words[i] for i in tokens.ids[tokens.offsets[d] : tokens.offsets[d + 1]].tolist()]
        for d in range(len(texts))
    ]
    assert as_words == [content_words(t, STOP) for t in texts]
    assert tokens.has_words.tolist() == [True, True, True, False, True]
    # sorted by code point, as Python sorts (Arrow sorts the UTF-8 bytes: the same order)
    mixed = ["zeta éclair apple Ωmega ア 𠀀字 ﬁne ßx ｚ e\u0301", "Ärger \U0001d49cb apple"]
    words_of_mixed = UnitTokens.from_texts(mixed, STOP).words
    assert words_of_mixed == sorted({w for t in mixed for w in content_words(t, STOP)})
    # U+FF5A, U+1D49C, U+20000: by code point (UTF-16 order would put the last two before U+FF5A)
    assert words_of_mixed[0] == "apple" and words_of_mixed[-3:] == ["ｚ", "\U0001d49cb", "\U00020000"]
    # the rows stage maps them onto the vocabulary (V's ids; words outside V dropped) for the document model
    cut = CollectionModel(counts.cf, counts.df, 3, 8, min_count=3)
    ids = cut.ids(as_words[0])
    assert [cut.vocabulary[i] for i in ids.tolist()] == ["apple", "apple"]
    assert DocumentModel.from_ids(ids, cut).probability("apple") == DocumentModel(THREE[0], cut, STOP).probability(
        "apple"
    )
