"""The measures the paper reports, declared once (ir_measures syntax), and how a name becomes an ir_measures
measure at a given relevance level.

Binary measures (RR, P, AP, R) count a document as relevant when its grade is at least the relevance level
(TREC DL uses 2); nDCG uses the grades themselves as gains (trec_eval's ``ndcg_cut``, linear gain, log2
discount).
"""

from __future__ import annotations

from dataclasses import dataclass

import ir_measures

DEFAULT_MEASURES = (
    "RR@10",
    "RR@100",
    "nDCG@5",
    "nDCG@10",
    "nDCG@15",
    "nDCG@20",
    "nDCG@100",
    "P@5",
    "P@10",
    "P@20",
    "AP",
    "R@100",
)
"""MRR@10/100 (MS MARCO), nDCG@5/10/15/20/100 (TREC DL, legal), P@5/10/20 (TREC-COVID, WIKIR), MAP, R@100."""

BINARY_MEASURES = ("RR", "P", "AP", "R")
"""Measures whose relevance level applies."""


@dataclass(frozen=True)
class MeasureSpec:
    """One measure as computed here: its display ``name`` (``RR@10``, without the relevance level), the ir_measures
    ``measure`` handed to the pytrec_eval provider (``RR(rel=2)`` for ``RR@10``) and, for RR@k, the k applied to
    the per-query reciprocal rank (see `parse_measure`)."""

    name: str
    measure: ir_measures.measures.BaseMeasure
    rr_cutoff: int | None = None


def parse_measure(name: str, relevance_level: int = 1) -> MeasureSpec:
    """Turn ``RR@10``, ``nDCG@10``, ``P@5``, ``AP``, ``R@100`` ... into a `MeasureSpec`.

    pytrec_eval (trec_eval's ``recip_rank``) has no RR cutoff, and ir_measures' pytrec_eval provider silently
    ignores one (``RR@10`` comes back as full RR). RR@k is therefore computed as RR, then set to 0 for queries
    whose first relevant document is ranked below k, which is exactly reciprocal rank over the top k.

    A ``rel=`` given in the name wins over ``relevance_level`` (the smallest relevant grade of binary measures).

    Raises:
        ValueError: an unknown measure, or one the pytrec_eval backend cannot compute.
    """
    try:
        measure = ir_measures.parse_measure(name)
    except (NameError, ValueError, SyntaxError) as error:
        raise ValueError(f"unknown measure {name!r} ({error})") from None
    params = dict(measure.params)
    if measure.NAME in BINARY_MEASURES and "rel" not in params:
        params["rel"] = relevance_level
    rr_cutoff = None
    if measure.NAME == "RR" and "cutoff" in params:
        rr_cutoff = int(params.pop("cutoff"))
    computed = measure.__class__(**params) if params != measure.params else measure
    if not ir_measures.pytrec_eval.supports(computed):
        raise ValueError(f"measure {name!r} is not computed by the pytrec_eval backend")
    return MeasureSpec(name, computed, rr_cutoff)
