"""HARP's Query Disambiguation Modeling (QDM): an ambiguous anchor in context against its other destinations.

The paper (section 3.2.2, eq. 9) and how a row is formed here are the card's text (:data:`SPEC`). Which occurrences
of an anchor text make its rows is decided by a seeded hash of the occurrence over the whole corpus
(:func:`occurrence_rank`), so that it does not depend on sharding; ``qdm_occurrences="first"`` takes the first
occurrences in corpus order, as the original code does (:func:`first_rank`).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence

import numpy as np

from wikiformer_kit.dataset_scripts.tasks.anchors import (
    EXTRACTION_SKIPS,
    HarpOptions,
    LinkedSentence,
    context_query,
    destination_pair_row,
    harp_spec,
)
from wikiformer_kit.dataset_scripts.tasks.attention import TextAttention
from wikiformer_kit.dataset_scripts.tasks.see_also_join import crc32_text
from wikiformer_kit.dataset_scripts.tasks.spec import TEXT, group_features

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


RANK_HASH = "crc32-splitmix64"
"""The occurrence rank's hash, recorded with a build (work files ranked another way are not resumed)."""
_MASK64 = (1 << 64) - 1
_SPLITMIX = (0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9, 0x94D049BB133111EB)


def occurrence_rank(seed: int, key: str, article_id: str, sentence: str, position: int) -> int:
    """A seeded 63-bit hash of one occurrence: an anchor text's rows are its occurrences of lowest rank.

    The CRC-32s of the key, the article id and the sentence and the anchor's position, mixed with splitmix64's
    finaliser (:func:`occurrence_ranks` computes the same for a whole unit at once)."""
    key_crc, article_crc, sentence_crc = map(crc32_text, (key, article_id, sentence))
    state = _mix(_seed_word(seed) ^ ((key_crc << 32) | sentence_crc))
    return _mix(state ^ ((article_crc << 32) | (position & 0xFFFFFFFF))) >> 1


def first_rank(article_row: int, link: int) -> int:
    """An occurrence's rank in corpus order: its article's row, then its place among the article's links."""
    return (article_row << 24) | link


def first_ranks(article_rows: np.ndarray, links: np.ndarray) -> np.ndarray:
    """:func:`first_rank` of many occurrences (``int64``)."""
    return (np.asarray(article_rows, dtype=np.int64) << 24) | np.asarray(links, dtype=np.int64)


def occurrence_ranks(
    seed: int, key_crcs: np.ndarray, article_crcs: np.ndarray, sentence_crcs: np.ndarray, positions: np.ndarray
) -> np.ndarray:
    """:func:`occurrence_rank` of many occurrences (``int64``), from the CRC-32s of their texts
    (:func:`.see_also_join.crc32_of`) and their positions."""
    key_crcs, article_crcs, sentence_crcs = (
        np.asarray(a, dtype=np.uint64) for a in (key_crcs, article_crcs, sentence_crcs)
    )
    positions = np.asarray(positions, dtype=np.int64).astype(np.uint64) & np.uint64(0xFFFFFFFF)
    state = _mix_array(np.uint64(_seed_word(seed)) ^ ((key_crcs << np.uint64(32)) | sentence_crcs))
    state = _mix_array(state ^ ((article_crcs << np.uint64(32)) | positions))
    return (state >> np.uint64(1)).astype(np.int64)


def _seed_word(seed: int) -> int:
    return _mix((seed + _SPLITMIX[0]) & _MASK64)


def _mix(z: int) -> int:
    """splitmix64's finaliser on a 64-bit integer."""
    z = ((z ^ (z >> 30)) * _SPLITMIX[1]) & _MASK64
    z = ((z ^ (z >> 27)) * _SPLITMIX[2]) & _MASK64
    return z ^ (z >> 31)


def _mix_array(z: np.ndarray) -> np.ndarray:
    """:func:`_mix` of a ``uint64`` array (its products wrap modulo 2**64, as the mask does)."""
    z = (z ^ (z >> np.uint64(30))) * np.uint64(_SPLITMIX[1])
    z = (z ^ (z >> np.uint64(27))) * np.uint64(_SPLITMIX[2])
    return z ^ (z >> np.uint64(31))


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
    rows, skipped = [], Counter()
    for index, anchor in enumerate(sentence.anchors):
        key = anchor_key(anchor.text)
        if key not in plan:
            skipped["anchor-with-one-destination"] += 1
            continue
        destinations, cutoff = plan[key]
        if options.qdm_occurrences == "first":
            rank = first_rank(source_row, anchor.link)
        else:
            rank = occurrence_rank(seed, key, sentence.article_id, sentence.sentence, anchor.span[0])
        if rank > cutoff:
            skipped["anchor-over-pair-cap"] += 1
            continue
        others = [d for d in destinations if d not in (anchor.target, source_row)]
        if not others:
            skipped["no-other-destination"] += 1
            continue
        query = context_query(sentence, index, attention, stopwords, rng, options)
        if query is None:
            skipped["no-context-word"] += 1
            continue
        negative = others[rng.randrange(len(others))]
        rows.append(destination_pair_row(sentence, query[0], anchor, passages, anchor.target, negative))
    return rows, skipped


SPEC = harp_spec(
    name="qdm",
    title="Query Disambiguation Modeling (QDM)",
    features=group_features("query", anchor=TEXT, positive_title=TEXT, negative_title=TEXT),
    pairing=(
        "For an occurrence of an anchor text that links to at least 2 pages across the corpus: `query` = the anchor "
        "plus l words of its sentence drawn by their attention from the anchor, `positive` = the first section of "
        "this occurrence's destination, `negatives` = [the first section of another destination of the same "
        "anchor text, never the source article]. Disambiguation pages are no destination. At most `qdm_max_pairs` rows per anchor text (the occurrences of lowest seeded hash)."
    ),
    skip_reasons=SKIP_REASONS,
)
