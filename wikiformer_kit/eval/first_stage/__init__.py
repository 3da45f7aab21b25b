"""First-stage retrieval: BM25 (bm25s), a dense bi-encoder (sentence-transformers), or a given run."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from wikiformer_kit.eval.collections.collection import Collection, Run
from wikiformer_kit.eval.first_stage.bm25 import PAPER_B, PAPER_K1, BM25Options, BM25Retriever
from wikiformer_kit.eval.first_stage.dense import DenseRetriever, default_bi_encoder_path

logger = logging.getLogger(__name__)

__all__ = [
    "PAPER_B",
    "PAPER_K1",
    "BM25Options",
    "BM25Retriever",
    "DenseRetriever",
    "default_bi_encoder_path",
    "first_stage_run",
]


def first_stage_run(
    collection: Collection,
    method: str = "bm25",
    k: int = 100,
    query_ids: Sequence[str] | None = None,
    bm25_options: BM25Options | None = None,
    dense_model: str | None = None,
) -> Run:
    """The top ``k`` candidates for re-ranking of ``method``: ``bm25``, ``dense`` (the bi-encoder ``dense_model``),
    or the name of one of the collection's runs (``given``: its first run), for ``query_ids`` (default: the judged
    queries, so no effort goes to queries that cannot be evaluated)."""
    ids = list(query_ids) if query_ids is not None else collection.judged_query_ids()
    if method == "bm25":
        return BM25Retriever(collection.documents, bm25_options).retrieve(collection.queries, k, ids)
    if method == "dense":
        return DenseRetriever(collection.documents, dense_model).retrieve(collection.queries, k, ids)
    run = collection.default_run() if method == "given" else collection.runs.get(method)
    if run is None:
        raise ValueError(f"{collection.name}: no run {method!r} (runs: {sorted(collection.runs)}); use bm25 or dense")
    from wikiformer_kit.eval.collections.trec import ranked

    wanted = set(ids)
    missing = wanted - run.keys()
    if missing:
        logger.warning(
            "%s: %d of %d queries have no candidates in run %r", collection.name, len(missing), len(ids), method
        )
    return {qid: dict(ranked(ranking)[:k]) for qid, ranking in run.items() if qid in wanted}
