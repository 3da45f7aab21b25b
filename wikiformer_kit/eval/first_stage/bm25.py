"""BM25 first stage with bm25s (Lucene's BM25 variant), stemming and stopwords as options."""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

# bm25s runs a JAX top-k when it is first imported if JAX is installed; on a CUDA machine JAX would then take 75%
# of the GPU's memory from the model that re-ranks next. Its selection here is NumPy, so JAX stays on the CPU.
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import bm25s  # noqa: E402
import numpy as np  # noqa: E402

from wikiformer_kit.eval.collections.collection import Run

logger = logging.getLogger(__name__)

PAPER_K1, PAPER_B = 3.8, 0.87
"""The BM25 parameters the Wikiformer paper uses for its first stage."""


@dataclass(frozen=True)
class BM25Options:
    """How documents and queries are indexed and scored.

    Args:
        k1: term-frequency saturation (bm25s default 1.5; the paper's 3.8 is `PAPER_K1`).
        b: length normalisation (bm25s default 0.75; the paper's 0.87 is `PAPER_B`).
        stemmer: a Snowball language for PyStemmer (``english``), or None for no stemming.
        stopwords: ``en`` (bm25s' English list), None for none, or a path to a file with one word per line
            (e.g. the INQUERY list).
        method: the bm25s scoring variant (``lucene``, ``robertson``, ``atire``, ``bm25l``, ``bm25+``).
    """

    k1: float = 1.5
    b: float = 0.75
    stemmer: str | None = "english"
    stopwords: str | None = "en"
    method: str = "lucene"

    @classmethod
    def paper(cls, **overrides) -> BM25Options:
        """The paper's k1 = 3.8, b = 0.87 (other fields as given)."""
        return cls(k1=PAPER_K1, b=PAPER_B, **overrides)


def _stemmer(language: str | None):
    if language is None:
        return None
    try:
        import Stemmer
    except ImportError:
        raise ImportError("BM25 stemming needs PyStemmer: pip install PyStemmer (or pass stemmer=None)") from None
    return Stemmer.Stemmer(language)


def _stopwords(option: str | None) -> str | list[str] | None:
    # a file of words (e.g. INQUERY) or a bm25s language name ("en", "english_plus", "de", ...)
    if option is not None and Path(option).is_file():
        return [word for word in Path(option).read_text(encoding="utf-8").split() if word]
    return option


class BM25Retriever:
    """A bm25s index over a collection's documents (`BM25Options` default: bm25s' k1/b, English stemming and
    stopwords).

    Example::

        retriever = BM25Retriever(collection.documents, BM25Options.paper())
        run = retriever.retrieve(collection.queries, k=100)
    """

    def __init__(self, documents: dict[str, str], options: BM25Options | None = None):
        if not documents:
            raise ValueError("BM25 needs at least one document")
        self.options = options or BM25Options()
        self.doc_ids = list(documents)
        self._stemmer = _stemmer(self.options.stemmer)
        self._stopwords = _stopwords(self.options.stopwords)
        tokens = bm25s.tokenize(
            [documents[d] for d in self.doc_ids], stopwords=self._stopwords, stemmer=self._stemmer, show_progress=False
        )
        self.index = bm25s.BM25(k1=self.options.k1, b=self.options.b, method=self.options.method)
        self.index.index(tokens, show_progress=False)

    def retrieve(self, queries: dict[str, str], k: int = 100, query_ids: Sequence[str] | None = None) -> Run:
        """The top ``k`` documents (at most all) of each query of ``query_ids`` (default: all), with their BM25
        scores. Queries that are empty or share no term with the index are left out (counted in a warning): every
        document would tie at 0."""
        ids = list(query_ids if query_ids is not None else queries)
        k = min(k, len(self.doc_ids))
        texts = [queries[q] for q in ids]
        tokens = bm25s.tokenize(
            texts, stopwords=self._stopwords, stemmer=self._stemmer, return_ids=False, show_progress=False
        )
        vocabulary = self.index.vocab_dict
        kept = [(qid, [t for t in toks if t in vocabulary]) for qid, toks in zip(ids, tokens, strict=True)]
        skipped = [qid for qid, toks in kept if not toks]
        if skipped:
            logger.warning(
                "BM25: %d of %d queries are empty or match no indexed term and get no candidates (e.g. %s)",
                len(skipped),
                len(ids),
                skipped[:3],
            )
        kept = [(qid, toks) for qid, toks in kept if toks]
        run: Run = {}
        if not kept:
            return run
        # One more than asked: a tie across the cut shows as equal scores at positions k - 1 and k.
        deeper = min(k + 1, len(self.doc_ids))
        results, scores = self.index.retrieve(
            [toks for _, toks in kept], k=deeper, show_progress=False, n_threads=1, backend_selection="numpy"
        )
        for row, (qid, toks) in enumerate(kept):
            if deeper > k and scores[row][k] == scores[row][k - 1]:
                indices = self._top_k_as_trec_eval_ranks(toks, k)
                run[qid] = {self.doc_ids[i]: float(s) for i, s in indices}
            else:
                pairs = zip(results[row][:k], scores[row][:k], strict=True)
                run[qid] = {self.doc_ids[int(i)]: float(s) for i, s in pairs}
        return run

    def _top_k_as_trec_eval_ranks(self, query_tokens: list[str], k: int) -> list[tuple[int, float]]:
        """The k best documents when scores tie across the cut: ties go to the larger document id (string order),
        as trec_eval ranks them, so that the top k is the head of trec_eval's full ranking whatever k is."""
        all_scores = self.index.get_scores(query_tokens)
        cut = float(np.partition(all_scores, len(all_scores) - k)[len(all_scores) - k])
        above = np.flatnonzero(all_scores > cut)
        tied = sorted(np.flatnonzero(all_scores == cut), key=lambda i: self.doc_ids[i], reverse=True)
        chosen = [int(i) for i in above] + [int(i) for i in tied[: k - len(above)]]
        return [(i, float(all_scores[i])) for i in chosen]
