"""HARP's Query Disambiguation Modeling (QDM): an ambiguous anchor in context against its other destinations.

The paper (section 3.2.2): an anchor text a that links to several pages across the corpus is an ambiguous query;
for an occurrence (a, S, P), the query S1 is built from S around a as in RQP, P is the relevant document and a page
drawn from a's other destinations the negative (eq. 9). The original code keeps anchors that link to at least 2
pages and at most 10 pairs per anchor text.

A row: ``query`` = S1, ``positive`` = P, ``negatives`` = [another destination of the same anchor text]. Anchor
texts are compared lowercased with spaces collapsed; destinations after redirects. Which occurrences of an anchor
text make its (at most ``qdm_max_pairs``) rows is decided by a seeded hash of the occurrence, over the whole corpus
(:func:`occurrence_rank`), so the choice does not depend on sharding.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping, Sequence

from .anchors import (
    EXTRACTION_SKIPS,
    HARP,
    HARP_CHOICES,
    HARP_MEASURES,
    HarpOptions,
    LinkedSentence,
    context_query,
    destination_pair_row,
)
from .attention import TextAttention
from .spec import TEXT, TaskSpec, group_features

SKIP_REASONS = {
    **EXTRACTION_SKIPS,
    "anchor-with-one-destination": "anchor text that links to a single page in the whole corpus",
    "anchor-over-pair-cap": "occurrence beyond the qdm_max_pairs rows of its anchor text",
    "no-context-word": "anchor whose sentence has no content word besides the anchor",
    "no-other-destination": "anchor text whose other destinations are all the source article itself",
}


def anchor_key(text: str) -> str:
    """The form under which anchor texts are compared: lowercased, whitespace collapsed."""
    return " ".join(text.lower().split())


def occurrence_rank(seed: int, key: str, article_id: str, sentence: str, position: int) -> int:
    """A seeded 64-bit hash of one occurrence: an anchor text's rows are its occurrences of lowest rank."""
    raw = f"{seed}\x1fqdm\x1f{key}\x1f{article_id}\x1f{sentence}\x1f{position}".encode()
    return int.from_bytes(hashlib.blake2b(raw, digest_size=8).digest(), "big") >> 1


def qdm_rows(
    sentence: LinkedSentence,
    attention: TextAttention,
    passages,
    stopwords: frozenset[str],
    rng: random.Random,
    options: HarpOptions,
    plan: Mapping[str, tuple[Sequence[int], int]] | None = None,
    seed: int = 42,
    source_row: int | None = None,
) -> tuple[list[dict], dict[str, int]]:
    """The QDM rows of a sentence's anchors.

    Args:
        plan: per ambiguous anchor text: its distinct destination rows and the highest occurrence rank that makes
            a row (built over the whole corpus); an anchor text absent from it links to one page only.
        seed: the build seed (for :func:`occurrence_rank`).
        source_row: the source article's row: never the negative (a page is no "other meaning" of a word in
            itself, and the sentence comes from it).
        other arguments: as :func:`~.rqp.rqp_rows`.
    """
    plan = plan or {}
    rows, skipped = [], {}
    for index, anchor in enumerate(sentence.anchors):
        key = anchor_key(anchor.text)
        if key not in plan:
            skipped["anchor-with-one-destination"] = skipped.get("anchor-with-one-destination", 0) + 1
            continue
        destinations, cutoff = plan[key]
        if occurrence_rank(seed, key, sentence.article_id, sentence.sentence, anchor.span[0]) > cutoff:
            skipped["anchor-over-pair-cap"] = skipped.get("anchor-over-pair-cap", 0) + 1
            continue
        others = [d for d in destinations if d not in (anchor.target, source_row)]
        if not others:
            skipped["no-other-destination"] = skipped.get("no-other-destination", 0) + 1
            continue
        query = context_query(sentence, index, attention, stopwords, rng, options)
        if query is None:
            skipped["no-context-word"] = skipped.get("no-context-word", 0) + 1
            continue
        negative = others[rng.randrange(len(others))]
        rows.append(destination_pair_row(sentence, query[0], anchor, passages, anchor.target, negative))
    return rows, skipped


SPEC = TaskSpec(
    name="qdm",
    title="Query Disambiguation Modeling (QDM)",
    features=group_features("query", anchor=TEXT, positive_title=TEXT, negative_title=TEXT),
    fixed_side="query",
    pairing=(
        "For an occurrence of an anchor text that links to at least 2 pages across the corpus: `query` = the anchor "
        "plus l words of its sentence drawn by their attention from the anchor, `positive` = the first section of "
        "this occurrence's destination, `negatives` = [the first section of another destination of the same "
        "anchor text, never the source article]. Disambiguation pages are no destination. At most `qdm_max_pairs` rows per anchor text (the occurrences of lowest seeded hash)."
    ),
    choices=HARP_CHOICES,
    skip_reasons=SKIP_REASONS,
    sampler=None,  # corpus-wide: every anchor text's destinations first (baseline_steps)
    doc_max_length=250,
    origin=HARP,
    measures=HARP_MEASURES,
)
