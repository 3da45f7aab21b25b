"""The relevance level of binary measures (RR, AP, P, R) when no one states it.

trec_eval counts a judged document as relevant when its grade is at least ``-l`` (default 1). For TREC Deep
Learning (grades 0-3: irrelevant, related, highly relevant, perfectly relevant) the track's official RR and AP
use ``-l 2``, and that is what users of those qrels expect; at level 1 BM25's RR@10 on DL20 is 0.82 instead of the
official 0.65. So qrels graded exactly 0-3 default to level 2; other graded qrels (Cranfield's 0-4 gains) keep
trec_eval's level 1. Either way the level is stated with its reason, since it changes every binary measure.
"""

from __future__ import annotations

from wikiformer_kit.eval.collections.collection import Qrels

TREC_DL_GRADES = frozenset({0, 1, 2, 3})


def grades(qrels: Qrels) -> set[int]:
    """Every grade used in the qrels."""
    return {grade for judged in qrels.values() for grade in judged.values()}


def is_graded(qrels: Qrels) -> bool:
    """Whether the qrels have a grade of 2 or more (binary measures then depend on the relevance level)."""
    return max(grades(qrels), default=0) >= 2


def default_relevance_level(qrels: Qrels) -> tuple[int, str]:
    """The relevance level to use when neither ``--relevance-level`` nor ``collection.json`` gives one.

    Returns:
        ``(level, reason)``; the reason is a sentence for the user.
    """
    used = grades(qrels)
    if not used:
        return 1, "no qrels: trec_eval's default level 1"
    if max(used) < 2:
        return 1, "binary qrels (grades 0-1): level 1"
    if used <= TREC_DL_GRADES and max(used) == 3:
        return 2, "TREC DL-style grades 0-3: level 2, as TREC DL's official runs of trec_eval use (-l 2)"
    return 1, f"graded qrels ({min(used)}-{max(used)}) without a stated level: trec_eval's default level 1"
