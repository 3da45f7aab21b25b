"""WikiformerConfig and the Wikiformer models in process: shapes, losses, gradients, attention backends, scoring."""

from __future__ import annotations

import pytest
import torch
from huggingface_hub.errors import StrictDataclassFieldValidationError

from tests.modeling.conftest import DOCUMENTS, QUERY, tiny_config
from wikiformer_kit.modeling_wikiformer import WikiformerForPreTraining, WikiformerForRanking


def encode(tokenizer, documents=DOCUMENTS, max_length=64):
    return tokenizer(
        [QUERY] * len(documents), documents, padding=True, truncation=True, max_length=max_length, return_tensors="pt"
    )


def test_config_is_bert_with_one_label_and_paper_lengths():
    config = tiny_config()
    assert config.model_type == "bert"
    assert config.num_labels == 1
    assert (config.query_max_length, config.document_max_length) == (30, 480)


def test_config_refuses_several_labels_and_wrong_field_types():
    with pytest.raises(ValueError, match="one relevance logit"):
        tiny_config(num_labels=2)
    with pytest.raises(StrictDataclassFieldValidationError):
        tiny_config(query_max_length="thirty")


def test_forward_gives_one_logit_per_pair_and_a_loss_with_labels(tiny_model, tokenizer):
    inputs = encode(tokenizer)
    output = tiny_model(**inputs, labels=torch.tensor([1.0, 0.0, 1.0, 0.0, 0.0]))
    assert output.logits.shape == (len(DOCUMENTS), 1)
    assert output.loss.ndim == 0 and output.loss.item() > 0
    logits, *_ = tiny_model(**inputs, return_dict=False)
    torch.testing.assert_close(logits, output.logits)


def test_gradients_reach_the_head_and_the_encoder(tokenizer):
    torch.manual_seed(1)
    model = WikiformerForRanking(tiny_config()).train()
    model(**encode(tokenizer), labels=torch.tensor([1.0, 0.0, 1.0, 0.0, 0.0])).loss.backward()
    for name in ("classifier.weight", "bert.pooler.dense.weight", "bert.embeddings.word_embeddings.weight"):
        grad = model.get_parameter(name).grad
        assert grad is not None and grad.abs().sum() > 0, name


def test_sdpa_is_the_default_and_agrees_with_eager_on_padded_batches(tiny_model, tokenizer):
    assert tiny_model.config._attn_implementation == "sdpa"
    inputs = encode(tokenizer)
    assert (inputs["attention_mask"] == 0).any()
    sdpa = tiny_model(**inputs).logits
    tiny_model.set_attn_implementation("eager")
    try:
        eager = tiny_model(**inputs).logits
    finally:
        tiny_model.set_attn_implementation("sdpa")
    torch.testing.assert_close(sdpa, eager, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("batch_size", [1, 2, 64])
def test_score_returns_input_order_whatever_the_batching(tiny_model, tokenizer, batch_size):
    one_by_one = torch.cat([tiny_model(**encode(tokenizer, [document])).logits.view(-1) for document in DOCUMENTS])
    scores = tiny_model.score(QUERY, DOCUMENTS, tokenizer, batch_size=batch_size, max_length=64)
    torch.testing.assert_close(scores, one_by_one, rtol=1e-5, atol=1e-6)
    assert (
        tiny_model.score([QUERY] * len(DOCUMENTS), DOCUMENTS, tokenizer, batch_size=batch_size, max_length=64).tolist()
        == scores.tolist()
    )


def test_score_rejects_mismatched_queries_and_accepts_no_documents(tiny_model, tokenizer):
    with pytest.raises(ValueError, match="2 queries for 5 documents"):
        tiny_model.score([QUERY, QUERY], DOCUMENTS, tokenizer)
    assert tiny_model.score(QUERY, [], tokenizer).shape == (0,)


def test_score_restores_training_mode(tokenizer):
    model = WikiformerForRanking(tiny_config()).train()
    model.score(QUERY, DOCUMENTS[:2], tokenizer)
    assert model.training


def test_rerank_sorts_best_first_and_keeps_top_k(tiny_model, tokenizer):
    scores = tiny_model.score(QUERY, DOCUMENTS, tokenizer, max_length=64)
    hits = tiny_model.rerank(QUERY, DOCUMENTS, tokenizer, max_length=64, top_k=3)
    assert [hit["corpus_id"] for hit in hits] == scores.argsort(descending=True)[:3].tolist()
    assert all(hit["text"] == DOCUMENTS[hit["corpus_id"]] for hit in hits)
    assert [hit["score"] for hit in hits] == sorted((hit["score"] for hit in hits), reverse=True)


def test_pretraining_model_has_tied_mlm_head_and_both_losses(tokenizer):
    torch.manual_seed(2)
    model = WikiformerForPreTraining(tiny_config())
    assert model.cls.predictions.decoder.weight is model.bert.embeddings.word_embeddings.weight
    inputs = encode(tokenizer)
    mlm_labels = torch.full_like(inputs["input_ids"], -100)
    mlm_labels[:, 2] = inputs["input_ids"][:, 2]
    output = model(**inputs, mlm_labels=mlm_labels, labels=torch.ones(len(DOCUMENTS)))
    assert output.logits.shape == (len(DOCUMENTS), 1)
    assert output.prediction_logits.shape == (*inputs["input_ids"].shape, 30522)
    assert output.loss > output.mlm_loss > 0
