"""HARP's Anchor Co-occurrence Modeling (ACM): words of one anchor's destination as the query, a co-occurring
anchor's destination as the positive.

The paper (section 3.2.4): for two anchors (a1, P1) and (a2, P2) drawn at random from the same sentence, the query
S1 is a1 plus words of P1 drawn by their attention from [CLS] (eq. 13); P2 is the relevant document and a page
drawn at random from the corpus the negative (eq. 14). The original code cuts both sides to 250 tokens.

A row: ``query`` = S1, ``positive`` = P2, ``negatives`` = [a random page's first section]. Here the two anchors
link to distinct pages (drawn uniformly among the sentence's destinations), l ~ the query length distribution,
a1's own words are not drawn again, and the random page is neither the source article, P1 nor P2.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from wikiformer_kit.dataset_scripts.tasks.anchors import (
    EXTRACTION_SKIPS,
    HARP,
    HARP_CHOICES,
    HARP_MEASURES,
    HarpOptions,
    LinkedSentence,
    anchor_words,
    destination_pair_row,
    passage_query,
    query_length,
)
from wikiformer_kit.dataset_scripts.tasks.attention import TextAttention
from wikiformer_kit.dataset_scripts.tasks.spec import TEXT, TaskSpec, group_features

SKIP_REASONS = {
    **EXTRACTION_SKIPS,
    "sentence-with-one-destination": "sentence whose anchors link to fewer than 2 distinct pages",
    "no-passage-word": "the first anchor's destination has no content word outside the anchor's words",
    "no-random-negative": "no random page different from the source and both destinations could be drawn",
}


def acm_rows(
    sentence: LinkedSentence,
    attention: TextAttention,
    passages,
    stopwords: frozenset[str],
    rng: random.Random,
    options: HarpOptions,
    pool: Sequence[int] = (),
    source_row: int | None = None,
) -> tuple[list[dict], dict[str, int]]:
    """The ACM row of a sentence (at most one); ``pool`` holds the rows a random negative page is drawn from,
    other arguments as :func:`~.rqp.rqp_rows`."""
    destinations = sentence.destinations()
    if len(destinations) < 2:
        return [], {"sentence-with-one-destination": 1}
    first, second = rng.sample(destinations, 2)
    anchor = next(a for a in sentence.anchors if a.target == first)
    words = passage_query(
        passages.attention(first), stopwords, rng, query_length(rng, options), anchor_words(anchor, attention)
    )
    if words is None:
        return [], {"no-passage-word": 1}
    negative = None
    for _ in range(16):
        if len(pool) == 0:
            break
        row = int(pool[rng.randrange(len(pool))])
        if row not in (first, second, source_row):
            negative = row
            break
    if negative is None:
        return [], {"no-random-negative": 1}
    row = destination_pair_row(sentence, f"{anchor.text} {words}", anchor, passages, second, negative)
    return [row], {}


SPEC = TaskSpec(
    name="acm",
    title="Anchor Co-occurrence Modeling (ACM)",
    features=group_features("query", anchor=TEXT, positive_title=TEXT, negative_title=TEXT),
    fixed_side="query",
    pairing=(
        "For two anchors (a1, P1), (a2, P2) of one sentence linking to distinct pages: `query` = a1 plus l words of "
        "P1's first section drawn by their attention from [CLS], `positive` = P2's first section, `negatives` = "
        "[the first section of a random page of the corpus, neither the source nor P1 nor P2]."
    ),
    choices=HARP_CHOICES,
    skip_reasons=SKIP_REASONS,
    sampler=None,  # corpus-wide: a random page of the whole corpus as the negative (baseline_steps)
    query_max_length=250,  # the original code cuts both sides to 250 tokens
    doc_max_length=250,
    origin=HARP,
    measures=HARP_MEASURES,
)
