"""nDCG as LeCaRD's own ``metrics.py`` computes it (myx666/LeCaRD), beside trec_eval's.

LeCaRD's labels (``label_top30_dict.json``: query -> {candidate: grade 0-3}, in its file order) grade about 30
candidates per query. Its script gives a ranked candidate the gain of its grade when it is one of the **first 30**
labelled candidates of its query (else 0), discounts by log2(rank + 1), and divides by the ideal DCG of **all** the
query's grades; a query whose ranking holds no gain scores 0, and the mean is over every labelled query. trec_eval's
nDCG (``ndcg_cut``, linear gains, the same discount) gives the same value wherever a query has at most 30 labels; for
the queries with 31 to 33 labels, a candidate past the 30th label gains nothing in LeCaRD's figure while the ideal
still counts it, so LeCaRD's is lower. `lecard_ndcg` is LeCaRD's rule, for figures comparable with papers that
report LeCaRD through its script.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

LABELLED = 30
"""LeCaRD grades the top 30 candidates of its pooling per query; its script reads the first 30 labels only."""


def lecard_ndcg(ranking: Sequence[str], labels: Mapping[str, int], k: int) -> float:
    """nDCG@k of one query's ranking (best first) as LeCaRD's ``metrics.py`` computes it.

    Args:
        ranking: the query's candidates, best first.
        labels: the query's labels in the label file's order (a dict keeps it).
        k: the cut-off.
    """
    gains_of = dict(list(labels.items())[:LABELLED])
    gains = [gains_of.get(str(document), 0) for document in ranking[:k]]
    ideal = sorted(labels.values(), reverse=True)[:k]
    dcg = sum(gain / math.log2(rank + 2) for rank, gain in enumerate(gains))
    ideal_dcg = sum(gain / math.log2(rank + 2) for rank, gain in enumerate(ideal))
    return dcg / ideal_dcg if ideal_dcg else 0.0


def lecard_ndcg_run(
    run: Mapping[str, Mapping[str, float]], labels: Mapping[str, Mapping[str, int]], k: int
) -> dict[str, float]:
    """Per labelled query, LeCaRD's nDCG@k of the run (documents ranked by score, higher first; a query the run
    lacks scores 0, as it adds nothing to the script's sum)."""
    per_query = {}
    for query_id, query_labels in labels.items():
        scores = run.get(query_id, {})
        ranking = sorted(scores, key=lambda document: -scores[document])
        per_query[query_id] = lecard_ndcg(ranking, query_labels, k)
    return per_query


def lecard_ndcg_mean(run: Mapping[str, Mapping[str, float]], labels: Mapping[str, Mapping[str, int]], k: int) -> float:
    """The mean of `lecard_ndcg_run` over every labelled query, the figure LeCaRD's script prints."""
    per_query = lecard_ndcg_run(run, labels, k)
    return sum(per_query.values()) / len(per_query) if per_query else 0.0
