"""Ranking metrics with trec_eval's definitions, as a Hugging Face `evaluate` module.

Load it from the project root with ``evaluate.load("wikiformer_kit/eval/hf_evaluate/ranking_metrics")``. `evaluate` copies this file alone
into its module cache, so it imports only installed libraries; it computes what `eval.metrics.evaluate_run`
computes (ir_measures' pytrec_eval backend, RR@k as RR zeroed below rank k), and a test checks that both
agree on the vendored DL20 sample.
"""

from __future__ import annotations

from statistics import fmean

import datasets
import evaluate
import ir_measures

_DESCRIPTION = """\
trec_eval measures of rankings against graded relevance judgments: reciprocal rank, nDCG, precision, average
precision and recall at cutoffs, computed by pytrec_eval through ir_measures. Queries without judgments are
ignored and judged queries absent from the predictions are left out of the means, as trec_eval does by default.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions: one ranking per query: `{"query_id": str, "doc_ids": [str], "scores": [float]}` (higher score =
        better; ties broken by document id, descending, as trec_eval does). An empty ranking means the query was
        not retrieved for: it is left out of the means.
    references: the judgments of one query per entry: `{"query_id": str, "doc_ids": [str], "relevance": [int]}`
        (`evaluate` pairs predictions and references row by row, so both lists have one entry per query).
    measures: measure names in ir_measures syntax; default
        `["RR@10", "nDCG@10", "nDCG@100", "P@10", "AP", "R@100"]`.
    relevance_level: smallest grade counted as relevant by RR, P, AP and R (TREC DL uses 2). Default 1.
    per_query: also return `{measure: {query_id: value}}` under "per_query". Default False.
Returns:
    `{measure: mean}` (plus "per_query" when asked).
Examples:
    >>> metric = evaluate.load("wikiformer_kit/eval/hf_evaluate/ranking_metrics")
    >>> metric.compute(
    ...     predictions=[{"query_id": "q1", "doc_ids": ["d1", "d2"], "scores": [2.0, 1.0]}],
    ...     references=[{"query_id": "q1", "doc_ids": ["d2"], "relevance": [1]}],
    ...     measures=["RR@10"],
    ... )
    {'RR@10': 0.5}
"""

_CITATION = """\
@inproceedings{macavaney2022irmeasures,
  title={Streamlining Evaluation with ir-measures},
  author={MacAvaney, Sean and Macdonald, Craig and Ounis, Iadh},
  booktitle={ECIR},
  year={2022}
}
"""

_BINARY = ("RR", "P", "AP", "R")


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class RankingMetrics(evaluate.Metric):
    """trec_eval ranking measures (see the module docstring)."""

    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features(
                {
                    "predictions": {
                        "query_id": datasets.Value("string"),
                        "doc_ids": datasets.Sequence(datasets.Value("string")),
                        "scores": datasets.Sequence(datasets.Value("float64")),
                    },
                    "references": {
                        "query_id": datasets.Value("string"),
                        "doc_ids": datasets.Sequence(datasets.Value("string")),
                        "relevance": datasets.Sequence(datasets.Value("int64")),
                    },
                }
            ),
            reference_urls=["https://github.com/terrierteam/ir_measures", "https://github.com/usnistgov/trec_eval"],
        )

    def _compute(self, predictions, references, measures=None, relevance_level=1, per_query=False):
        names = list(measures or ["RR@10", "nDCG@10", "nDCG@100", "P@10", "AP", "R@100"])
        # an empty prediction means the query was not retrieved for (left out of the means, as trec_eval does)
        run = {
            p["query_id"]: dict(zip(p["doc_ids"], map(float, p["scores"]), strict=True))
            for p in predictions
            if p["doc_ids"]
        }
        qrels = {r["query_id"]: dict(zip(r["doc_ids"], map(int, r["relevance"]), strict=True)) for r in references}
        common = run.keys() & qrels.keys()
        if not common:
            raise ValueError("predictions and references share no query_id")
        if not any(run[q].keys() & qrels[q].keys() for q in common):
            # every measure would be 0: document ids from another collection, not a result
            raise ValueError(
                f"none of the {len(common)} queries' predicted doc_ids is in its references "
                f"(predictions e.g. {sorted(run[min(common)])[:3]}, references e.g. {sorted(qrels[min(common)])[:3]})"
            )
        specs = []
        for name in names:
            measure = ir_measures.parse_measure(name)
            params = dict(measure.params)
            if measure.NAME in _BINARY:
                params.setdefault("rel", relevance_level)
            cutoff = params.pop("cutoff") if measure.NAME == "RR" and "cutoff" in params else None
            specs.append((name, measure.__class__(**params), cutoff))
        values = {name: {} for name, _, _ in specs}
        for metric in ir_measures.pytrec_eval.iter_calc(list({m for _, m, _ in specs}), qrels, run):
            if metric.query_id not in run:
                continue  # ir_measures scores judged queries absent from the run as 0; trec_eval leaves them out
            for name, measure, cutoff in specs:
                if measure == metric.measure:
                    # trec_eval's recip_rank has no cutoff: RR@k is RR when the first relevant rank is <= k
                    zeroed = cutoff is not None and metric.value * cutoff < 1 - 1e-9
                    values[name][metric.query_id] = 0.0 if zeroed else float(metric.value)
        result = {name: fmean(per.values()) if per else 0.0 for name, per in values.items()}
        if per_query:
            result["per_query"] = values
        return result
