"""Re-ranking: score candidates with a checkpoint (`PairScorer`) and write a TREC run resumably (`rerank`)."""

from __future__ import annotations

from .runner import rerank
from .scorer import PairScorer

__all__ = ["PairScorer", "rerank"]
