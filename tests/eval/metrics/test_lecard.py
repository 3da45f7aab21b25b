"""LeCaRD's nDCG as its own metrics.py computes it, against that script's printed figures on LeCaRD's real labels and
BM25 ranking (vendored), against trec_eval's nDCG, and on a hand-worked example where the two rules differ."""

from __future__ import annotations

import json
import math

import pytest

from tests.conftest import SAMPLES
from wikiformer_kit.eval.metrics import evaluate_run
from wikiformer_kit.eval.metrics.lecard import lecard_ndcg, lecard_ndcg_mean, lecard_ndcg_run

LECARD = SAMPLES / "eval" / "lecard"

SCRIPT_FIGURES = {10: 0.4917897340918521, 20: 0.531733955946452, 30: 0.5605551812930932}
"""``python metrics.py --m NDCG`` in myx666/LeCaRD (commit b1a4b72): the BM25 column at NDCG@10, @20, @30."""


@pytest.fixture(scope="module")
def lecard_bm25():
    labels = json.loads((LECARD / "label_top30_dict.json").read_text(encoding="utf-8"))
    rankings = json.loads((LECARD / "bm25_top100.json").read_text(encoding="utf-8"))
    # the file lists each query's candidates worst first: LeCaRD's script reverses them before scoring
    run = {
        query: {str(doc): float(len(docs) - rank) for rank, doc in enumerate(reversed(docs))}
        for query, docs in rankings.items()
        if query in labels
    }
    return run, labels


@pytest.mark.parametrize("k", sorted(SCRIPT_FIGURES))
def test_the_scripts_own_figures_on_its_bm25_ranking(lecard_bm25, k):
    run, labels = lecard_bm25
    assert len(labels) == 107
    assert lecard_ndcg_mean(run, labels, k) == pytest.approx(SCRIPT_FIGURES[k], abs=1e-12)


@pytest.mark.parametrize("k", [5, 10, 15, 20, 30])
def test_trec_eval_agrees_on_lecards_labels(lecard_bm25, k):
    """On LeCaRD's own labels (30 to 33 a query) the two rules give the same figures, per query."""
    run, labels = lecard_bm25
    theirs = lecard_ndcg_run(run, labels, k)
    trec_eval = evaluate_run(run, labels, [f"nDCG@{k}"]).per_query[f"nDCG@{k}"]
    assert any(len(graded) > 30 for graded in labels.values())
    for query in labels:
        assert trec_eval[query] == pytest.approx(theirs[query], abs=1e-9), query


def test_hand_worked_example_where_the_rules_differ():
    # 31 labels: the 31st is graded 3 but LeCaRD's script reads the first 30 labels only
    labels = {f"d{i}": 0 for i in range(29)} | {"a": 2, "b": 3}
    ranking = ["b", "a", "d0"]
    ideal = 3 + 2 / math.log2(3)
    assert lecard_ndcg(ranking, labels, 2) == pytest.approx((0 + 2 / math.log2(3)) / ideal)
    run = {"q": {"b": 3.0, "a": 2.0, "d0": 1.0}}
    trec_eval = evaluate_run(run, {"q": labels}, ["nDCG@2"]).means()["nDCG@2"]
    assert trec_eval == pytest.approx(1.0)
    # with 30 labels the rules agree: linear gains, log2(rank + 1) discount, the ideal of every grade
    labels = {f"d{i}": 0 for i in range(28)} | {"a": 2, "b": 3}
    assert lecard_ndcg(ranking, labels, 2) == pytest.approx(1.0)
    assert lecard_ndcg(["d0", "a"], labels, 2) == pytest.approx((2 / math.log2(3)) / ideal)
    assert lecard_ndcg(["d0"], labels, 2) == 0.0
