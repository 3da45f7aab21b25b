"""Zero-shot re-ranking evaluation: metrics from ir_measures on the vendored DL20 mini sample."""

from __future__ import annotations

import pytest
import torch

from tests.training.conftest import DL20_MINI
from training.arguments import DataArguments
from training.evaluation import load_rerank_eval, rerank_metrics


@pytest.fixture(scope="module")
def eval_set():
    if not (DL20_MINI / "candidates.json").exists():
        pytest.skip("data/samples/eval/dl20-mini not vendored")
    return load_rerank_eval(DataArguments(eval_dir=str(DL20_MINI), eval_max_queries=3, eval_depth=10))


class ScoreByLength(torch.nn.Module):
    """A stand-in ranker with a known order: longer pairs score higher (a real model is tested elsewhere)."""

    def __init__(self):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(1))

    def forward(self, input_ids, attention_mask, token_type_ids=None):
        return type("Output", (), {"logits": attention_mask.sum(dim=1, keepdim=True).float() * self.weight})()


def test_metrics_are_trec_eval_numbers_of_the_run(eval_set, minilm_tokenizer):
    import ir_measures
    from ir_measures import RR, nDCG

    assert eval_set.relevance_level == 2 and len(eval_set.queries) == 3  # from collection.json
    assert all(len(docs) == 10 for _, _, docs in eval_set.queries)
    metrics, run = rerank_metrics(ScoreByLength(), minilm_tokenizer, eval_set, batch_size=7, max_length=64)
    lengths = {
        docid: len(minilm_tokenizer(query, text, truncation="only_second", max_length=64)["input_ids"])
        for _, query, docs in eval_set.queries
        for docid, text in docs
    }
    assert all(run[qid][docid] == lengths[docid] for qid in run for docid in run[qid])
    qrels = list(ir_measures.read_trec_qrels(str(eval_set and (DL20_MINI / "qrels.txt"))))
    expected = ir_measures.calc_aggregate([nDCG @ 10, RR(rel=2) @ 10], qrels, run)
    assert metrics == {"ndcg@10": pytest.approx(expected[nDCG @ 10]), "mrr@10": pytest.approx(expected[RR(rel=2) @ 10])}
    assert 0 < metrics["ndcg@10"] < 1
