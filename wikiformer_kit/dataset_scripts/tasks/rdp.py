"""HARP's Representative Document Prediction (RDP): which of two destinations a sentence with several anchors is
more about.

The paper (section 3.2.3, eq. 10-12) and how a row is formed here are the card's text (:data:`SPEC`; by default the
original code's ``gen_pairdata_rdp.py``). Not in it: with two destinations drawn, the paper's "repeated anchors" are
anchors to the same destination, their importances summed (the candidates are distinct pages); over all pairs each
anchor keeps its own importance, as in the original code.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter

from wikiformer_kit.dataset_scripts.tasks.anchors import (
    EXTRACTION_SKIPS,
    HARP_MEASURES,
    Anchor,
    HarpOptions,
    LinkedSentence,
    harp_spec,
    sample_words,
    softmax,
)
from wikiformer_kit.dataset_scripts.tasks.attention import TextAttention, word_spans
from wikiformer_kit.dataset_scripts.tasks.common import group_row
from wikiformer_kit.dataset_scripts.tasks.spec import FLOATS, TEXTS, group_features

SKIP_REASONS = {
    **EXTRACTION_SKIPS,
    "sentence-with-one-destination": "sentence whose anchors link to fewer than 2 distinct pages",
    "tied-importance": "the two anchors are equally important (rdp_ties=drop)",
    "pair-same-destination": "pair of a sentence's anchors that link to the same page",
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
    return dict(zip(eta, softmax(list(eta.values())), strict=True))


def rdp_rows(
    sentence: LinkedSentence,
    attention: TextAttention,
    passages,
    stopwords: frozenset[str],
    rng: random.Random,
    options: HarpOptions,
) -> tuple[list[dict], dict[str, int]]:
    """The RDP rows of a sentence: one per pair of its anchors (``anchor_pairs="all"``) or at most one from two
    drawn destinations (``"drawn"``); arguments as :func:`~.rqp.rqp_rows`."""
    if len(sentence.destinations()) < 2:
        return [], {"sentence-with-one-destination": 1}
    if options.anchor_pairs == "drawn":
        return _drawn_row(sentence, attention, passages, rng, options)
    anchors = sentence.anchors
    weights = [anchor_weight(anchor, attention, options.anchor_importance) for anchor in anchors]
    importance = softmax(weights)
    rows, skipped = [], Counter()
    for i, j in itertools.combinations(range(len(anchors)), 2):
        if anchors[i].target == anchors[j].target:
            skipped["pair-same-destination"] += 1
            continue
        if weights[i] == weights[j] and options.rdp_ties == "drop":
            skipped["tied-importance"] += 1
            continue
        high, low = (j, i) if weights[i] < weights[j] else (i, j)  # a tie keeps the first anchor (the code)
        rows.append(_row(sentence, passages, anchors[high], anchors[low], [importance[high], importance[low]]))
    return rows, skipped


def _row(sentence: LinkedSentence, passages, high: Anchor, low: Anchor, importance: list[float]) -> dict:
    negatives = [passages.text(low.target)]
    row = group_row(
        "query", sentence.sentence, passages.text(high.target), negatives, sentence.article_id, sentence.title
    )
    return row | {"anchors": [high.text, low.text], "importance": importance}


def _drawn_row(
    sentence: LinkedSentence, attention: TextAttention, passages, rng: random.Random, options: HarpOptions
) -> tuple[list[dict], dict[str, int]]:
    """The paper's row: two destinations drawn by importance, the more important one the positive."""
    importance = anchor_importance(sentence, attention, options.anchor_importance)
    first, second = sample_words(rng, list(importance), list(importance.values()), 2)
    if importance[first] == importance[second] and options.rdp_ties == "drop":
        return [], {"tied-importance": 1}
    high, low = (second, first) if importance[first] < importance[second] else (first, second)
    named = {a.target: a for a in reversed(sentence.anchors)}  # a destination's first anchor
    return [_row(sentence, passages, named[high], named[low], [importance[high], importance[low]])], {}


SPEC = harp_spec(
    name="rdp",
    title="Representative Document Prediction (RDP)",
    features=group_features("query", anchors=TEXTS, importance=FLOATS),
    pairing=(
        "For a sentence whose anchors link to at least 2 distinct pages: one row per pair of its anchors linking to "
        "distinct pages, in the original code's order (`anchor_pairs=all`; `drawn`: one row of two destinations "
        "drawn by importance); an anchor's importance is the [CLS] attention to its word pieces, averaged (or "
        "summed over its words with `anchor_importance=sum`), a softmax over the sentence's anchors; "
        "`query` = the sentence, `positive` = the more important anchor's destination (first section; on a tie "
        "the first anchor's, `rdp_ties=first`), `negatives` = [the other's]; `anchors` and `importance` name them."
    ),
    skip_reasons=SKIP_REASONS,
    query_max_length=64,  # the whole sentence: HARP's Table 1 reports 34.9 query tokens on average for RDP
    measures=MEASURES,
)
