"""Zero-shot re-ranking evaluation during training, through eval/: every collection format eval reads, its metrics,
the one scorer, fused figures, and the dev/test separation."""

from __future__ import annotations

import pytest
import torch

from tests.conftest import SAMPLES
from tests.training.conftest import DL20_MINI
from wikiformer_kit.eval.collections import load_collection
from wikiformer_kit.eval.metrics import evaluate_run
from wikiformer_kit.eval.splits import query_part
from wikiformer_kit.training.arguments import DataArguments
from wikiformer_kit.training.evaluation import load_eval_set, load_rerank_eval, load_test_sets, rerank_metrics

CRANFIELD_MINI = SAMPLES / "eval" / "cranfield-mini"  # SMART
NPL_MINI = SAMPLES / "eval" / "npl-mini"  # TREC SGML


class ScoreByLength(torch.nn.Module):
    """A stand-in ranker with a known order: longer pairs score higher (a real model is tested elsewhere)."""

    def __init__(self):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(1))
        self.config = type("Config", (), {"max_position_embeddings": 512})()

    def forward(self, input_ids, attention_mask, token_type_ids=None):
        return type("Output", (), {"logits": attention_mask.sum(dim=1, keepdim=True).float() * self.weight})()


def test_dl20_metrics_are_evals_trec_eval_numbers(minilm_tokenizer):
    eval_set = load_rerank_eval(DataArguments(eval_dir=str(DL20_MINI), eval_max_queries=3, eval_depth=10))
    assert eval_set.relevance_level == 2 and len(eval_set.query_ids) == 3  # collection.json, read by eval only
    assert all(len(docs) == 10 for docs in eval_set.candidates.values())
    metrics, run = rerank_metrics(ScoreByLength(), minilm_tokenizer, eval_set, batch_size=7, max_length=64)
    collection = eval_set.collection
    lengths = {
        docid: len(
            minilm_tokenizer(
                collection.queries[qid], collection.documents[docid], truncation="longest_first", max_length=64
            )["input_ids"]
        )
        for qid in run
        for docid in run[qid]
    }
    assert all(run[qid][docid] == lengths[docid] for qid in run for docid in run[qid])
    expected = evaluate_run(run, eval_set.qrels, ["nDCG@10", "RR@10"], 2).means()
    assert metrics["ndcg@10"] == pytest.approx(expected["nDCG@10"]) and metrics["mrr@10"] == pytest.approx(
        expected["RR@10"]
    )
    assert {"fused_ndcg@10", "fused_mrr@10"} <= set(metrics)  # the given BM25 run has scores


@pytest.mark.parametrize(("folder", "queries"), [(CRANFIELD_MINI, "smart"), (NPL_MINI, "trec-sgml")])
def test_smart_and_trec_sgml_collections_with_bm25_at_depth_100(folder, queries, minilm_tokenizer):
    eval_set = load_rerank_eval(DataArguments(eval_dir=str(folder)))
    collection = load_collection(str(folder))
    assert eval_set.query_ids == collection.judged_query_ids()  # all judged queries
    assert eval_set.first_stage == "bm25"
    assert all(len(docs) == min(100, len(collection.documents)) for docs in eval_set.candidates.values())
    metrics, run = rerank_metrics(ScoreByLength(), minilm_tokenizer, eval_set, batch_size=64, max_length=32)
    assert set(run) == set(eval_set.candidates) and 0 <= metrics["ndcg@10"] <= 1


def test_dev_and_test_parts_never_overlap():
    dev = load_eval_set(f"{CRANFIELD_MINI}#dev")
    test = load_eval_set(f"{CRANFIELD_MINI}#test")
    assert dev.query_ids and test.query_ids and not set(dev.query_ids) & set(test.query_ids)
    assert all(query_part(q) == "dev" for q in dev.query_ids) and dev.name.endswith("-dev")
    args = DataArguments(eval_dir=f"{CRANFIELD_MINI}#dev", test_dirs=[f"{CRANFIELD_MINI}#test", str(NPL_MINI)])
    assert load_rerank_eval(args) is not None and len(load_test_sets(args)) == 2


@pytest.mark.parametrize("test", [str(DL20_MINI), f"{DL20_MINI}#dev", str(DL20_MINI) + "/"])
def test_selecting_on_a_test_collection_is_refused(test):
    with pytest.raises(ValueError, match="never chosen on the test set"):
        load_rerank_eval(
            DataArguments(eval_dir=f"{DL20_MINI}#dev" if "#" in test else str(DL20_MINI), test_dirs=[test])
        )


def test_a_dev_collection_without_judgments_is_refused(tmp_path):
    (tmp_path / "candidates.json").write_text((DL20_MINI / "candidates.json").read_text())
    with pytest.raises(ValueError, match="no judgments"):
        load_rerank_eval(DataArguments(eval_dir=str(tmp_path)))


def test_bad_fusion_settings_are_refused():
    with pytest.raises(ValueError, match=r"alpha must be in \[0, 1\]"):
        load_rerank_eval(DataArguments(eval_dir=str(DL20_MINI), eval_fusion_alpha=2.0))


@pytest.mark.parametrize("name", ["wikiformer-bert-base.yaml", "cpu-hour.yaml"])
def test_configs_select_on_a_dev_collection_that_is_no_test_collection(name):
    from tests.conftest import PROJECT_ROOT
    from wikiformer_kit.eval.splits import same_source
    from wikiformer_kit.training.arguments import parse_arguments

    _, data, _ = parse_arguments([str(PROJECT_ROOT / "wikiformer_kit" / "configs" / name), "--use_cpu", "true"])
    assert data.eval_dir and data.test_dirs and data.eval_depth >= 30
    assert not any(same_source(data.eval_dir, test) for test in data.test_dirs)
    assert any("trec-dl-2020" in test for test in data.test_dirs)
