"""PROP's ROP rows: the positive is the higher-likelihood set, bad documents are counted skips."""

from __future__ import annotations

import random

import numpy as np
import pytest

from tests.dataset_scripts.tasks.references import CorpusCounts
from tests.dataset_scripts.tasks.test_language_model import log_likelihood
from wikiformer_kit.dataset_scripts.corpus.article import Article
from wikiformer_kit.dataset_scripts.corpus.words import cut_words
from wikiformer_kit.dataset_scripts.tasks.build import BuildOptions, language_stemming
from wikiformer_kit.dataset_scripts.tasks.common import task_rng
from wikiformer_kit.dataset_scripts.tasks.language_model import (
    CollectionModel,
    DocumentModel,
    UnitTokens,
    load_stopwords,
    stemmer,
    words,
)
from wikiformer_kit.dataset_scripts.tasks.prop import (
    PropDocument,
    PropOptions,
    document_rows,
    document_skip,
    document_text,
)

STOP = load_stopwords()
ARTICLES = [
    Article("1", "Apple", abstract="Apple banana apple orchard apple banana cherry orchard."),
    Article("2", "Banana", abstract="Banana cherry orchard banana plantation cherry."),
    Article("3", "Cherry", abstract="Cherry cherry apple plantation orchard."),
]


def prop_groups(article, rng, collection, stopwords, options, max_words=512):
    """The ROP rows of one article, tokenised here as the statistics stage tokenises a unit."""
    text = document_text(article)
    every = words(text)
    content = [w for w in every if w not in stopwords]
    skip = document_skip(article.is_disambiguation, bool(every))
    ids = collection.ids(collection.terms(content))
    document = PropDocument(article.id, article.title, cut_words(text, max_words), skip, bool(content), ids)
    return document_rows(document, rng, collection, options)


def collection(options: PropOptions) -> CollectionModel:
    counts = CorpusCounts.from_texts([document_text(a) for a in ARTICLES], STOP)
    return CollectionModel(
        counts.cf, counts.df, counts.documents, counts.words, options.min_count, options.subsample, options.background
    )


def test_rows_put_the_higher_likelihood_set_first():
    options = PropOptions(min_count=1, subsample=0.0, short_document_words=0)
    model = collection(options)
    out = prop_groups(ARTICLES[0], task_rng(42, "prop", "1"), model, STOP, options)
    assert len(out.groups) + sum(out.skipped.values()) == 5
    assert len(out.groups) >= 3
    document = DocumentModel(document_text(ARTICLES[0]), model, STOP)
    for row in out.groups:
        assert row["document"] == "Apple. Apple banana apple orchard apple banana cherry orchard."
        high, low = row["log_likelihoods"]
        assert high >= low
        assert log_likelihood(document, row["positive"].split()) == pytest.approx(high)
        assert log_likelihood(document, row["negatives"][0].split()) == pytest.approx(low)
        assert len(row["positive"].split()) == len(row["negatives"][0].split()) >= 1
    again = prop_groups(ARTICLES[0], task_rng(42, "prop", "1"), model, STOP, options)
    assert again.groups == out.groups


def test_bad_documents_are_counted_skips():
    options = PropOptions(min_count=1, subsample=0.0, pairs_per_document=40, short_document_words=0)
    model = collection(options)
    rng = random.Random(0)
    assert prop_groups(Article("x", "", abstract="12 34 !"), rng, model, STOP, options).skipped == {"empty-document": 1}
    assert prop_groups(Article("s", "The", abstract="of the and a"), rng, model, STOP, options).skipped == {
        "only-stopwords": 1
    }
    assert prop_groups(Article("v", "Zebra", abstract="zebra"), rng, model, STOP, options).skipped == {
        "no-vocabulary-word": 1
    }
    short = prop_groups(Article("o", "Orchard", abstract=""), rng, model, STOP, options)  # |D| = 1 word of V
    assert short.skipped["document-shorter-than-word-set"] > 10
    assert all(len(row["positive"].split()) == 1 for row in short.groups)
    assert sum(short.skipped.values()) + len(short.groups) == 40
    disambiguation = Article("d", "Apple (disambiguation)", abstract="apple", is_disambiguation=True)
    assert prop_groups(disambiguation, rng, model, STOP, options).skipped == {"disambiguation": 1}


def test_original_code_values_are_an_option():
    assert PropOptions() == PropOptions(3.0, 5, 50, 1e-5, "cf", "", 0, 0, 100, 0.8, "second")
    original = PropOptions.original()
    assert (original.pairs_per_document, original.min_count, original.subsample, original.background) == (
        10,
        10,
        1e-4,
        "df",
    )
    with pytest.raises(ValueError, match="background"):
        PropOptions(background="tf")


def test_original_variant_uses_nltk_and_inquery_stopwords_and_the_paper_inquery():
    assert PropOptions().stopwords == ""  # INQUERY (section 4.4.2 of the paper)
    assert PropOptions.original().stopwords == "nltk+inquery"
    assert PropOptions.original(stopwords="my.txt").stopwords == "my.txt"


# A collection of four words, hand-made: P(w|C) by document frequency a .01, b .01, c .49, d .49; cf 2, 1, 48, 49 over
# 100 documents, so mu = 100 / 100 = 1. The document "a a b" (|D| = 3): P(w|D) = (c(w,D) + mu P(w|C)) / (3 + 1) =
# a .5025, b .2525, c .1225, d .1225; a draw comes from the document's words with probability .755.
HAND = CollectionModel({"a": 2, "b": 1, "c": 48, "d": 49}, {"a": 1, "b": 1, "c": 49, "d": 49}, 100, 100, 1, 0.0, "df")
A, B, C, D = (HAND.index[w] for w in "abcd")


def test_the_original_variant_draws_from_the_documents_words_plus_sampled_corpus_words():
    for seed in range(5):
        model = DocumentModel.from_ids(np.array([A, A, B]), HAND)
        model.restrict_draws(random.Random(seed), 3)  # K = 3: one corpus word drawn (K - 2 distinct own words)
        (extra,) = set(model.candidates.tolist()) - {A, B}
        assert set(model.candidates.tolist()) == {A, B, extra} and extra in (C, D)
        # P(w|D) renormalised over {a, b, c|d}: .5025, .2525, .1225 / .8775 -> the document's words .8604
        assert model._candidate_cdf.tolist() == pytest.approx([0.5025, 0.7550, 0.8775])
        drawn = np.concatenate(model.sample_sets(random.Random(seed), [1] * 4000))
        assert set(drawn.tolist()) <= {A, B, extra}
        assert np.isin(drawn, [A, B]).mean() == pytest.approx(0.7550 / 0.8775, abs=0.03)
    whole = np.concatenate(DocumentModel.from_ids(np.array([A, A, B]), HAND).sample_sets(random.Random(0), [1] * 4000))
    assert set(whole.tolist()) == {A, B, C, D} and np.isin(whole, [A, B]).mean() == pytest.approx(0.755, abs=0.03)
    # a document with K distinct words or more: its word count + 100 corpus draws
    many = DocumentModel.from_ids(np.array([A, B, C]), HAND)
    many.restrict_draws(random.Random(0), 2)
    assert set(many.candidates.tolist()) == {A, B, C, D}


def document(words: str, ids) -> PropDocument:
    return PropDocument("7", "T", words, "", True, np.array(ids, dtype=np.int64))


def test_the_original_variant_generates_ten_pairs_and_keeps_five():
    options = PropOptions.original(min_count=1, subsample=0.0, epochs=1)
    assert (options.pairs_per_document, options.pairs_kept, options.corpus_sample) == (10, 5, 500)
    long_text = " ".join(["a a b"] * 40)  # 120 words: never a short document
    for seed in range(10):
        out = document_rows(document(long_text, [A, A, B] * 40), random.Random(seed), HAND, options)
        assert out.skipped["pair-not-kept"] == 5
        assert len(out.groups) + sum(out.skipped.values()) - 5 == 5
    paper = document_rows(document(long_text, [A, A, B] * 40), random.Random(0), HAND, PropOptions(min_count=1))
    assert "pair-not-kept" not in paper.skipped and len(paper.groups) + sum(paper.skipped.values()) == 5


def test_a_second_epoch_draws_its_own_word_sets():
    assert PropOptions.original().epochs == 2 and PropOptions().epochs == 1
    long_text = " ".join(["a a b"] * 40)
    ids = [A, A, B] * 40
    one = document_rows(document(long_text, ids), random.Random(4), HAND, PropOptions(min_count=1, subsample=0.0))
    two = document_rows(
        document(long_text, ids), random.Random(4), HAND, PropOptions(min_count=1, subsample=0.0, epochs=2)
    )
    assert len(one.groups) == 5 and len(two.groups) == 10
    assert two.groups[:5] == one.groups  # the first epoch is the one-epoch build; the second draws on from there
    assert [g["positive"] for g in two.groups[5:]] != [g["positive"] for g in one.groups]


def test_disambiguation_pages_and_sets_longer_than_the_document_as_options():
    page = PropDocument("7", "T (disambiguation)", "a b", "disambiguation", True, np.array([A, B], dtype=np.int64))
    assert document_rows(page, random.Random(0), HAND, PropOptions(min_count=1)).skipped == {"disambiguation": 1}
    kept = document_rows(page, random.Random(0), HAND, PropOptions(min_count=1, short_document_words=0))
    assert kept.skipped == {"disambiguation": 1}
    read = PropOptions(min_count=1, short_document_words=0, skip_disambiguation=False, drop_long_sets=False)
    out = document_rows(page, random.Random(0), HAND, read)
    assert len(out.groups) == 5 and not out.skipped  # every set drawn, with replacement, from the two-word page
    # the document has 2 vocabulary words: a set of 3 or more is not drawn by default (the original code)
    out = document_rows(page, random.Random(0), HAND, PropOptions(min_count=1, short_document_words=0, skip_disambiguation=False))  # fmt: skip
    longer = out.skipped["document-shorter-than-word-set"]
    assert longer >= 1 and len(out.groups) == 5 - longer


def test_short_documents_are_skipped_80_percent_of_the_time():
    options = PropOptions(min_count=1, subsample=0.0)
    short = [document_rows(document("a a b", [A, A, B]), random.Random(s), HAND, options) for s in range(500)]
    share = sum(out.skipped["short-document"] for out in short) / 500
    assert share == pytest.approx(0.8, abs=0.05)
    never = PropOptions(min_count=1, subsample=0.0, short_document_words=0)
    assert not document_rows(document("a a b", [A, A, B]), random.Random(0), HAND, never).skipped["short-document"]


def test_tied_word_sets_make_the_second_set_the_positive():
    # a document of one vocabulary word and no other: every set is "a a ...", so every pair ties
    only_a = CollectionModel({"a": 5}, {"a": 1}, 1, 5, 1, 0.0, "cf")
    text = " ".join(["a"] * 120)
    second = document_rows(document(text, [0] * 120), random.Random(3), only_a, PropOptions(min_count=1, subsample=0))
    assert len(second.groups) == 5 and not second.skipped
    high, low = second.groups[0]["log_likelihoods"]
    assert high == low and second.groups[0]["positive"] == second.groups[0]["negatives"][0]
    drop = PropOptions(min_count=1, subsample=0, ties="drop")
    dropped = document_rows(document(text, [0] * 120), random.Random(3), only_a, drop)
    assert dropped.groups == [] and dropped.skipped == {"tied-word-sets": 5}
    assert PropOptions.variant("original").ties == PropOptions.variant("paper").ties == "second"


# Stemming (the original code's --stem), worked by hand: INQUERY drops "the" and "of"; Porter's stems are
# connected, connections, connect, connecting -> connect; relations, relational -> relat; orchards -> orchard.
STEMMED = ["Connected connections connect the relations", "Relational connecting of orchards"]


def test_the_original_variant_stems_and_the_paper_does_not():
    assert PropOptions.variant("original").stem is True and PropOptions.original(stem=False).stem is False
    assert PropOptions.variant("paper").stem is False and PropOptions().stem is False


def test_a_units_words_are_counted_as_their_stems_and_their_surface_words_kept():
    tokens = UnitTokens.from_texts(STEMMED, STOP, stemmer())
    assert tokens.words == ["connect", "orchard", "relat"]
    assert tokens.cf.tolist() == [4, 1, 2] and tokens.df.tolist() == [2, 1, 2]
    assert [tokens.words[i] for i in tokens.ids[tokens.offsets[0] : tokens.offsets[1]].tolist()] == ["connect"] * 3 + [
        "relat"
    ]
    assert [tokens.words[i] for i in tokens.ids[tokens.offsets[1] : tokens.offsets[2]].tolist()] == [
        "relat",
        "connect",
        "orchard",
    ]
    surfaces = tokens.surfaces.to_pylist()
    shown = {(tokens.words[r["stem"]], r["word"], r["count"]) for r in surfaces}
    assert shown == {
        ("connect", "connected", 1),
        ("connect", "connections", 1),
        ("connect", "connect", 1),
        ("connect", "connecting", 1),
        ("relat", "relations", 1),
        ("relat", "relational", 1),
        ("orchard", "orchards", 1),
    }
    plain = UnitTokens.from_texts(STEMMED, STOP)
    assert plain.surfaces is None and "connections" in plain.words and len(plain.words) == 7
    counts = CorpusCounts.from_texts(STEMMED, STOP, stemmer())
    assert (counts.cf, counts.df, counts.words) == ({"connect": 4, "relat": 2, "orchard": 1}, tokens_df(tokens), 7)


def tokens_df(tokens: UnitTokens) -> dict[str, int]:
    return dict(zip(tokens.words, tokens.df.tolist(), strict=True))


def test_a_drawn_stem_is_shown_as_one_of_its_words_by_log_count():
    # connected once, connection 7 times: weights log 2 and log 8, so "connection" is shown 3 times in 4
    model = CollectionModel(
        {"connect": 8}, {"connect": 1}, 1, 8, 1, 0.0, surfaces={"connect": {"connection": 7, "connected": 1}}
    )
    shown = model.shown(random.Random(0), [0] * 4000)
    assert set(shown) == {"connected", "connection"}
    assert shown.count("connection") / 4000 == pytest.approx(0.75, abs=0.02)
    assert HAND.shown(random.Random(0), [A, B]) == ["a", "b"]  # without stemming the words themselves


def test_stemmed_rows_are_scored_on_stems_and_show_corpus_words():
    options = PropOptions(min_count=1, subsample=0.0, short_document_words=0, stem=True)
    counts = CorpusCounts.from_texts(STEMMED * 3, STOP, stemmer())
    tokens = UnitTokens.from_texts(STEMMED * 3, STOP, stemmer())
    forms: dict[str, dict[str, int]] = {}
    for row in tokens.surfaces.to_pylist():
        forms.setdefault(tokens.words[row["stem"]], {})[row["word"]] = row["count"]
    model = CollectionModel(
        counts.cf, counts.df, counts.documents, counts.words, 1, 0.0, "cf", surfaces=forms, stem=stemmer()
    )
    assert model.vocabulary == ["connect", "orchard", "relat"]
    article = Article("c", "Connections", abstract="Connected relations of orchards.")
    out = prop_groups(article, random.Random(1), model, STOP, options)
    assert len(out.groups) + sum(out.skipped.values()) == 5 and out.groups
    document = DocumentModel(document_text(article), model, STOP)  # the stems: connect x2, relat, orchard
    assert document.length == 4 and document.probability("connect") > document.probability("relat")
    surface = {word for words in forms.values() for word in words}
    for row in out.groups:
        assert row["document"] == "Connections. Connected relations of orchards."  # the text is not stemmed
        for side, likelihood in (
            (row["positive"], row["log_likelihoods"][0]),
            (row["negatives"][0], row["log_likelihoods"][1]),
        ):
            assert set(side.split()) <= surface
            assert log_likelihood(document, stemmer()(side.split())) == pytest.approx(likelihood)


def test_a_corpus_in_a_language_without_a_stemmer_is_not_stemmed(capsys):
    build = BuildOptions(inputs=("x",), output_dir="out", tasks=("prop",), prop=PropOptions.original())
    assert language_stemming(build, "en") == build and language_stemming(build, "en-GB") == build
    assert capsys.readouterr().err == ""
    german = language_stemming(build, "de")
    assert german.prop.stem is False and german.prop == PropOptions.original(stem=False)
    assert "no stemmer" in capsys.readouterr().err
    with pytest.raises(ValueError, match="no stemmer for language 'de'"):
        stemmer("de")
    german_words = UnitTokens.from_texts(["Häuser Hauses"], STOP)  # without stem: the words as they are
    assert german_words.words == ["hauses", "häuser"] and german_words.surfaces is None
