"""HARP's Anchor Co-occurrence Modeling (ACM): words of one anchor's destination as the query, a co-occurring
anchor's destination as the positive.

The paper (section 3.2.4, eq. 13-14) and how a row is formed here are the card's text (:data:`SPEC`; by default
every pair, as the original code's ``gen_pairdata_acm.py``); a1's own words are not drawn again
(``exclude_anchor_words``).
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Sequence

from wikiformer_kit.dataset_scripts.tasks.anchors import (
    EXTRACTION_SKIPS,
    HarpOptions,
    LinkedSentence,
    destination_pair_row,
    excluded_words,
    harp_spec,
    passage_query,
    query_length,
)
from wikiformer_kit.dataset_scripts.tasks.attention import TextAttention
from wikiformer_kit.dataset_scripts.tasks.spec import TEXT, group_features

SKIP_REASONS = {
    **EXTRACTION_SKIPS,
    "sentence-with-one-destination": "sentence whose anchors link to fewer than 2 distinct pages",
    "no-passage-word": "the first anchor's destination has no content word outside the anchor's words",
    "no-random-negative": "no random page different from the source and both destinations could be drawn",
    "pair-same-destination": "pair of a sentence's anchors that link to the same page",
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
    """The ACM rows of a sentence: one per pair of its anchors (``anchor_pairs="all"``) or at most one of two drawn
    destinations (``"drawn"``); ``pool`` holds the rows a random negative page is drawn from, other arguments as
    :func:`~.rqp.rqp_rows`."""
    destinations = sentence.destinations()
    if len(destinations) < 2:
        return [], {"sentence-with-one-destination": 1}
    if options.anchor_pairs == "drawn":
        first, second = rng.sample(destinations, 2)
        pairs = [(next(a for a in sentence.anchors if a.target == first), second)]
    else:
        pairs = [(a, b.target) for a, b in itertools.combinations(sentence.anchors, 2)]
    rows, skipped = [], Counter()
    for anchor, second in pairs:
        first = anchor.target
        if first == second:
            skipped["pair-same-destination"] += 1
            continue
        exclude = excluded_words(anchor, attention, options)
        words = passage_query(passages.attention(first), stopwords, rng, query_length(rng, options), exclude, options)
        if words is None:
            skipped["no-passage-word"] += 1
            continue
        negative = _random_page(pool, rng, (first, second, source_row))
        if negative is None:
            skipped["no-random-negative"] += 1
            continue
        # the original code appends the anchor to the words it draws with replacement
        query = f"{words} {anchor.text}" if options.word_draws == "replacement" else f"{anchor.text} {words}"
        rows.append(destination_pair_row(sentence, query, anchor, passages, second, negative))
    return rows, skipped


def _random_page(pool: Sequence[int], rng: random.Random, excluded: tuple) -> int | None:
    """A row drawn from ``pool`` that is not in ``excluded`` (at most 16 draws; ``None``: none found)."""
    for _ in range(16 if len(pool) else 0):
        row = int(pool[rng.randrange(len(pool))])
        if row not in excluded:
            return row
    return None


SPEC = harp_spec(
    name="acm",
    title="Anchor Co-occurrence Modeling (ACM)",
    features=group_features("query", anchor=TEXT, positive_title=TEXT, negative_title=TEXT),
    pairing=(
        "For two anchors (a1, P1), (a2, P2) of one sentence linking to distinct pages (every pair, a1 before a2 in "
        "the sentence, with `anchor_pairs=all`; two drawn destinations with `drawn`): `query` = a1 plus l words of "
        "P1's first section drawn by their attention from [CLS], `positive` = P2's first section, `negatives` = "
        "[the first section of a random page of the corpus, neither the source nor P1 nor P2]."
    ),
    skip_reasons=SKIP_REASONS,
    query_max_length=250,  # the original code cuts both sides to 250 tokens
)
