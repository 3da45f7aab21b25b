"""The model card: raw and fused figures side by side, the stored fusion and how to fuse without remote code."""

from __future__ import annotations

import json

import pytest
import yaml

from wikiformer_kit.eval.report import Comparison
from wikiformer_kit.model_card import CardInputs, Evaluation, render_model_card


def test_raw_and_fused_side_by_side_with_the_stored_fusion():
    systems = {"bm25": {"nDCG@10": 0.5}, "ours": {"nDCG@10": 0.45}, "ours+bm25": {"nDCG@10": 0.55}}
    evaluation = Evaluation("dl20-mini", "dl20-mini", systems, "ours", fused_system="ours+bm25", first_stage="bm25")
    card = str(
        render_model_card(
            CardInputs(
                repo_id="ns/wikiformer", base_model="b", evaluation=evaluation, fusion=("minmax", 0.6, "cranfield-dev")
            )
        )
    )
    assert "| ours (this model) | 0.4500 |" in card
    assert "| ours + BM25 (fusion) | **0.5500** |" in card and "| BM25 | 0.5000 |" in card
    results = yaml.safe_load(card.split("---")[1])["model-index"][0]["results"]
    assert [(r["task"]["type"], r["task"]["name"], [m["value"] for m in r["metrics"]]) for r in results] == [
        ("text-ranking", "ours: re-ranking the first stage's candidates", [0.45]),
        ("text-retrieval", "ours + BM25 (fusion)", [0.55]),
    ]
    assert "**cranfield-dev**" in card and "`fusion_method: minmax`, `fusion_alpha: 0.6`" in card
    assert "fused = 0.6 * normalise(model_scores)" in card and "x.min()" in card


def test_without_a_stored_fusion_the_card_names_the_default():
    card = str(render_model_card(CardInputs(repo_id="ns/wikiformer", base_model="b")))
    assert "z-scores with `alpha = 0.7`" in card and "tune-fusion --save" in card
    assert "x.std()" in card and "fused = 0.7 * normalise(model_scores)" in card


@pytest.mark.parametrize("method", ["zscore", "minmax", "rrf"])
def test_the_cards_numpy_snippet_equals_the_kits_fusion(method):
    from wikiformer_kit.modeling_wikiformer import fuse_scores

    card = str(render_model_card(CardInputs(repo_id="ns/w", base_model="b", fusion=(method, 0.6, "dev"))))
    snippet = card.split("```python\nimport numpy as np")[1].split("```")[0]
    model_scores, bm25_scores = [2.0, -1.0, 0.5, 0.5], [10.0, 30.0, 20.0, 11.0]
    scope = {"model_scores": model_scores, "bm25_scores": bm25_scores}
    exec("import numpy as np" + snippet, scope)
    assert list(scope["fused"]) == pytest.approx(fuse_scores(model_scores, bm25_scores, method, 0.6))


def test_each_collection_says_what_was_chosen_on_it_and_only_tests_are_results():
    means = {"bm25": {"nDCG@10": 0.5}, "ours": {"nDCG@10": 0.3}, "ours+bm25": {"nDCG@10": 0.52}}
    comparison = Comparison(
        "dl20-mini", ["nDCG@10"], means, worse={"ours": {"nDCG@10": True}, "ours+bm25": {"nDCG@10": False}},
        p_values={"ours": {"nDCG@10": 0.0004}, "ours+bm25": {"nDCG@10": 0.41}}, reference="bm25", num_queries=10,
        relevance_level=2,
    )  # fmt: skip
    test = Evaluation.from_comparison(comparison, "ours", fused_system="ours+bm25", depth=20, max_length=256)
    dev = Evaluation(
        "wikir-en-validation", "wikir-en-validation", means, "ours", 1, fused_system="ours+bm25", num_queries=10,
        chosen_on="the checkpoint and the fusion",
    )  # fmt: skip
    card = str(render_model_card(CardInputs(repo_id="ns/w", base_model="b", evaluation=test, more_evaluations=[dev])))
    assert (
        "**dl20-mini (a sample of TREC Deep Learning 2020 passage ranking, on MS MARCO passages): 10 queries, BM25 "
        "top 20, pairs of up to 256 tokens**; **test**: nothing was chosen on these queries." in card
    )
    assert (
        "**wikir-en-validation: 10 queries**; **selection figures**: the checkpoint and the fusion were chosen" in card
    )
    # the verdict of the comparison, with the marks of python -m eval compare's table.md, and the p-values
    assert "| ours (this model) | 0.3000\\* |" in card and "| ours + BM25 (fusion) | **0.5200** |" in card
    assert "Binary measures count grades >= 2 as relevant. * = significantly worse than BM25" in card
    assert "p against BM25: ours (this model): nDCG@10 0.000; ours + BM25 (fusion): nDCG@10 0.410." in card
    results = yaml.safe_load(card.split("---")[1])["model-index"][0]["results"]
    # raw and fused are entries of their own (text-ranking, text-retrieval); selection figures are none
    assert [(r["task"]["type"], r["dataset"]["type"]) for r in results] == [
        ("text-ranking", "dl20-mini"),
        ("text-retrieval", "dl20-mini"),
    ]
    assert card.index("### Selection figures (not results)") < card.index("**wikir-en-validation")


def test_a_card_with_only_selection_figures_has_no_model_index():
    systems = {"bm25": {"nDCG@10": 0.5}, "ours": {"nDCG@10": 0.3}}
    dev = Evaluation("dev", "dev", systems, "ours", chosen_on="the checkpoint")
    card = str(render_model_card(CardInputs(repo_id="ns/w", base_model="b", evaluation=dev)))
    assert "model-index" not in card.split("---")[1] and "the figures below are selection figures only" in card
    assert "the checkpoint was chosen on these queries" in card


def test_the_card_says_when_the_fused_model_does_not_beat_the_first_stage():
    evidence = {
        "dev_collection": "wikir-en-validation", "measure": "nDCG@10", "beats_first_stage": False, "folds": 5,
        "dev_queries": 10, "estimate": 0.9, "interval": [0.8, 1.0], "first_stage": 0.9, "gain": 0.0,
        "gain_interval": [0.0, 0.0],
    }  # fmt: skip
    inputs = CardInputs(
        repo_id="ns/w", base_model="b", fusion=("zscore", 0.0, "wikir-en-validation"), fusion_evidence=evidence
    )
    card = str(render_model_card(inputs))
    assert (
        "5-fold cross-validation over the 10 dev queries" in card and "0.9000 (95% interval 0.8000 to 1.0000)" in card
    )
    assert "does not beat the first stage beyond the folds' noise" in card and "`fusion_alpha: 0.0`" in card
    evidence |= {"beats_first_stage": True, "gain": 0.03}
    assert "does not beat" not in str(render_model_card(inputs))


def test_the_card_is_hub_ready(tmp_path):
    """Metadata the Hub reads: model-index entries huggingface_hub parses back, with the collection's own id and
    what was evaluated on it; library, pipeline and tags of a sentence-transformers CrossEncoder card (text-ranking,
    no widget: the Hub has none for pairs); the chart; snippets that name the repo."""
    from huggingface_hub import ModelCard

    systems = {"bm25": {"nDCG@10": 0.5, "RR@10": 0.6}, "w": {"nDCG@10": 0.4, "RR@10": 0.5}}
    systems["w+bm25"] = {"nDCG@10": 0.55, "RR@10": 0.65}
    metrics = tmp_path / "metrics.json"
    payload = {name: {"means": means, "relevance_level": 2, "num_queries": 10} for name, means in systems.items()}
    metrics.write_text(json.dumps(payload))
    evaluation = Evaluation.from_metrics_json(
        metrics, "w", "dl20-mini", fused_system="w+bm25", first_stage="bm25", depth=20, max_length=256
    )
    inputs = CardInputs(repo_id="ns/wikiformer", base_model="b/c", evaluation=evaluation, chart="comparison.png")
    text = str(render_model_card(inputs))
    card = ModelCard(text)  # parses the YAML and the model-index, or raises
    data = card.data
    assert data.library_name == "sentence-transformers" and "sentence-transformers" in data.tags
    assert data.pipeline_tag == "text-ranking" and "widget" not in data.to_dict()
    results = data.eval_results
    assert {(r.dataset_type, r.dataset_split, r.dataset_args["depth"], r.dataset_args["queries"]) for r in results} == {
        ("dl20-mini", None, 20, 10)
    }
    assert sorted((r.task_name, r.metric_name, r.metric_type, r.metric_value) for r in results) == [
        ("w + BM25 (fusion)", "MRR@10", "mrr_at_10", 0.65),
        ("w + BM25 (fusion)", "nDCG@10", "ndcg_at_10", 0.55),
        ("w: re-ranking the first stage's candidates", "MRR@10", "mrr_at_10", 0.5),
        ("w: re-ranking the first stage's candidates", "nDCG@10", "ndcg_at_10", 0.4),
    ]
    assert "](comparison.png)" in text and "* marks a bar significantly worse, † significantly better" in text
    snippets = [block for block in text.split("```")[1::2] if "from_pretrained(" in block or "CrossEncoder(" in block]
    assert snippets and all('"ns/wikiformer"' in block for block in snippets)
    assert 'backend="onnx"' in text and "transformers 4.46 to 5.x" in text
    assert "up to 512 tokens" in text


def test_the_crossencoder_snippet_runs_as_shown(tmp_path):
    """The card's CrossEncoder example (sentence-transformers' own card format: pairs, predict, rank) on a saved
    folder: the pairs score and the ranking covers both texts."""
    from transformers import AutoTokenizer

    from tests.modeling.conftest import minilm_path
    from wikiformer_kit.modeling_wikiformer import WikiformerForRanking, save_for_hub

    folder = save_for_hub(WikiformerForRanking.from_bert(minilm_path()), AutoTokenizer.from_pretrained(minilm_path()),
                          tmp_path / "w", max_length=64)  # fmt: skip
    text = str(render_model_card(CardInputs(repo_id=str(folder), base_model="b")))
    snippet = text.split("As a sentence-transformers `CrossEncoder`:\n\n```python\n", 1)[1].split("```", 1)[0]
    scope: dict = {}
    exec(snippet, scope)
    assert len(scope["scores"]) == 2 and sorted(r["corpus_id"] for r in scope["ranks"]) == [0, 1]


def nanobeir_record(chosen_on: str = ""):
    from wikiformer_kit.eval.nanobeir_report import NanoBEIRRecord

    figures = {"NanoMSMARCO_R100": 0.61, "NanoNQ_R100": 0.55, "NanoBEIR_R100_mean": 0.58}
    results = {
        f"{prefix}_{base}{metric}": value - (0.1 if base else 0.0) - offset
        for prefix, value in figures.items()
        for base in ("", "base_")
        for metric, offset in (("ndcg@10", 0.0), ("mrr@10", 0.01), ("map", 0.02))
    }
    return NanoBEIRRecord("ns/model", "sentence-transformers/NanoBEIR-en", ["msmarco", "nq"], 100, 10, True,
                          results, chosen_on)  # fmt: skip


def test_nanobeir_figures_are_in_model_index_as_sentence_transformers_writes_them():
    card = render_model_card(CardInputs(repo_id="ns/model", base_model="base", nanobeir=nanobeir_record()))
    entries = {(r.task_type, r.dataset_type, r.metric_type): r.metric_value for r in card.data.eval_results}
    assert entries[("cross-encoder-nano-beir", "NanoBEIR_R100_mean", "ndcg@10")] == 0.58
    assert entries[("cross-encoder-reranking", "NanoMSMARCO_R100", "mrr@10")] == 0.6
    assert entries[("cross-encoder-reranking", "NanoNQ_R100", "map")] == 0.53
    assert len(entries) == 9  # map, mrr@10, ndcg@10 of 2 sets and their mean
    names = {r.dataset_name for r in card.data.eval_results}
    assert names == {"NanoMSMARCO R100", "NanoNQ R100", "NanoBEIR R100 mean"}
    assert "### NanoBEIR, as re-ranker model cards report it" in card.content
    assert "| **mean of 2 sets** | 0.5800 | 0.4800 |" in card.content
    assert "No evaluation was run" not in card.content


def test_nanobeir_figures_that_chose_the_checkpoint_are_no_result():
    card = render_model_card(
        CardInputs(repo_id="ns/model", base_model="base", nanobeir=nanobeir_record("the checkpoint"))
    )
    assert not card.data.eval_results
    assert "### Selection figures (not results)" in card.content
    assert "**selection figures**: the checkpoint was chosen on these queries" in card.content
