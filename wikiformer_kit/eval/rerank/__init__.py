"""Re-ranking: score candidates with a checkpoint (`PairScorer`) or a model in memory (`ModelScorer`), write a TREC
run resumably (`rerank`) or keep it in memory (`rerank_run`), documents longer than the model by FirstP, MaxP or SumP
(`LongDocuments`, `score_long_pairs` for any CrossEncoder), and fuse it with the first stage (`fuse_run`,
`tune_fusion`)."""

from __future__ import annotations

from wikiformer_kit.eval.rerank.fusion import (
    DEFAULT_ALPHAS,
    FusionChoice,
    check_first_stage_scores,
    fuse_run,
    tune_fusion,
)
from wikiformer_kit.eval.rerank.fusion_cv import DEFAULT_FOLDS
from wikiformer_kit.eval.rerank.long_documents import (
    LONG_DOCUMENT_MODES,
    LongDocuments,
    PassageScorer,
    score_long_pairs,
    split_passages,
)
from wikiformer_kit.eval.rerank.runner import rerank, rerank_run, reranked_head, with_long_documents, with_tail
from wikiformer_kit.eval.rerank.scorer import ModelScorer, PairScorer

__all__ = [
    "DEFAULT_ALPHAS",
    "DEFAULT_FOLDS",
    "LONG_DOCUMENT_MODES",
    "FusionChoice",
    "LongDocuments",
    "ModelScorer",
    "PairScorer",
    "PassageScorer",
    "check_first_stage_scores",
    "fuse_run",
    "rerank",
    "rerank_run",
    "reranked_head",
    "score_long_pairs",
    "split_passages",
    "tune_fusion",
    "with_long_documents",
    "with_tail",
]
