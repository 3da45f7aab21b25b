"""``WikiformerForRanking.rerank`` with first-stage scores: the fused order, the stored fusion, bad input."""

from __future__ import annotations

import pytest
import torch
from transformers import AutoTokenizer

from wikiformer_kit.modeling_wikiformer import WikiformerConfig, WikiformerForRanking, fuse_scores

from .conftest import minilm_path

DOCS = ["Albedo is the fraction of light a surface reflects.", "Paris is in France.", "A wiki is a website.", "x"]
BM25 = [3.0, 9.0, 1.0, 5.0]


@pytest.fixture(scope="module")
def tokenizer():
    return AutoTokenizer.from_pretrained(minilm_path())


def _model(tokenizer, **fusion) -> WikiformerForRanking:
    torch.manual_seed(0)
    config = WikiformerConfig(
        vocab_size=tokenizer.vocab_size, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
        intermediate_size=64, **fusion,
    )  # fmt: skip
    return WikiformerForRanking(config)


def test_rerank_fuses_with_the_first_stage(tokenizer):
    model = _model(tokenizer)
    raw = model.score("what is albedo", DOCS, tokenizer).tolist()
    fused = fuse_scores(raw, BM25, "minmax", 0.4)
    ranked = model.rerank("what is albedo", DOCS, tokenizer, first_stage_scores=BM25, fusion="minmax", alpha=0.4)
    assert [r["corpus_id"] for r in ranked] == sorted(range(4), key=lambda i: -fused[i])
    assert [r["score"] for r in ranked] == pytest.approx(sorted(fused, reverse=True))
    assert {r["corpus_id"]: r["model_score"] for r in ranked} == pytest.approx(dict(enumerate(raw)))
    plain = model.rerank("what is albedo", DOCS, tokenizer)
    assert [r["score"] for r in plain] == pytest.approx(sorted(raw, reverse=True)) and "model_score" not in plain[0]


def test_the_stored_fusion_is_the_default(tokenizer):
    model = _model(tokenizer, fusion_method="rrf", fusion_alpha=0.2)
    raw = model.score("q", DOCS, tokenizer).tolist()
    ranked = model.rerank("q", DOCS, tokenizer, first_stage_scores=BM25)
    assert [r["score"] for r in ranked] == pytest.approx(sorted(fuse_scores(raw, BM25, "rrf", 0.2), reverse=True))
    default = _model(tokenizer).rerank("q", DOCS, tokenizer, first_stage_scores=BM25)  # none stored: zscore, 0.7
    assert [r["score"] for r in default] == pytest.approx(sorted(fuse_scores(raw, BM25, "zscore", 0.7), reverse=True))


def test_bad_fusion_input_is_refused(tokenizer):
    model = _model(tokenizer)
    with pytest.raises(ValueError, match="need first_stage_scores"):
        model.rerank("q", DOCS, tokenizer, alpha=0.5)
    with pytest.raises(ValueError, match=r"alpha must be in \[0, 1\]"):
        model.rerank("q", DOCS, tokenizer, first_stage_scores=BM25, alpha=1.2)
    with pytest.raises(ValueError, match="4 model scores for 3"):
        model.rerank("q", DOCS, tokenizer, first_stage_scores=BM25[:3])
    with pytest.raises(ValueError, match="finite"):
        model.rerank("q", DOCS, tokenizer, first_stage_scores=[1.0, None, 2.0, 3.0])
