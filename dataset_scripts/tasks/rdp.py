"""HARP's Representative Document Prediction (RDP): which of two destinations a sentence with several anchors is
more about.

The paper (section 3.2.3): for a sentence S with anchors A, each anchor's importance is its last-layer attention
with [CLS] (eq. 10), repeated anchors merged and normalised by a softmax (eq. 11); two anchors are drawn by that
distribution and the destination of the more important one is the positive for the long query S (eq. 12).

A row: ``query`` = S, ``positive`` = P1 (the more important anchor's destination, first section), ``negatives`` =
[P2], ``anchors`` = [a1, a2]. Here an anchor's importance is the [CLS] attention its words receive (summed), and
"repeated anchors" are anchors to the same destination (their importances summed: the candidates are distinct
pages). Two distinct destinations are drawn without replacement.
"""

from __future__ import annotations

import math
import random

import datasets

from .anchors import EXTRACTION_SKIPS, HARP, HARP_CHOICES, HarpOptions, LinkedSentence, sample_words
from .attention import TextAttention
from .spec import TEXTS, TaskSpec, group_features

SKIP_REASONS = {
    **EXTRACTION_SKIPS,
    "sentence-with-one-destination": "sentence whose anchors link to fewer than 2 distinct pages",
    "tied-importance": "the two drawn anchors are equally important",
}


def anchor_importance(sentence: LinkedSentence, attention: TextAttention) -> dict[int, float]:
    """eq. 10-11: per destination, the [CLS] attention to its anchors' words, summed, then a softmax."""
    eta: dict[int, float] = {}
    for anchor in sentence.anchors:
        weight = float(sum(attention.cls[i] for i in attention.words_in(anchor.span)))
        eta[anchor.target] = eta.get(anchor.target, 0.0) + weight
    top = max(eta.values())
    exp = {target: math.exp(value - top) for target, value in eta.items()}
    total = sum(exp.values())
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
    importance = anchor_importance(sentence, attention)
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
        "importance (the [CLS] attention to the anchor's words, a softmax over the sentence's destinations); "
        "`query` = the sentence, `positive` = the more important anchor's destination (first section), "
        "`negatives` = [the other's]; `anchors` and `importance` name them."
    ),
    choices=HARP_CHOICES,
    skip_reasons=SKIP_REASONS,
    sampler=None,  # corpus-wide (baseline_steps)
    query_max_length=64,  # the whole sentence: HARP's Table 1 reports 34.9 query tokens on average for RDP
    doc_max_length=250,
    origin=HARP,
)
