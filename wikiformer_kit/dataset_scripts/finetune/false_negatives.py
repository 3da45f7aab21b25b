"""The false-negative filter: a cross-encoder scores each group's positive and its candidate negatives, and a
candidate scored too close to the positive (likely relevant but unjudged) is not used as a negative.

The margins follow ``sentence_transformers.util.mine_hard_negatives``: a candidate is kept when
``score <= positive - absolute_margin`` and ``score <= positive - |positive| * relative_margin`` (each test only
when its margin is given).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence

from wikiformer_kit.eval.collections import Collection

logger = logging.getLogger(__name__)


class FalseNegativeFilter:
    """Scores pairs with a cross-encoder and says which candidates are too close to their positive.

    Args:
        model: a cross-encoder folder or Hub id (`eval.rerank.PairScorer` loads it: a Wikiformer checkpoint, a
            sentence-transformers CrossEncoder, a sequence-classification BERT).
        absolute_margin: see the module docstring (None: not tested).
        relative_margin: see the module docstring (None: not tested).
        max_length: pair length in tokens (default: the model's).
        batch_size: pairs per forward pass.
        scorer: an object with ``score(queries, documents) -> list[float]`` used instead of loading ``model``.
    """

    def __init__(
        self,
        model: str | None,
        absolute_margin: float | None = None,
        relative_margin: float | None = None,
        max_length: int | None = None,
        batch_size: int = 32,
        scorer=None,
    ):
        if scorer is None:
            from wikiformer_kit.eval.rerank import PairScorer

            scorer = PairScorer(model, max_length=max_length, batch_size=batch_size)
        self.scorer = scorer
        self.absolute_margin, self.relative_margin = absolute_margin, relative_margin

    def threshold(self, positive_score: float) -> float:
        """The highest score a candidate may have next to a positive scored ``positive_score``."""
        limit = math.inf
        if self.absolute_margin is not None:
            limit = min(limit, positive_score - self.absolute_margin)
        if self.relative_margin is not None:
            limit = min(limit, positive_score - abs(positive_score) * self.relative_margin)
        return limit

    def too_close_texts(self, items: Sequence[tuple[str, str, Sequence[str]]]) -> list[set[int]]:
        """For each ``(query, positive, candidates)`` the indices of the candidates too close to the positive; each
        distinct (query, text) pair is scored once, all of them in one call (batches sorted by length)."""
        pairs: dict[tuple[str, str], int] = {}
        for query, positive, candidates in items:
            for text in (positive, *candidates):
                pairs.setdefault((query, text), len(pairs))
        keys = list(pairs)
        scores = self.scorer.score([q for q, _ in keys], [d for _, d in keys]) if keys else []
        result = []
        for query, positive, candidates in items:
            limit = self.threshold(scores[pairs[(query, positive)]])
            result.append({i for i, text in enumerate(candidates) if scores[pairs[(query, text)]] > limit})
        return result

    def too_close(
        self, collection: Collection, pending: Sequence[tuple[str, Sequence[str], Sequence[str]]]
    ) -> dict[tuple[str, str], set[str]]:
        """For each query's ``(query id, positive ids, candidate ids)``: ``(query id, positive id)`` -> the ids of
        the candidates too close to that positive."""
        docs, queries = collection.documents, collection.queries
        keys, items = [], []
        for qid, positives, window in pending:
            for positive in positives:
                keys.append((qid, positive, window))
                items.append((queries[qid], docs[positive], [docs[did] for did in window]))
        dropped = self.too_close_texts(items)
        return {(qid, pos): {window[i] for i in drop} for (qid, pos, window), drop in zip(keys, dropped, strict=True)}
