"""HARP's Representative Query Prediction (RQP): the anchor-based query against words drawn from the destination.

The paper (section 3.2.1, eq. 1-8) and how a row is formed here are the card's text (:data:`SPEC`). Where the paper
is silent: the negative has as many words as the positive, so that length is no cue (``rqp_negative_length="own"``:
the original code's separate draw, under which the positive, a drawn length plus the anchor's words, is the longer),
and words are drawn without replacement, each query in text order (``draw_unit="pieces"``: the original code's word
pieces, with replacement).
"""

from __future__ import annotations

import random
from collections import Counter

from wikiformer_kit.dataset_scripts.tasks.anchors import (
    EXTRACTION_SKIPS,
    HarpOptions,
    LinkedSentence,
    anchor_words,
    context_query,
    excluded_words,
    harp_spec,
    passage_query,
    query_length,
)
from wikiformer_kit.dataset_scripts.tasks.attention import TextAttention
from wikiformer_kit.dataset_scripts.tasks.common import group_row
from wikiformer_kit.dataset_scripts.tasks.spec import TEXT, group_features

SKIP_REASONS = {
    **EXTRACTION_SKIPS,
    "no-context-word": "anchor whose sentence has no content word besides the anchor",
    "no-passage-word": "destination passage without a content word outside the anchor's words",
}


def rqp_rows(
    sentence: LinkedSentence,
    attention: TextAttention,
    passages,
    stopwords: frozenset[str],
    rng: random.Random,
    options: HarpOptions,
) -> tuple[list[dict], dict[str, int]]:
    """One RQP row per anchor of the sentence.

    Args:
        sentence: the sentence and its resolved anchors.
        attention: the sentence's attention ([CLS] row and one row per anchor, in anchor order).
        passages: destination passages by row (``text``, ``title``, ``article_id``, ``attention``).
        stopwords: never drawn into a query.
        rng: the task's RNG for the source article (its sentences draw from it in turn).
        options: HARP settings.

    Returns:
        The rows and the skip counts.
    """
    rows, skipped = [], Counter()
    for index, anchor in enumerate(sentence.anchors):
        positive = context_query(sentence, index, attention, stopwords, rng, options)
        if positive is None:
            skipped["no-context-word"] += 1
            continue
        query, sampled = positive
        exclude = excluded_words(anchor, attention, options)
        if options.rqp_negative_length == "own":
            size = query_length(rng, options)
        else:
            size = sampled + len(anchor_words(anchor, attention))
        negative = passage_query(passages.attention(anchor.target), stopwords, rng, size, exclude, options)
        if negative is None:
            skipped["no-passage-word"] += 1
            continue
        row = group_row(
            "document", passages.text(anchor.target), query, [negative], sentence.article_id, sentence.title
        )
        rows.append(row | {"anchor": anchor.text, "destination": passages.title(anchor.target)})
    return rows, skipped


SPEC = harp_spec(
    name="rqp",
    title="Representative Query Prediction (RQP)",
    features=group_features("document", anchor=TEXT, destination=TEXT),
    pairing=(
        "For an anchor a in sentence S of an article, linking to page P: `document` = P's first section, `positive` "
        "= a plus l words of S drawn by their attention from the anchor (in sentence order), `negatives` = [as many "
        "words of P drawn by their attention from [CLS], a's words excluded; with `rqp_negative_length=own`, a "
        "length of its own draw]; with `draw_unit=pieces`, word pieces instead of words, joined as the tokenizer "
        "joins them. The document is the fixed side and "
        "the candidates are queries. `article_id`/`title` name the source article, `anchor` and `destination` the "
        "link."
    ),
    skip_reasons=SKIP_REASONS,
)
