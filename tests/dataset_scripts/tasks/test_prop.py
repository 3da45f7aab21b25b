"""PROP's ROP rows: the positive is the higher-likelihood set, bad documents are counted skips."""

from __future__ import annotations

import random

import pytest

from dataset_scripts.corpus.article import Article
from dataset_scripts.tasks.common import task_rng
from dataset_scripts.tasks.language_model import CollectionModel, CorpusCounts, DocumentModel, load_stopwords
from dataset_scripts.tasks.prop import PropOptions, document_text, prop_groups

STOP = load_stopwords()
ARTICLES = [
    Article("1", "Apple", abstract="Apple banana apple orchard apple banana cherry orchard."),
    Article("2", "Banana", abstract="Banana cherry orchard banana plantation cherry."),
    Article("3", "Cherry", abstract="Cherry cherry apple plantation orchard."),
]


def collection(options: PropOptions) -> CollectionModel:
    counts = CorpusCounts.from_texts([document_text(a) for a in ARTICLES], STOP)
    return CollectionModel(
        counts.cf, counts.df, counts.documents, counts.words, options.min_count, options.subsample, options.background
    )


def test_rows_put_the_higher_likelihood_set_first():
    options = PropOptions(min_count=1, subsample=0.0)
    model = collection(options)
    out = prop_groups(ARTICLES[0], task_rng(42, "prop", "1"), model, STOP, options)
    assert len(out.groups) + sum(out.skipped.values()) == 5
    assert len(out.groups) >= 3
    document = DocumentModel(document_text(ARTICLES[0]), model, STOP)
    for row in out.groups:
        assert row["document"] == "Apple. Apple banana apple orchard apple banana cherry orchard."
        high, low = row["log_likelihoods"]
        assert high > low
        assert document.log_likelihood(row["positive"].split()) == pytest.approx(high)
        assert document.log_likelihood(row["negatives"][0].split()) == pytest.approx(low)
        assert len(row["positive"].split()) == len(row["negatives"][0].split()) >= 1
    again = prop_groups(ARTICLES[0], task_rng(42, "prop", "1"), model, STOP, options)
    assert again.groups == out.groups


def test_bad_documents_are_counted_skips():
    options = PropOptions(min_count=1, subsample=0.0, pairs_per_document=40)
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
    assert PropOptions() == PropOptions(3.0, 5, 50, 1e-5, "cf", "")
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
