"""Metric values against hand-computed cases (inline TREC data, as ir_measures tests do) and the vendored sample."""

from __future__ import annotations

import math

import pytest

from tests.conftest import shared_data
from tests.eval.conftest import DL20_MINI
from wikiformer_kit.eval.collections import load_collection
from wikiformer_kit.eval.metrics import DEFAULT_MEASURES, evaluate_run, parse_measure

# q1 retrieves d1 (non-relevant), d2 (grade 1), d3 (grade 2); d9 (grade 1) is never retrieved
QRELS = {"q1": {"d1": 0, "d2": 1, "d3": 2, "d9": 1}}
RUN = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}


def test_hand_computed_values_at_relevance_level_1():
    means = evaluate_run(RUN, QRELS, ["RR@10", "P@5", "AP", "R@100", "nDCG@10", "nDCG@2"], relevance_level=1).means()
    assert means["RR@10"] == pytest.approx(1 / 2)
    assert means["P@5"] == pytest.approx(2 / 5)  # trec_eval divides by the cutoff
    assert means["AP"] == pytest.approx((1 / 2 + 2 / 3) / 3)  # the unretrieved relevant d9 counts
    assert means["R@100"] == pytest.approx(2 / 3)
    ideal = 2 + 1 / math.log2(3) + 1 / math.log2(4)
    assert means["nDCG@10"] == pytest.approx((1 / math.log2(3) + 2 / math.log2(4)) / ideal)
    assert means["nDCG@2"] == pytest.approx((1 / math.log2(3)) / (2 + 1 / math.log2(3)))


def test_relevance_level_applies_to_binary_measures_only():
    means = evaluate_run(RUN, QRELS, ["RR@10", "AP", "P@5", "nDCG@10"], relevance_level=2).means()
    assert means["RR@10"] == pytest.approx(1 / 3)
    assert means["AP"] == pytest.approx(1 / 3)
    assert means["P@5"] == pytest.approx(1 / 5)
    assert means["nDCG@10"] == evaluate_run(RUN, QRELS, ["nDCG@10"], relevance_level=1).means()["nDCG@10"]
    assert parse_measure("RR(rel=3)@10", relevance_level=2).measure.params["rel"] == 3


def test_rr_cutoff_is_applied():
    run = {"q1": {f"n{i:02d}": 100.0 - i for i in range(10)} | {"d2": 50.0}}  # first relevant at rank 11
    means = evaluate_run(run, QRELS, ["RR@10", "RR@100"]).means()
    assert means == {"RR@10": 0.0, "RR@100": pytest.approx(1 / 11)}


def test_ties_are_broken_by_descending_docid_like_trec_eval():
    means = evaluate_run({"q1": {"d2": 1.0, "d8": 1.0}}, {"q1": {"d2": 1}}, ["RR@10"]).means()
    assert means["RR@10"] == pytest.approx(1 / 2)


def test_unjudged_and_missing_queries_follow_trec_eval(caplog):
    qrels = {**QRELS, "q2": {"d1": 1}}
    run = {**RUN, "q3": {"d1": 1.0}}
    evaluation = evaluate_run(run, qrels, ["RR@10"])
    assert evaluation.query_ids == ["q1"]  # q3 has no judgments, q2 was not retrieved: both left out
    assert evaluation.means()["RR@10"] == pytest.approx(0.5)
    assert any("1 of 2 run queries have no judgments" in n for n in evaluation.notes)
    assert any("1 of 2 judged queries are not in the run" in n for n in evaluation.notes)
    complete = evaluate_run(run, qrels, ["RR@10"], complete=True)  # trec_eval -c
    assert complete.query_ids == ["q1", "q2"] and complete.means()["RR@10"] == pytest.approx(0.25)


def test_mismatched_ids_are_clear_errors():
    with pytest.raises(ValueError, match=r"no query id in common \(the ids differ only by leading zeros\)"):
        evaluate_run({"001": {"d1": 1.0}}, {"1": {"d1": 1}})
    with pytest.raises(ValueError, match=r"run \(1 queries, e.g. \['x'\]\) and the qrels \(1 queries"):
        evaluate_run({"x": {"d1": 1.0}}, {"1": {"d1": 1}})
    evaluation = evaluate_run({"1": {"D1": 1.0}}, {"1": {"d1": 1}}, ["AP"])
    assert "1 of 1 queries retrieve no judged document (document ids mismatched?)" in evaluation.notes


def test_unknown_measure():
    with pytest.raises(ValueError, match="unknown measure 'nDCGG@10'"):
        evaluate_run(RUN, QRELS, ["nDCGG@10"])


def _ndcg_by_hand(ranking: dict[str, float], judged: dict[str, int], k: int) -> float:
    order = sorted(ranking, key=lambda d: (ranking[d], d), reverse=True)[:k]
    dcg = sum(max(judged.get(d, 0), 0) / math.log2(i + 2) for i, d in enumerate(order))
    ideal = sorted((g for g in judged.values() if g > 0), reverse=True)[:k]
    return dcg / sum(g / math.log2(i + 2) for i, g in enumerate(ideal))


def test_vendored_dl20_sample_against_formulas():
    collection = load_collection(str(DL20_MINI))
    run = collection.runs["bm25"]
    evaluation = evaluate_run(run, collection.qrels, DEFAULT_MEASURES, relevance_level=2)
    assert len(evaluation.query_ids) == 10
    for qid in collection.qrels:
        expected = _ndcg_by_hand(run[qid], collection.qrels[qid], 10)
        assert evaluation.per_query["nDCG@10"][qid] == pytest.approx(expected)
        order = sorted(run[qid], key=lambda d: (run[qid][d], d), reverse=True)
        first = next((i + 1 for i, d in enumerate(order) if collection.qrels[qid].get(d, 0) >= 2), None)
        assert evaluation.per_query["RR@10"][qid] == pytest.approx(1 / first if first and first <= 10 else 0.0)
    # query 156498 (qrels.txt, bm25.run): top-10 grades 0 2 0 0 3 0 0 0 1 0; best grades 3 2 2 2 2 2 2 1 1 1
    log2 = math.log2
    dcg = 2 / log2(3) + 3 / log2(6) + 1 / log2(10)
    idcg = (
        3
        + 2 / log2(3)
        + 2 / 2
        + 2 / log2(5)
        + 2 / log2(6)
        + 2 / log2(7)
        + 2 / 3
        + 1 / log2(9)
        + 1 / log2(10)
        + 1 / log2(11)
    )
    assert evaluation.per_query["nDCG@10"]["156498"] == pytest.approx(dcg / idcg)
    assert evaluation.per_query["RR@10"]["156498"] == pytest.approx(1 / 2)
    assert evaluation.per_query["P@10"]["156498"] == pytest.approx(2 / 10)
    assert evaluation.to_dict()["num_queries"] == 10


@pytest.mark.shared_data
def test_dl20_bm25_matches_trec_eval():
    collection = load_collection(str(shared_data("eval/trec_dl20_passage")), relevance_level=2)
    for name in ("trec_results_dl20", "retrieve_results_dl20"):
        means = evaluate_run(collection.runs[name], collection.qrels, ["nDCG@10", "RR@10"], relevance_level=2).means()
        assert round(means["nDCG@10"], 4) == 0.4796
        assert round(means["RR@10"], 4) == 0.6533
