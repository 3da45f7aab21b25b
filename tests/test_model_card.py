"""The model card: raw and fused figures side by side, the stored fusion and how to fuse without remote code."""

from __future__ import annotations

import json

import pytest
import yaml

from wikiformer_kit.model_card import CardInputs, Evaluation, render_model_card


def test_raw_and_fused_side_by_side_with_the_stored_fusion():
    systems = {"bm25": {"nDCG@10": 0.5}, "ours": {"nDCG@10": 0.45}, "ours+bm25": {"nDCG@10": 0.55}}
    evaluation = Evaluation("dl20-mini", "dl20-mini", systems, "ours", fused_system="ours+bm25")
    card = str(
        render_model_card(
            CardInputs(
                repo_id="ns/wikiformer", base_model="b", evaluation=evaluation, fusion=("minmax", 0.6, "cranfield-dev")
            )
        )
    )
    assert "| **ours** (this model) | 0.4500 |" in card
    assert "| **ours+bm25** (this model fused with the first stage) | **0.5500** |" in card
    results = yaml.safe_load(card.split("---")[1])["model-index"][0]["results"]
    assert [(r["task"]["type"], [m["value"] for m in r["metrics"]]) for r in results] == [
        ("text-ranking", [0.45]),
        ("text-retrieval", [0.55]),
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


def test_each_collection_says_what_was_chosen_on_it_its_queries_and_significance():
    systems = {"bm25": {"nDCG@10": 0.5}, "ours": {"nDCG@10": 0.3}, "ours+bm25": {"nDCG@10": 0.52}}
    p_values = {"ours": {"nDCG@10": 0.0004}, "ours+bm25": {"nDCG@10": 0.41}}
    test = Evaluation(
        "dl20-mini", "dl20-mini", systems, "ours", 2, fused_system="ours+bm25", num_queries=10, reference="bm25",
        p_values=p_values,
    )  # fmt: skip
    dev = Evaluation(
        "wikir-en-validation", "wikir-en-validation", systems, "ours", 1, fused_system="ours+bm25", num_queries=10,
        chosen_on="the checkpoint and the fusion",
    )  # fmt: skip
    card = str(render_model_card(CardInputs(repo_id="ns/w", base_model="b", evaluation=test, more_evaluations=[dev])))
    assert "**dl20-mini**, **test**: nothing was chosen on these 10 queries; binary measures at relevance ≥ 2" in card
    assert "**wikir-en-validation**, **dev**: the checkpoint and the fusion were chosen on these 10 queries" in card
    assert "| **ours** (this model) | 0.3000 (p < 0.001 ▼) |" in card and "**0.5200** (p = 0.410) |" in card
    results = yaml.safe_load(card.split("---")[1])["model-index"][0]["results"]
    # raw and fused are entries of their own (text-ranking, text-retrieval); a dev collection says so in its name
    assert [(r["task"]["type"], r["dataset"]["name"]) for r in results] == [
        ("text-ranking", "dl20-mini"),
        ("text-retrieval", "dl20-mini"),
        ("text-ranking", "wikir-en-validation (dev)"),
        ("text-retrieval", "wikir-en-validation (dev)"),
    ]


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
    """Metadata the Hub reads: model-index entries huggingface_hub parses back, with a dataset id, split and setup;
    library and tags that agree; a widget; the chart; snippets that name the repo."""
    from huggingface_hub import ModelCard

    systems = {"bm25": {"nDCG@10": 0.5, "RR@10": 0.6}, "w": {"nDCG@10": 0.4, "RR@10": 0.5}}
    systems["w+bm25"] = {"nDCG@10": 0.55, "RR@10": 0.65}
    metrics = tmp_path / "metrics.json"
    metrics.write_text(json.dumps({name: {"means": means, "relevance_level": 2} for name, means in systems.items()}))
    evaluation = Evaluation.from_metrics_json(
        metrics, "w", "dl20-mini", fused_system="w+bm25", setup={"candidates": "bm25", "depth": 20}
    )
    inputs = CardInputs(repo_id="ns/wikiformer", base_model="b/c", evaluation=evaluation, chart="comparison.png")
    text = str(render_model_card(inputs))
    card = ModelCard(text)  # parses the YAML and the model-index, or raises
    data = card.data
    assert data.library_name == "sentence-transformers" and "sentence-transformers" in data.tags
    assert data.pipeline_tag == "text-ranking" and data.widget[0]["source_sentence"]
    results = data.eval_results
    assert {(r.dataset_type, r.dataset_split, r.dataset_args["depth"]) for r in results} == {
        ("Tevatron/msmarco-passage", "dl20", 20)
    }
    assert sorted((r.task_name, r.metric_type, r.metric_value) for r in results) == [
        ("First stage fused with this re-ranker", "mrr_at_10", 0.65),
        ("First stage fused with this re-ranker", "ndcg_at_10", 0.55),
        ("Re-ranking the first stage", "mrr_at_10", 0.5),
        ("Re-ranking the first stage", "ndcg_at_10", 0.4),
    ]
    assert "](comparison.png)" in text and "hatched bars are significantly worse" in text
    snippets = [block for block in text.split("```")[1::2] if "from_pretrained(" in block or "CrossEncoder(" in block]
    assert snippets and all('"ns/wikiformer"' in block for block in snippets)
    assert 'backend="onnx"' in text and "transformers 4.46 to 5.x" in text
    assert "up to 512 tokens" in text
