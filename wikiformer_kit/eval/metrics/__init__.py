"""Metrics with trec_eval's definitions (ir_measures + pytrec_eval), per-query values kept."""

from __future__ import annotations

from wikiformer_kit.eval.metrics.measures import BINARY_MEASURES, DEFAULT_MEASURES, MeasureSpec, parse_measure
from wikiformer_kit.eval.metrics.trec_eval import (
    Evaluation,
    RunMismatchError,
    check_ids,
    check_run_documents,
    display_name,
    evaluate_run,
)

__all__ = [
    "BINARY_MEASURES",
    "DEFAULT_MEASURES",
    "Evaluation",
    "MeasureSpec",
    "RunMismatchError",
    "check_ids",
    "check_run_documents",
    "display_name",
    "evaluate_run",
    "parse_measure",
]
