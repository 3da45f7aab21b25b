"""HARP's four tasks on a real article: "Kaunotys pogosts" of the vendored Latgalian Wikipedia sample (CC BY-SA).

Its sentence "Rūbežojas zīmeļūs ar Stoļerovys pogostu, austrumūs ar Ludzys nūvoda Pildys ..." links nine
neighbouring districts, most of them articles of the sample; their leads are the destination passages. Attention
comes from the real all-MiniLM-L6-v2 (embedded), so the word sets are those the build would draw.
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter

import pyarrow.parquet as pq
import pytest

from tests.conftest import SAMPLES
from tests.dataset_scripts.tasks.references import group_links
from wikiformer_kit.dataset_scripts.corpus.article import Article
from wikiformer_kit.dataset_scripts.corpus.build import build_corpus
from wikiformer_kit.dataset_scripts.corpus.titles import normalize_title
from wikiformer_kit.dataset_scripts.tasks import acm, qdm, rdp, rqp
from wikiformer_kit.dataset_scripts.tasks.anchors import (
    HarpOptions,
    link_records,
    sample_words,
    softmax_over,
    summed_weights,
)
from wikiformer_kit.dataset_scripts.tasks.attention import AttentionScorer, word_spans
from wikiformer_kit.dataset_scripts.tasks.language_model import load_stopwords

pytestmark = pytest.mark.slow  # real all-MiniLM-L6-v2 weights and a corpus build (~30 s)

LTG_SAMPLE = SAMPLES / "wikipedia" / "ltgwiki-sample.xml.bz2"
STOP = load_stopwords()
OPTIONS = HarpOptions()
DRAWN = HarpOptions(anchor_pairs="drawn")  # the paper's one row of two drawn destinations per sentence


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> list[Article]:
    folder = tmp_path_factory.mktemp("ltg") / "corpus"
    build_corpus([LTG_SAMPLE], folder)
    return [
        Article.from_dict(row)
        for f in sorted((folder / "data").glob("*.parquet"))
        for row in pq.read_table(f).to_pylist()
    ]


class Passages:
    """Destination leads by row, with their [CLS] attention."""

    def __init__(self, articles, scorer, rows):
        self.articles = articles
        self.scored = dict(zip(rows, scorer.score([(articles[r].abstract, []) for r in rows]), strict=True))

    def text(self, row):
        return self.articles[row].abstract

    def title(self, row):
        return self.articles[row].title

    def attention(self, row):
        return self.scored[row]


@pytest.fixture(scope="module")
def kaunota(corpus):
    rows = {normalize_title(a.title): i for i, a in enumerate(corpus)}
    source = next(i for i, a in enumerate(corpus) if a.title == "Kaunotys pogosts")
    article = corpus[source]
    resolved = [rows.get(normalize_title(link.target)) for link in article.links]
    has_passage = [bool(a.abstract.strip()) for a in corpus].__getitem__
    sentences, skipped = group_links(article.id, article.title, link_records(article), resolved, source, has_passage)
    sentence = next(s for s in sentences if s.sentence.startswith("Rūbežojas zīmeļūs"))
    scorer = AttentionScorer(device="cpu")
    attention = scorer.score([(sentence.sentence, [a.span for a in sentence.anchors])])[0]
    passages = Passages(corpus, scorer, sentence.destinations())
    return corpus, source, sentence, attention, passages, skipped, resolved


def test_anchors_are_found_in_their_sentence_and_resolved(kaunota):
    corpus, source, sentence, attention, _, skipped, resolved = kaunota
    # 3 of the sentence's 9 links name articles of the sample ("Pildys" is piped to "Pyldys pogosts")
    assert [(a.text, corpus[a.target].title) for a in sentence.anchors] == [
        ("Ludzys nūvoda", "Ludzys nūvods"),
        ("Pildys", "Pyldys pogosts"),
        ("Dagdys nūvoda", "Dagdys nūvods"),
    ]
    for anchor in sentence.anchors:
        assert sentence.sentence[anchor.span[0] : anchor.span[1]] == anchor.text
        assert len(sentence.destinations()) == 3 and source not in sentence.destinations()
    # every link is accounted for: in a sentence with anchors, or counted with its reason
    kept = sum(1 for _ in corpus[source].links) - sum(skipped.values())
    assert kept >= len(sentence.anchors) and skipped["anchor-target-missing"] == resolved.count(None)
    assert attention.rows.shape == (len(sentence.anchors), len(word_spans(sentence.sentence)))


def test_rqp_rows_hold_the_anchor_and_words_of_each_side(kaunota):
    _, _, sentence, attention, passages, _, _ = kaunota
    rows, skipped = rqp.rqp_rows(sentence, attention, passages, STOP, random.Random(1), OPTIONS)
    assert len(rows) + sum(skipped.values()) == len(sentence.anchors)
    sentence_words = set(attention.words)
    for row, anchor in zip(rows, sentence.anchors, strict=False):
        assert row["anchor"] in row["positive"] and row["document"] == passages.text(anchor.target)
        assert set(w for w, _, _ in word_spans(row["positive"])) <= sentence_words
        negative = [w for w, _, _ in word_spans(row["negatives"][0])]
        assert set(negative) <= set(passages.attention(anchor.target).words)
        assert not set(negative) & {w for w, _, _ in word_spans(anchor.text)} and not set(negative) & STOP
        assert len(negative) == len(word_spans(row["positive"]))  # as many words as S1: length is no cue
    assert tuple(rows[0]) == rqp.SPEC.columns


def test_rdp_prefers_the_anchor_with_more_cls_attention(kaunota):
    _, _, sentence, attention, passages, _, _ = kaunota
    (row,), _ = rdp.rdp_rows(sentence, attention, passages, STOP, random.Random(2), DRAWN)
    eta = Counter()
    for anchor in sentence.anchors:  # eq. 10-11 by hand, the anchor's attention averaged over its word pieces
        words = attention.words_in(anchor.span)
        eta[anchor.target] += sum(attention.cls[i] for i in words) / sum(attention.pieces[i] for i in words)
    total = sum(math.exp(v) for v in eta.values())
    expected = {t: math.exp(v) / total for t, v in eta.items()}
    assert row["query"] == sentence.sentence
    high, low = (t for t in sentence.destinations() if passages.text(t) in (row["positive"], *row["negatives"]))
    by_text = {passages.text(t): t for t in (high, low)}
    assert row["importance"] == pytest.approx(
        [expected[by_text[row["positive"]]], expected[by_text[row["negatives"][0]]]]
    )
    assert row["importance"][0] > row["importance"][1]
    # every pair of the sentence's anchors (the default): one row each, the positive the more attended anchor's
    rows, _ = rdp.rdp_rows(sentence, attention, passages, STOP, random.Random(2), OPTIONS)
    distinct = [(a, b) for a, b in itertools.combinations(sentence.anchors, 2) if a.target != b.target]
    assert len(rows) == len(distinct) >= 1
    for row, (a, b) in zip(rows, distinct, strict=True):
        assert {row["positive"], row["negatives"][0]} == {passages.text(a.target), passages.text(b.target)}
        assert row["importance"][0] >= row["importance"][1]


def test_acm_queries_one_destination_against_another(kaunota):
    corpus, source, sentence, attention, passages, _, _ = kaunota
    pool = list(range(len(corpus)))
    (row,), _ = acm.acm_rows(sentence, attention, passages, STOP, random.Random(3), DRAWN, pool, source)
    anchor = next(a for a in sentence.anchors if row["query"].startswith(a.text + " "))
    first = anchor.target
    second = next(t for t in sentence.destinations() if passages.text(t) == row["positive"])
    assert first != second and row["positive_title"] == corpus[second].title
    words = [w for w, _, _ in word_spans(row["query"][len(anchor.text) :])]
    assert words and set(words) <= set(passages.attention(first).words)
    assert row["negative_title"] not in {corpus[first].title, corpus[second].title, corpus[source].title}


def test_qdm_pairs_an_ambiguous_anchor_with_its_other_destination(kaunota):
    corpus, _, sentence, attention, passages, _, _ = kaunota
    anchor = sentence.anchors[0]  # "Ludzys nūvoda" -> Ludzys nūvods; pretend the text also names the town Ludza
    ludza = next(i for i, a in enumerate(corpus) if a.title == "Ludza")
    passages.scored[ludza] = passages.attention(anchor.target)
    plan = {qdm.anchor_key(anchor.text): ([anchor.target, ludza], 2**63)}
    rows, skipped = qdm.qdm_rows(sentence, attention, passages, STOP, random.Random(4), OPTIONS, plan, seed=42)
    assert skipped["anchor-with-one-destination"] == len(sentence.anchors) - 1
    (row,) = rows
    assert row["positive"] == passages.text(anchor.target) and row["negatives"] == [corpus[ludza].abstract]
    assert anchor.text in row["query"]
    capped, skipped = qdm.qdm_rows(
        sentence,
        attention,
        passages,
        STOP,
        random.Random(4),
        OPTIONS,
        {qdm.anchor_key(anchor.text): ([anchor.target, ludza], -1)},
    )
    assert not capped and skipped["anchor-over-pair-cap"] == 1


def test_word_distribution_is_a_softmax_over_summed_weights():
    import numpy as np

    from wikiformer_kit.dataset_scripts.tasks.attention import TextAttention

    text = "snow albedo snow the ice"
    spans = word_spans(text)
    attention = TextAttention(
        [w for w, _, _ in spans], [(s, e) for _, s, e in spans], np.array([0.1, 0.2, 0.3, 0.4, 0.0]), np.zeros((0, 5))
    )
    terms, probabilities = softmax_over(summed_weights(attention, attention.cls, STOP), exclude={"ice"})
    assert terms == ["snow", "albedo"]  # "the" is a stopword, "ice" excluded; snow = 0.1 + 0.3
    assert probabilities == pytest.approx(
        [math.exp(0.4) / (math.exp(0.4) + math.exp(0.2)), math.exp(0.2) / (math.exp(0.4) + math.exp(0.2))]
    )
    assert sorted(sample_words(random.Random(0), terms, probabilities, 5)) == ["albedo", "snow"]


def test_occurrence_ranks_of_a_unit_are_the_ranks_of_each_occurrence():
    import numpy as np

    from wikiformer_kit.dataset_scripts.tasks.see_also_join import crc32_of

    occurrences = [
        ("mercury", "Q1", "Mercury is a planet.", 0),
        ("mercury", "Q1", "Mercury is a planet.", 1),  # one character later: another occurrence, another rank
        ("mercury", "Q2", "Mercury is a planet.", 0),  # the same sentence in another article
        ("ludzys nūvoda", "Kaunotys", "Rūbežojas ar Ludzys nūvoda", 13),
        ("東京", "東京都", "東京は日本の首都である。", 0),
        ("a\udcff", "x", "s", 2**31 + 5),  # a lone surrogate (a broken dump), a position past 31 bits
    ]
    keys, article_ids, sentences, positions = (list(column) for column in zip(*occurrences, strict=True))
    for seed in (42, 0, -3):
        expected = [qdm.occurrence_rank(seed, *occurrence) for occurrence in occurrences]
        ranks = qdm.occurrence_ranks(
            seed, crc32_of(keys), crc32_of(article_ids), crc32_of(sentences), np.array(positions)
        )
        assert ranks.dtype == np.int64 and ranks.tolist() == expected
        assert len(set(expected)) == len(expected) and all(0 <= r < 2**63 for r in expected)
    assert qdm.occurrence_rank(42, *occurrences[0]) != qdm.occurrence_rank(43, *occurrences[0])  # seeded


def test_anchors_are_located_column_by_column_as_record_by_record():
    from wikiformer_kit.dataset_scripts.tasks.anchors import find_anchors, locate_anchors

    sentence = "Venus and Mars; then Venus again."
    links = [
        (0, sentence, " Venus "),
        (0, sentence, "Venus"),
        (0, sentence, "Venus"),
        (1, "Mars.", "Mars"),
        (1, "x", ""),
    ]
    anchors, starts = locate_anchors(*zip(*links, strict=True))
    assert anchors == ["Venus", "Venus", "Venus", "Mars", ""] and starts == [0, 21, -1, 0, -1]
    assert [(r.anchor, r.start) for r in find_anchors(links)] == list(zip(anchors, starts, strict=True))
    assert find_anchors([]) == [] and locate_anchors([], [], []) == ([], [])
