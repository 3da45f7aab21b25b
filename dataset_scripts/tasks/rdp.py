"""HARP's Representative Document Prediction (RDP): which of two destinations a sentence with several anchors is
more about.

The paper (section 3.2.3): for a sentence S with anchors A, each anchor's importance is its last-layer attention
with [CLS] (eq. 10), repeated anchors merged and normalised by a softmax (eq. 11); two anchors are drawn by that
distribution and the destination of the more important one is the positive for the long query S (eq. 12).

A row: ``query`` = S, ``positive`` = P1 (the more important anchor's destination, first section), ``negatives`` =
[P2], ``anchors`` = [a1, a2]. Here an anchor's importance is the [CLS] attention its word pieces receive,
averaged over the pieces as the original code does (``anchor_importance="mean"``; ``"sum"`` sums over the anchor's
words, a literal reading of eq. 10 under which the longer of two anchors nearly always wins), and "repeated anchors"
are anchors to the same destination (their importances summed: the candidates are distinct pages). Two distinct
destinations are drawn without replacement. The card reports the share of rows whose two anchors differ in word
count where the longer one is the positive (:func:`longer_anchor_wins`).
"""

from __future__ import annotations

import math
import random

import datasets

from wikiformer_kit.dataset_scripts.tasks.anchors import (
    EXTRACTION_SKIPS,
    HARP,
    HARP_CHOICES,
    HARP_MEASURES,
    Anchor,
    HarpOptions,
    LinkedSentence,
    ordered_sum,
    sample_words,
)
from wikiformer_kit.dataset_scripts.tasks.attention import TextAttention, word_spans
from wikiformer_kit.dataset_scripts.tasks.spec import TEXTS, TaskSpec, group_features

SKIP_REASONS = {
    **EXTRACTION_SKIPS,
    "sentence-with-one-destination": "sentence whose anchors link to fewer than 2 distinct pages",
    "tied-importance": "the two drawn anchors are equally important",
}


LONGER_ANCHOR_WINS = "rdp-longer-anchor-wins"
MEASURES = {
    **HARP_MEASURES,
    LONGER_ANCHOR_WINS: "over the rows whose two anchors differ in word count, 1 when the longer anchor's "
    "destination is the positive (mean: the share; an importance without a length bias keeps it near 0.5)",
}


def anchor_weight(anchor: Anchor, attention: TextAttention, how: str = "mean") -> float:
    """An anchor's [CLS] attention: over its word pieces averaged (``"mean"``, the original code) or summed over
    its words (``"sum"``). Attention without piece counts counts each word as one piece."""
    words = attention.words_in(anchor.span)
    total = float(sum(attention.cls[i] for i in words))
    if how == "sum":
        return total
    pieces = sum(float(attention.pieces[i]) for i in words) if attention.pieces is not None else len(words)
    return total / pieces if pieces else 0.0


def longer_anchor_wins(row: dict) -> bool | None:
    """Whether an RDP row's positive has the longer anchor (in words); ``None`` when both are as long."""
    high, low = (len(word_spans(text)) for text in row["anchors"])
    return None if high == low else high > low


def anchor_importance(sentence: LinkedSentence, attention: TextAttention, how: str = "mean") -> dict[int, float]:
    """eq. 10-11: per destination, its anchors' [CLS] attention (:func:`anchor_weight`), summed, then a softmax."""
    eta: dict[int, float] = {}
    for anchor in sentence.anchors:
        weight = anchor_weight(anchor, attention, how)
        eta[anchor.target] = eta.get(anchor.target, 0.0) + weight
    top = max(eta.values())
    exp = {target: math.exp(value - top) for target, value in eta.items()}
    total = ordered_sum(exp.values())
    return {target: value / total for target, value in exp.items()}


def rdp_rows(
    sentence: LinkedSentence,
    attention: TextAttention,
    passages,
    stopwords: frozenset[str],
    rng: random.Random,
    options: HarpOptions,
) -> tuple[list[dict], dict[str, int]]:
    """The RDP row of a sentence (at most one); arguments as :func:`~.rqp.rqp_rows`."""
    if len(sentence.destinations()) < 2:
        return [], {"sentence-with-one-destination": 1}
    importance = anchor_importance(sentence, attention, options.anchor_importance)
    first, second = sample_words(rng, list(importance), list(importance.values()), 2)
    if importance[first] == importance[second]:
        return [], {"tied-importance": 1}
    high, low = sorted((first, second), key=lambda target: -importance[target])
    names = {a.target: a.text for a in reversed(sentence.anchors)}
    row = {
        "query": sentence.sentence,
        "positive": passages.text(high),
        "negatives": [passages.text(low)],
        "article_id": sentence.article_id,
        "title": sentence.title,
        "anchors": [names[high], names[low]],
        "importance": [importance[high], importance[low]],
    }
    return [row], {}


SPEC = TaskSpec(
    name="rdp",
    title="Representative Document Prediction (RDP)",
    features=group_features("query", anchors=TEXTS, importance=datasets.List(datasets.Value("float64"))),
    fixed_side="query",
    pairing=(
        "For a sentence whose anchors link to at least 2 distinct pages: two destinations drawn by anchor "
        "importance (the [CLS] attention to the anchor's word pieces, averaged, or summed over its words with "
        "`anchor_importance=sum`; a softmax over the sentence's destinations); "
        "`query` = the sentence, `positive` = the more important anchor's destination (first section), "
        "`negatives` = [the other's]; `anchors` and `importance` name them."
    ),
    choices=HARP_CHOICES,
    skip_reasons=SKIP_REASONS,
    sampler=None,  # corpus-wide (baseline_steps)
    query_max_length=64,  # the whole sentence: HARP's Table 1 reports 34.9 query tokens on average for RDP
    doc_max_length=250,
    origin=HARP,
    measures=MEASURES,
)
