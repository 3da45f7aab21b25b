"""What HARP's four tasks share: anchors in their sentences, destination passages, attention-weighted word sets.

HARP (Ma et al., CIKM 2021, section 3) reads a corpus as sentences with anchors ``(a_i, P_i)``: the anchor text and
its destination page, represented by the destination's first section (section 4.3.2). The corpus already holds
every internal link with its anchor text and sentence (:class:`~dataset_scripts.corpus.article.Link`); the
destination's first section is its lead (``Article.abstract``). Here:

- :func:`sentences_of_links` groups an article's usable links by sentence, each destination resolved against the
  whole corpus (redirects followed).
- :func:`summed_weights` and :func:`softmax_over` turn attention weights into HARP's term distribution: weights of
  repeated words summed (eq. 2), softmax over the distinct words (eq. 3); stopwords (INQUERY, as the paper) and excluded words
  get no probability. :func:`sample_words` draws distinct words from it, :func:`sample_with_replacement` as the
  original code draws (repeats kept). A "word" is a unit of the attention: a word, or a word piece when the build
  draws pieces as the original code does (``draw_unit="pieces"``).
- :func:`query_length`: l ~ Poisson(3), l > 0 (the paper, eq. 4), or the original code's int(N(3, 1)).
"""

from __future__ import annotations

import bisect
import functools
import itertools
import math
import operator
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from wikiformer_kit.dataset_scripts.corpus.article import Article
from wikiformer_kit.dataset_scripts.tasks.attention import Span, TextAttention, importance_sharpness_of
from wikiformer_kit.dataset_scripts.tasks.baseline_options import HarpOptions
from wikiformer_kit.dataset_scripts.tasks.common import group_row
from wikiformer_kit.dataset_scripts.tasks.language_model import normal_length, poisson_length
from wikiformer_kit.dataset_scripts.tasks.origins import HARP
from wikiformer_kit.dataset_scripts.tasks.spec import TaskSpec

EXTRACTION_SKIPS = {
    "article-without-links": "article without any internal link",
    "anchor-not-in-sentence": "link whose anchor text is not in its sentence",
    "anchor-target-missing": "link to a page missing from the corpus (after following redirects)",
    "anchor-self-link": "link to the article itself",
    "anchor-target-without-first-section": "link to a disambiguation page or a page whose first section (lead) has no word",
}
"""Links and articles left out before any task, counted in every HARP task's card."""

HARP_CHOICES = (
    "Anchors come from the corpus's links with their sentences; a destination is resolved against the whole corpus "
    "(redirects followed) and represented by its first section (lead), cut to `passage_max_tokens` word pieces. "
    "Word importance is the last-layer attention of `importance_model` over `passage_max_tokens` + 2 tokens, "
    "combined over heads (`heads`: summed as the original code does, or eq. 1's average, under which the softmax "
    "over words is almost uniform), summed over a word's pieces and occurrences, then a softmax over distinct words "
    "(eq. 1-3); words are the runs of letters of the lowercased text, stopwords (`stopwords`) never drawn. The "
    "options below and the line after this paragraph say which stopwords, query lengths (`query_length`: Poisson "
    "or the original code's truncated normal), draws (`word_draws`) and pairs (`anchor_pairs`) this build used. "
    "The measures below give the sharpness of the importance distributions drawn from: perplexity "
    "divided by the number of words (1 = uniform) and the largest-to-smallest probability ratio, mean over texts."
)
HARP_MEASURES = {
    "passage-importance-perplexity-per-word": "a destination passage's word distribution ([CLS] attention, eq. 5): "
    "perplexity / words (1 = uniform)",
    "passage-importance-max-min-ratio": "the same distribution's largest / smallest probability",
    "sentence-importance-perplexity-per-word": "a sentence's word distribution from an anchor (eq. 1-3, the "
    "anchor's words excluded): perplexity / words",
    "sentence-importance-max-min-ratio": "the same distribution's largest / smallest probability",
}
"""The sharpness of the importance distributions, reported in every HARP task's statistics and card."""


def harp_spec(**fields) -> TaskSpec:
    """A HARP task's spec: the card's shared choices and measures, HARP as its origin, passages of 250 tokens (the
    original code cuts them so) and no per-article sampler: every HARP task is corpus-wide, its destinations
    resolved over the whole corpus (built by :mod:`.baseline_steps`). ``fields``: the task's own (the fixed side:
    the first of its ``features``)."""
    fixed_side = next(iter(fields["features"]))  # group_features puts the fixed side first
    shared = {
        "choices": HARP_CHOICES,
        "sampler": None,
        "doc_max_length": 250,
        "origin": HARP,
        "measures": HARP_MEASURES,
    }
    return TaskSpec(**({"fixed_side": fixed_side} | shared | fields))


def importance_distribution(
    attention: TextAttention, stopwords: frozenset[str], row: int = -1, exclude: Iterable[str] = ()
) -> list[float]:
    """The probabilities HARP draws from: [CLS]'s row (``row`` -1) or an anchor's row, ``exclude`` left out."""
    return _distribution(attention, row, stopwords, exclude)[1]


def importance_measures(distributions: Sequence[tuple[str, Sequence[float]]]) -> list[dict[str, float]]:
    """``{measure: value}`` of :data:`HARP_MEASURES` for each ``(which, probabilities)``, ``which`` ``passage`` or
    ``sentence`` (:func:`importance_distribution`); empty for fewer than two words."""
    sharpness = importance_sharpness_of([probabilities for _, probabilities in distributions])
    return [
        {}
        if figures is None
        else {f"{which}-importance-perplexity-per-word": figures[0], f"{which}-importance-max-min-ratio": figures[1]}
        for (which, _), figures in zip(distributions, sharpness, strict=True)
    ]


@dataclass(frozen=True)
class Anchor:
    """One anchor of a sentence: its text, its character span in the sentence, its destination's row and its
    place among its article's links (-1: unknown)."""

    text: str
    span: Span
    target: int
    link: int = -1


@dataclass
class LinkedSentence:
    """A sentence of an article with its resolved anchors, in sentence order."""

    article_id: str
    title: str
    sentence: str
    anchors: list[Anchor] = field(default_factory=list)

    def destinations(self) -> list[int]:
        """The distinct destination rows, in first-anchor order."""
        return list(dict.fromkeys(a.target for a in self.anchors))


class LinkRecord(NamedTuple):
    """One link of an article as HARP reads it: its section, its sentence, its anchor text (stripped) and where
    the anchor starts in the sentence (-1: not found)."""

    section: int
    sentence: str
    anchor: str
    start: int


def find_anchors(links: Iterable[tuple[int, str, str]]) -> list[LinkRecord]:
    """An article's links ``(section, sentence, anchor text)``, in article order, with where each anchor starts in
    its sentence. A sentence that holds the same anchor text twice gives its links successive occurrences."""
    links = list(links)
    sections, sentences, texts = zip(*links, strict=True) if links else ((), (), ())
    anchors, starts = locate_anchors(sections, sentences, texts)
    return [LinkRecord(*fields) for fields in zip(sections, sentences, anchors, starts, strict=True)]


def locate_anchors(
    sections: Sequence[int], sentences: Sequence[str], texts: Sequence[str]
) -> tuple[list[str], list[int]]:
    """:func:`find_anchors` as two lists, the stripped anchor texts and their starts (-1: not found), for the
    links of one article given column by column (no record objects: the statistics stage reads every link)."""
    anchors, starts, searched_from = [], [], {}
    for section, sentence, text in zip(sections, sentences, texts, strict=True):
        anchor = text.strip()
        key = (section, sentence, anchor)
        start = sentence.find(anchor, searched_from.get(key, 0)) if anchor else -1
        if start >= 0:
            searched_from[key] = start + len(anchor)
        anchors.append(anchor)
        starts.append(start)
    return anchors, starts


def link_records(article: Article) -> list[LinkRecord]:
    """The article's links as :class:`LinkRecord` s (see :func:`find_anchors`)."""
    return find_anchors((link.section, link.sentence, link.anchor) for link in article.links)


def anchor_starts(article: Article) -> list[int]:
    """Per link of the article, where its anchor text starts in its sentence (-1: not found)."""
    return [record.start for record in link_records(article)]


def sentences_of_links(
    article_id: str,
    title: str,
    links: Iterable[tuple[tuple[int, str, str, int], int]],
    numbers: Iterable[int] | None = None,
) -> list[LinkedSentence]:
    """An article's usable links (``((section, sentence, anchor, start), destination row)``, each anchor found in
    its sentence) grouped into their sentences, in first-link order, each sentence's anchors in text order;
    ``numbers``: each link's place among the article's links (:attr:`Anchor.link`)."""
    sentences: dict[tuple[int, str], LinkedSentence] = {}
    numbers = itertools.repeat(-1) if numbers is None else numbers
    for ((section, sentence, anchor, start), row), number in zip(links, numbers, strict=False):
        entry = sentences.get((section, sentence))
        if entry is None:
            entry = sentences[section, sentence] = LinkedSentence(article_id, title, sentence)
        entry.anchors.append(Anchor(anchor, (start, start + len(anchor)), row, number))
    result = list(sentences.values())
    for entry in result:
        entry.anchors.sort(key=lambda a: a.span)
    return result


def query_length(rng: random.Random, options: HarpOptions) -> int:
    """The number of words to sample into a pseudo query (see :class:`HarpOptions`)."""
    if options.query_length == "normal":
        return normal_length(rng, 3.0, 1.0)
    return poisson_length(rng, options.poisson_lambda)


def summed_weights(attention: TextAttention, weights: np.ndarray, stopwords: frozenset[str]) -> dict[str, float]:
    """eq. 2: per distinct word that is not a stopword (first-occurrence order), its occurrences' weights summed."""
    beta: dict[str, float] = {}
    for word, weight in zip(attention.words, weights.tolist(), strict=True):
        if word not in stopwords:
            beta[word] = beta.get(word, 0.0) + weight
    return beta


def softmax_over(beta: dict[str, float], exclude: Iterable[str] = ()) -> tuple[list[str], list[float]]:
    """eq. 3: the softmax of the summed weights over the words not in ``exclude`` (e.g. the anchor's words:
    weight 0 in eq. 5, i.e. never drawn)."""
    excluded = set(exclude)
    if excluded:
        beta = {word: b for word, b in beta.items() if word not in excluded}
    if not beta:
        return [], []
    return list(beta), softmax(list(beta.values()))


def softmax(values: Sequence[float]) -> list[float]:
    """The softmax of ``values`` (shifted by their largest, normalised by their :func:`ordered_sum`)."""
    top = max(values)
    exp = [math.exp(value - top) for value in values]
    total = ordered_sum(exp)
    return [value / total for value in exp]


def ordered_sum(values: Iterable[float]) -> float:
    """The floats added left to right. ``sum`` compensates its rounding from Python 3.12 on, which would let the
    same build draw differently on two Python versions."""
    return functools.reduce(operator.add, values, 0.0)


def sample_words(rng: random.Random, terms: Sequence[str], probabilities: Sequence[float], count: int) -> list[str]:
    """``count`` distinct words drawn one after the other from the distribution (renormalised over what is left);
    all of them when there are fewer."""
    terms, weights, chosen = list(terms), list(probabilities), []
    # running sums accumulated left to right, as a loop would; the last is the total (see ordered_sum)
    running = list(itertools.accumulate(weights))
    for _ in range(min(count, len(terms))):
        point = rng.random() * running[-1]
        pick = min(bisect.bisect_right(running, point), len(weights) - 1)  # the first sum above the point
        chosen.append(terms.pop(pick))
        weights.pop(pick)
        # the sums before the pick stay; those after it are accumulated again from the last one kept (the same
        # floats as accumulating the whole list again)
        del running[pick:]
        if running:
            running.extend(itertools.islice(itertools.accumulate(weights[pick:], initial=running[-1]), 1, None))
        else:
            running = list(itertools.accumulate(weights))
    return chosen


def sample_with_replacement(
    rng: random.Random, terms: Sequence[str], probabilities: Sequence[float], count: int
) -> list[str]:
    """``count`` words drawn independently from the distribution, repeats kept, in draw order (the original code's
    ``np.random.choice(len(words), size, replace=True, p=...)``)."""
    running = list(itertools.accumulate(probabilities))  # left to right (see ordered_sum)
    last = len(running) - 1
    return [terms[min(bisect.bisect_right(running, rng.random() * running[-1]), last)] for _ in range(count)]


def _distribution(
    attention: TextAttention, which: int, stopwords: frozenset[str], exclude: Iterable[str]
) -> tuple[list[str], list[float]]:
    """HARP's term distribution (:func:`softmax_over` of :func:`summed_weights`) of [CLS]'s row (``which`` = -1) or query row ``which``, memoised on the
    attention (callers copy the lists before drawing)."""
    key = (which, frozenset(exclude), stopwords)
    found = attention.memo.get(key)
    if found is None:
        # the summed weights once per row: a destination is drawn from with each linking anchor's words excluded
        beta = attention.memo.get((which, stopwords))
        if beta is None:
            weights = attention.cls if which < 0 else attention.rows[which]
            beta = attention.memo[which, stopwords] = summed_weights(attention, weights, stopwords)
        found = attention.memo[key] = softmax_over(beta, exclude)
    return found


def in_text_order(attention: TextAttention, chosen: Iterable[str], keep: Span | None = None, text: str = "") -> str:
    """The chosen words in the order they first occur in the text, with the span ``keep`` of ``text`` (an anchor)
    inserted at its place: a pseudo query that reads like the text it came from."""
    first = attention.memo.get("first")
    if first is None:  # each word's first position, once per text (going backwards, the first one is written last)
        words = attention.words
        first = attention.memo["first"] = dict(zip(reversed(words), range(len(words) - 1, -1, -1), strict=True))
    if keep is None:  # words in the order of their first positions: that of their first starts
        return " ".join(word for _, word in sorted((first[word], word) for word in set(chosen) if word in first))
    places = attention.places()
    parts = [(places[first[word]][0], word) for word in set(chosen) if word in first]
    parts.append((keep[0], text[keep[0] : keep[1]]))
    return " ".join(part for _, part in sorted(parts))


def excluded_words(anchor: Anchor, attention: TextAttention, options: HarpOptions) -> frozenset[str]:
    """The words never drawn into an anchor's queries: its own (eq. 5), unless ``options.exclude_anchor_words`` is
    off (the original code)."""
    return anchor_words(anchor, attention) if options.exclude_anchor_words else frozenset()


def anchor_words(anchor: Anchor, attention: TextAttention) -> frozenset[str]:
    """The words of an anchor's span (memoised on the attention)."""
    key = ("span", anchor.span)
    found = attention.memo.get(key)
    if found is None:
        found = attention.memo[key] = frozenset(attention.words[i] for i in attention.words_in(anchor.span))
    return found


def context_query(
    sentence: LinkedSentence, anchor_index: int, attention: TextAttention, stopwords, rng: random.Random, options
) -> tuple[str, int] | None:
    """RQP's and QDM's S1: l words of the sentence drawn by their attention from the anchor (eq. 1-3), with the
    anchor text itself, in sentence order (with replacement: the words in draw order, then the anchor, as the
    original code; drawn word pieces written as the tokenizer joins them, :meth:`TextAttention.join`); with l.
    ``None`` when the sentence has no other content word."""
    anchor = sentence.anchors[anchor_index]
    terms, probabilities = _distribution(attention, anchor_index, stopwords, excluded_words(anchor, attention, options))
    if not terms:
        return None
    size = query_length(rng, options)
    if options.word_draws == "replacement":
        chosen = sample_with_replacement(rng, terms, probabilities, size)
        return f"{attention.join(chosen)} {anchor.text}", len(chosen)
    chosen = sample_words(rng, terms, probabilities, size)
    return in_text_order(attention, chosen, anchor.span, sentence.sentence), len(chosen)


def passage_query(
    attention: TextAttention,
    stopwords,
    rng: random.Random,
    size: int,
    exclude: Iterable[str] = (),
    options: HarpOptions | None = None,
) -> str | None:
    """``size`` words of a passage drawn by their attention from [CLS] (eq. 5, 13), ``exclude`` never drawn, in
    passage order (with replacement, ``options.word_draws``: in draw order, word pieces joined as the tokenizer
    joins them); ``None`` when the passage has no candidate word."""
    terms, probabilities = _distribution(attention, -1, stopwords, exclude)
    if not terms:
        return None
    if options is not None and options.word_draws == "replacement":
        return attention.join(sample_with_replacement(rng, terms, probabilities, size))
    return in_text_order(attention, sample_words(rng, terms, probabilities, size))


def destination_pair_row(sentence: LinkedSentence, query: str, anchor: Anchor, passages, positive: int, negative: int):
    """The row of a query against two destination pages (ACM, QDM): their first sections and titles, by row."""
    row = group_row(
        "query", query, passages.text(positive), [passages.text(negative)], sentence.article_id, sentence.title
    )
    return row | {
        "anchor": anchor.text,
        "positive_title": passages.title(positive),
        "negative_title": passages.title(negative),
    }
